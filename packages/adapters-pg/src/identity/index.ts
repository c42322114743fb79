/** Users, memberships, sessions, invitations and appearance on Postgres. */
export * from "./appearance-repository-pg.ts"
export * from "./identity-rows.ts"
export * from "./invitation-repository-pg.ts"
export * from "./membership-repository-pg.ts"
export * from "./session-repository-pg.ts"
export * from "./user-repository-pg.ts"
