import { Schema } from "effect"

/** Who made a change, for audit entries: a key, a user, or the system itself (CLI, seeding). */
export const Actor = Schema.Struct({
  type: Schema.Literals(["api_key", "user", "system"]),
  id: Schema.String.check(Schema.isBetweenLength(1, 100))
}).annotate({ description: "Who made a change", examples: [{ type: "api_key", id: "key_4xQ9aZ1b7HkP0mVcT3sLeR" }] })
export type Actor = typeof Actor.Type

/** The actor for operator commands run on the server. */
export const systemActor = (name: string): Actor => ({ type: "system", id: name })
