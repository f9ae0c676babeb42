import type { EntityManager } from '@mikro-orm/postgresql'
import QRCode from 'qrcode'
import type { UserActor } from '../../../lib/actor.ts'
import { openText, sealText } from '../../../lib/aead.ts'
import type { CallScope } from '../../../lib/call-scope.ts'
import { deriveKey } from '../../../lib/secrets.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { hashRecoveryCode, replaceRecoveryCodes } from './recovery-codes.ts'
import { matchingStep, newTotpSecret, normalizeTotpCode, otpauthUri, stepAt } from './totp.ts'
import { TwoFactorAlreadyEnabled, TwoFactorCodeInvalid, TwoFactorNotEnabled, TwoFactorNotPending, TwoFactorRequiredByCompany } from './two-factor.errors.ts'

export interface TwoFactorServiceDeps {
  activity: ActivityService
  /** Root secret the sealing key is derived from (JWT_SECRET). */
  secret: string
  /** Shown by authenticator apps next to the code: the product's name. */
  issuer: string
  /** Milliseconds since the epoch; tests move it. */
  now?: () => number
}

/** Who a factor belongs to: an actor, or the person half-way through a login. */
export type FactorOwner = Pick<UserActor, 'userId' | 'tenantId' | 'email' | 'name' | 'role'>

/** A code from an authenticator app, or one of the recovery codes. */
export interface FactorProof {
  code?: string | undefined
  recovery_code?: string | undefined
}

export interface Enrolment {
  secret: string
  otpauth_uri: string
  /** A PNG image of the URI as a QR code, as a data: URL. */
  qr_code: string
}

export interface TwoFactorStatus {
  enabled: boolean
  enabled_at: string | null
  recovery_codes_left: number
  required_by_company: boolean
}

interface FactorRow { sealed_secret: string, enabled_at: Date | null, last_used_step: string | null }

const asActor = (owner: FactorOwner): UserActor => ({ kind: 'user', sessionId: '', ...owner })

export function createTwoFactorService ({ activity, secret, issuer, now = Date.now }: TwoFactorServiceDeps) {
  const key = deriveKey(secret, 'two-factor-secret')
  const seal = (plain: string, userId: string) => sealText(key, plain, userId)
  const open = (sealed: string, userId: string) => openText(key, sealed, userId)

  async function factorRow (em: EntityManager, userId: string, lock = false): Promise<FactorRow | undefined> {
    const rows = await em.execute<FactorRow[]>(
      `SELECT sealed_secret, enabled_at, last_used_step FROM user_two_factor WHERE user_id = ?${lock ? ' FOR UPDATE' : ''}`, [userId], 'all')
    return rows[0]
  }

  /** Whether the person's company asks every member for the factor. */
  async function requiredByCompany (em: EntityManager, tenantId: string): Promise<boolean> {
    const rows = await em.execute<Array<{ required: boolean }>>('SELECT require_two_factor AS required FROM tenant_settings WHERE tenant_id = ?', [tenantId], 'all')
    return rows[0]?.required === true
  }

  /** The step of a right, unused code, recorded at once (compare-and-set): a replay finds the step taken. */
  async function useTotp (em: EntityManager, userId: string, row: FactorRow, input: string): Promise<boolean> {
    const code = normalizeTotpCode(input)
    if (code === undefined) return false
    const last = row.last_used_step === null ? null : Number(row.last_used_step)
    const step = matchingStep(open(row.sealed_secret, userId), code, stepAt(now()), last)
    if (step === undefined) return false
    const taken = await em.execute<unknown[]>(
      `UPDATE user_two_factor SET last_used_step = ?, updated_at = now()
       WHERE user_id = ? AND enabled_at IS NOT NULL AND (last_used_step IS NULL OR last_used_step < ?) RETURNING user_id`,
      [step, userId, step], 'all')
    return taken.length === 1
  }

  async function useRecoveryCode (em: EntityManager, owner: FactorOwner, input: string): Promise<boolean> {
    const used = await em.execute<unknown[]>(
      `UPDATE two_factor_recovery_codes SET used_at = now()
       WHERE id = (SELECT id FROM two_factor_recovery_codes WHERE user_id = ? AND code_hash = ? AND used_at IS NULL LIMIT 1 FOR UPDATE)
       RETURNING id`, [owner.userId, hashRecoveryCode(input)], 'all')
    if (used.length !== 1) return false
    activity.record(em, asActor(owner), {
      type: 'two_factor.recovery_code_used',
      title: `${owner.name} used a recovery code`,
      targetType: 'user',
      targetId: owner.userId
    })
    return true
  }

  /**
   * Checks a proof against an enabled factor and spends it: a TOTP step or a
   * recovery code works once. Throws TWO_FACTOR_CODE_INVALID otherwise.
   */
  async function verify (em: EntityManager, owner: FactorOwner, proof: FactorProof): Promise<'totp' | 'recovery_code'> {
    const row = await factorRow(em, owner.userId)
    if (row === undefined || row.enabled_at === null) throw TwoFactorNotEnabled()
    if (proof.code !== undefined && await useTotp(em, owner.userId, row, proof.code)) return 'totp'
    if (proof.recovery_code !== undefined && await useRecoveryCode(em, owner, proof.recovery_code)) return 'recovery_code'
    throw TwoFactorCodeInvalid()
  }

  /** Starts (or restarts) an enrolment: a new secret, unusable until `confirm`. */
  async function begin (em: EntityManager, owner: FactorOwner): Promise<Enrolment> {
    const totpSecret = newTotpSecret()
    const rows = await em.execute<unknown[]>(
      `INSERT INTO user_two_factor (user_id, tenant_id, sealed_secret, enabled_at, last_used_step, created_at, updated_at)
       VALUES (?, ?, ?, NULL, NULL, now(), now())
       ON CONFLICT (user_id) DO UPDATE SET sealed_secret = excluded.sealed_secret, last_used_step = NULL, updated_at = now()
       WHERE user_two_factor.enabled_at IS NULL RETURNING user_id`,
      [owner.userId, owner.tenantId, seal(totpSecret, owner.userId)], 'all')
    if (rows.length !== 1) throw TwoFactorAlreadyEnabled()
    const uri = otpauthUri(totpSecret, issuer, owner.email)
    return { secret: totpSecret, otpauth_uri: uri, qr_code: await QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, width: 256 }) }
  }

  /**
   * Turns the pending factor on with its first code; answers ten new recovery
   * codes (only their hashes are kept). One transaction with its activity record.
   */
  async function confirm (em: EntityManager, owner: FactorOwner, input: string): Promise<string[]> {
    return em.transactional(async (tx) => {
      const row = await factorRow(tx, owner.userId, true)
      if (row === undefined || row.enabled_at !== null) throw TwoFactorNotPending()
      const code = normalizeTotpCode(input)
      const step = code === undefined ? undefined : matchingStep(open(row.sealed_secret, owner.userId), code, stepAt(now()), null)
      if (step === undefined) throw TwoFactorCodeInvalid()
      await tx.execute('UPDATE user_two_factor SET enabled_at = now(), last_used_step = ?, updated_at = now() WHERE user_id = ?', [step, owner.userId], 'run')
      const codes = await replaceRecoveryCodes(tx, owner)
      activity.record(tx, asActor(owner), { type: 'two_factor.enabled', title: `${owner.name} turned on two-factor authentication`, targetType: 'user', targetId: owner.userId })
      return codes
    })
  }

  return {
    verify,
    begin,
    confirm,
    requiredByCompany,

    /** Whether the person must give a second factor at login, or must first enrol one. */
    async loginStep (em: EntityManager, owner: Pick<FactorOwner, 'userId' | 'tenantId'>): Promise<'none' | 'code' | 'enrol'> {
      const row = await factorRow(em, owner.userId)
      if (row?.enabled_at != null) return 'code'
      return await requiredByCompany(em, owner.tenantId) ? 'enrol' : 'none'
    },

    async status ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>): Promise<TwoFactorStatus> {
      const row = await factorRow(em, actor.userId)
      const [left] = await em.execute<Array<{ n: string }>>(
        'SELECT count(*) AS n FROM two_factor_recovery_codes WHERE user_id = ? AND used_at IS NULL', [actor.userId], 'all')
      const enabledAt = row?.enabled_at ?? null
      return {
        enabled: enabledAt !== null,
        enabled_at: enabledAt === null ? null : new Date(enabledAt).toISOString(),
        recovery_codes_left: enabledAt === null ? 0 : Number(left?.n ?? 0),
        required_by_company: await requiredByCompany(em, actor.tenantId)
      }
    },

    /**
     * Ten new recovery codes for an enabled factor, with the same proof as turning
     * it off (a current code or a recovery code): the old codes stop working in
     * the transaction that stores the new ones' hashes. Regenerations of one person
     * are taken one at a time (the factor's row is locked).
     */
    async regenerateRecoveryCodes ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>, proof: FactorProof): Promise<string[]> {
      return em.transactional(async (tx) => {
        const row = await factorRow(tx, actor.userId, true)
        if (row === undefined || row.enabled_at === null) throw TwoFactorNotEnabled()
        await verify(tx, actor, proof)
        const codes = await replaceRecoveryCodes(tx, actor)
        activity.record(tx, actor, { type: 'two_factor.recovery_codes_regenerated', title: `${actor.name} made new recovery codes`, targetType: 'user', targetId: actor.userId })
        return codes
      })
    },

    /** Turns the factor off with a current code or a recovery code; refused while the company requires it. */
    async disable ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>, proof: FactorProof): Promise<void> {
      await em.transactional(async (tx) => {
        if (await requiredByCompany(tx, actor.tenantId)) throw TwoFactorRequiredByCompany()
        await verify(tx, actor, proof)
        await tx.execute('DELETE FROM two_factor_recovery_codes WHERE user_id = ?', [actor.userId], 'run')
        await tx.execute('DELETE FROM user_two_factor WHERE user_id = ?', [actor.userId], 'run')
        activity.record(tx, actor, { type: 'two_factor.disabled', title: `${actor.name} turned off two-factor authentication`, targetType: 'user', targetId: actor.userId })
      })
    }
  }
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>
