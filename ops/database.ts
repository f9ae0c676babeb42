import { MikroORM } from '@mikro-orm/postgresql'
import type { AppConfig } from '../config/env.ts'
import { resolveDatabase } from '../database/resolve.ts'
import { createOrmConfig } from '../mikro-orm.config.ts'

export interface OpsDatabase {
  orm: MikroORM
  close: () => Promise<void>
}

/**
 * Connects an operator command the way server.ts does: DATABASE_URL, or the
 * embedded PostgreSQL under DATA_DIR (the one `npm start` is running, if any).
 */
export async function openOpsDatabase (config: AppConfig): Promise<OpsDatabase> {
  const database = await resolveDatabase(config)
  const orm = await MikroORM.init(createOrmConfig({ databaseUrl: database.url, poolMax: 2 })).catch(async (error: unknown) => {
    await database.stop()
    throw error
  })
  return {
    orm,
    close: async () => {
      await orm.close()
      await database.stop()
    }
  }
}
