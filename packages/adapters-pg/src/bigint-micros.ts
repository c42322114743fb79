import { Micros } from "@atrium/domain"
import { Schema, SchemaTransformation } from "effect"

/**
 * A `bigint` column (sql-pg returns `int8` as a JS `bigint`) decoded to the domain's integer micro-USD. Amounts
 * beyond `Number.MAX_SAFE_INTEGER` (9 billion USD) fail to decode rather than silently lose precision.
 */
export const MicrosFromBigInt = Schema.BigInt.check(
  Schema.isBetweenBigInt({ minimum: 0n, maximum: BigInt(Number.MAX_SAFE_INTEGER) })
).pipe(Schema.decodeTo(Micros, SchemaTransformation.transform({ decode: Number, encode: BigInt })))
