import { MikroORM } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import { createOrmConfig } from '../../mikro-orm.config.ts'
import { sqlOnPool, type Sql } from '../../lib/sql.ts'
import { createTestDatabase } from './database.ts'

interface Teardown { teardown: (fn: () => unknown) => void }

/** A migrated database of its own with no app (so no background dispatcher but the test's). */
export async function outboxDatabase (t: Teardown): Promise<{ orm: MikroORM, sql: Sql }> {
  const databaseUrl = await createTestDatabase(t)
  const orm = await MikroORM.init(createOrmConfig({ databaseUrl, poolMax: 8 }))
  t.teardown(() => orm.close())
  return { orm, sql: sqlOnPool(await orm.em.getConnection().getNativeClient()) }
}

export interface LogEntry { level: string, context: Record<string, unknown>, message: string }

/** A logger that keeps what it is told, to assert on it. */
export function recordingLogger (): FastifyBaseLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = []
  const at = (level: string) => (context: unknown, message?: string) => {
    entries.push(typeof context === 'string' ? { level, context: {}, message: context } : { level, context: context as Record<string, unknown>, message: message ?? '' })
  }
  const logger = {
    entries,
    level: 'trace',
    fatal: at('fatal'),
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    trace: at('trace'),
    silent: () => {},
    child: () => logger
  }
  return logger as unknown as FastifyBaseLogger & { entries: LogEntry[] }
}
