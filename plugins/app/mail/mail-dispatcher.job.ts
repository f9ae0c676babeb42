import type { FastifyBaseLogger } from 'fastify'
import type { Queue } from 'pg-boss'
import type { Sql } from '../../../lib/sql.ts'
import type { MailSealer } from './mail-seal.ts'
import type { MailTransport } from './mail-transport.ts'

export interface DispatcherTuning {
  /** First retry delay (whole seconds for pg-boss); doubled on every further failure, plus jitter. */
  retryBaseMs: number
  retryCapMs: number
  /** After this many failed attempts a message is `failed` for good. */
  maxAttempts: number
  /** How long an attempt may take before the job is retried elsewhere; the row is leased as long. */
  leaseMs: number
}

export const DEFAULT_TUNING: DispatcherTuning = {
  retryBaseMs: 30_000,
  retryCapMs: 3_600_000,
  maxAttempts: 10,
  leaseMs: 300_000
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

/** What one delivery job did: `gone` when the row was sent, failed or discarded meanwhile. */
export type DeliveryOutcome = 'sent' | 'failed' | 'gone'

export interface PassResult { sent: number, retried: number, failed: number }

/** The part of a pg-boss job delivery reads. */
export interface DeliveryJob { data: { id: string }, retryCount: number, retryLimit: number }

interface ClaimedRow { id: string, recipient: string, subject: string, sealed_body: string | null, attempts: number }

/**
 * Takes the row for this attempt: counted from the claim on, so a message that crashes its sender
 * still runs out of attempts, and leased, so `discardPending` leaves a message being sent alone
 * (and a job retried after its worker went silent waits for the lease).
 */
const CLAIM = `
UPDATE mail_outbox SET locked_until = now() + $2 * interval '1 millisecond', attempts = attempts + 1, updated_at = now()
WHERE id = $1 AND status = 'pending' AND (locked_until IS NULL OR locked_until < now())
RETURNING id, recipient, subject, sealed_body, attempts`

const STATUS = 'SELECT status FROM mail_outbox WHERE id = $1'

const MARK_SENT = `
UPDATE mail_outbox SET status = 'sent', sent_at = now(), sealed_body = NULL, locked_until = NULL, last_error = NULL, updated_at = now()
WHERE id = $1 AND status = 'pending'`

/** `next_attempt_at` is the earliest retry: pg-boss waits that long plus up to as much again (jitter). */
const MARK_FAILED = `
UPDATE mail_outbox SET
  last_error = $3, locked_until = NULL, updated_at = now(),
  next_attempt_at = now() + $4 * interval '1 millisecond',
  status = CASE WHEN $5 THEN 'failed' ELSE 'pending' END,
  sealed_body = CASE WHEN $5 THEN NULL ELSE sealed_body END
WHERE id = $1 AND attempts = $2 AND status = 'pending'`

/** The shortest wait before attempt `attempts + 1` (pg-boss: base * 2^(n-1), up to twice that with jitter). */
export function backoffMs (attempts: number, tuning: Pick<DispatcherTuning, 'retryBaseMs' | 'retryCapMs'>): number {
  return Math.min(tuning.retryCapMs, tuning.retryBaseMs * 2 ** Math.max(0, attempts - 1))
}

/** The queue's retry policy: pg-boss retries a thrown attempt with exponential backoff. */
export function mailQueueOptions (tuning: DispatcherTuning, heartbeatSeconds: number): Omit<Queue, 'name'> {
  return {
    retryLimit: Math.max(0, tuning.maxAttempts - 1),
    retryDelay: Math.max(1, Math.round(tuning.retryBaseMs / 1000)),
    retryBackoff: true,
    retryDelayMax: Math.max(1, Math.round(tuning.retryCapMs / 1000)),
    expireInSeconds: Math.max(1, Math.ceil(tuning.leaseMs / 1000)),
    heartbeatSeconds
  }
}

/**
 * Delivers one outbox message per job. A failed attempt is recorded on the row and thrown, so
 * pg-boss retries it with backoff; the last one (or a body that can never open) marks the row
 * `failed` and ends the job.
 */
export function createMailDispatcher ({ sql, transport, sealer, log, secrets = [], tuning: overrides = {} }: DispatcherDeps) {
  const tuning = { ...DEFAULT_TUNING, ...overrides }

  function describe (error: unknown): string {
    let message = error instanceof Error ? error.message : String(error)
    for (const secret of secrets) if (secret !== '') message = message.replaceAll(secret, '***')
    return message.replace(/token=[\w-]+/g, 'token=***').slice(0, 1000)
  }

  /** `jobLog`: the job's own logger (its lines carry job_id), given by the worker. */
  async function deliver (job: DeliveryJob, jobLog: FastifyBaseLogger = log): Promise<DeliveryOutcome> {
    const { id } = job.data
    const [row] = await sql<ClaimedRow>({ text: CLAIM, values: [id, tuning.leaseMs] })
    if (row === undefined) {
      const [current] = await sql<{ status: string }>({ text: STATUS, values: [id] })
      if (current?.status !== 'pending') return 'gone'
      throw new Error('The message is being sent by another worker')
    }
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
      const last = permanent || row.attempts >= tuning.maxAttempts || job.retryCount >= job.retryLimit
      const delay = backoffMs(row.attempts, tuning)
      const reason = describe(error)
      await sql({ text: MARK_FAILED, values: [row.id, row.attempts, reason, delay, last] })
      const context = { mail_id: row.id, attempts: row.attempts, error: reason }
      if (last) {
        jobLog.error(context, 'E-mail could not be delivered; giving up')
        return 'failed'
      }
      jobLog.warn({ ...context, retry_in_ms: delay }, 'E-mail delivery failed; will retry')
      throw new Error(reason)
    }
    await sql({ text: MARK_SENT, values: [row.id] })
    return 'sent'
  }

  return { tuning, deliver }
}

/** Totals of a drain of the mail queue: a thrown attempt is one to be retried. */
export function passResult (outcomes: Array<{ result: unknown } | { error: unknown }>): PassResult {
  const totals: PassResult = { sent: 0, retried: 0, failed: 0 }
  for (const outcome of outcomes) {
    if ('error' in outcome) totals.retried++
    else if (outcome.result === 'sent') totals.sent++
    else if (outcome.result === 'failed') totals.failed++
  }
  return totals
}

export type MailDispatcher = ReturnType<typeof createMailDispatcher>
