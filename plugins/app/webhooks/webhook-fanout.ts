import { randomUUID } from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Jobs } from '../../external/jobs.ts'
import { WEBHOOK_DELIVERY_QUEUE } from './webhook-delivery.queue.ts'

/** The resource an event is about, as the API shows it; undefined when it cannot be read (gone). */
export type RenderEvent = (tenantId: string, event: { type: string, target_type: string | null, target_id: string | null, instance_id: string | null }) => Promise<Record<string, unknown> | undefined>

export interface FanOutDeps {
  /** A fresh EntityManager on the root (no tenant filter). */
  em: () => EntityManager
  jobs: Pick<Jobs, 'send' | 'wake'>
  render: RenderEvent
  retryHours: number
  batchSize?: number
}

/** Events per pass: small, so a backlog's first deliveries are committed (and sent) early. */
export const FAN_OUT_BATCH = 25

interface PendingEvent { id: string, tenant_id: string, type: string, target_type: string | null, target_id: string | null, instance_id: string | null, title: string }

/**
 * Events not yet handed on, oldest first, locked for this pass: a replica running the same pass
 * at the same time skips them (SKIP LOCKED), so each event is fanned out once.
 */
const PENDING = `
SELECT id, tenant_id, type, target_type, target_id, instance_id::text, title FROM webhook_events
WHERE fanned_out_at IS NULL ORDER BY created_at, id LIMIT ? FOR UPDATE SKIP LOCKED`

const ANY_PENDING = 'SELECT EXISTS (SELECT 1 FROM webhook_events WHERE fanned_out_at IS NULL) AS pending'

const SUBSCRIBED = 'SELECT id FROM webhook_endpoints WHERE tenant_id = ? AND enabled AND events @> ?::jsonb'

const DROP = 'DELETE FROM webhook_events WHERE id = ?'

const FAN_OUT = 'UPDATE webhook_events SET fanned_out_at = now(), data = ?::jsonb WHERE id = ?'

const ADD_DELIVERY = `
INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, status, attempts, retry_until, created_at, updated_at)
VALUES (?, ?, ?, ?, 'pending', 0, now() + ? * interval '1 hour', clock_timestamp(), clock_timestamp())`

/** Adds a delivery of `eventId` to `endpointId` and its job, in `tx`. */
export async function addDelivery (tx: EntityManager, jobs: Pick<Jobs, 'send'>, row: { tenantId: string, endpointId: string, eventId: string, retryHours: number }): Promise<string> {
  const id = randomUUID()
  await tx.execute(ADD_DELIVERY, [id, row.tenantId, row.endpointId, row.eventId, row.retryHours])
  await jobs.send(tx, WEBHOOK_DELIVERY_QUEUE, { id }, { id })
  return id
}

/**
 * One pass: each new event that an endpoint subscribed to gets its `data` (the resource now, just after the change committed)
 * and one delivery, with its job, per enabled endpoint of the company subscribed to its type, all
 * in one transaction; the others are dropped. Returns how many events the pass took.
 */
export function createFanOut (deps: FanOutDeps) {
  return async function fanOut (): Promise<number> {
    // Most passes find nothing: one statement, no transaction. An event committed just after waits for the next pass.
    const [{ pending } = { pending: false }] = await deps.em().execute<Array<{ pending: boolean }>>(ANY_PENDING)
    if (!pending) return 0
    const handed = await deps.em().transactional(async (tx) => {
      const events = await tx.execute<PendingEvent[]>(PENDING, [deps.batchSize ?? FAN_OUT_BATCH])
      let deliveries = 0
      for (const event of events) {
        const endpoints = await tx.execute<Array<{ id: string }>>(SUBSCRIBED, [event.tenant_id, JSON.stringify([event.type])])
        // Nobody subscribed: nothing will ever refer to the event, so it is not kept.
        if (endpoints.length === 0) {
          await tx.execute(DROP, [event.id])
          continue
        }
        const data = await deps.render(event.tenant_id, event).catch(() => undefined) ?? fallback(event)
        await tx.execute(FAN_OUT, [JSON.stringify(data), event.id])
        for (const endpoint of endpoints) {
          await addDelivery(tx, deps.jobs, { tenantId: event.tenant_id, endpointId: endpoint.id, eventId: event.id, retryHours: deps.retryHours })
          deliveries++
        }
      }
      return { events: events.length, deliveries }
    })
    if (handed.deliveries > 0) deps.jobs.wake(WEBHOOK_DELIVERY_QUEUE)
    return handed.events
  }
}

/** What is known of a resource that cannot be read any more (a deleted one). */
function fallback (event: PendingEvent): Record<string, unknown> {
  return { id: event.target_id, object: event.target_type, instance_id: event.instance_id === null ? null : Number(event.instance_id), title: event.title }
}
