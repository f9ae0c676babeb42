import pg from 'pg'
import type { MikroORM } from '@mikro-orm/postgresql'
import { PgBoss } from 'pg-boss'

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
    await installJobQueueSchema(databaseUrl)
    return applied.map((migration) => migration.name)
  } finally {
    await lockClient.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {})
    await lockClient.end()
  }
}

/** pg-boss installs (or upgrades) its own `pgboss` schema when it starts; done here so replicas find it ready. */
async function installJobQueueSchema (databaseUrl: string): Promise<void> {
  const boss = new PgBoss({ connectionString: databaseUrl, supervise: false, schedule: false, max: 1 })
  await boss.start()
  await boss.stop({ graceful: false, close: true })
}
