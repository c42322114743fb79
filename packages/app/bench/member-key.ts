// A bench's API key, made as a client would: a member signs up and creates a read key in their own workspace.
const json = { "content-type": "application/json" }

/** A fresh member's read-scoped key on the server at `baseUrl`; `label` names the account so runs can be told apart. */
export const memberKey = async (baseUrl: string, label: string): Promise<string> => {
  const signUp = await fetch(`${baseUrl}/api/auth/sign-up`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ email: `${label}-${Date.now()}@example.com`, password: "correct horse battery", name: label })
  })
  const session: { session?: { accessToken?: string } } = await signUp.json()
  const created = await fetch(`${baseUrl}/api/mobile/api-keys`, {
    method: "POST",
    headers: { ...json, authorization: `Bearer ${session.session?.accessToken ?? ""}` },
    body: JSON.stringify({ name: "bench", scopes: ["read"] })
  })
  const body: { key?: string } = await created.json()
  if (body.key === undefined) throw new Error(`no key: ${created.status} ${JSON.stringify(body)}`)
  return body.key
}
