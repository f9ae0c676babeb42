import { handoffRedirectUrl, hashHandoffCode, newHandoffCode, secretMatches } from '../../../auth-server/grant-store.ts'
import type { Sql } from '../../../lib/sql.ts'
import type { UserActor } from '../../../lib/actor.ts'
import type { CallScope } from '../../../lib/call-scope.ts'
import { AccountDisabled, TenantSuspended } from '../auth/auth.errors.ts'
import { HandoffCodeInvalid, HandoffSecretInvalid } from './oauth.errors.ts'

export interface HandoffServiceDeps {
  sql: Sql
  baseUrl: string
  ttlSeconds: number
  /** What the auth server must present (see resolveHandoffSecret). */
  secret: string
}

export interface HandoffIdentity {
  user: { id: string, email: string, name: string, tenant_id: string, tenant_name: string, role: 'admin' | 'user' }
  oauth_transaction: string
}

interface ConsumedRow {
  id: string
  email: string
  name: string
  role: 'admin' | 'user'
  active: boolean
  tenant_id: string
  tenant_name: string
  tenant_status: string
  transaction: string
}

// The database clock sets and checks the expiry, so replicas with skewed clocks agree.
const MINT = {
  name: 'oauth-handoff-mint',
  text: `INSERT INTO oauth_handoff_codes (id, tenant_id, user_id, code_hash, transaction, expires_at, created_at)
VALUES (gen_random_uuid(), $1, $2, $3, $4, now() + make_interval(secs => $5), now())`
}

/** Single use even under concurrency: only one UPDATE can flip consumed_at. */
const CONSUME = {
  name: 'oauth-handoff-consume',
  text: `WITH consumed AS (
  UPDATE oauth_handoff_codes SET consumed_at = now()
  WHERE code_hash = $1 AND consumed_at IS NULL AND expires_at > now()
  RETURNING user_id, tenant_id, transaction
)
SELECT u.id, u.email, u.name, u.role, u.active, t.id AS tenant_id, t.name AS tenant_name, t.status AS tenant_status, c.transaction
FROM consumed c JOIN users u ON u.id = c.user_id JOIN tenants t ON t.id = c.tenant_id`
}

export function createHandoffService ({ sql, baseUrl, ttlSeconds, secret }: HandoffServiceDeps) {
  return {
    /** A one-time code for a signed-in person and the authorization transaction they are finishing. */
    async mint ({ actor: who }: Pick<CallScope<UserActor>, 'actor'>, transaction: string): Promise<{ handoff_code: string, redirect_url: string }> {
      const { code, codeHash } = newHandoffCode()
      await sql({ ...MINT, values: [who.tenantId, who.userId, codeHash, transaction, ttlSeconds] })
      return { handoff_code: code, redirect_url: handoffRedirectUrl(baseUrl, transaction, code) }
    },

    /** Throws HANDOFF_SECRET_INVALID unless the header carries the handoff secret. */
    checkSecret (presented: string | undefined): void {
      if (!secretMatches(secret, presented)) throw HandoffSecretInvalid()
    },

    /**
     * Exchanges a code (once) for the person's identity. A person deactivated or
     * a company suspended since the code was minted is refused; the code is spent either way.
     */
    async consume (code: string): Promise<HandoffIdentity> {
      const [row] = await sql<ConsumedRow>({ ...CONSUME, values: [hashHandoffCode(code)] })
      if (row === undefined) throw HandoffCodeInvalid()
      if (!row.active) throw AccountDisabled()
      if (row.tenant_status !== 'active') throw TenantSuspended()
      return {
        user: { id: row.id, email: row.email, name: row.name, tenant_id: row.tenant_id, tenant_name: row.tenant_name, role: row.role },
        oauth_transaction: row.transaction
      }
    }
  }
}

export type HandoffService = ReturnType<typeof createHandoffService>
