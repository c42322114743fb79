import { BillingAccount, MonthlyUsage, UsageRecord } from "@atrium/domain"
import { Schema } from "effect"
import { CountFromBigInt, MicrosFromBigInt } from "../shared/bigint-columns.ts"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"

/** The `billing_accounts` row as the driver returns it. */
export const BillingAccountRow = Schema.Struct({
  ...BillingAccount.fields,
  creditBalanceMicros: MicrosFromBigInt,
  reservedMicros: MicrosFromBigInt,
  spendCapMicros: Schema.OptionFromNullOr(MicrosFromBigInt),
  taskCap: Schema.OptionFromNullOr(CountFromBigInt)
}).pipe(snakeCaseColumns())

/** The `monthly_usage` row as the driver returns it (`cap_notices` as `text[]`). */
export const MonthlyUsageRow = Schema.Struct({
  ...MonthlyUsage.fields,
  spentMicros: MicrosFromBigInt,
  reservedMicros: MicrosFromBigInt,
  taskCount: CountFromBigInt
}).pipe(snakeCaseColumns())

/** The `usage_records` row as the driver returns it. */
export const UsageRecordRow = Schema.Struct({
  ...UsageRecord.fields,
  inputTokens: CountFromBigInt,
  outputTokens: CountFromBigInt,
  costMicros: MicrosFromBigInt,
  createdAt: Schema.DateTimeUtcFromDate
}).pipe(snakeCaseColumns())
