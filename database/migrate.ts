import pg from 'pg'
import type { MikroORM } from '@mikro-orm/postgresql'

/** Any fixed number works; it only has to be the same for every replica. */
const MIGRATION_LOCK_KEY = 727_001

/**
 * Applies pending migrations. The session-level advisory lock is held on its own
 * connection, so replicas that start together take turns: the first applies the
 * migrations, the others wait, then find nothing pending.
 */
export async function runMigrations (orm: MikroORM, databaseUrl: string): Promise<string[]> {
  const lockClient = new pg.Client({ connectionString: databaseUrl })
  await lockClient.connect()
  try {
    await lockClient.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY])
    const applied = await orm.migrator.up()
    return applied.map((migration) => migration.name)
  } finally {
    await lockClient.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {})
    await lockClient.end()
  }
}
