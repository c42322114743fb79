import { Layer } from "effect"
import { AccountTokenRepositoryPg } from "./identity/account-token-repository-pg.ts"
import { AiTaskRepositoryPg } from "./ai-task-repository-pg.ts"
import { MailRepositoryPg } from "./mail/mail-repository-pg.ts"
import { ApiKeyRepositoryPg } from "./api-key-repository-pg.ts"
import { AppearanceRepositoryPg } from "./appearance-repository-pg.ts"
import { AuditLogPg } from "./audit-log-pg.ts"
import { BillingRepositoryPg } from "./billing-repository-pg.ts"
import { DeliveryRepositoryPg } from "./delivery-repository-pg.ts"
import { DomainRepositoryPg } from "./domains/index.ts"
import { EntitlementRepositoryPg } from "./entitlements/entitlement-repository-pg.ts"
import { EventOutboxPg } from "./event-outbox-pg.ts"
import { InvitationRepositoryPg } from "./invitation-repository-pg.ts"
import { MembershipRepositoryPg } from "./membership-repository-pg.ts"
import { ScheduleRepositoryPg } from "./schedules/schedule-repository-pg.ts"
import { SessionRepositoryPg } from "./session-repository-pg.ts"
import { NotificationInboxPg } from "./purchases/notification-inbox-pg.ts"
import { PurchaseRepositoryPg } from "./purchases/purchase-repository-pg.ts"
import { TransactorPg } from "./transactor-pg.ts"
import { UserRepositoryPg } from "./user-repository-pg.ts"
import { WebhookEndpointRepositoryPg } from "./webhook-endpoint-repository-pg.ts"
import { WorkspaceRepositoryPg } from "./workspace-repository-pg.ts"
import { FeatureRequestRepositoryPg } from "./feedback/feature-request-repository-pg.ts"
import { PushDeviceRepositoryPg, PushMessageRepositoryPg } from "./notifications/push-repositories-pg.ts"

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
  TransactorPg
)
