import type pg from 'pg'
import type { FastifyInstance } from 'fastify'

/**
 * The SQL statements sent while `fn` runs (their prepared names, or their
 * text), recorded on the client class of the ORM's own pool: MikroORM brings
 * its own copy of pg, and the hot-path SQL shares that pool. The job
 * workers' statements (pg-boss polls its queues, all in the `pgboss` schema,
 * mail delivery, the webhook fan-out's look for new events) are left out: they
 * are not the caller's doing. So is the rest of a worker's transaction (the BEGIN
 * and COMMIT around the fan-out's look), the end of any transaction begun
 * before `fn` started, and a BEGIN sent last on its connection (a worker's,
 * whose next statement came after `fn` ended); what the same pooled connection sends for the caller
 * before or after is kept. With `workers: true`, everything sent is kept (for a test of a worker's own statements).
 */
export async function statementsDuring (app: FastifyInstance, fn: () => Promise<unknown>, options: { workers?: boolean } = {}): Promise<string[]> {
  const pool = await app.orm.em.getConnection().getNativeClient() as unknown as { Client: typeof pg.Client }
  const prototype = pool.Client.prototype
  const original = prototype.query
  const seen: Array<{ client: pg.Client, label: string }> = []
  // A connection in a worker's transaction (from its BEGIN to its COMMIT or ROLLBACK): what it sends is not the caller's.
  const inWorkerTransaction = new Set<pg.Client>()
  prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const statement = args[0] as { name?: string, text?: string } | string
    const label = typeof statement === 'string' ? statement : statement.name ?? statement.text ?? ''
    if (options.workers === true) {
      seen.push({ client: this, label })
    } else if (BACKGROUND.some((mark) => label.includes(mark))) {
      // The pool hands the same connection to requests and workers in turn: only this transaction's
      // statements are the worker's (its BEGIN, recorded before the mark was seen, is taken back).
      const begin = seen.findLastIndex((entry) => entry.client === this)
      if (begin !== -1 && /^BEGIN/i.test(seen[begin]!.label)) {
        seen.splice(begin, 1)
        inWorkerTransaction.add(this)
      }
    } else if (inWorkerTransaction.has(this)) {
      if (/^(COMMIT|ROLLBACK)/i.test(label)) inWorkerTransaction.delete(this)
    } else if (/^(COMMIT|ROLLBACK)/i.test(label) && !seen.some((entry) => entry.client === this && /^BEGIN/i.test(entry.label))) {
      // The end of a transaction begun before `fn` started (a worker's): not the caller's.
    } else {
      seen.push({ client: this, label })
    }
    return (original as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof original
  try {
    await fn()
  } finally {
    prototype.query = original
  }
  if (options.workers === true) return seen.map((entry) => entry.label)
  // A BEGIN with nothing after it on its connection: a worker's, whose next statement came after `fn`
  // ended (the caller's own transactions have ended by then).
  const unfinished = seen.filter((entry, index) => /^BEGIN/i.test(entry.label) && !seen.slice(index + 1).some((later) => later.client === entry.client))
  return seen.filter((entry) => !unfinished.includes(entry)).map((entry) => entry.label)
}

/** What only the job workers send. */
const BACKGROUND = ['mail_outbox', 'pgboss.', 'webhook_events']
