import type { AttemptErrorKind } from "@atrium/domain"

const timeoutCodes = new Set(["ETIMEDOUT", "ESOCKETTIMEDOUT", "ERR_SOCKET_CONNECTION_TIMEOUT"])
const dnsCodes = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NODATA", "EAI_NONAME"])
const tlsCodes = new Set([
  "EPROTO",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "HOSTNAME_MISMATCH"
])

/** The `code` of a Node.js system or OpenSSL error, if it has one. */
export const errorCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

/** Classifies a socket, DNS or TLS error of `node:http(s)` into the port's attempt error kinds. */
export const classifyNetworkError = (error: unknown): AttemptErrorKind => {
  const code = errorCode(error) ?? ""
  if (timeoutCodes.has(code)) return "timeout"
  if (code === "ECONNREFUSED") return "refused"
  if (dnsCodes.has(code)) return "dns"
  if (tlsCodes.has(code) || /^(ERR_TLS_|ERR_SSL_|CERT_)/.test(code)) return "tls"
  return "network"
}
