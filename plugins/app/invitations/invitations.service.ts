import { randomUUID } from 'node:crypto'
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Actor } from '../../../lib/actor.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import { normalizeEmail } from '../../../lib/email.ts'
import { ACROSS_TENANTS } from '../../../database/tenancy.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import type { MailService } from '../mail/mail.service.ts'
import { Instance } from '../instances/instance.entity.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { EmailTaken } from '../tenants/tenants.errors.ts'
import { User, type UserRole } from '../users/user.entity.ts'
import { Invitation } from './invitation.entity.ts'
import { renderInvitationMail } from './invitation-mail.ts'
import { newInvitationToken } from './invitation-token.ts'
import type { AccountLinks } from '../../../lib/account-links.ts'
import { toInvitationView, type InvitationView } from './invitation.view.ts'
import { createInvitationAcceptance, type AcceptanceDeps } from './invitation-acceptance.ts'
import { InstanceNotFound } from '../instances/instances.errors.ts'
import { InvitationNotFound, InvitationNotPending, InvitationPending } from './invitations.errors.ts'
import type { CallScope } from '../../../lib/call-scope.ts'

export interface InvitationsServiceDeps extends AcceptanceDeps {
  activity: ActivityService
  mail: MailService
  ttlDays: number
  /** Where the e-mail's accept link opens (lib/account-links.ts). */
  links: Pick<AccountLinks, 'acceptInvitation'>
  /** The product's name in e-mail subjects. */
  product: string
}

export interface InviteInput {
  email: string
  name: string
  role: UserRole
  instance_id?: number | null
}

const DAY = 86_400_000
const MAIL_KIND = 'invitation'

const actorName = (actor: Actor) => actor.kind === 'system' ? 'System' : actor.name

export function createInvitationsService (deps: InvitationsServiceDeps) {
  const { activity, mail, ttlDays, links, product } = deps

  /** Queues the e-mail in `tx`, replacing any unsent one for the same person: its link is dead. */
  async function queueMail (tx: EntityManager, actor: Actor, invitation: Invitation, token: string): Promise<void> {
    const company = (await tx.findOneOrFail(Tenant, actor.tenantId)).name
    await mail.discardPending(tx, { tenantId: actor.tenantId, kind: MAIL_KIND, recipient: invitation.email })
    await mail.enqueue(tx, {
      tenantId: actor.tenantId,
      kind: MAIL_KIND,
      to: invitation.email,
      ...renderInvitationMail({
        product,
        company,
        inviteeName: invitation.name,
        inviterName: actor.kind === 'system' ? `The ${company} team` : actor.name,
        role: invitation.role,
        link: links.acceptInvitation(token),
        expiresAt: invitation.expiresAt
      })
    })
  }

  async function view (em: EntityManager, id: string): Promise<InvitationView> {
    return toInvitationView(await em.findOneOrFail(Invitation, id, { populate: ['invitedBy'], refresh: true }))
  }

  /** Locks one of the tenant's pending invitations for a change (404 / 409 otherwise). */
  async function lockPending (tx: EntityManager, id: string): Promise<Invitation> {
    const invitation = await tx.findOne(Invitation, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE })
    if (invitation === null) throw InvitationNotFound('Invitation not found')
    if (invitation.status !== 'pending') throw InvitationNotPending(`This invitation has already been ${invitation.status}`)
    return invitation
  }

  return {
    ...createInvitationAcceptance(deps),

    /** Creates a pending invitation and queues its e-mail; the e-mail failing never undoes it. */
    async invite ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, input: InviteInput): Promise<InvitationView> {
      requireAdmin(actor, 'invite users')
      const email = normalizeEmail(input.email)
      let instance: Instance | null = null
      if (input.instance_id != null) {
        instance = await em.findOne(Instance, { id: input.instance_id, state: { $ne: 'deleted' } })
        if (instance === null) throw InstanceNotFound(undefined, { field: 'instance_id' })
      }
      if (await em.count(User, { email }, ACROSS_TENANTS) > 0) throw EmailTaken(undefined, { field: 'email' })

      const id = randomUUID()
      const { token, tokenHash } = newInvitationToken()
      const now = new Date()
      try {
        await em.transactional(async (tx) => {
          // An expired invitation for this address gives way to the new one instead of blocking it.
          await tx.nativeUpdate(Invitation, { email, status: 'pending', expiresAt: { $lte: now } }, { status: 'cancelled', cancelledAt: now })
          if (await tx.count(Invitation, { email, status: 'pending' }) > 0) throw InvitationPending(undefined, { field: 'email' })
          const invitation = tx.create(Invitation, {
            id,
            tenant: tx.getReference(Tenant, actor.tenantId),
            email,
            name: input.name.trim(),
            role: input.role,
            instance: instance === null ? null : tx.getReference(Instance, instance.id),
            tokenHash,
            status: 'pending',
            expiresAt: new Date(now.getTime() + ttlDays * DAY),
            invitedBy: actor.kind === 'system' ? null : tx.getReference(User, actor.userId),
            acceptedUser: null,
            acceptedAt: null,
            cancelledAt: null,
            sendCount: 1,
            lastSentAt: now
          })
          await queueMail(tx, actor, invitation, token)
          activity.record(tx, actor, {
            type: 'invitation.created',
            title: `${actorName(actor)} invited ${email} as ${input.role}`,
            targetType: 'invitation',
            targetId: id,
            instanceId: instance?.id ?? null
          })
        })
      } catch (error) {
        // Two admins inviting the same address at once: the partial unique index decides.
        if (error instanceof UniqueConstraintViolationException && error.message.includes('invitations_pending_email_unique')) {
          throw InvitationPending(undefined, { field: 'email' })
        }
        throw error
      }
      mail.kick()
      return view(em, id)
    },

    /** Pending invitations (expired ones included, marked `expired`), newest first. */
    async list ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, page: { page: number, per_page: number }) {
      requireAdmin(actor, 'list invitations')
      const [rows, total] = await em.findAndCount(Invitation, { status: 'pending' }, {
        populate: ['invitedBy'],
        orderBy: { createdAt: 'desc', id: 'desc' },
        limit: page.per_page,
        offset: (page.page - 1) * page.per_page
      })
      return { invitations: rows.map(toInvitationView), total, page: page.page, per_page: page.per_page }
    },

    /** A new link (the old one stops working at once), a renewed expiry, and a new e-mail. */
    async resend ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, id: string): Promise<InvitationView> {
      requireAdmin(actor, 'resend invitations')
      const { token, tokenHash } = newInvitationToken()
      const now = new Date()
      await em.transactional(async (tx) => {
        const invitation = await lockPending(tx, id)
        invitation.tokenHash = tokenHash
        invitation.expiresAt = new Date(now.getTime() + ttlDays * DAY)
        invitation.sendCount += 1
        invitation.lastSentAt = now
        await queueMail(tx, actor, invitation, token)
        activity.record(tx, actor, { type: 'invitation.resent', title: `${actorName(actor)} resent the invitation to ${invitation.email}`, targetType: 'invitation', targetId: id })
      })
      mail.kick()
      return view(em, id)
    },

    /** The link then answers INVITATION_CANCELLED; an unsent e-mail is dropped. */
    async cancel ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, id: string): Promise<InvitationView> {
      requireAdmin(actor, 'cancel invitations')
      await em.transactional(async (tx) => {
        const invitation = await lockPending(tx, id)
        invitation.status = 'cancelled'
        invitation.cancelledAt = new Date()
        await mail.discardPending(tx, { tenantId: actor.tenantId, kind: MAIL_KIND, recipient: invitation.email })
        activity.record(tx, actor, { type: 'invitation.cancelled', title: `${actorName(actor)} cancelled the invitation to ${invitation.email}`, targetType: 'invitation', targetId: id })
      })
      return view(em, id)
    }
  }
}

export type InvitationsService = ReturnType<typeof createInvitationsService>
