// The JSON the v1 read answers, as the ceiling servers serve it: decoded once from BENCH_BODY (the real server's own
// answer), encoded by this schema on every request.
import { Schema } from "effect"

export const Workspace = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  personal: Schema.Boolean,
  createdAt: Schema.String
})

export const workspace = Schema.decodeUnknownSync(Schema.fromJsonString(Workspace))(process.env.BENCH_BODY ?? "{}")
