import { Schema } from "effect"

/** A member's role in a workspace: `owner` ⊇ `admin` ⊇ `member`. */
export const Role = Schema.Literals(["owner", "admin", "member"]).annotate({
  identifier: "Role",
  description: "owner ⊇ admin ⊇ member"
})
export type Role = typeof Role.Type
