import { Payment } from '../plugins/app/payments/payment.entity.ts'
import { Plan } from '../plugins/app/plans/plan.entity.ts'
import { PlanConfiguration } from '../plugins/app/subscriptions/plan-configuration.entity.ts'
import { Subscription } from '../plugins/app/subscriptions/subscription.entity.ts'
import { Activity } from '../plugins/app/activity/activity.entity.ts'
import { PortalSession } from '../plugins/app/auth/session.entity.ts'
import { PasswordReset } from '../plugins/app/passwords/password-reset.entity.ts'
import { EmailChange } from '../plugins/app/email-changes/email-change.entity.ts'
import { LoginChallenge } from '../plugins/app/auth/login-challenge.entity.ts'
import { UserTwoFactor } from '../plugins/app/two-factor/two-factor.entity.ts'
import { RecoveryCode } from '../plugins/app/two-factor/recovery-code.entity.ts'
import { Instance } from '../plugins/app/instances/instance.entity.ts'
import { Backup } from '../plugins/app/backups/backup.entity.ts'
import { AddonSource } from '../plugins/app/addon-sources/addon-source.entity.ts'
import { BackupDownloadToken } from '../plugins/app/backups/download-token.entity.ts'
import { BackupSchedule } from '../plugins/app/backups/backup-schedule.entity.ts'
import { Invitation } from '../plugins/app/invitations/invitation.entity.ts'
import { MailOutbox } from '../plugins/app/mail/mail-outbox.entity.ts'
import { ErpModule } from '../plugins/app/modules/erp-module.entity.ts'
import { TenantSettings } from '../plugins/app/settings/tenant-settings.entity.ts'
import { Tenant } from '../plugins/app/tenants/tenant.entity.ts'
import { Ticket, TicketMessage } from '../plugins/app/tickets/ticket.entity.ts'
import { User } from '../plugins/app/users/user.entity.ts'
import { RateLimitCounter } from '../lib/rate-limit/counter.entity.ts'
import { OidcPayload } from '../auth-server/oidc-payload.entity.ts'
import { SigningKeySet } from '../auth-server/signing-key-set.entity.ts'
import { HandoffCode } from '../plugins/app/oauth/handoff-code.entity.ts'
import { RevokedToken } from '../plugins/app/oauth/revoked-token.entity.ts'
import { GrantAccess } from '../plugins/app/oauth/grant-access.entity.ts'
import { AgentToolCall } from '../plugins/app/oauth/agent-tool-call.entity.ts'
import { MetricHour } from '../plugins/app/metrics/metric-hour.entity.ts'
import { ErpCredentials } from '../plugins/app/instances/erp-credentials.entity.ts'
import { InstanceModule } from '../plugins/app/erp/instance-module.entity.ts'
import { MetricSample } from '../plugins/app/metrics/metric-sample.entity.ts'
import { WebhookDelivery } from '../plugins/app/webhooks/webhook-delivery.entity.ts'
import { WebhookEndpoint } from '../plugins/app/webhooks/webhook-endpoint.entity.ts'
import { WebhookEvent } from '../plugins/app/webhooks/webhook-event.entity.ts'
import { InstanceUpgrade } from '../plugins/app/upgrades/upgrade.entity.ts'

/** Every entity the ORM knows. A new entity is added here and gets a migration. */
export const entities = [
  Tenant, User, PortalSession, PasswordReset, EmailChange, RateLimitCounter,
  Instance, Backup, BackupDownloadToken, BackupSchedule, Activity, Invitation, Ticket, TicketMessage, ErpModule, AddonSource, TenantSettings, MailOutbox,
  Plan, PlanConfiguration, Subscription, Payment,
  OidcPayload, SigningKeySet, HandoffCode, RevokedToken, GrantAccess, AgentToolCall,
  MetricSample, MetricHour, ErpCredentials, InstanceModule,
  LoginChallenge, UserTwoFactor, RecoveryCode,
  WebhookEndpoint, WebhookEvent, WebhookDelivery,
  InstanceUpgrade
]
