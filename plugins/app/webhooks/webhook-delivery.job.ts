import type { FastifyBaseLogger } from 'fastify'
import { fetchOutbound, OutboundUrlError, type OutboundPolicy } from '../../../lib/outbound-url.ts'
import type { Sql } from '../../../lib/sql.ts'
import { signatureHeader } from './webhook-signature.ts'
import type { WebhookSecretSealer } from './webhook-secret.ts'

export interface DeliveryJobDeps {
  sql: Sql
  sealer: WebhookSecretSealer
  policy: OutboundPolicy
  timeoutMs: number
  log: FastifyBaseLogger
  /** Called after an attempt failed while the endpoint had been failing for long enough: disables it and tells the admins. */
  endpointFailing: (endpointId: string) => Promise<void>
}

export type DeliveryOutcome = 'delivered' | 'failed' | 'gone'

interface Claimed {
  id: string
  attempts: number
  expired: boolean
  endpoint_id: string
  url: string
  enabled: boolean
  sealed_secret: string
  sealed_previous_secret: string | null
  previous_valid: boolean
  event_id: string
  type: string
  tenant_id: string
  data: Record<string, unknown> | null
  created_at: string
}

/** Takes the row for this attempt (leased, counted from the claim on), with its endpoint and event. */
const CLAIM = `
WITH claimed AS (
  UPDATE webhook_deliveries SET locked_until = now() + $2 * interval '1 millisecond', attempts = attempts + 1, updated_at = now()
  WHERE id = $1 AND status = 'pending' AND (locked_until IS NULL OR locked_until < now())
  RETURNING id, attempts, retry_until, endpoint_id, event_id)
SELECT c.id, c.attempts, c.retry_until < now() AS expired, c.endpoint_id, w.url, w.enabled, w.sealed_secret, w.sealed_previous_secret,
  coalesce(w.previous_secret_expires_at > now(), false) AS previous_valid,
  e.id AS event_id, e.type, e.tenant_id, e.data, to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
FROM claimed c JOIN webhook_endpoints w ON w.id = c.endpoint_id JOIN webhook_events e ON e.id = c.event_id`

const STATUS = 'SELECT status FROM webhook_deliveries WHERE id = $1'

const SETTLE = `
UPDATE webhook_deliveries SET status = $2, response_status = $3, duration_ms = $4, last_error = $5, locked_until = NULL, updated_at = now(),
  delivered_at = CASE WHEN $2 = 'delivered' THEN now() ELSE delivered_at END
WHERE id = $1`

const SUCCEEDED = 'UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL'
const FAILED = 'UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, now()) WHERE id = $1'

/** The body receivers get: the same bytes on every attempt of every delivery of the event. */
export function eventBody (row: Pick<Claimed, 'event_id' | 'type' | 'created_at' | 'tenant_id' | 'data'>): string {
  return JSON.stringify({ id: row.event_id, type: row.type, created_at: row.created_at, tenant: row.tenant_id, data: row.data ?? {} })
}

/**
 * One attempt of one delivery: a signed POST through the outbound guard. 2xx settles it as
 * delivered; anything else is recorded and thrown, so pg-boss retries with backoff, until the
 * row's `retry_until` (or the queue's last retry) settles it as failed.
 */
export function createDeliveryJob (deps: DeliveryJobDeps) {
  const { sql, sealer, policy, timeoutMs } = deps

  return async function deliver (job: { data: { id: string }, retryCount: number, retryLimit: number }, log: FastifyBaseLogger = deps.log): Promise<DeliveryOutcome> {
    const [row] = await sql<Claimed>({ text: CLAIM, values: [job.data.id, timeoutMs + 30_000] })
    if (row === undefined) {
      const [current] = await sql<{ status: string }>({ text: STATUS, values: [job.data.id] })
      if (current?.status !== 'pending') return 'gone'
      throw new Error('The delivery is being attempted by another worker')
    }
    if (!row.enabled) {
      await sql({ text: SETTLE, values: [row.id, 'failed', null, null, 'The endpoint is disabled'] })
      return 'failed'
    }
    const secrets = [sealer.open(row.sealed_secret, row.endpoint_id)]
    if (row.previous_valid && row.sealed_previous_secret !== null) secrets.push(sealer.open(row.sealed_previous_secret, row.endpoint_id))
    const body = eventBody(row)
    const timestamp = Math.floor(Date.now() / 1000)
    const started = performance.now()
    let status: number | null = null
    let error: string | null = null
    try {
      const response = await fetchOutbound(row.url, policy, {
        method: 'POST',
        body,
        maxBytes: 64 * 1024,
        timeoutMs,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'erp-portal-webhooks/1',
          'webhook-id': row.event_id,
          'webhook-delivery': row.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(secrets, timestamp, body)
        }
      })
      status = response.status
      if (status < 200 || status > 299) error = `The endpoint answered ${status}`
    } catch (failure) {
      error = failure instanceof OutboundUrlError ? failure.message : `The request failed (${(failure as Error).message})`
    }
    const duration = Math.round(performance.now() - started)
    if (error === null) {
      await sql({ text: SETTLE, values: [row.id, 'delivered', status, duration, null] })
      await sql({ text: SUCCEEDED, values: [row.endpoint_id] })
      return 'delivered'
    }
    await sql({ text: FAILED, values: [row.endpoint_id] })
    await deps.endpointFailing(row.endpoint_id)
    const last = row.expired || job.retryCount >= job.retryLimit
    await sql({ text: SETTLE, values: [row.id, last ? 'failed' : 'pending', status, duration, error.slice(0, 500)] })
    const context = { delivery_id: row.id, endpoint_id: row.endpoint_id, attempts: row.attempts, error }
    if (last) {
      log.warn(context, 'Webhook delivery failed; giving up')
      return 'failed'
    }
    log.info(context, 'Webhook delivery failed; will retry')
    throw new Error(error)
  }
}
