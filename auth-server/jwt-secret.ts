import { resolve } from 'node:path'
import type { AppConfig } from '../config/env.ts'
import { readOrCreateSecret } from '../lib/secrets.ts'

/** JWT_SECRET, or the generated one the portal keeps under DATA_DIR (same rule as ../server.ts). */
export async function resolveJwtSecret (config: Pick<AppConfig, 'JWT_SECRET' | 'DATA_DIR'>): Promise<string> {
  return config.JWT_SECRET ?? await readOrCreateSecret(resolve(config.DATA_DIR, 'secrets', 'jwt-secret'))
}
