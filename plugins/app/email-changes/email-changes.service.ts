import { UniqueConstraintViolationException } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { UserActor } from '../../../lib/actor.ts'
import type { AccountLinks } from '../../../lib/account-links.ts'
import type { CallScope } from '../../../lib/call-scope.ts'
import { normalizeEmail } from '../../../lib/email.ts'
import { ACROSS_TENANTS } from '../../../database/tenancy.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { verifyPassword } from '../auth/password.ts'
import type { MailService } from '../mail/mail.service.ts'
import { retireResetTokens } from '../passwords/password-reset-store.ts'
import { PasswordIncorrect } from '../passwords/passwords.errors.ts'
import { EmailTaken } from '../tenants/tenants.errors.ts'
import { User } from '../users/user.entity.ts'
import { renderConfirmEmailMail, renderEmailChangedMail, renderEmailChangeRequestedMail } from './email-change-mail.ts'
import { consumeEmailChange, findPendingEmailChange, issueEmailChange, lockActiveUser, setEmail } from './email-change-store.ts'
import { EmailChangeTokenInvalid, EmailUnchanged } from './email-changes.errors.ts'

export interface EmailChangesServiceDeps {
  activity: ActivityService
  mail: MailService
  links: Pick<AccountLinks, 'confirmEmail' | 'forgotPassword' | 'signIn'>
  product: string
  ttlMinutes: number
}

export const EMAIL_CHANGE_ANSWER = 'A confirmation link is on its way to the new address; nothing changes until it is used. The current address was told.'

const KIND = { confirm: 'email-change-confirm', requested: 'email-change-requested', changed: 'email-changed' } as const

/** A person's change of their own e-mail address (their login), confirmed from the new mailbox. */
export function createEmailChangesService (deps: EmailChangesServiceDeps) {
  const { activity, mail, links, product, ttlMinutes } = deps

  return {
    /**
     * Checks the password and the address, stores the pending change (replacing
     * an older one) and, in the same transaction, queues the link to the new
     * address and a notice to the current one.
     */
    async requestChange ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>, input: { new_email: string, password: string }): Promise<{ new_email: string, expires_in: number }> {
      const user = await em.findOneOrFail(User, actor.userId, { populate: ['passwordHash'], refresh: true })
      if (!(await verifyPassword(user.passwordHash, input.password))) throw PasswordIncorrect('The password is not correct', { field: 'password' })
      const newEmail = normalizeEmail(input.new_email)
      if (newEmail === user.email) throw EmailUnchanged(undefined, { field: 'new_email' })
      if (await em.findOne(User, { email: newEmail }, ACROSS_TENANTS) !== null) throw EmailTaken(undefined, { field: 'new_email' })
      const names = { product, name: user.name, oldEmail: user.email, newEmail }
      await em.transactional(async (tx) => {
        const { token, replaced } = await issueEmailChange(tx, { userId: user.id, tenantId: actor.tenantId, newEmail }, ttlMinutes)
        for (const recipient of replaced) await mail.discardPending(tx, { tenantId: actor.tenantId, kind: KIND.confirm, recipient })
        await mail.enqueue(tx, { tenantId: actor.tenantId, kind: KIND.confirm, to: newEmail, ...renderConfirmEmailMail({ ...names, link: links.confirmEmail(token), ttlMinutes }) })
        await mail.enqueue(tx, { tenantId: actor.tenantId, kind: KIND.requested, to: user.email, ...renderEmailChangeRequestedMail({ ...names, resetLink: links.forgotPassword() }) })
        activity.record(tx, actor, {
          type: 'account.email_change_requested', title: `${user.name} asked to change their e-mail address to ${newEmail}`, targetType: 'user', targetId: user.id
        })
      })
      mail.kick()
      return { new_email: newEmail, expires_in: ttlMinutes * 60 }
    },

    /** Whether a link is live, without using it (the confirmation page shows the addresses first). */
    async checkChange (em: EntityManager, token: string): Promise<{ email: string, new_email: string }> {
      const pending = await findPendingEmailChange(em, token)
      if (pending === undefined) throw EmailChangeTokenInvalid()
      return { email: pending.email, new_email: pending.new_email }
    },

    /**
     * Uses the link once and sets the address, in one transaction: when the
     * address got an account meanwhile, 409 and the link stays usable (the
     * transaction rolls back). Reset links mailed to the old address stop working.
     * A deactivated account's link is refused.
     */
    async confirm (em: EntityManager, token: string): Promise<{ email: string }> {
      const done = await em.transactional(async (tx) => {
        const used = await consumeEmailChange(tx, token)
        if (used === undefined) throw EmailChangeTokenInvalid()
        const user = await lockActiveUser(tx, used.user_id)
        if (user === undefined) throw EmailChangeTokenInvalid()
        try {
          await setEmail(tx, used.user_id, used.new_email)
        } catch (error) {
          if (error instanceof UniqueConstraintViolationException) throw EmailTaken(undefined, { field: 'new_email' })
          throw error
        }
        await retireResetTokens(tx, used.user_id)
        const actor: UserActor = { kind: 'user', userId: used.user_id, tenantId: used.tenant_id, role: user.role, email: used.new_email, name: user.name, sessionId: '' }
        const names = { product, name: user.name, oldEmail: user.email, newEmail: used.new_email }
        await mail.enqueue(tx, { tenantId: used.tenant_id, kind: KIND.changed, to: user.email, ...renderEmailChangedMail({ ...names, signInLink: links.signIn() }) })
        activity.record(tx, actor, {
          type: 'account.email_changed', title: `${user.name} changed their e-mail address from ${user.email} to ${used.new_email}`, targetType: 'user', targetId: used.user_id
        })
        return { email: used.new_email }
      })
      mail.kick()
      return done
    }
  }
}

export type EmailChangesService = ReturnType<typeof createEmailChangesService>
