// Sign-in latency (dominated by Argon2id) and authenticated GET /api/mobile/organization throughput.
import autocannon, { type Result } from "autocannon"
import { fmt, percentile } from "./percentiles.ts"

const json = { "content-type": "application/json" }

/** Signs up a few users, times sequential sign-ins (within the per-email and per-address limits), then loads organization. */
export const mobileBench = async (baseUrl: string, seconds: number): Promise<{ readonly signIn: string; readonly organization: Result }> => {
  const users = Array.from({ length: 3 }, (_, i) => ({ email: `bench-${Date.now()}-${i}@example.com`, password: "correct horse battery", name: `Bench ${i}` }))
  let accessToken = ""
  for (const user of users) {
    const response = await fetch(`${baseUrl}/api/auth/sign-up`, { method: "POST", headers: json, body: JSON.stringify(user) })
    const body: { session?: { accessToken?: string } } = await response.json()
    accessToken = body.session?.accessToken ?? accessToken
  }
  const samples: Array<number> = []
  for (let round = 0; round < 8; round++) {
    for (const user of users) {
      const t0 = performance.now()
      const response = await fetch(`${baseUrl}/api/auth/sign-in`, { method: "POST", headers: json, body: JSON.stringify({ email: user.email, password: user.password }) })
      await response.arrayBuffer()
      if (response.status === 200) samples.push(performance.now() - t0)
    }
  }
  const organization = await autocannon({
    url: `${baseUrl}/api/mobile/organization`,
    connections: 64,
    duration: seconds,
    headers: { authorization: `Bearer ${accessToken}` }
  })
  return {
    signIn: `sign-in p50/p99 ${fmt(percentile(samples, 50), 1)} / ${fmt(percentile(samples, 99), 1)} ms over ${samples.length} sign-ins (Argon2id, 12 MiB, 3 passes)`,
    organization
  }
}
