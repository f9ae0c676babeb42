/**
 * The staging copies' expiry, a scheduled pass (one at a time across replicas): each copy whose
 * `expires_at` is less than WARNING_DAYS away gets one e-mail to its company's administrators
 * (`expiry_warned_at` is claimed with a conditional update, so two passes never send two), and each
 * copy whose `expires_at` has passed is deleted through the instances' normal delete path, by the
 * system. A refresh sets a new `expires_at` and clears `expiry_warned_at`.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import { systemScope } from '../../../lib/call-scope.ts'
import type { Sql } from '../../../lib/sql.ts'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import type { InstancesService } from '../instances/instances.service.ts'
import type { MailService } from '../mail/mail.service.ts'

export const STAGING_EXPIRY_JOB = 'staging-expiry'
/** How long before its expiry a staging copy's administrators are warned. */
export const WARNING_DAYS = 3

const LIVE = "kind = 'staging' AND state NOT IN ('deleted', 'deleting')"

/** The copies whose warning is due: expiring within the window, not warned for this expiry. */
const DUE_WARNINGS = `SELECT id::float8 AS id FROM instances
WHERE ${LIVE} AND expiry_warned_at IS NULL AND expires_at > $1 AND expires_at <= $1::timestamptz + make_interval(days => ${WARNING_DAYS}) ORDER BY id`

/** Claims one copy's warning: the returned row means this pass sends it. */
const CLAIM_WARNING = `UPDATE instances SET expiry_warned_at = ? WHERE id = ? AND ${LIVE} AND expiry_warned_at IS NULL
RETURNING id::float8 AS id, tenant_id, name, subdomain, expires_at`

const EXPIRED = `SELECT id::float8 AS id, tenant_id, name FROM instances WHERE ${LIVE} AND expires_at <= $1 ORDER BY id`

const ADMINS = `SELECT email, name FROM users WHERE tenant_id = ? AND role = 'admin' AND active`

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

export interface StagingExpiryDeps {
  em: EntityManager
  sql: Sql
  activity: ActivityService
  mail: Pick<MailService, 'enqueue' | 'kick'>
  instances: Pick<InstancesService, 'request'>
  baseUrl: string
  log: Pick<FastifyBaseLogger, 'warn'>
  now?: () => Date
}

export function createStagingExpiry (deps: StagingExpiryDeps) {
  const now = deps.now ?? (() => new Date())

  /** The warnings, each in one transaction with its claim, its e-mails and its activity record. */
  async function warn (at: Date): Promise<number> {
    let warned = 0
    const candidates = await deps.sql<{ id: number }>({ text: DUE_WARNINGS, values: [at] })
    for (const { id } of candidates) {
      const mailed = await deps.em.fork().transactional(async (tx) => {
        const [row] = await tx.execute<Array<{ id: number, tenant_id: string, name: string, subdomain: string, expires_at: Date }>>(CLAIM_WARNING, [at, id])
        if (row === undefined) return false
        const scoped = scopedEntityManager(tx, row.tenant_id)
        const when = new Date(row.expires_at).toISOString().slice(0, 16).replace('T', ' ')
        deps.activity.record(tx, systemScope(scoped, row.tenant_id, STAGING_EXPIRY_JOB).actor, {
          type: 'instance.staging_expiring', title: `Staging copy ${row.name} expires on ${when} UTC: administrators e-mailed`, targetType: 'instance', targetId: String(row.id), instanceId: row.id
        })
        const admins = await tx.execute<Array<{ email: string, name: string }>>(ADMINS, [row.tenant_id])
        for (const admin of admins) {
          const text = `Hello ${admin.name},\n\nThe staging copy ${row.name} (${row.subdomain}) expires on ${when} UTC and will then be deleted with its data.\n\n` +
            `To keep it longer, refresh it (POST /api/instances/${row.id}/refresh): it takes a fresh copy of its production instance and its expiry starts over.\n${deps.baseUrl}\n`
          await deps.mail.enqueue(tx, {
            tenantId: row.tenant_id, kind: 'staging-expiring', to: admin.email, subject: `Staging copy ${row.name} expires on ${when} UTC`,
            text, html: `<p>${escapeHtml(text).replaceAll('\n', '<br>')}</p>`
          })
        }
        await tx.flush()
        return admins.length > 0
      })
      if (mailed) deps.mail.kick()
      warned++
    }
    return warned
  }

  /** Every expired copy deleted through the normal delete path (idempotent: one already deleting is a no-op there). */
  async function expire (at: Date): Promise<number> {
    let deleted = 0
    for (const row of await deps.sql<{ id: number, tenant_id: string, name: string }>({ text: EXPIRED, values: [at] })) {
      try {
        const scope = systemScope(scopedEntityManager(deps.em.fork(), row.tenant_id), row.tenant_id, STAGING_EXPIRY_JOB)
        // Why it is deleted goes in the delete's own transaction: never a deletion without its reason.
        const outcome = await deps.instances.request(scope, row.id, 'delete', (tx) => {
          deps.activity.record(tx, scope.actor, { type: 'instance.staging_expired', title: `Staging copy ${row.name} expired: deleted`, targetType: 'instance', targetId: String(row.id), instanceId: row.id })
        })
        if (outcome.queued) deleted++
      } catch (error) {
        deps.log.warn({ err: error, instanceId: row.id }, 'Expired staging copy not deleted; the next pass tries again')
      }
    }
    return deleted
  }

  return {
    async run (): Promise<{ warned: number, deleted: number }> {
      const at = now()
      const warned = await warn(at)
      const deleted = await expire(at)
      return { warned, deleted }
    }
  }
}
