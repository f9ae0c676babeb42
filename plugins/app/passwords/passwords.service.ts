import { randomBytes } from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { SystemActor, UserActor } from '../../../lib/actor.ts'
import type { AccountLinks } from '../../../lib/account-links.ts'
import type { CallScope } from '../../../lib/call-scope.ts'
import { normalizeEmail } from '../../../lib/email.ts'
import { ACROSS_TENANTS } from '../../../database/tenancy.ts'
import type { Jobs } from '../../external/jobs.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { assertPasswordPolicy, hashPassword, verifyPassword } from '../auth/password.ts'
import type { MailService } from '../mail/mail.service.ts'
import type { GrantsService } from '../oauth/grants.service.ts'
import { retireEmailChanges } from '../email-changes/email-change-store.ts'
import { User } from '../users/user.entity.ts'
import { UserNotFound } from '../users/users.errors.ts'
import { renderPasswordResetMail } from './password-reset-mail.ts'
import { PASSWORD_RESET_QUEUE } from './password-reset.queue.ts'
import {
  consumeResetToken, endSessions, findResetOwner, issueResetToken, retireResetTokens, setPasswordHash, type ResetOrigin
} from './password-reset-store.ts'
import { PasswordIncorrect, PasswordResetTokenInvalid } from './passwords.errors.ts'

export interface PasswordsServiceDeps {
  /** The root EntityManager: the reset job and the operator command fork it. */
  em: EntityManager
  activity: ActivityService
  mail: MailService
  jobs: Pick<Jobs, 'send' | 'wake'>
  grants: Pick<GrantsService, 'revokeAllOf'>
  links: Pick<AccountLinks, 'resetPassword'>
  product: string
  ttlMinutes: number
}

export interface ForcedReset { email: string, link: string, mailed: boolean, sessions_ended: number, agents_disconnected: number }

/** What every "forgot password" request is answered, whether or not the address has an account. */
export const FORGOT_ANSWER = 'If this address has an account, a link to reset its password is on its way. It works once, for a short time.'

const MAIL_KIND = 'password-reset'
const system = (tenantId: string, job: string): SystemActor => ({ kind: 'system', tenantId, job })

/** Own password changes, reset links by e-mail, and resets forced by an operator. */
export function createPasswordsService (deps: PasswordsServiceDeps) {
  const { activity, mail, jobs, grants, links, product, ttlMinutes } = deps

  /** A link for `user` in `tx`, and its e-mail when `send`. */
  async function issue (tx: EntityManager, user: User, origin: ResetOrigin, send: boolean): Promise<string> {
    const token = await issueResetToken(tx, { userId: user.id, tenantId: user.tenant.id }, origin, ttlMinutes)
    const link = links.resetPassword(token)
    if (send) {
      await mail.discardPending(tx, { tenantId: user.tenant.id, kind: MAIL_KIND, recipient: user.email })
      await mail.enqueue(tx, {
        tenantId: user.tenant.id,
        kind: MAIL_KIND,
        to: user.email,
        ...renderPasswordResetMail({ product, name: user.name, link, ttlMinutes, forced: origin === 'operator' })
      })
    }
    return link
  }

  const findAccount = (em: EntityManager, email: string) =>
    em.findOne(User, { email: normalizeEmail(email) }, { ...ACROSS_TENANTS, populate: ['tenant'], refresh: true })

  return {
    /** The person's own change: the current password first; their other sessions end. */
    async change ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>, input: { current_password: string, new_password: string }): Promise<{ sessions_ended: number }> {
      const user = await em.findOneOrFail(User, actor.userId, { populate: ['passwordHash'], refresh: true })
      if (!(await verifyPassword(user.passwordHash, input.current_password))) throw PasswordIncorrect(undefined, { field: 'current_password' })
      assertPasswordPolicy(input.new_password, user.email)
      const passwordHash = await hashPassword(input.new_password)
      return em.transactional(async (tx) => {
        await setPasswordHash(tx, user.id, passwordHash)
        await retireResetTokens(tx, user.id)
        await retireEmailChanges(tx, user.id)
        const ended = await endSessions(tx, user.id, actor.sessionId)
        activity.record(tx, actor, { type: 'password.changed', title: `${actor.name} changed their password`, targetType: 'user', targetId: user.id })
        return { sessions_ended: ended }
      })
    },

    /**
     * "Forgot password": the same work whatever the address (one job queued),
     * so neither the answer nor its time tells whether it has an account.
     */
    async requestReset (em: EntityManager, email: string): Promise<void> {
      await em.transactional((tx) => jobs.send(tx, PASSWORD_RESET_QUEUE, { email: normalizeEmail(email) }))
      jobs.wake(PASSWORD_RESET_QUEUE)
    },

    /** The job's half: e-mails a link to an active account of an active company; false when there is none. */
    async issueByEmail (email: string): Promise<boolean> {
      const em = deps.em.fork()
      const user = await findAccount(em, email)
      if (user === null || !user.active || user.tenant.status !== 'active') return false
      await em.transactional(async (tx) => {
        await issue(tx, user, 'email', true)
        activity.record(tx, system(user.tenant.id, 'password-reset'), {
          type: 'password.reset_requested', title: `A password reset link was e-mailed to ${user.name} (${user.email})`, targetType: 'user', targetId: user.id
        })
      })
      mail.kick()
      return true
    },

    /** Whether a link is live, without using it (the reset page asks before showing its form). */
    async checkResetToken (em: EntityManager, token: string): Promise<{ email: string }> {
      const owner = await findResetOwner(em, token)
      if (owner === undefined) throw PasswordResetTokenInvalid()
      return { email: owner.email }
    },

    /** Sets the password with a live link, once: every session and every agent grant of the person ends. */
    async reset (em: EntityManager, input: { token: string, password: string }): Promise<{ sessions_ended: number, agents_disconnected: number }> {
      const owner = await findResetOwner(em, input.token)
      if (owner === undefined) throw PasswordResetTokenInvalid()
      // A weak password leaves the link usable for a better one.
      assertPasswordPolicy(input.password, owner.email)
      const passwordHash = await hashPassword(input.password)
      return em.transactional(async (tx) => {
        const used = await consumeResetToken(tx, input.token)
        if (used === undefined) throw PasswordResetTokenInvalid()
        await setPasswordHash(tx, used.user_id, passwordHash)
        await retireResetTokens(tx, used.user_id)
        await retireEmailChanges(tx, used.user_id)
        const sessions = await endSessions(tx, used.user_id)
        const agents = await grants.revokeAllOf(tx, used.user_id)
        const actor: UserActor = { kind: 'user', userId: owner.user_id, tenantId: used.tenant_id, role: owner.role, email: owner.email, name: owner.name, sessionId: '' }
        activity.record(tx, actor, {
          type: 'password.reset', title: `${owner.name} set a new password with a reset link`, targetType: 'user', targetId: owner.user_id
        })
        return { sessions_ended: sessions, agents_disconnected: agents }
      })
    },

    /**
     * For operators (`npm run accounts`): the current password stops working,
     * every session and agent grant ends, and a reset link is issued, e-mailed
     * unless `send` is false (then only returned).
     */
    async forceReset (email: string, options: { send: boolean, operator: string }): Promise<ForcedReset> {
      const em = deps.em.fork()
      const user = await findAccount(em, email)
      if (user === null) throw UserNotFound(`No account has the e-mail address ${normalizeEmail(email)}`)
      // Nobody knows this one: the old password is gone and no new one works until the link is used.
      const unusable = await hashPassword(randomBytes(32).toString('base64url'))
      const result = await em.transactional(async (tx) => {
        await setPasswordHash(tx, user.id, unusable)
        await retireEmailChanges(tx, user.id)
        const sessions = await endSessions(tx, user.id)
        const agents = await grants.revokeAllOf(tx, user.id)
        const link = await issue(tx, user, 'operator', options.send)
        activity.record(tx, system(user.tenant.id, `operator:${options.operator}`.slice(0, 100)), {
          type: 'password.reset_forced',
          title: `${options.operator} forced a password reset of ${user.name} (${user.email})`,
          targetType: 'user',
          targetId: user.id
        })
        return { email: user.email, link, mailed: options.send, sessions_ended: sessions, agents_disconnected: agents }
      })
      if (options.send) mail.kick()
      return result
    }
  }
}

export type PasswordsService = ReturnType<typeof createPasswordsService>
