import type { EntityManager } from '@mikro-orm/postgresql'
import type { Sql } from '../../../lib/sql.ts'
import type { UserActor } from '../../../lib/actor.ts'
import { ACROSS_TENANTS } from '../../../database/tenancy.ts'
import { normalizeEmail } from '../../../lib/email.ts'
import { isUuid } from '../../../lib/uuid.ts'
import type { TenantsService, RegisterTenantInput } from '../tenants/tenants.service.ts'
import { User } from '../users/user.entity.ts'
import { AccountDisabled, InvalidCredentials, TenantSuspended, TokenInvalid } from './auth.errors.ts'
import { burnPasswordCheck, verifyPassword } from './password.ts'
import { PortalSession } from './session.entity.ts'

export interface TokenSigner {
  sign: (payload: { sid: string, tid: string }, options: { sub: string }) => string
  verify: (token: string) => { sid?: unknown, tid?: unknown, sub?: unknown }
}

export interface ClientMeta {
  ip?: string
  userAgent?: string
}

export interface PortalUserView {
  id: string
  name: string
  login: string
  email: string
  is_admin: boolean
  role: 'admin' | 'user'
  tenant_id: string
}

export interface LoginResult {
  token: string
  token_type: 'Bearer'
  expires_in: number
  user: PortalUserView
}

interface AuthRow {
  id: string
  tenant_id: string
  email: string
  name: string
  role: 'admin' | 'user'
}

/** One primary-key lookup per request, prepared once per connection: live session, active user, active tenant. */
const AUTHENTICATE = {
  name: 'portal-authenticate',
  text: `
SELECT u.id, u.tenant_id, u.email, u.name, u.role
FROM portal_sessions s
JOIN users u ON u.id = s.user_id
JOIN tenants t ON t.id = u.tenant_id
WHERE s.id = $1 AND s.user_id = $2 AND s.tenant_id = $3
  AND s.revoked_at IS NULL AND s.expires_at > now()
  AND u.active AND t.status = 'active'`
}

/** A read that runs in the authentication statement: `text` selects from the caller's tenant as `auth.tenant_id`. */
export interface InlineRead {
  name: string
  text: string
}

const inlineStatements = new Map<string, string>()

/** The session check and the read as one statement; the read's row comes back as one JSON column. */
function inlineStatement (read: InlineRead): string {
  let text = inlineStatements.get(read.name)
  if (text === undefined) {
    if (!read.text.includes('auth.tenant_id')) throw new Error(`Inline read ${read.name} does not filter on auth.tenant_id`)
    text = `WITH auth AS MATERIALIZED (${AUTHENTICATE.text})
SELECT auth.*, (SELECT row_to_json(r) FROM (${read.text}) r) AS read FROM auth`
    inlineStatements.set(read.name, text)
  }
  return text
}

function actorOf (row: AuthRow, sessionId: string): UserActor {
  return { kind: 'user', userId: row.id, tenantId: row.tenant_id, role: row.role, email: row.email, name: row.name, sessionId }
}

export interface AuthServiceDeps {
  sql: Sql
  tokens: TokenSigner
  tenants: TenantsService
  tokenTtlSeconds: number
}

export function createAuthService ({ sql, tokens, tenants, tokenTtlSeconds }: AuthServiceDeps) {
  /** [session, user, tenant] of a token with a valid signature and well-formed ids; 401 otherwise. */
  function verifiedClaims (token: string): [string, string, string] {
    let claims: ReturnType<TokenSigner['verify']>
    try {
      claims = tokens.verify(token)
    } catch {
      throw TokenInvalid()
    }
    const { sid, tid, sub } = claims
    if (typeof sid !== 'string' || typeof tid !== 'string' || typeof sub !== 'string' || !isUuid(sid) || !isUuid(tid) || !isUuid(sub)) {
      throw TokenInvalid()
    }
    return [sid, sub, tid]
  }

  async function issueSession (em: EntityManager, user: User, meta: ClientMeta): Promise<LoginResult> {
    const session = em.create(PortalSession, {
      tenant: user.tenant,
      user,
      expiresAt: new Date(Date.now() + tokenTtlSeconds * 1000),
      revokedAt: null,
      ip: meta.ip?.slice(0, 64) ?? null,
      userAgent: meta.userAgent?.slice(0, 512) ?? null
    })
    user.lastLoginAt = new Date()
    await em.flush()
    return {
      token: tokens.sign({ sid: session.id, tid: user.tenant.id }, { sub: user.id }),
      token_type: 'Bearer',
      expires_in: tokenTtlSeconds,
      user: toPortalUser({ id: user.id, tenant_id: user.tenant.id, email: user.email, name: user.name, role: user.role })
    }
  }

  return {
    /**
     * Opens a portal session for a user (tenant loaded) and answers the login
     * body. Used by login, signup and invitation acceptance.
     */
    issueSession,

    /** Public signup: a new tenant, its first admin, and a session for that admin. */
    async signup (em: EntityManager, input: RegisterTenantInput, meta: ClientMeta): Promise<LoginResult> {
      const { admin } = await tenants.registerTenant(em, input)
      return issueSession(em, admin, meta)
    },

    /** Same answer (and about the same time) for an unknown e-mail and a wrong password. */
    async login (em: EntityManager, input: { login: string, password: string }, meta: ClientMeta): Promise<LoginResult> {
      const user = await em.findOne(User, { email: normalizeEmail(input.login) }, {
        ...ACROSS_TENANTS,
        populate: ['passwordHash', 'tenant']
      })
      if (user === null) {
        await burnPasswordCheck(input.password)
        throw InvalidCredentials()
      }
      if (!(await verifyPassword(user.passwordHash, input.password))) throw InvalidCredentials()
      if (!user.active) throw AccountDisabled()
      if (user.tenant.status !== 'active') throw TenantSuspended()
      return issueSession(em, user, meta)
    },

    /**
     * Verifies a portal bearer token and loads who it belongs to. Logged-out
     * sessions, deactivated users and suspended tenants fail here at once.
     */
    async authenticate (token: string): Promise<UserActor> {
      const claims = verifiedClaims(token)
      const [row] = await sql<AuthRow>({ ...AUTHENTICATE, values: claims })
      if (row === undefined) throw TokenInvalid()
      return actorOf(row, claims[0])
    },

    /**
     * Authenticates and runs one read of the caller's tenant in the same
     * statement (one round trip), for `portal-inline` routes. The read sees the
     * caller as `auth` (`auth.tenant_id`) and takes its own values from $4; it
     * answers undefined when the read finds nothing.
     */
    async authenticateWith<Row extends object> (token: string, read: InlineRead, values: unknown[]): Promise<{ actor: UserActor, row: Row | undefined }> {
      const claims = verifiedClaims(token)
      const [found] = await sql<AuthRow & { read: Row | null }>({ name: read.name, text: inlineStatement(read), values: [...claims, ...values] })
      if (found === undefined) throw TokenInvalid()
      return { actor: actorOf(found, claims[0]), row: found.read ?? undefined }
    },

    /** Ends the caller's session; the token answers 401 from the next request on. */
    async logout (em: EntityManager, actor: UserActor): Promise<void> {
      await em.nativeUpdate(PortalSession, { id: actor.sessionId, revokedAt: null }, { revokedAt: new Date() })
    },

    me (actor: UserActor): PortalUserView {
      return toPortalUser({ id: actor.userId, tenant_id: actor.tenantId, email: actor.email, name: actor.name, role: actor.role })
    }
  }
}

function toPortalUser (row: AuthRow): PortalUserView {
  return { id: row.id, name: row.name, login: row.email, email: row.email, is_admin: row.role === 'admin', role: row.role, tenant_id: row.tenant_id }
}

export type AuthService = ReturnType<typeof createAuthService>
