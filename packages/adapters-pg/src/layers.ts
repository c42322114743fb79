import type {
  AccountTokenRepository,
  AiTaskRepository,
  ApiKeyRepository,
  AppearanceRepository,
  AuditLog,
  FeatureRequestRepository,
  PushDeviceRepository,
  PushMessageRepository,
  RequestLogRepository,
  BillingRepository,
  DeliveryRepository,
  DomainRepository,
  EntitlementRepository,
  EventOutbox,
  InvitationRepository,
  MailRepository,
  NotificationInbox,
  PurchaseRepository,
  MembershipRepository,
  ScheduleRepository,
  SessionRepository,
  Transactor,
  UserRepository,
  WebhookEndpointRepository,
  WorkspaceRepository
} from "@atrium/domain"
import type * as PgClient from "@effect/sql-pg/PgClient"
import { Layer, type Redacted } from "effect"
import type { MigrationError } from "effect/sql/Migrator"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { EmbeddedPostgres, type EmbeddedPostgresError, type EmbeddedPostgresOptions } from "./embedded/index.ts"
import { type MigrationServices, Migrations } from "./migrations.ts"
import { PortsPg } from "./ports-pg.ts"
import { PostgresUrl, type PostgresUrlOptions } from "./postgres-url.ts"

/** The storage ports the domain needs. */
export type Ports =
  | WorkspaceRepository
  | ApiKeyRepository
  | EntitlementRepository
  | AuditLog
  | EventOutbox
  | WebhookEndpointRepository
  | DeliveryRepository
  | AiTaskRepository
  | BillingRepository
  | UserRepository
  | MembershipRepository
  | SessionRepository
  | InvitationRepository
  | AppearanceRepository
  | ScheduleRepository
  | PurchaseRepository
  | NotificationInbox
  | DomainRepository
  | AccountTokenRepository
  | MailRepository
  | FeatureRequestRepository
  | PushDeviceRepository
  | PushMessageRepository
  | RequestLogRepository
  | Transactor

/**
 * The ports over a migrated database, keeping the client available (for queues, `LISTEN`/`NOTIFY`, health checks). The
 * migrations need the server's secret box and digest, to seal what a data step moves.
 */
export const layerPorts = <E>(
  client: Layer.Layer<PgClient.PgClient | SqlClient, E>
): Layer.Layer<Ports | PgClient.PgClient | SqlClient, E | SqlError | MigrationError, MigrationServices> =>
  PortsPg.pipe(Layer.provideMerge(Migrations.pipe(Layer.provideMerge(client))))

/** The embedded PostgreSQL server of `dataDir` (started, or joined when running), migrated, with every port. */
export const layerEmbedded = (
  options: EmbeddedPostgresOptions
): Layer.Layer<Ports | PgClient.PgClient | SqlClient, EmbeddedPostgresError | SqlError | MigrationError, MigrationServices> =>
  layerPorts(EmbeddedPostgres(options))

/** A real Postgres server at `url`, migrated, with every port. */
export const layerUrl = (
  url: Redacted.Redacted<string>,
  options: PostgresUrlOptions = {}
): Layer.Layer<Ports | PgClient.PgClient | SqlClient, SqlError | MigrationError, MigrationServices> =>
  layerPorts(PostgresUrl(url, options))
