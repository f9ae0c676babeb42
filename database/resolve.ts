import type { AppConfig } from '../config/env.ts'
import { startEmbeddedPostgres } from './embedded.ts'

export interface ResolvedDatabase {
  url: string
  embedded: boolean
  stop: () => Promise<void>
}

/** DATABASE_URL when set; otherwise the embedded PostgreSQL under DATA_DIR. */
export async function resolveDatabase (config: AppConfig, log?: (line: string) => void): Promise<ResolvedDatabase> {
  if (config.DATABASE_URL !== undefined) {
    return { url: config.DATABASE_URL, embedded: false, stop: async () => {} }
  }
  const embedded = await startEmbeddedPostgres({
    dataDir: config.DATA_DIR,
    port: config.EMBEDDED_PG_PORT,
    database: 'erp_portal',
    ...(log ? { log } : {})
  })
  return { ...embedded, embedded: true }
}
