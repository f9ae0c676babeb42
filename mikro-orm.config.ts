import { defineConfig } from '@mikro-orm/postgresql'
import { Migrator } from '@mikro-orm/migrations'
import { entities } from './database/entities.ts'
import { tenantFilter } from './database/tenancy.ts'
import { migrationsList } from './migrations/index.ts'

export interface OrmOptions {
  databaseUrl: string
  poolMax?: number
  debug?: boolean
}

export function createOrmConfig ({ databaseUrl, poolMax = 10, debug = false }: OrmOptions) {
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    discovery: { checkDuplicateTableNames: true },
    filters: { [tenantFilter.name]: tenantFilter },
    extensions: [Migrator],
    pool: { min: 0, max: poolMax },
    // A database that stops answering (a dead host, a network partition) fails a request after
    // 5 s with 503 DATABASE_UNAVAILABLE instead of holding it open forever (pg's default).
    driverOptions: { connectionTimeoutMillis: 5_000 },
    debug,
    // The schema is changed by committed migrations only, never synced at runtime.
    ensureDatabase: false,
    migrations: {
      tableName: 'mikro_orm_migrations',
      path: './migrations',
      migrationsList,
      transactional: true,
      allOrNothing: true,
      snapshot: true,
      snapshotOnMigrate: false,
      emit: 'ts',
      snapshotName: '.snapshot-erp_portal'
    }
  })
}

/** Used by `database/cli.ts` (migration generation) with DATABASE_URL from the environment. */
export default createOrmConfig({ databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/erp_portal' })
