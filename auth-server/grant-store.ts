import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { deriveKey } from '../lib/secrets.ts'
import { isoUtc } from '../lib/sql.ts'

/**
 * The grant store as the portal sees it: what the portal (grants API, MCP
 * authentication) and the auth server share besides HTTP. adapter.ts writes
 * `oidc_payloads`; this file is the only other one that knows the layout of
 * oidc-provider's payloads, so a change of the library's payload touches it
 * alone. A Grant's payload holds `accountId` (the portal user id), `clientId`
 * and `iat`; a Client's holds `client_name`; tokens carry the grant in the
 * `grant_id` column.
 */

const LIVE_GRANT = `g.kind = 'Grant' AND (g.expires_at IS NULL OR g.expires_at > now())`

/** The grant's agent level (lib/agent-access.ts) in a statement that joins `a`: read only when none was recorded. */
const GRANT_LEVEL = `coalesce(a.level, 'read')`

const grantsOf = (user: string) => `g.id, g.payload->>'clientId' AS client_id, c.payload->>'client_name' AS client_name,
  ${isoUtc(`to_timestamp((g.payload->>'iat')::double precision)`)} AS created_at,
  ${isoUtc(`(SELECT to_timestamp(max((x.payload->>'iat')::double precision)) FROM oidc_payloads x
    WHERE x.grant_id = g.id AND x.kind IN ('AccessToken', 'RefreshToken'))`)} AS last_token_at,
  ${isoUtc('(SELECT max(t.created_at) FROM agent_tool_calls t WHERE t.grant_id = g.id)')} AS last_call_at,
  ${GRANT_LEVEL} AS level, a.instance_ids
FROM oidc_payloads g
LEFT JOIN oidc_payloads c ON c.kind = 'Client' AND c.id = g.payload->>'clientId'
LEFT JOIN oauth_grant_access a ON a.grant_id = g.id
WHERE ${LIVE_GRANT} AND g.payload->>'accountId' = ${user}`

/** A person's live grants, newest first: user id. */
export const LIST_GRANTS = {
  name: 'oauth-grants-list',
  text: `SELECT ${grantsOf('$1')} ORDER BY created_at DESC, g.id`
}

/** For the ORM's connection (`?` placeholders): user id, grant id. Locks the grant. */
export const FIND_GRANT = `SELECT ${grantsOf('?')} AND g.id = ? FOR UPDATE OF g`

/**
 * The agent's level and instances on a grant (table oauth_grant_access):
 * grant id, tenant id, user id, level, instance ids (JSON text or null). Written
 * by the consent page and by the portal's grants API. `?` placeholders (the
 * ORM's); `numbered` turns them into pg's `$n` for a plain pool.
 */
export const SAVE_GRANT_ACCESS = `INSERT INTO oauth_grant_access (grant_id, tenant_id, user_id, level, instance_ids, updated_at)
VALUES (?, ?, ?, ?, ?::jsonb, now())
ON CONFLICT (grant_id) DO UPDATE SET level = excluded.level, instance_ids = excluded.instance_ids, updated_at = now()`

/** `?` placeholders as pg's `$1`, `$2`…, for a statement run on a plain pool. */
export const numbered = (text: string): string => {
  let n = 0
  return text.replace(/\?/g, () => `$${++n}`)
}

/**
 * Revocation, for the ORM's connection: grant id, grant id. What
 * oidc-provider's revokeByGrantId removes (every row whose `grant_id` is the
 * grant: codes, tokens), plus the Grant itself.
 */
export const DELETE_GRANT = `WITH access AS (DELETE FROM oauth_grant_access WHERE grant_id = ?)
DELETE FROM oidc_payloads WHERE grant_id = ? OR (kind = 'Grant' AND id = ?)`

/**
 * Everything that lets a person's agents in, for the ORM's connection: user id
 * three times. Their Grants, every code and token issued under them, and their
 * sign-in sessions at the auth server (an agent asking again must sign in).
 */
export const DELETE_GRANTS_OF_ACCOUNT = `DELETE FROM oidc_payloads
WHERE grant_id IN (SELECT id FROM oidc_payloads WHERE kind = 'Grant' AND payload->>'accountId' = ?)
  OR (kind = 'Grant' AND payload->>'accountId' = ?)
  OR (kind = 'Session' AND payload->>'accountId' = ?)
RETURNING kind`

export interface GrantRow {
  id: string
  client_id: string | null
  client_name: string | null
  /** ISO 8601 in UTC, as the API shows it. */
  created_at: string | null
  /** When its newest token was issued, and when it last called a tool. */
  last_token_at: string | null
  last_call_at: string | null
  level: 'read' | 'operate' | 'administer'
  instance_ids: number[] | null
}

/**
 * For a statement that checks a token against the store: joins `g`, the live
 * Grant `grant` of account `account` for client `client`, `c`, that
 * client (missing when deleted), and `a`, the grant's agent access (missing
 * means read only); selects nothing. Arguments are placeholders.
 */
export function liveGrantJoin (placeholders: { account: string, grant: string, client: string }): string {
  const { account, grant, client } = placeholders
  return `JOIN oidc_payloads g ON ${LIVE_GRANT} AND g.id = ${grant}
  AND g.payload->>'accountId' = ${account} AND g.payload->>'clientId' = ${client}
LEFT JOIN oidc_payloads c ON c.kind = 'Client' AND c.id = ${client}
LEFT JOIN oauth_grant_access a ON a.grant_id = g.id`
}

/** The grant's level and instance ids in a statement built with liveGrantJoin. */
export const JOINED_ACCESS = `${GRANT_LEVEL} AS access_level, a.instance_ids AS access_instance_ids`

/** The client's name in a statement built with liveGrantJoin. */
export const JOINED_CLIENT_NAME = `c.payload->>'client_name'`

/*
 * The login handoff: the portal mints a one-time code for a signed-in person,
 * and the auth server exchanges it, presenting the shared handoff secret, for
 * that person's identity to finish the authorization (and create the grant).
 */

/**
 * A handoff code: 32 random bytes, base64url. Only its SHA-256 is stored; a
 * plain hash is enough because the code has 256 bits of entropy.
 */
export function newHandoffCode (): { code: string, codeHash: string } {
  const code = randomBytes(32).toString('base64url')
  return { code, codeHash: hashHandoffCode(code) }
}

export function hashHandoffCode (code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex')
}

/** Where the browser goes next: the auth server's handoff endpoint on the public origin. */
export function handoffRedirectUrl (baseUrl: string, transaction: string, code: string): string {
  return `${baseUrl}/oauth/handoff?oauth_transaction=${encodeURIComponent(transaction)}&handoff_code=${encodeURIComponent(code)}`
}

/**
 * The secret the auth server sends in X-OAuth-Handoff-Secret: HANDOFF_SECRET,
 * or, when unset, a key derived from JWT_SECRET (so a single-secret install
 * works). Both processes call this function with the same values.
 */
export function resolveHandoffSecret (handoffSecret: string | undefined, jwtSecret: string | undefined): string {
  if (handoffSecret !== undefined) return handoffSecret
  if (jwtSecret === undefined) throw new Error('HANDOFF_SECRET or JWT_SECRET must be set')
  return deriveKey(jwtSecret, 'oauth-handoff').toString('base64url')
}

/** Constant time whatever the lengths: both sides are hashed to 32 bytes first. */
export function secretMatches (expected: string, presented: string | undefined): boolean {
  if (presented === undefined || presented === '') return false
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()
  return timingSafeEqual(digest(expected), digest(presented))
}
