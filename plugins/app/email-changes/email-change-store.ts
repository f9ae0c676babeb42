import type { EntityManager } from '@mikro-orm/postgresql'
import { hashOneTimeToken, newOneTimeToken } from '../../../lib/one-time-token.ts'

/** The pending changes' rows, in SQL on the transaction's connection (tokens: lib/one-time-token.ts). */

export interface PendingEmailChange { user_id: string, tenant_id: string, email: string, new_email: string, name: string, role: 'admin' | 'user' }

/** A newer request replaces the older one: its link stops working. Answers the addresses they were for. */
const RETIRE = `UPDATE email_changes SET expires_at = now()
WHERE user_id = ? AND consumed_at IS NULL AND expires_at > now() RETURNING new_email`

const INSERT = `INSERT INTO email_changes (id, tenant_id, user_id, new_email, token_hash, created_at, expires_at)
VALUES (gen_random_uuid(), ?, ?, ?, ?, now(), now() + make_interval(mins => ?))`

/** The person a live link belongs to, and the addresses, without using it. */
const PENDING = `SELECT u.id AS user_id, u.tenant_id, u.email, c.new_email, u.name, u.role
FROM email_changes c JOIN users u ON u.id = c.user_id
WHERE c.token_hash = ? AND c.consumed_at IS NULL AND c.expires_at > now()`

/** Of any number of concurrent uses, exactly one gets the row back; the others match nothing. */
const CONSUME = `UPDATE email_changes SET consumed_at = now()
WHERE token_hash = ? AND consumed_at IS NULL AND expires_at > now()
RETURNING user_id, tenant_id, new_email`

/** Stores a pending change in `tx`, retiring the previous one; the token is for the e-mail only. */
export async function issueEmailChange (
  tx: EntityManager, change: { userId: string, tenantId: string, newEmail: string }, ttlMinutes: number
): Promise<{ token: string, replaced: string[] }> {
  const { token, hash } = newOneTimeToken()
  const replaced = await tx.execute<Array<{ new_email: string }>>(RETIRE, [change.userId], 'all')
  await tx.execute(INSERT, [change.tenantId, change.userId, change.newEmail, hash, ttlMinutes], 'run')
  return { token, replaced: replaced.map((row) => row.new_email) }
}

export async function findPendingEmailChange (em: EntityManager, token: string): Promise<PendingEmailChange | undefined> {
  const [row] = await em.execute<PendingEmailChange[]>(PENDING, [hashOneTimeToken(token)], 'all')
  return row
}

export async function consumeEmailChange (tx: EntityManager, token: string): Promise<{ user_id: string, tenant_id: string, new_email: string } | undefined> {
  const [row] = await tx.execute<Array<{ user_id: string, tenant_id: string, new_email: string }>>(CONSUME, [hashOneTimeToken(token)], 'all')
  return row
}

/** The person as the change found them, if their account is active, locked until the transaction ends. */
export async function lockActiveUser (tx: EntityManager, userId: string): Promise<{ email: string, name: string, role: 'admin' | 'user' } | undefined> {
  const [row] = await tx.execute<Array<{ email: string, name: string, role: 'admin' | 'user' }>>(
    'SELECT email, name, role FROM users WHERE id = ? AND active FOR UPDATE', [userId], 'all')
  return row
}

/** After a password change or reset: a pending change (perhaps asked by whoever knew the old password) is dropped. */
export async function retireEmailChanges (tx: EntityManager, userId: string): Promise<void> {
  await tx.execute('UPDATE email_changes SET expires_at = now() WHERE user_id = ? AND consumed_at IS NULL AND expires_at > now()', [userId], 'run')
}

export async function setEmail (tx: EntityManager, userId: string, email: string): Promise<void> {
  await tx.execute('UPDATE users SET email = ?, updated_at = now() WHERE id = ?', [email, userId], 'run')
}
