import type { UserActor } from '../../../lib/actor.ts'
import type { AccountLinks } from '../../../lib/account-links.ts'
import type { CallScope } from '../../../lib/call-scope.ts'
import { requireAdmin } from '../../../lib/roles.ts'
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
 * An administrator removes the second factor of a member who lost it (phone
 * and recovery codes): the member signs in with the password alone again, or
 * enrols anew where the company requires a factor.
 */
export function createTwoFactorResetService ({ activity, mail, grants, links, requiredByCompany, product }: TwoFactorResetDeps) {
  return {
    /**
     * Deletes the member's factor and recovery codes, ends every session and
     * agent grant of theirs (as a password reset does: whoever held the lost
     * phone must not stay in), records `two_factor.reset` and queues a notice
     * to the member, all in one transaction: a refusal changes nothing.
     * Not an admin: FORBIDDEN; another company's user: USER_NOT_FOUND; oneself:
     * TWO_FACTOR_RESET_OWN; no factor on: TWO_FACTOR_NOT_ENABLED.
     */
    async resetOf ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>, userId: string): Promise<TwoFactorResetResult> {
      requireAdmin(actor, "reset a member's second factor")
      const result = await em.transactional(async (tx) => {
        const user = await tx.findOne(User, { id: userId })
        if (user === null) throw UserNotFound()
        if (user.id === actor.userId) throw TwoFactorResetOwn()
        // The DELETE decides: of two admins resetting at once, one removes the factor, the other finds none.
        const removed = await tx.execute<unknown[]>(
          'DELETE FROM user_two_factor WHERE user_id = ? AND tenant_id = ? AND enabled_at IS NOT NULL RETURNING user_id', [user.id, actor.tenantId], 'all')
        if (removed.length !== 1) throw TwoFactorNotEnabled(`${user.name} has no second factor to reset`)
        await tx.execute('DELETE FROM two_factor_recovery_codes WHERE user_id = ?', [user.id], 'run')
        const sessions = await endSessions(tx, user.id)
        const agents = await grants.revokeAllOf(tx, user.id)
        const enrolmentRequired = await requiredByCompany(tx, actor.tenantId)
        await mail.enqueue(tx, {
          tenantId: actor.tenantId,
          kind: MAIL_KIND,
          to: user.email,
          ...renderTwoFactorResetMail({ product, name: user.name, adminName: actor.name, signInLink: links.signIn(), enrolmentRequired })
        })
        activity.record(tx, actor, {
          type: 'two_factor.reset',
          title: `${actor.name} reset the second factor of ${user.name}`,
          targetType: 'user',
          targetId: user.id
        })
        return { sessions_ended: sessions, agents_disconnected: agents, enrolment_required: enrolmentRequired }
      })
      mail.kick()
      return result
    }
  }
}

export type TwoFactorResetService = ReturnType<typeof createTwoFactorResetService>
