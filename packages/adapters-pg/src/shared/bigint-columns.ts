import { MaxOutputTokens, Micros } from "@atrium/domain"
import { Schema, SchemaTransformation } from "effect"

/**
 * A `bigint` column (sql-pg returns `int8` as a JS `bigint`) decoded to the domain's integer micro-USD. Amounts
 * beyond `Number.MAX_SAFE_INTEGER` (9 billion USD) fail to decode rather than silently lose precision.
 */
export const MicrosFromBigInt = Schema.BigInt.check(
  Schema.isBetweenBigInt({ minimum: 0n, maximum: BigInt(Number.MAX_SAFE_INTEGER) })
).pipe(Schema.decodeTo(Micros, SchemaTransformation.transform({ decode: Number, encode: BigInt })))

// `int8` as the driver returns it, within the range a JS number holds exactly.
const SafeBigInt = Schema.BigInt.check(Schema.isBetweenBigInt({ minimum: 0n, maximum: BigInt(Number.MAX_SAFE_INTEGER) }))
const toNumber = SchemaTransformation.transform({ decode: Number, encode: BigInt })

/** A `bigint` counter column (tokens, task counts) decoded to a non-negative integer; beyond 2^53 it fails to decode. */
export const CountFromBigInt = SafeBigInt.pipe(Schema.decodeTo(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), toNumber))

/** The `bigint` `max_output_tokens` column decoded to the domain's bound. */
export const MaxOutputTokensFromBigInt = SafeBigInt.pipe(Schema.decodeTo(MaxOutputTokens, toNumber))
