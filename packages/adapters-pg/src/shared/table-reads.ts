import type { Unavailable } from "@atrium/domain"
import { Effect, Option, Schema } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { Fragment } from "effect/sql/Statement"
import { orUnavailable } from "./sql-errors.ts"

/** A table whose rows read back as one domain class: its name, the columns to select, its row schema and the class. */
export interface Table<S extends Schema.Top, A> {
  readonly name: string
  readonly columns: string
  readonly Row: S
  readonly Class: new(row: S["Type"]) => A
}

/** How a repository reads one table: every query's rows become domain values through the same row schema. */
export interface TableReads<A> {
  /** The driver's rows as domain values (a row that does not decode is a `SchemaError`, a defect under `orUnavailable`). */
  readonly decode: (rows: ReadonlyArray<unknown>) => Effect.Effect<Array<A>, Schema.SchemaError>
  /** `SELECT <columns> FROM <table> WHERE <where>`: the first match, if any. */
  readonly findOne: (where: Fragment) => Effect.Effect<Option.Option<A>, Unavailable>
}

export const tableReads = <S extends Schema.Decoder<unknown>, A>(sql: SqlClient, table: Table<S, A>): TableReads<A> => {
  const decodeRows = Schema.decodeUnknownEffect(Schema.Array(table.Row))
  const decode = (rows: ReadonlyArray<unknown>) => Effect.map(decodeRows(rows), (decoded) => decoded.map((row) => new table.Class(row)))
  const findOne = (where: Fragment) =>
    sql`SELECT ${sql.literal(table.columns)} FROM ${sql(table.name)} WHERE ${where}`.pipe(
      Effect.flatMap(decode),
      Effect.map((found) => Option.fromNullishOr(found[0])),
      orUnavailable
    )
  return { decode, findOne }
}
