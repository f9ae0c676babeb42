import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { deriveKey } from '../../lib/secrets.ts'
import type { WatchSubject } from '../tools/job-watches.ts'

/**
 * Task ids of the Tasks extension (mcp/modern/tasks.ts) hold what `tasks/get` needs to follow the
 * job again on any replica, with no task table: the starting tool, what it watches, the part of its
 * first answer the watch does not read again, whose it is (tenant and grant) and when it started.
 * They are authenticated (HMAC-SHA256 with a key derived from JWT_SECRET), so a client can neither
 * forge one nor change what it points at, and carry a random nonce, so none can be guessed.
 * Not encrypted: the holder already saw all of it in the tool's first answer.
 */
export interface TaskClaims {
  /** The tool that started the job. */
  tool: string
  subject: WatchSubject
  /** The tool's first answer without the key the watch reads afresh (job-watches.ts FRESH_KEY). */
  base: Record<string, unknown>
  tenantId: string
  /** The agent's grant (actor.sessionId): only the agent that started it follows it. */
  grantId: string
  /** Epoch milliseconds of the starting call. */
  createdAt: number
}

const VERSION = 1
const PURPOSE = 'mcp-task-id'

/** The HMAC key of task ids, derived from the portal's JWT_SECRET. */
export const taskIdKey = (jwtSecret: string): Buffer => deriveKey(jwtSecret, PURPOSE)

const sign = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest('base64url')

export function encodeTaskId (key: Buffer, claims: TaskClaims): string {
  const payload = Buffer.from(JSON.stringify({ v: VERSION, n: randomBytes(12).toString('base64url'), ...claims })).toString('base64url')
  return `${payload}.${sign(key, payload)}`
}

/** The claims of an id this portal made, or undefined for anything else (forged, altered, malformed). */
export function decodeTaskId (key: Buffer, taskId: string): TaskClaims | undefined {
  const [payload, mac, ...rest] = taskId.split('.')
  if (payload === undefined || mac === undefined || rest.length > 0) return undefined
  const expected = Buffer.from(sign(key, payload))
  const given = Buffer.from(mac)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TaskClaims & { v?: unknown }
    return claims.v === VERSION ? claims : undefined
  } catch {
    return undefined
  }
}
