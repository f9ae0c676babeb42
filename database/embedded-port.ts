import { readFile, writeFile, mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import { ConfigError } from '../config/problems.ts'
import { freePort, portIsFree, takenPortProblem } from '../lib/ports.ts'

/** The embedded PostgreSQL's port when EMBEDDED_PG_PORT is unset and it is free. */
export const DEFAULT_EMBEDDED_PG_PORT = 54329

/**
 * Where the port chosen for an unset EMBEDDED_PG_PORT is kept: the next start
 * (and the short commands that attach to a running server) use it again.
 */
export const portFile = (dataDir: string) => resolve(dataDir, 'postgres-port')

export async function rememberedPort (dataDir: string): Promise<number | undefined> {
  try {
    const port = Number.parseInt((await readFile(portFile(dataDir), 'utf8')).trim(), 10)
    return Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined
  } catch {
    return undefined
  }
}

/** The port the embedded PostgreSQL would use now, without starting or choosing anything. */
export async function embeddedPort (dataDir: string, explicit: number | undefined): Promise<number> {
  return explicit ?? await rememberedPort(dataDir) ?? DEFAULT_EMBEDDED_PG_PORT
}

/**
 * The port to start the embedded PostgreSQL on: an explicit one must be free
 * (else a ConfigError, one line); otherwise the remembered or default one when
 * free, else any free port, which is then remembered in DATA_DIR.
 */
export async function choosePort (options: { dataDir: string, explicit: number | undefined, avoid: number[] }): Promise<number> {
  const { dataDir, explicit } = options
  if (explicit !== undefined) {
    if (!(await portIsFree(explicit))) throw new ConfigError([await takenPortProblem('EMBEDDED_PG_PORT', explicit)])
    return explicit
  }
  const remembered = await rememberedPort(dataDir)
  let port = remembered ?? DEFAULT_EMBEDDED_PG_PORT
  if (options.avoid.includes(port) || !(await portIsFree(port))) {
    do port = await freePort()
    while (options.avoid.includes(port))
  }
  if (port !== remembered) {
    await mkdir(dataDir, { recursive: true })
    await writeFile(portFile(dataDir), `${port}\n`)
  }
  return port
}
