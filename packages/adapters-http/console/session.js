// The member session: tokens live in sessionStorage (this tab only, gone when it closes), never in a cookie.
// Every call goes through `api`, which refreshes once on `session_expired` and signs out on `invalid_session`.

const storageKey = "atrium.console.session"

/** A failed API call: the problem's status, code and detail. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail ?? problem?.title ?? `HTTP ${status}`)
    this.status = status
    this.code = problem?.code ?? "unknown"
    this.detail = problem?.detail ?? ""
    this.errors = Array.isArray(problem?.errors) ? problem.errors : []
    this.requestId = problem?.requestId
  }
}

const read = () => {
  try {
    const value = JSON.parse(sessionStorage.getItem(storageKey) ?? "null")
    return typeof value?.accessToken === "string" && typeof value?.refreshToken === "string" ? value : null
  } catch {
    return null
  }
}

let tokens = read()
const listeners = new Set()

const store = (next) => {
  tokens = next
  if (next === null) sessionStorage.removeItem(storageKey)
  else sessionStorage.setItem(storageKey, JSON.stringify({ accessToken: next.accessToken, refreshToken: next.refreshToken }))
}

/** Whether a session is held. */
export const signedIn = () => tokens !== null

/** Called with a reason whenever the session ends (signed out here, or refused by the server). */
export const onSignedOut = (listener) => listeners.add(listener)

const end = (reason) => {
  store(null)
  for (const listener of listeners) listener(reason)
}

const parse = async (response) => {
  const text = await response.text()
  if (text.length === 0) return null
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

const call = async (method, path, body, accessToken) => {
  const headers = { accept: "application/json" }
  if (accessToken !== undefined) headers.authorization = `Bearer ${accessToken}`
  if (body !== undefined) headers["content-type"] = "application/json"
  let response
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store", credentials: "omit" })
  } catch {
    throw new ApiError(0, { code: "network", detail: "The server could not be reached. Check your connection and try again." })
  }
  const payload = await parse(response)
  if (!response.ok) throw new ApiError(response.status, payload)
  return payload
}

/** Signs in with email and password; the tokens are kept for this tab. */
export const signIn = async (email, password) => {
  const answer = await call("POST", "/api/auth/sign-in", { email, password })
  store(answer.session)
  return answer.user
}

/** Creates an account (with its personal workspace) and keeps its session for this tab. */
export const signUp = async (name, email, password) => {
  const answer = await call("POST", "/api/auth/sign-up", { name, email, password })
  store(answer.session)
  return answer.user
}

/** Asks for a password-reset link; the server answers the same whether the address is known or not. */
export const requestPasswordReset = (email) => call("POST", "/api/auth/password-reset", { email })

// One refresh at a time: concurrent calls that all saw `session_expired` wait for the same rotation.
let refreshing = null
const refresh = () => {
  refreshing ??= call("POST", "/api/auth/refresh", { refreshToken: tokens?.refreshToken ?? "" })
    .then((answer) => { store(answer.session) })
    .finally(() => { refreshing = null })
  return refreshing
}

/** Calls the API with the session; `session_expired` refreshes once and retries, `invalid_session` signs out. */
export const api = async (method, path, body) => {
  if (tokens === null) throw new ApiError(401, { code: "invalid_session", detail: "Sign in to continue." })
  try {
    return await call(method, path, body, tokens.accessToken)
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401) throw error
    if (error.code === "session_expired") {
      try {
        await refresh()
      } catch (refused) {
        if (refused instanceof ApiError && refused.status === 401) end("Your session has ended. Sign in again.")
        throw refused
      }
      try {
        return await call(method, path, body, tokens?.accessToken)
      } catch (again) {
        if (again instanceof ApiError && again.status === 401) end("Your session has ended. Sign in again.")
        throw again
      }
    }
    if (error.code === "invalid_session") end("Your session has ended. Sign in again.")
    throw error
  }
}

/** Signs out on the server (best effort) and forgets the tokens. */
export const signOut = async () => {
  if (tokens !== null) await call("POST", "/api/auth/sign-out", undefined, tokens.accessToken).catch(() => undefined)
  end("You are signed out.")
}

/** A sentence for a failed call, in words a person can act on. */
export const explain = (error, what) => {
  if (!(error instanceof ApiError)) return `Something went wrong while trying to ${what}.`
  switch (error.code) {
    case "forbidden":
      return `Your role in this workspace does not allow you to ${what}. API keys and webhooks are managed by admins and owners; ask one of them to change your role.`
    case "rate_limited":
      return "Too many requests just now. Wait a moment and try again."
    case "unavailable":
      return "The service is briefly unavailable. Try again in a few seconds."
    case "network":
      return error.detail
    case "invalid_request": {
      const details = error.errors.map((issue) => `${(issue.path ?? []).join(".") || "request"}: ${issue.message}`).join("; ")
      return `Could not ${what}: ${error.detail}${details.length > 0 ? ` (${details})` : ""}`
    }
    default:
      return `Could not ${what}: ${error.detail || error.code} (${error.status} ${error.code}${error.requestId ? `, request ${error.requestId}` : ""}).`
  }
}
