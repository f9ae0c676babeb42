import { createServer } from 'node:net'
import type { ConfigProblem } from '../config/problems.ts'

/** Whether nothing listens on `port` at `host` right now (we could bind it). */
export function portIsFree (port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(false)
      else reject(error)
    })
    server.listen(port, host, () => server.close(() => resolve(true)))
  })
}

/** A port the system considers free on `host` now (another process may still take it before we do). */
export function freePort (host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, host, () => {
      const address = server.address()
      server.close(() => typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')))
    })
  })
}

/** The one-line start-up problem for a port set explicitly that another process holds. */
export async function takenPortProblem (variable: string, port: number): Promise<ConfigProblem> {
  return {
    variable,
    value: String(port),
    reason: 'another process listens on that port',
    allowed: `a free port, or unset ${variable} and a free one is chosen`,
    example: String(await freePort())
  }
}
