import type { AppConfig } from '../config/env.ts'
import { portIsFree } from '../lib/ports.ts'
import type { ContainerAccess } from './container-access.ts'
import { choosePort, embeddedPort } from './embedded-port.ts'
import { runningEmbeddedUrl, startEmbeddedPostgres } from './embedded.ts'

export interface ResolvedDatabase {
  url: string
  embedded: boolean
  stop: () => Promise<void>
}

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL under DATA_DIR:
 * the one already running there (started by `npm start`), or a new one, on
 * EMBEDDED_PG_PORT or, unset, a port kept in DATA_DIR (see embedded-port.ts).
 * A taken explicit port throws a ConfigError.
 */
export async function resolveDatabase (config: AppConfig, log?: (line: string) => void, containerAccess?: ContainerAccess): Promise<ResolvedDatabase> {
  if (config.DATABASE_URL !== undefined) {
    return { url: config.DATABASE_URL, embedded: false, stop: async () => {} }
  }
  const dataDir = config.DATA_DIR
  const explicit = config.EMBEDDED_PG_PORT
  const database = 'erp_portal'
  const running = await runningEmbeddedUrl({ dataDir, port: await embeddedPort(dataDir, explicit), database })
  if (running !== undefined) return { url: running, embedded: true, stop: async () => {} }
  const start = async () => {
    const port = await choosePort({ dataDir, explicit, avoid: [config.PORT] })
    return startEmbeddedPostgres({ dataDir, port, database, ...(log ? { log } : {}), ...(containerAccess ? { containerAccess } : {}) }).catch(async (error: unknown) => {
      // Another deployment may have taken the port between our check and PostgreSQL's bind: choose again, once.
      if (explicit === undefined && !(await portIsFree(port))) return undefined
      throw error
    })
  }
  const embedded = await start() ?? await start()
  if (embedded === undefined) throw new Error('Embedded PostgreSQL: the ports chosen were taken by another process as it started; try again')
  return { ...embedded, embedded: true }
}
