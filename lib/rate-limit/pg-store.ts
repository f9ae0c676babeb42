import { createHash } from 'node:crypto'
import type { Sql } from '../sql.ts'

export interface Hit {
  current: number
  /** Milliseconds until the window resets. */
  ttl: number
}

type HitCallback = (error: Error | null, result?: Hit) => void

const HIT_SQL = `
INSERT INTO rate_limit_counters (key, hits, reset_at)
VALUES ($1, 1, clock_timestamp() + make_interval(secs => $2::double precision / 1000))
ON CONFLICT (key) DO UPDATE SET
  hits = CASE WHEN rate_limit_counters.reset_at <= clock_timestamp() THEN 1 ELSE rate_limit_counters.hits + 1 END,
  reset_at = CASE WHEN rate_limit_counters.reset_at <= clock_timestamp() THEN EXCLUDED.reset_at ELSE rate_limit_counters.reset_at END
RETURNING hits, GREATEST(0, CEIL(EXTRACT(EPOCH FROM (reset_at - clock_timestamp())) * 1000))::bigint AS ttl`

const READ_SQL = `
SELECT hits, GREATEST(0, CEIL(EXTRACT(EPOCH FROM (reset_at - clock_timestamp())) * 1000))::bigint AS ttl
FROM rate_limit_counters WHERE key = $1 AND reset_at > clock_timestamp()`

const PURGE_SQL = `DELETE FROM rate_limit_counters WHERE reset_at < clock_timestamp() - interval '1 hour'`

/**
 * Fixed-window counters in PostgreSQL: one atomic upsert per hit, shared by
 * every replica. Expired rows are purged now and then.
 */
export function createPgCounters (sql: Sql) {
  let hitsSincePurge = 0
  return {
    async hit (key: string, windowMs: number): Promise<Hit> {
      const [row] = await sql<{ hits: number, ttl: string }>({ name: 'rate-limit-hit', text: HIT_SQL, values: [counterKey(key), windowMs] })
      if (++hitsSincePurge >= 1000) {
        hitsSincePurge = 0
        sql({ text: PURGE_SQL, values: [] }).catch(() => {})
      }
      return { current: Number(row?.hits ?? 1), ttl: Number(row?.ttl ?? windowMs) }
    },
    async read (key: string): Promise<Hit> {
      const [row] = await sql<{ hits: number, ttl: string }>({ name: 'rate-limit-read', text: READ_SQL, values: [counterKey(key)] })
      return { current: Number(row?.hits ?? 0), ttl: Number(row?.ttl ?? 0) }
    }
  }
}

/** Keys carry client input (an e-mail); an over-long or NUL-bearing one is stored as its hash so it always fits. */
export function counterKey (key: string): string {
  return key.length <= 200 && !key.includes('\u0000') ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`
}

export type PgCounters = ReturnType<typeof createPgCounters>

/** The same counters in the store shape @fastify/rate-limit constructs itself. */
export function pgStoreFor (counters: PgCounters) {
  return class PgRateLimitStore {
    incr (key: string, callback: HitCallback, timeWindow: number): void {
      counters.hit(key, timeWindow).then((hit) => callback(null, hit), (error: Error) => callback(error))
    }

    read (key: string, callback: HitCallback): void {
      counters.read(key).then((hit) => callback(null, hit), (error: Error) => callback(error))
    }

    child (): PgRateLimitStore {
      return this
    }
  }
}
