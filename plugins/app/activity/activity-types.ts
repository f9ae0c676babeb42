import { ADDON_SOURCES_ACTIVITY, ADDON_SOURCES_ACTIVITY_TARGETS } from '../addon-sources/addon-sources.activity.ts'
import { AUTH_ACTIVITY, AUTH_ACTIVITY_TARGETS } from '../auth/auth.activity.ts'
import { BACKUPS_ACTIVITY, BACKUPS_ACTIVITY_TARGETS } from '../backups/backups.activity.ts'
import { EMAIL_CHANGES_ACTIVITY } from '../email-changes/email-changes.activity.ts'
import { ERP_ACTIVITY } from '../erp/erp.activity.ts'
import { INSTANCES_ACTIVITY, INSTANCES_ACTIVITY_TARGETS } from '../instances/instances.activity.ts'
import { INVITATIONS_ACTIVITY, INVITATIONS_ACTIVITY_TARGETS } from '../invitations/invitations.activity.ts'
import { OAUTH_ACTIVITY, OAUTH_ACTIVITY_TARGETS } from '../oauth/oauth.activity.ts'
import { PASSWORDS_ACTIVITY } from '../passwords/passwords.activity.ts'
import { PAYMENTS_ACTIVITY, PAYMENTS_ACTIVITY_TARGETS } from '../payments/payments.activity.ts'
import { SETTINGS_ACTIVITY, SETTINGS_ACTIVITY_TARGETS } from '../settings/settings.activity.ts'
import { STAGING_ACTIVITY } from '../staging/staging.activity.ts'
import { SUBSCRIPTIONS_ACTIVITY, SUBSCRIPTIONS_ACTIVITY_TARGETS } from '../subscriptions/subscriptions.activity.ts'
import { TICKETS_ACTIVITY, TICKETS_ACTIVITY_TARGETS } from '../tickets/tickets.activity.ts'
import { TWO_FACTOR_ACTIVITY } from '../two-factor/two-factor.activity.ts'
import { UPGRADES_ACTIVITY, UPGRADES_ACTIVITY_TARGETS } from '../upgrades/upgrades.activity.ts'
import { USERS_ACTIVITY, USERS_ACTIVITY_TARGETS } from '../users/users.activity.ts'
import { WEBHOOKS_ACTIVITY, WEBHOOKS_ACTIVITY_TARGETS } from '../webhooks/webhooks.activity.ts'

/**
 * The activity catalog, by room folder: every type the feed can hold and every
 * target it can point at, declared once by the room that records it
 * (`<domain>.activity.ts`: plain constants, so this room imports no service).
 * `activity.record` takes only these, the feed's `type` filter accepts only
 * these, and docs/company.md lists them (a test compares).
 */
export const ACTIVITY_CATALOGS = {
  'addon-sources': { types: ADDON_SOURCES_ACTIVITY, targets: ADDON_SOURCES_ACTIVITY_TARGETS },
  auth: { types: AUTH_ACTIVITY, targets: AUTH_ACTIVITY_TARGETS },
  backups: { types: BACKUPS_ACTIVITY, targets: BACKUPS_ACTIVITY_TARGETS },
  'email-changes': { types: EMAIL_CHANGES_ACTIVITY, targets: {} },
  erp: { types: ERP_ACTIVITY, targets: {} },
  instances: { types: INSTANCES_ACTIVITY, targets: INSTANCES_ACTIVITY_TARGETS },
  invitations: { types: INVITATIONS_ACTIVITY, targets: INVITATIONS_ACTIVITY_TARGETS },
  oauth: { types: OAUTH_ACTIVITY, targets: OAUTH_ACTIVITY_TARGETS },
  passwords: { types: PASSWORDS_ACTIVITY, targets: {} },
  payments: { types: PAYMENTS_ACTIVITY, targets: PAYMENTS_ACTIVITY_TARGETS },
  settings: { types: SETTINGS_ACTIVITY, targets: SETTINGS_ACTIVITY_TARGETS },
  staging: { types: STAGING_ACTIVITY, targets: {} },
  subscriptions: { types: SUBSCRIPTIONS_ACTIVITY, targets: SUBSCRIPTIONS_ACTIVITY_TARGETS },
  tickets: { types: TICKETS_ACTIVITY, targets: TICKETS_ACTIVITY_TARGETS },
  'two-factor': { types: TWO_FACTOR_ACTIVITY, targets: {} },
  upgrades: { types: UPGRADES_ACTIVITY, targets: UPGRADES_ACTIVITY_TARGETS },
  users: { types: USERS_ACTIVITY, targets: USERS_ACTIVITY_TARGETS },
  webhooks: { types: WEBHOOKS_ACTIVITY, targets: WEBHOOKS_ACTIVITY_TARGETS }
} as const satisfies Record<string, { types: Record<string, string>, targets: Record<string, string> }>

/** Type → what it means. */
export const ACTIVITY_DESCRIPTIONS = {
  ...ADDON_SOURCES_ACTIVITY,
  ...AUTH_ACTIVITY,
  ...BACKUPS_ACTIVITY,
  ...EMAIL_CHANGES_ACTIVITY,
  ...ERP_ACTIVITY,
  ...INSTANCES_ACTIVITY,
  ...INVITATIONS_ACTIVITY,
  ...OAUTH_ACTIVITY,
  ...PASSWORDS_ACTIVITY,
  ...PAYMENTS_ACTIVITY,
  ...SETTINGS_ACTIVITY,
  ...STAGING_ACTIVITY,
  ...SUBSCRIPTIONS_ACTIVITY,
  ...TICKETS_ACTIVITY,
  ...TWO_FACTOR_ACTIVITY,
  ...UPGRADES_ACTIVITY,
  ...USERS_ACTIVITY,
  ...WEBHOOKS_ACTIVITY
} as const

/** A dotted, stable activity type, e.g. `user.created`, `ticket.replied`, `instance.running`. */
export type ActivityType = keyof typeof ACTIVITY_DESCRIPTIONS
export const ACTIVITY_TYPES = Object.keys(ACTIVITY_DESCRIPTIONS) as ActivityType[]

/** What an activity can point at (`target_type`) → what its `target_id` holds; each declared by the room that owns the thing. */
export const ACTIVITY_TARGET_DESCRIPTIONS = {
  ...ADDON_SOURCES_ACTIVITY_TARGETS,
  ...AUTH_ACTIVITY_TARGETS,
  ...BACKUPS_ACTIVITY_TARGETS,
  ...INSTANCES_ACTIVITY_TARGETS,
  ...INVITATIONS_ACTIVITY_TARGETS,
  ...OAUTH_ACTIVITY_TARGETS,
  ...PAYMENTS_ACTIVITY_TARGETS,
  ...SETTINGS_ACTIVITY_TARGETS,
  ...SUBSCRIPTIONS_ACTIVITY_TARGETS,
  ...TICKETS_ACTIVITY_TARGETS,
  ...UPGRADES_ACTIVITY_TARGETS,
  ...USERS_ACTIVITY_TARGETS,
  ...WEBHOOKS_ACTIVITY_TARGETS
} as const

export type ActivityTargetType = keyof typeof ACTIVITY_TARGET_DESCRIPTIONS
export const ACTIVITY_TARGET_TYPES = Object.keys(ACTIVITY_TARGET_DESCRIPTIONS) as ActivityTargetType[]
