import { Redacted } from "effect"

// `HttpApiSecurity.bearer` decodes an absent header and a non-Bearer one (`Basic …`) alike to "": tell them apart.
const malformed = Redacted.make("\u0000malformed")

/** The bearer credential as presented: "" when no `Authorization` header came, a never-valid token for a non-Bearer one. */
export const presentedCredential = (credential: Redacted.Redacted<string>, header: string | undefined): Redacted.Redacted<string> =>
  Redacted.value(credential).length === 0 && header !== undefined && header.length > 0 ? malformed : credential

/** Whether the presented credential is the marker of a non-Bearer `Authorization` header. */
export const isMalformedMarker = (credential: Redacted.Redacted<string>): boolean => credential === malformed

/**
 * The credential of an `Authorization: Bearer <token>` header, "" when absent or of another scheme: schemes are
 * case-insensitive and the credential follows one or more spaces (RFC 9110 §11.1), as Effect's bearer security reads it.
 */
export const bearerCredential = (header: string | undefined): string => {
  if (header === undefined || header.length <= 6 || header.charCodeAt(6) !== 32 || header.slice(0, 6).toLowerCase() !== "bearer") return ""
  let start = 7
  while (header.charCodeAt(start) === 32) start++
  return header.slice(start)
}
