import { Schema } from "effect"

/** Who made a change, for audit entries: a key, a user, or the system itself (CLI, seeding). */
export const Actor = Schema.Struct({
  type: Schema.Literals(["api_key", "user", "system"]),
  id: Schema.String.check(Schema.isBetweenLength(1, 100))
}).annotate({ description: "Who made a change", examples: [{ type: "api_key", id: "key_4xQ9aZ1b7HkP0mVcT3sLeR" }] })
export type Actor = typeof Actor.Type

/** The actor for operator commands run on the server. */
export const systemActor = (name: string): Actor => ({ type: "system", id: name })

/**
 * The actor of a change asked for without credentials (a password-reset request): the system acting on an anonymous
 * request. Kept inside the three actor types, so clients that decode them strictly still read the entry.
 */
export const anonymousActor: Actor = systemActor("anonymous")
