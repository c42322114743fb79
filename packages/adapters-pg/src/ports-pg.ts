import { Layer } from "effect"
import { AiTaskRepositoryPg } from "./ai/index.ts"
import { ApiKeyRepositoryPg } from "./keys/index.ts"
import { AppearanceRepositoryPg } from "./identity/index.ts"
import { AuditLogPg } from "./audit/index.ts"
import { BillingRepositoryPg } from "./billing/index.ts"
import { DeliveryRepositoryPg } from "./webhooks/index.ts"
import { EntitlementRepositoryPg } from "./entitlements/index.ts"
import { EventOutboxPg } from "./audit/index.ts"
import { InvitationRepositoryPg } from "./identity/index.ts"
import { MembershipRepositoryPg } from "./identity/index.ts"
import { SessionRepositoryPg } from "./identity/index.ts"
import { TransactorPg } from "./shared/index.ts"
import { UserRepositoryPg } from "./identity/index.ts"
import { WebhookEndpointRepositoryPg } from "./webhooks/index.ts"
import { WorkspaceRepositoryPg } from "./workspaces/index.ts"
import { DomainRepositoryPg } from "./domains/index.ts"
import { AccountTokenRepositoryPg } from "./identity/account-token-repository-pg.ts"
import { MailRepositoryPg } from "./mail/mail-repository-pg.ts"
import { ScheduleRepositoryPg } from "./schedules/schedule-repository-pg.ts"
import { NotificationInboxPg } from "./purchases/notification-inbox-pg.ts"
import { PurchaseRepositoryPg } from "./purchases/purchase-repository-pg.ts"
import { FeatureRequestRepositoryPg } from "./feedback/feature-request-repository-pg.ts"
import { PushDeviceRepositoryPg, PushMessageRepositoryPg } from "./notifications/push-repositories-pg.ts"
import { RequestLogRepositoryPg } from "./request-logs/request-log-repository-pg.ts"

/** Every domain storage port over one `SqlClient`; the same code runs on the embedded server and on `DATABASE_URL`. */
export const PortsPg = Layer.mergeAll(
  WorkspaceRepositoryPg,
  ApiKeyRepositoryPg,
  EntitlementRepositoryPg,
  AuditLogPg,
  EventOutboxPg,
  WebhookEndpointRepositoryPg,
  DeliveryRepositoryPg,
  AiTaskRepositoryPg,
  BillingRepositoryPg,
  UserRepositoryPg,
  MembershipRepositoryPg,
  SessionRepositoryPg,
  InvitationRepositoryPg,
  AppearanceRepositoryPg,
  ScheduleRepositoryPg,
  PurchaseRepositoryPg,
  NotificationInboxPg,
  DomainRepositoryPg,
  AccountTokenRepositoryPg,
  MailRepositoryPg,
  FeatureRequestRepositoryPg,
  PushDeviceRepositoryPg,
  PushMessageRepositoryPg,
  RequestLogRepositoryPg,
  TransactorPg
)
