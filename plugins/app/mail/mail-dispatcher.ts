import type { FastifyBaseLogger } from 'fastify'
import { createPeriodicJob } from '../../../lib/periodic-job.ts'
import type { Sql } from '../../../lib/sql.ts'
import type { MailSealer } from './mail-seal.ts'
import type { MailTransport } from './mail-transport.ts'

export interface DispatcherTuning {
  /** First retry delay; doubled on every further failure. */
  retryBaseMs: number
  retryCapMs: number
  /** How often due messages are looked for, besides the kick after each enqueue. */
  pollIntervalMs: number
  /** After this many failed attempts a message is `failed` for good. */
  maxAttempts: number
  /** How long a claimed message stays invisible to other replicas. */
  leaseMs: number
  batchSize: number
}

export const DEFAULT_TUNING: DispatcherTuning = {
  retryBaseMs: 30_000,
  retryCapMs: 3_600_000,
  pollIntervalMs: 15_000,
  maxAttempts: 10,
  leaseMs: 300_000,
  batchSize: 20
}

export interface DispatcherDeps {
  sql: Sql
  transport: MailTransport
  sealer: MailSealer
  log: FastifyBaseLogger
  /** Strings that must never reach `last_error` (e.g. SMTP credentials). */
  secrets?: string[]
  tuning?: Partial<DispatcherTuning>
}

export interface PassResult { sent: number, retried: number, failed: number }

interface ClaimedRow { id: string, recipient: string, subject: string, sealed_body: string | null, attempts: number }

/**
 * Claims due messages for this replica: SKIP LOCKED so that replicas never
 * wait on (or take) each other's rows, plus a lease so a replica that dies
 * mid-send hands its messages back. An attempt counts from the claim on, so
 * a message that crashes its sender still runs out of attempts.
 */
const CLAIM = `
WITH due AS (
  SELECT id FROM mail_outbox
  WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
  ORDER BY next_attempt_at
  LIMIT $2
  FOR UPDATE SKIP LOCKED)
UPDATE mail_outbox m SET locked_until = now() + $1 * interval '1 millisecond', attempts = m.attempts + 1, updated_at = now()
FROM due WHERE m.id = due.id
RETURNING m.id, m.recipient, m.subject, m.sealed_body, m.attempts`

const MARK_SENT = `
UPDATE mail_outbox SET status = 'sent', sent_at = now(), sealed_body = NULL, locked_until = NULL, last_error = NULL, updated_at = now()
WHERE id = $1 AND status = 'pending'`

const RELEASE = `
UPDATE mail_outbox SET locked_until = NULL, attempts = attempts - 1, updated_at = now()
WHERE id = ANY($1::uuid[]) AND status = 'pending'`

/** Fenced on `attempts`: a replica whose lease ran out does not overwrite a newer attempt. */
const MARK_FAILED = `
UPDATE mail_outbox SET
  last_error = $3, locked_until = NULL, updated_at = now(),
  next_attempt_at = now() + $4 * interval '1 millisecond',
  status = CASE WHEN $5 THEN 'failed' ELSE 'pending' END,
  sealed_body = CASE WHEN $5 THEN NULL ELSE sealed_body END
WHERE id = $1 AND attempts = $2 AND status = 'pending'`

export function backoffMs (attempts: number, tuning: Pick<DispatcherTuning, 'retryBaseMs' | 'retryCapMs'>): number {
  return Math.min(tuning.retryCapMs, tuning.retryBaseMs * 2 ** Math.max(0, attempts - 1))
}

export function createMailDispatcher ({ sql, transport, sealer, log, secrets = [], tuning: overrides = {} }: DispatcherDeps) {
  const tuning = { ...DEFAULT_TUNING, ...overrides }
  const job = createPeriodicJob({ name: 'Mail dispatcher pass', intervalMs: tuning.pollIntervalMs, run: pass, log })

  function describe (error: unknown): string {
    let message = error instanceof Error ? error.message : String(error)
    for (const secret of secrets) if (secret !== '') message = message.replaceAll(secret, '***')
    return message.replace(/token=[\w-]+/g, 'token=***').slice(0, 1000)
  }

  async function deliver (row: ClaimedRow, totals: PassResult): Promise<void> {
    let permanent = false
    try {
      if (row.sealed_body === null) throw new Error('Message body is missing')
      let body
      try {
        body = sealer.open(row.sealed_body, row.id)
      } catch {
        permanent = true // retrying cannot help: JWT_SECRET changed, or the row was tampered with
        throw new Error('Message body cannot be decrypted (was JWT_SECRET changed?)')
      }
      await transport.send({ id: row.id, to: row.recipient, subject: row.subject, ...body })
    } catch (error) {
      const last = permanent || row.attempts >= tuning.maxAttempts
      const delay = backoffMs(row.attempts, tuning)
      const reason = describe(error)
      await sql({ text: MARK_FAILED, values: [row.id, row.attempts, reason, delay, last] })
      const context = { mail_id: row.id, attempts: row.attempts, error: reason }
      if (last) {
        totals.failed++
        log.error(context, 'E-mail could not be delivered; giving up')
      } else {
        totals.retried++
        log.warn({ ...context, retry_in_ms: delay }, 'E-mail delivery failed; will retry')
      }
      return
    }
    await sql({ text: MARK_SENT, values: [row.id] })
    totals.sent++
  }

  async function pass (): Promise<PassResult> {
    const totals: PassResult = { sent: 0, retried: 0, failed: 0 }
    while (!job.stopped) {
      const rows = await sql<ClaimedRow>({ text: CLAIM, values: [tuning.leaseMs, tuning.batchSize] })
      for (const [index, row] of rows.entries()) {
        if (job.stopped) {
          // Closing: hand the rest back now rather than when their lease runs out.
          await sql({ text: RELEASE, values: [rows.slice(index).map((r) => r.id)] })
          break
        }
        await deliver(row, totals)
      }
      if (rows.length < tuning.batchSize) break
    }
    return totals
  }

  return {
    tuning,
    /** Looks for due messages soon; call it after the commit that enqueued one. */
    kick: job.kick,
    /** One awaited pass, for jobs and tests; safe beside the background loop (SKIP LOCKED). */
    dispatchNow: job.runNow,
    start: job.start,
    /** Stops polling and waits for the messages in flight. */
    stop: job.stop
  }
}

export type MailDispatcher = ReturnType<typeof createMailDispatcher>
