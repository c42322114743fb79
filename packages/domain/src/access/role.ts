import { Schema } from "effect"

/** A member's role in a workspace: `owner` ⊇ `admin` ⊇ `member`. */
export const Role = Schema.Literals(["owner", "admin", "member"]).annotate({
  identifier: "Role",
  description: "owner ⊇ admin ⊇ member"
})
export type Role = typeof Role.Type

const rank: { readonly [R in Role]: number } = { member: 1, admin: 2, owner: 3 }

/** Whether `role` includes everything `required` may do. */
export const roleIncludes = (role: Role, required: Role): boolean => rank[role] >= rank[required]
