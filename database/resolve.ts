import type { AppConfig } from '../config/env.ts'
import { runningEmbeddedUrl, startEmbeddedPostgres } from './embedded.ts'

export interface ResolvedDatabase {
  url: string
  embedded: boolean
  stop: () => Promise<void>
}

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL under DATA_DIR:
 * the one already running there (started by `npm start`), or a new one.
 */
export async function resolveDatabase (config: AppConfig, log?: (line: string) => void): Promise<ResolvedDatabase> {
  if (config.DATABASE_URL !== undefined) {
    return { url: config.DATABASE_URL, embedded: false, stop: async () => {} }
  }
  const options = { dataDir: config.DATA_DIR, port: config.EMBEDDED_PG_PORT, database: 'erp_portal' }
  const running = await runningEmbeddedUrl(options)
  if (running !== undefined) return { url: running, embedded: true, stop: async () => {} }
  const embedded = await startEmbeddedPostgres({ ...options, ...(log ? { log } : {}) })
  return { ...embedded, embedded: true }
}
