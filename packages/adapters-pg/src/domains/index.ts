export { DomainRepositoryPg } from "./domain-repository-pg.ts"
