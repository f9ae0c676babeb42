import type { EntityManager } from '@mikro-orm/postgresql'
import { systemScope } from '../../../lib/call-scope.ts'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import type { MailService } from '../mail/mail.service.ts'

export interface DisableDeps {
  /** The root EntityManager (forked per call). */
  em: () => EntityManager
  activity: ActivityService
  mail: Pick<MailService, 'enqueue' | 'kick'>
  /** An endpoint failing (no success) for this long is disabled. */
  afterMs: number
  baseUrl: string
}

/** Takes the endpoint off when it has failed for `afterMs` and is still on; the returned row means this call did it. */
const DISABLE = `
UPDATE webhook_endpoints SET enabled = false, disabled_reason = ?, updated_at = now()
WHERE id = ? AND enabled AND failing_since < now() - ? * interval '1 millisecond'
RETURNING tenant_id, url, failing_since`

const ADMINS = `SELECT email, name FROM users WHERE tenant_id = ? AND role = 'admin' AND active`

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * After a failed attempt: an endpoint that has failed continuously for WEBHOOK_DISABLE_AFTER_HOURS
 * is disabled, the change is in the activity feed, and each administrator of the company gets an
 * e-mail, all in one transaction (once, however many replicas see the failure).
 */
export function createEndpointDisabler (deps: DisableDeps) {
  return async function endpointFailing (endpointId: string): Promise<void> {
    const hours = Math.round(deps.afterMs / 3_600_000)
    const reason = `Every delivery failed for ${hours} hours`
    const mailed = await deps.em().transactional(async (tx) => {
      const [row] = await tx.execute<Array<{ tenant_id: string, url: string }>>(DISABLE, [reason, endpointId, deps.afterMs])
      if (row === undefined) return false
      const scoped = scopedEntityManager(tx, row.tenant_id)
      deps.activity.record(tx, systemScope(scoped, row.tenant_id, 'webhook-delivery').actor, {
        type: 'webhook.disabled', title: `Webhook endpoint ${row.url} disabled: ${reason.toLowerCase()}`.slice(0, 300), targetType: 'webhook', targetId: endpointId
      })
      const admins = await tx.execute<Array<{ email: string, name: string }>>(ADMINS, [row.tenant_id])
      for (const admin of admins) {
        const text = `Hello ${admin.name},\n\nThe webhook endpoint ${row.url} did not accept any event for ${hours} hours, so it was disabled: no more events are sent to it.\n\n` +
          `Fix the receiver, then turn the endpoint on again (PUT /api/webhooks/${endpointId} with "enabled": true) and redeliver the events it missed.\n${deps.baseUrl}\n`
        await deps.mail.enqueue(tx, {
          tenantId: row.tenant_id, kind: 'webhook-disabled', to: admin.email, subject: 'A webhook endpoint was disabled',
          text, html: `<p>${escapeHtml(text).replaceAll('\n', '<br>')}</p>`
        })
      }
      await tx.flush()
      return admins.length > 0
    })
    if (mailed) deps.mail.kick()
  }
}
