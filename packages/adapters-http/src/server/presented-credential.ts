import { Redacted } from "effect"

// `HttpApiSecurity.bearer` decodes an absent header and a non-Bearer one (`Basic …`) alike to "": tell them apart.
const malformed = Redacted.make("\u0000malformed")

/** The bearer credential as presented: "" when no `Authorization` header came, a never-valid token for a non-Bearer one. */
export const presentedCredential = (credential: Redacted.Redacted<string>, header: string | undefined): Redacted.Redacted<string> =>
  Redacted.value(credential).length === 0 && header !== undefined && header.length > 0 ? malformed : credential

/** Whether the presented credential is the marker of a non-Bearer `Authorization` header. */
export const isMalformedMarker = (credential: Redacted.Redacted<string>): boolean => credential === malformed
