import type { EntityManager } from '@mikro-orm/postgresql'
import type { Actor, SystemActor, UserActor } from '../../../lib/actor.ts'
import type { AccountLinks } from '../../../lib/account-links.ts'
import type { CallScope } from '../../../lib/call-scope.ts'
import { normalizeEmail } from '../../../lib/email.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import { ACROSS_TENANTS } from '../../../database/tenancy.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import type { MailService } from '../mail/mail.service.ts'
import type { GrantsService } from '../oauth/grants.service.ts'
import { endSessions } from '../passwords/password-reset-store.ts'
import { User } from '../users/user.entity.ts'
import { UserNotFound } from '../users/users.errors.ts'
import { renderTwoFactorResetMail } from './two-factor-reset-mail.ts'
import { TwoFactorNotEnabled, TwoFactorResetOwn } from './two-factor.errors.ts'
import type { TwoFactorService } from './two-factor.service.ts'

export interface TwoFactorResetDeps {
  /** The root EntityManager: the operator command forks it. */
  em?: EntityManager
  activity: ActivityService
  mail: Pick<MailService, 'enqueue' | 'kick'>
  grants: Pick<GrantsService, 'revokeAllOf'>
  links: Pick<AccountLinks, 'signIn'>
  requiredByCompany: TwoFactorService['requiredByCompany']
  product: string
}

export interface TwoFactorResetResult {
  sessions_ended: number
  agents_disconnected: number
  /** The company requires a factor: the member's next login leads to enrolment. */
  enrolment_required: boolean
}

const MAIL_KIND = 'two-factor-reset'

/**
 * An administrator (or an operator) removes the second factor of a member who
 * lost it (phone and recovery codes): the member signs in with the password
 * alone again, or enrols anew where the company requires a factor.
 */
export function createTwoFactorResetService ({ em: rootEm, activity, mail, grants, links, requiredByCompany, product }: TwoFactorResetDeps) {
  /**
   * In `tx`: deletes the person's factor and recovery codes, ends every session
   * and agent grant of theirs (as a password reset does: whoever holds the lost
   * phone must not stay in), records `two_factor.reset` and queues a notice to
   * the person. No enabled factor: TWO_FACTOR_NOT_ENABLED, and the caller's
   * transaction rolls back, so a refusal changes nothing.
   */
  async function remove (tx: EntityManager, user: User, actor: Actor, by: { name: string, admin: boolean }): Promise<TwoFactorResetResult> {
    const tenantId = user.tenant.id
    // The DELETE decides: of two resets at once, one removes the factor, the other finds none.
    const removed = await tx.execute<unknown[]>(
      'DELETE FROM user_two_factor WHERE user_id = ? AND tenant_id = ? AND enabled_at IS NOT NULL RETURNING user_id', [user.id, tenantId], 'all')
    if (removed.length !== 1) throw TwoFactorNotEnabled(`${user.name} has no second factor to reset`)
    await tx.execute('DELETE FROM two_factor_recovery_codes WHERE user_id = ?', [user.id], 'run')
    const sessions = await endSessions(tx, user.id)
    const agents = await grants.revokeAllOf(tx, user.id)
    const enrolmentRequired = await requiredByCompany(tx, tenantId)
    await mail.enqueue(tx, {
      tenantId,
      kind: MAIL_KIND,
      to: user.email,
      ...renderTwoFactorResetMail({ product, name: user.name, resetBy: by, signInLink: links.signIn(), enrolmentRequired })
    })
    activity.record(tx, actor, {
      type: 'two_factor.reset',
      title: `${by.name} reset the second factor of ${user.name}`.slice(0, 300),
      targetType: 'user',
      targetId: user.id
    })
    return { sessions_ended: sessions, agents_disconnected: agents, enrolment_required: enrolmentRequired }
  }

  return {
    /**
     * An administrator resets a member of their company. Not an admin: FORBIDDEN;
     * another company's user: USER_NOT_FOUND; oneself: TWO_FACTOR_RESET_OWN; no
     * factor on: TWO_FACTOR_NOT_ENABLED.
     */
    async resetOf ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>, userId: string): Promise<TwoFactorResetResult> {
      requireAdmin(actor, "reset a member's second factor")
      const result = await em.transactional(async (tx) => {
        const user = await tx.findOne(User, { id: userId })
        if (user === null) throw UserNotFound()
        if (user.id === actor.userId) throw TwoFactorResetOwn()
        return remove(tx, user, actor, { name: actor.name, admin: true })
      })
      mail.kick()
      return result
    },

    /** For operators (`npm run accounts -- reset-two-factor`): the same reset, found by e-mail across companies. */
    async forceResetByEmail (email: string, operator: string): Promise<TwoFactorResetResult & { email: string }> {
      if (rootEm === undefined) throw new Error('forceResetByEmail needs the root EntityManager')
      const em = rootEm.fork()
      const user = await em.findOne(User, { email: normalizeEmail(email) }, { ...ACROSS_TENANTS, populate: ['tenant'], refresh: true })
      if (user === null) throw UserNotFound(`No account has the e-mail address ${normalizeEmail(email)}`)
      const actor: SystemActor = { kind: 'system', tenantId: user.tenant.id, job: `operator:${operator}`.slice(0, 100) }
      const result = await em.transactional((tx) => remove(tx, user, actor, { name: operator, admin: false }))
      mail.kick()
      return { email: user.email, ...result }
    }
  }
}

export type TwoFactorResetService = ReturnType<typeof createTwoFactorResetService>
