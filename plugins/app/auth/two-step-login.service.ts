import { createHash, randomBytes } from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import { ACROSS_TENANTS } from '../../../database/tenancy.ts'
import { isAppError } from '../../../lib/errors.ts'
import type { Enrolment, FactorOwner, FactorProof, TwoFactorService } from '../two-factor/two-factor.service.ts'
import { TwoFactorCodeInvalid } from '../two-factor/two-factor.errors.ts'
import { User } from '../users/user.entity.ts'
import { AccountDisabled, LoginChallengeInvalid, TenantSuspended } from './auth.errors.ts'
import type { ClientMeta, LoginResult } from './auth.service.ts'
import type { CHALLENGE_PURPOSES } from './login-challenge.entity.ts'

type Purpose = typeof CHALLENGE_PURPOSES[number]

export interface TwoStepLoginDeps {
  twoFactor: TwoFactorService
  issueSession: (em: EntityManager, user: User, meta: ClientMeta) => Promise<LoginResult>
  ttlSeconds: number
  /** Wrong codes a challenge takes before it is spent. */
  maxAttempts: number
}

/** What the front end sends back with the code: the token, and how long it lives. */
export interface ChallengeView {
  challenge: string
  expires_in: number
}

interface ChallengeRow extends FactorOwner {
  id: string
  purpose: Purpose
  active: boolean
  tenant_status: string
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')

// Locked for the rest of the transaction: concurrent answers to one challenge are taken one at a time.
const FIND_CHALLENGE = `SELECT c.id, c.purpose, u.id AS "userId", u.tenant_id AS "tenantId", u.email, u.name, u.role, u.active, t.status AS tenant_status
FROM login_challenges c JOIN users u ON u.id = c.user_id JOIN tenants t ON t.id = c.tenant_id
WHERE c.token_hash = ? AND c.consumed_at IS NULL AND c.expires_at > now() AND c.purpose = ?
FOR UPDATE OF c`

/**
 * Logins that need more than the password: the second factor (`code`), or a
 * first enrolment because the company requires one (`enrol`). The password
 * check opens a challenge; this finishes it with the usual login answer.
 */
export function createTwoStepLoginService ({ twoFactor, issueSession, ttlSeconds, maxAttempts }: TwoStepLoginDeps) {
  async function findChallenge (tx: EntityManager, token: string, purpose: Purpose): Promise<ChallengeRow> {
    const [row] = await tx.execute<ChallengeRow[]>(FIND_CHALLENGE, [hashToken(token), purpose], 'all')
    if (row === undefined) throw LoginChallengeInvalid()
    if (!row.active) throw AccountDisabled()
    if (row.tenant_status !== 'active') throw TenantSuspended()
    return row
  }

  /** Counts a wrong code; the last allowed one spends the challenge. */
  async function countFailure (em: EntityManager, id: string): Promise<void> {
    await em.execute(`UPDATE login_challenges SET failed_attempts = failed_attempts + 1,
      consumed_at = CASE WHEN failed_attempts + 1 >= ? THEN now() ELSE consumed_at END WHERE id = ?`, [maxAttempts, id], 'run')
  }

  /** Spends the challenge and opens the session, in the caller's transaction. */
  async function finish (tx: EntityManager, row: ChallengeRow, meta: ClientMeta): Promise<LoginResult> {
    const spent = await tx.execute<unknown[]>('UPDATE login_challenges SET consumed_at = now() WHERE id = ? AND consumed_at IS NULL RETURNING id', [row.id], 'all')
    if (spent.length !== 1) throw LoginChallengeInvalid()
    const user = await tx.findOneOrFail(User, { id: row.userId }, { ...ACROSS_TENANTS, populate: ['tenant'] })
    return issueSession(tx, user, meta)
  }

  /**
   * Runs `step` on the locked challenge. A wrong code is counted (and committed)
   * before TWO_FACTOR_CODE_INVALID is thrown; any other failure changes nothing.
   */
  async function answer<T> (em: EntityManager, token: string, purpose: Purpose, step: (tx: EntityManager, row: ChallengeRow) => Promise<T>): Promise<T> {
    const outcome = await em.transactional(async (tx) => {
      const row = await findChallenge(tx, token, purpose)
      try {
        return { done: await tx.transactional((inner) => step(inner, row)) }
      } catch (error) {
        if (!isAppError(error) || error.code !== TwoFactorCodeInvalid.code) throw error
        await countFailure(tx, row.id)
        return { error }
      }
    })
    if ('error' in outcome) throw outcome.error
    return outcome.done
  }

  return {
    /** A new challenge for a user whose password was right. */
    async open (em: EntityManager, user: User, purpose: Purpose, meta: ClientMeta): Promise<ChallengeView> {
      const challenge = randomBytes(32).toString('base64url')
      await em.execute(`INSERT INTO login_challenges (id, tenant_id, user_id, token_hash, purpose, failed_attempts, ip, user_agent, expires_at, created_at)
        VALUES (gen_random_uuid(), ?, ?, ?, ?, 0, ?, ?, now() + make_interval(secs => ?), now())`,
      [user.tenant.id, user.id, hashToken(challenge), purpose, meta.ip?.slice(0, 64) ?? null, meta.userAgent?.slice(0, 512) ?? null, ttlSeconds], 'run')
      return { challenge, expires_in: ttlSeconds }
    },

    /** Finishes a `code` challenge with a TOTP code or a recovery code. */
    async complete (em: EntityManager, token: string, proof: FactorProof, meta: ClientMeta): Promise<LoginResult> {
      return answer(em, token, 'code', async (tx, row) => {
        await twoFactor.verify(tx, row, proof)
        return finish(tx, row, meta)
      })
    },

    /** For an `enrol` challenge: a secret and QR code to scan (the challenge stays open). */
    async startEnrolment (em: EntityManager, token: string): Promise<Enrolment> {
      return em.transactional(async (tx) => twoFactor.begin(tx, await findChallenge(tx, token, 'enrol')))
    },

    /** For an `enrol` challenge: turns the factor on with its first code and signs in; the recovery codes come once, here. */
    async finishEnrolment (em: EntityManager, token: string, code: string, meta: ClientMeta): Promise<LoginResult & { recovery_codes: string[] }> {
      return answer(em, token, 'enrol', async (tx, row) => {
        const recoveryCodes = await twoFactor.confirm(tx, row, code)
        return { ...await finish(tx, row, meta), recovery_codes: recoveryCodes }
      })
    }
  }
}

export type TwoStepLoginService = ReturnType<typeof createTwoStepLoginService>
