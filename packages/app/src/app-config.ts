import { Config, Duration, type LogLevel, Option, type Redacted, Schema } from "effect"
import { ModelCatalogJson, type ModelSpec, defaultModelCatalog } from "@atrium/domain"
import { storesConfig, type StoresConfig } from "./purchases/store-config.ts"

/** Where the data lives: the data directory of the embedded PostgreSQL server (and its key), or a Postgres server. */
export type DatabaseTarget =
  | { readonly _tag: "Embedded"; readonly dataDir: string }
  | { readonly _tag: "Url"; readonly url: Redacted.Redacted<string> }

/** Everything the server reads from its environment (documented in the README). */
export interface AppConfig {
  readonly host: string
  readonly port: number
  readonly database: DatabaseTarget
  /** How long a database call may go unanswered before it fails as unavailable (503); statements get twice that on the server. */
  readonly databaseTimeout: Duration.Duration
  readonly keyPepper: Option.Option<Redacted.Redacted<string>>
  readonly secretKey: Option.Option<Redacted.Redacted<string>>
  readonly webhookAllowNetworks: ReadonlyArray<string>
  readonly webhookDisableAfterDays: number
  readonly workers: boolean
  /** Whether keyed `/api/v1` requests are kept in the per-key request log (`ATRIUM_REQUEST_LOG`). */
  readonly requestLog: boolean
  /** How long a claimed AI task or webhook delivery stays with its process before another may take it (after a crash). */
  readonly workLease: Option.Option<Duration.Duration>
  /** How long a stopping process keeps serving, readiness already 503, so a balancer stops sending before it closes. */
  readonly drainDelay: Duration.Duration
  /** The least severe lines printed (`ATRIUM_LOG_LEVEL`): `Debug` adds background steps, such as each request-log write. */
  readonly logLevel: LogLevel.Severity
  readonly openai: Option.Option<{ readonly baseUrl: string; readonly apiKey: Redacted.Redacted<string>; readonly timeout: Duration.Duration }>
  readonly rateLimitPerMinute: number
  /** Where rate limits and throttles are counted when several processes must share them (`ATRIUM_REDIS_URL`). */
  readonly redis: Option.Option<{ readonly url: Redacted.Redacted<string>; readonly prefix: string }>
  /** OTLP export of traces, metrics and logs when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. */
  readonly otlp: Option.Option<{ readonly baseUrl: string; readonly serviceName: string }>
  /** Expo push: off without an access token (the token never leaves the server). */
  readonly push: Option.Option<{ readonly baseUrl: string; readonly accessToken: Redacted.Redacted<string> }>
  readonly modelCatalog: ReadonlyArray<ModelSpec>
  /** `ATRIUM_MAIL_URL` (holds the mail credential), `ATRIUM_MAIL_FROM`, and `ATRIUM_PUBLIC_URL`, the base of links in messages. */
  readonly mail: {
    readonly url: Option.Option<Redacted.Redacted<string>>
    readonly from: Option.Option<string>
    readonly publicUrl: Option.Option<string>
  }
  readonly stores: StoresConfig
  /** DNS servers the domain verifier asks (`host[:port]`); empty uses the system's. */
  readonly dnsServers: ReadonlyArray<string>
  readonly dnsTimeout: Duration.Duration
  /** Hostnames (and everything under them) no workspace may add, such as the service's own domain. */
  readonly domainDenySuffixes: ReadonlyArray<string>
}

const modelCatalog = Config.option(Config.schema(Schema.fromJsonString(ModelCatalogJson), "ATRIUM_MODEL_CATALOG")).pipe(
  Config.map(Option.getOrElse(() => defaultModelCatalog))
)

const database = Config.all({
  url: Config.option(Config.Redacted("DATABASE_URL")),
  dataDir: Config.String("ATRIUM_DATA_DIR").pipe(Config.withDefault(".atrium/data"))
}).pipe(
  Config.map(({ dataDir, url }): DatabaseTarget =>
    Option.match(url, {
      onNone: () => ({ _tag: "Embedded", dataDir }),
      onSome: (url) => ({ _tag: "Url", url })
    })
  )
)

// Written in lower case, as operators write log levels; Effect's own names are capitalised.
const severities = { debug: "Debug", info: "Info", warn: "Warn", error: "Error" } satisfies Record<string, LogLevel.Severity>
const logLevel = Config.schema(Schema.Literals(["debug", "info", "warn", "error"]), "ATRIUM_LOG_LEVEL").pipe(
  Config.withDefault("info"),
  Config.map((level): LogLevel.Severity => severities[level])
)

const commaList = (name: string) =>
  Config.String(name).pipe(
    Config.withDefault(""),
    Config.map((text) => text.split(",").map((part) => part.trim()).filter((part) => part.length > 0))
  )

/** The configuration as one `Config`, so a bad value fails at start with the variable's name. */
export const appConfig: Config.Config<AppConfig> = Config.all({
  host: Config.String("HOST").pipe(Config.withDefault("127.0.0.1")),
  // 0 asks the OS for a free port (tests); the address is logged once listening.
  port: Config.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 65535 })), "PORT").pipe(Config.withDefault(3000)),
  database,
  databaseTimeout: Config.Duration("ATRIUM_DATABASE_TIMEOUT").pipe(Config.withDefault(Duration.seconds(5))),
  keyPepper: Config.option(Config.Redacted("ATRIUM_KEY_PEPPER")),
  secretKey: Config.option(Config.Redacted("ATRIUM_SECRET_KEY")),
  webhookAllowNetworks: Config.String("ATRIUM_WEBHOOK_ALLOW_NETWORKS").pipe(
    Config.withDefault(""),
    Config.map((text) => text.split(",").map((part) => part.trim()).filter((part) => part.length > 0))
  ),
  webhookDisableAfterDays: Config.Int("ATRIUM_WEBHOOK_DISABLE_AFTER_DAYS").pipe(Config.withDefault(5)),
  workers: Config.Boolean("ATRIUM_WORKERS").pipe(Config.withDefault(true)),
  requestLog: Config.Boolean("ATRIUM_REQUEST_LOG").pipe(Config.withDefault(true)),
  workLease: Config.option(Config.Duration("ATRIUM_WORK_LEASE")),
  drainDelay: Config.Duration("ATRIUM_DRAIN_DELAY").pipe(Config.withDefault(Duration.seconds(5))),
  logLevel,
  openai: Config.all({
    baseUrl: Config.option(Config.String("ATRIUM_OPENAI_BASE_URL")),
    apiKey: Config.option(Config.Redacted("ATRIUM_OPENAI_API_KEY")),
    timeout: Config.Duration("ATRIUM_OPENAI_TIMEOUT").pipe(Config.withDefault(Duration.seconds(60)))
  }).pipe(Config.map(({ apiKey, baseUrl, timeout }) =>
    Option.all({ baseUrl, apiKey }).pipe(Option.map((configured) => ({ ...configured, timeout })))
  )),
  rateLimitPerMinute: Config.Int("ATRIUM_RATE_LIMIT_PER_MINUTE").pipe(Config.withDefault(600)),
  otlp: Config.all({
    baseUrl: Config.option(Config.String("OTEL_EXPORTER_OTLP_ENDPOINT")),
    serviceName: Config.String("OTEL_SERVICE_NAME").pipe(Config.withDefault("atrium"))
  }).pipe(Config.map(({ baseUrl, serviceName }) => Option.map(baseUrl, (url) => ({ baseUrl: url, serviceName })))),
  push: Config.all({
    baseUrl: Config.String("ATRIUM_EXPO_PUSH_URL").pipe(Config.withDefault("https://exp.host")),
    accessToken: Config.option(Config.Redacted("ATRIUM_EXPO_ACCESS_TOKEN"))
  }).pipe(Config.map(({ accessToken, baseUrl }) => Option.map(accessToken, (token) => ({ baseUrl, accessToken: token })))),
  redis: Config.all({
    url: Config.option(Config.Redacted("ATRIUM_REDIS_URL")),
    prefix: Config.String("ATRIUM_REDIS_PREFIX").pipe(Config.withDefault("atrium:"))
  }).pipe(Config.map(({ prefix, url }) => Option.map(url, (url) => ({ url, prefix })))),
  modelCatalog,
  stores: storesConfig,
  dnsServers: commaList("ATRIUM_DNS_SERVERS"),
  dnsTimeout: Config.Duration("ATRIUM_DNS_TIMEOUT").pipe(Config.withDefault(Duration.seconds(3))),
  domainDenySuffixes: commaList("ATRIUM_DOMAIN_DENY"),
  mail: Config.all({
    url: Config.option(Config.Redacted("ATRIUM_MAIL_URL")),
    from: Config.option(Config.String("ATRIUM_MAIL_FROM")),
    publicUrl: Config.option(Config.String("ATRIUM_PUBLIC_URL"))
  })
})

/** The base of links in messages: `ATRIUM_PUBLIC_URL`, else this server's own address. */
export const publicUrlOf = (config: AppConfig): string =>
  Option.getOrElse(config.mail.publicUrl, () => `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${config.port}`)

