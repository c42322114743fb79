// The baseline: a bare node:http server answering a fixed JSON body, as fast as Node serves anything.
import { createServer } from "node:http"

const body = process.env.BENCH_BODY ?? "{}"
const server = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
})
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address()
  process.stdout.write(`listening ${typeof address === "object" && address !== null ? address.port : 0}\n`)
})
process.on("SIGTERM", () => server.close(() => process.exit(0)))
