import type pg from 'pg'
import type { FastifyInstance } from 'fastify'

/**
 * The SQL statements sent while `fn` runs (their prepared names, or their
 * text), recorded on the client class of the ORM's own pool: MikroORM brings
 * its own copy of pg, and the hot-path SQL shares that pool. The job
 * workers' statements (pg-boss polls its queues, all in the `pgboss` schema,
 * and mail delivery) are left out: they are not the caller's doing.
 */
export async function statementsDuring (app: FastifyInstance, fn: () => Promise<unknown>): Promise<string[]> {
  const pool = await app.orm.em.getConnection().getNativeClient() as unknown as { Client: typeof pg.Client }
  const prototype = pool.Client.prototype
  const original = prototype.query
  const seen: string[] = []
  prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const statement = args[0] as { name?: string, text?: string } | string
    const label = typeof statement === 'string' ? statement : statement.name ?? statement.text ?? ''
    if (!label.includes('mail_outbox') && !label.includes('pgboss.')) seen.push(label)
    return (original as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof original
  try {
    await fn()
  } finally {
    prototype.query = original
  }
  return seen
}
