import type { EntityManager } from '@mikro-orm/postgresql'
import { hashOneTimeToken, newOneTimeToken } from '../../../lib/one-time-token.ts'

/**
 * The reset links' rows, in SQL on the transaction's connection. Tokens are
 * lib/one-time-token.ts's: only their SHA-256 is stored.
 */

export type ResetOrigin = 'email' | 'operator'

export interface ResetOwner { user_id: string, tenant_id: string, email: string, name: string, role: 'admin' | 'user' }

const hashResetToken = hashOneTimeToken

/** Older links of the person stop working: only the newest one does. */
const RETIRE = 'UPDATE password_resets SET expires_at = now() WHERE user_id = ? AND consumed_at IS NULL AND expires_at > now()'

const INSERT = `INSERT INTO password_resets (id, tenant_id, user_id, token_hash, origin, created_at, expires_at)
VALUES (gen_random_uuid(), ?, ?, ?, ?, now(), now() + make_interval(mins => ?))`

/** The person a live link belongs to, without using it. */
const OWNER = `SELECT u.id AS user_id, u.tenant_id, u.email, u.name, u.role
FROM password_resets r JOIN users u ON u.id = r.user_id
WHERE r.token_hash = ? AND r.consumed_at IS NULL AND r.expires_at > now()`

/**
 * Uses a link: of any number of concurrent uses, exactly one gets the row back;
 * the others wait for its commit and then match nothing.
 */
const CONSUME = `UPDATE password_resets SET consumed_at = now()
WHERE token_hash = ? AND consumed_at IS NULL AND expires_at > now()
RETURNING user_id, tenant_id`

/** A new link for `userId` in `tx`; the token is for the e-mail (or the operator) only. */
export async function issueResetToken (tx: EntityManager, owner: { userId: string, tenantId: string }, origin: ResetOrigin, ttlMinutes: number): Promise<string> {
  const { token, hash } = newOneTimeToken()
  await tx.execute(RETIRE, [owner.userId], 'run')
  await tx.execute(INSERT, [owner.tenantId, owner.userId, hash, origin, ttlMinutes], 'run')
  return token
}

export async function findResetOwner (em: EntityManager, token: string): Promise<ResetOwner | undefined> {
  const [row] = await em.execute<ResetOwner[]>(OWNER, [hashResetToken(token)], 'all')
  return row
}

export async function consumeResetToken (tx: EntityManager, token: string): Promise<{ user_id: string, tenant_id: string } | undefined> {
  const [row] = await tx.execute<Array<{ user_id: string, tenant_id: string }>>(CONSUME, [hashResetToken(token)], 'all')
  return row
}

/** After a password change by any road: every other link of the person is dead. */
export async function retireResetTokens (tx: EntityManager, userId: string): Promise<void> {
  await tx.execute(RETIRE, [userId], 'run')
}

/** Ends a person's portal sessions, but `keep` (the one they are using): how many ended. */
export async function endSessions (tx: EntityManager, userId: string, keep?: string): Promise<number> {
  const rows = await tx.execute<unknown[]>(
    `UPDATE portal_sessions SET revoked_at = now() WHERE user_id = ? AND revoked_at IS NULL AND expires_at > now()${keep === undefined ? '' : ' AND id <> ?'} RETURNING id`,
    keep === undefined ? [userId] : [userId, keep], 'all')
  return rows.length
}

export async function setPasswordHash (tx: EntityManager, userId: string, passwordHash: string): Promise<void> {
  await tx.execute('UPDATE users SET password_hash = ?, updated_at = now() WHERE id = ?', [passwordHash, userId], 'run')
}
