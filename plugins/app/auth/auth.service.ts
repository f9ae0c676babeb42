import type { EntityManager } from '@mikro-orm/postgresql'
import type { Sql } from '../../../lib/sql.ts'
import type { TenantStatement } from '../../../lib/tenant-sql.ts'
import type { UserActor } from '../../../lib/actor.ts'
import { ACROSS_TENANTS } from '../../../database/tenancy.ts'
import { normalizeEmail } from '../../../lib/email.ts'
import { isUuid } from '../../../lib/uuid.ts'
import type { TenantsService, RegisterTenantInput } from '../tenants/tenants.service.ts'
import { User } from '../users/user.entity.ts'
import type { TwoFactorService } from '../two-factor/two-factor.service.ts'
import { AccountDisabled, InvalidCredentials, TenantSuspended, TokenInvalid, TwoFactorEnrolmentRequired, TwoFactorRequired } from './auth.errors.ts'
import { burnPasswordCheck, verifyPassword } from './password.ts'
import { PortalSession } from './session.entity.ts'
import { AUTHENTICATE, sessionStatement, type AuthRow } from './session-statements.ts'
import { createTwoStepLoginService, type ChallengeView } from './two-step-login.service.ts'
import type { CallScope } from '../../../lib/call-scope.ts'

export interface TokenSigner {
  sign: (payload: { sid: string, tid: string }, options: { sub: string }) => string
  verify: (token: string) => { sid?: unknown, tid?: unknown, sub?: unknown }
}

/** What a token with a valid signature claims; `authenticate` or `queryAsSession` checks it against its session. */
export interface SessionClaims {
  sessionId: string
  userId: string
  tenantId: string
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

function actorOf (row: AuthRow, sessionId: string): UserActor {
  return { kind: 'user', userId: row.id, tenantId: row.tenant_id, role: row.role, email: row.email, name: row.name, sessionId }
}

export interface AuthServiceDeps {
  sql: Sql
  tokens: TokenSigner
  tenants: TenantsService
  twoFactor: TwoFactorService
  tokenTtlSeconds: number
  /** Lifetime and wrong-code budget of the second step of a login. */
  challenge: { ttlSeconds: number, maxAttempts: number }
}

export function createAuthService ({ sql, tokens, tenants, twoFactor, tokenTtlSeconds, challenge }: AuthServiceDeps) {
  function claimsOf (token: string): SessionClaims {
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
    return { sessionId: sid, userId: sub, tenantId: tid }
  }

  async function issueSession (em: EntityManager, user: User, meta: ClientMeta): Promise<LoginResult> {
    const session = em.create(PortalSession, {
      tenant: user.tenant,
      user,
      expiresAt: new Date(Date.now() + tokenTtlSeconds * 1000),
      revokedAt: null,
      lastUsedAt: new Date(),
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

  const twoStep = createTwoStepLoginService({ twoFactor, issueSession, ...challenge })

  /**
   * What the right password opens: a session, or the second step the person owes (a factor they
   * have, or one their company requires), its challenge written in em's transaction. The caller
   * commits, then passes the outcome to sessionOrSecondStep: a refusal thrown inside the
   * transaction would roll back what the password step made (a new member, say).
   */
  async function afterPassword (em: EntityManager, user: User, meta: ClientMeta): Promise<PasswordOutcome> {
    const next = await twoFactor.loginStep(em, { userId: user.id, tenantId: user.tenant.id })
    if (next === 'none') return { session: await issueSession(em, user, meta) }
    return { owed: next, challenge: await twoStep.open(em, user, next, meta) }
  }

  return {
    /** The second step of a login: TOTP or recovery code, or a first enrolment (two-step-login.service.ts). */
    twoStep,

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

    /**
     * Same answer (and about the same time) for an unknown e-mail and a wrong
     * password. After the right one, a person with a second factor gets
     * TWO_FACTOR_REQUIRED, one whose company requires a factor they lack
     * TWO_FACTOR_ENROLMENT_REQUIRED, each with a challenge in `details`.
     */
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
      return sessionOrSecondStep(await afterPassword(em, user, meta))
    },

    afterPassword,
    sessionOrSecondStep,

    /** The claims of a token with a valid signature and well-formed ids (no database read); 401 otherwise. */
    claimsOf,

    /**
     * Verifies a portal bearer token and loads who it belongs to. Logged-out
     * sessions, deactivated users and suspended tenants fail here at once.
     */
    async authenticate (token: string): Promise<UserActor> {
      const claims = claimsOf(token)
      const [row] = await sql<AuthRow>({ ...AUTHENTICATE, values: [claims.sessionId, claims.userId, claims.tenantId] })
      if (row === undefined) throw TokenInvalid()
      return actorOf(row, claims.sessionId)
    },

    /**
     * Runs a statement of the token's tenant (`$1` the tenant, as for
     * `tenantSql`) under its session, in the same round trip as the session
     * check that `authenticate` makes: the rows, and who the caller is; 401
     * as `authenticate`.
     */
    async queryAsSession<Row> (claims: SessionClaims, statement: TenantStatement, values: unknown[] = []): Promise<{ actor: UserActor, rows: Row[] }> {
      const text = sessionStatement(statement, values.length)
      const [found] = await sql<AuthRow & { rows: Row[] }>({
        name: `session:${statement.name}`,
        text,
        values: [claims.tenantId, ...values, claims.sessionId, claims.userId]
      })
      if (found === undefined) throw TokenInvalid()
      return { actor: actorOf(found, claims.sessionId), rows: found.rows }
    },

    /** Ends the caller's session; the token answers 401 from the next request on. */
    async logout ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>): Promise<void> {
      await em.nativeUpdate(PortalSession, { id: actor.sessionId, revokedAt: null }, { revokedAt: new Date() })
    },

    me ({ actor }: Pick<CallScope<UserActor>, 'actor'>): PortalUserView {
      return toPortalUser({ id: actor.userId, tenant_id: actor.tenantId, email: actor.email, name: actor.name, role: actor.role })
    }
  }
}

function toPortalUser (row: AuthRow): PortalUserView {
  return { id: row.id, name: row.name, login: row.email, email: row.email, is_admin: row.role === 'admin', role: row.role, tenant_id: row.tenant_id }
}

export type AuthService = ReturnType<typeof createAuthService>

/** What the right password led to: a session, or a second step owed with its challenge. */
export type PasswordOutcome = { session: LoginResult } | { owed: 'code' | 'enrol', challenge: ChallengeView }

/** The session, or TWO_FACTOR_REQUIRED / TWO_FACTOR_ENROLMENT_REQUIRED with the challenge in `details`. */
export function sessionOrSecondStep (outcome: PasswordOutcome): LoginResult {
  if ('session' in outcome) return outcome.session
  throw outcome.owed === 'code' ? TwoFactorRequired(undefined, outcome.challenge) : TwoFactorEnrolmentRequired(undefined, outcome.challenge)
}
