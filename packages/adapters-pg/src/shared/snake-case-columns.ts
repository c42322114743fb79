import { Record, Schema, String } from "effect"

/** Where a table's columns depart from the naming rule: a `prefix` on every column (a joined table's), or a renamed field. */
export interface ColumnNaming {
  readonly prefix?: string
  readonly except?: { readonly [field: string]: string }
}

/**
 * Renames a row struct's keys to its table's columns: every field's name in snake_case (`workspaceId` is
 * `workspace_id`), the one naming rule of the migrations, so no table spells out a key map of its own.
 */
export const snakeCaseColumns = ({ prefix = "", except = {} }: ColumnNaming = {}) =>
<S extends Schema.Struct<Schema.Struct.Fields>>(self: S) =>
  self.pipe(Schema.encodeKeys(Record.map(self.fields, (_, field) => except[field] ?? prefix + String.camelToSnake(field))))
