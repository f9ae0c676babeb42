import type { EntityManager } from '@mikro-orm/postgresql'
import { normalizeEmail } from '../../../lib/email.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import type { Jobs } from '../../external/jobs.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { Instance } from '../instances/instance.entity.ts'
import { InstanceNotFound } from '../instances/instances.errors.ts'
import type { InvitationView } from '../invitations/invitation.view.ts'
import type { InvitationsService } from '../invitations/invitations.service.ts'
import { User, type UserRole } from '../users/user.entity.ts'
import type { ErpAccess } from './erp-access.ts'
import { ERP_USER_QUEUE, type ErpUserJobData } from './erp-user.queue.ts'
import { ROLE_GROUP_XML_IDS, roleOf, type ErpUserRole } from './erp-roles.ts'
import type { CallScope } from '../../../lib/call-scope.ts'

export interface ErpUserView {
  id: number
  login: string
  name: string
  email: string | null
  active: boolean
  role: ErpUserRole
}

export interface InstanceInviteResult {
  /** The invitation e-mailed to a person without a portal account; null for a member of the company. */
  invitation: InvitationView | null
  /** `pending_acceptance`: created once the invitation is accepted; `queued`: being created now. */
  erp_user: 'pending_acceptance' | 'queued'
}

export interface ErpUsersDeps {
  access: ErpAccess
  jobs: Pick<Jobs, 'send' | 'wake'>
  activity: ActivityService
  invitations: Pick<InvitationsService, 'invite'>
}

/** The people inside an instance's ERP: read live from it, invited through the portal. */
export function createErpUsersService (deps: ErpUsersDeps) {
  const { access, jobs, activity, invitations } = deps

  async function instanceOf (em: EntityManager, id: number): Promise<Instance> {
    const instance = await em.findOne(Instance, { id, state: { $ne: 'deleted' } }, { populate: ['tenant'] })
    if (instance === null) throw InstanceNotFound()
    return instance
  }

  return {
    /** The ERP's users, live (bounded by ERP_CALL_TIMEOUT_SECONDS); 503 ERP_UNAVAILABLE unless running. */
    async list ({ em }: Pick<CallScope, 'em'>, instanceId: number): Promise<ErpUserView[]> {
      const instance = await instanceOf(em, instanceId)
      return access.withErp(em, instance, async (erp) => {
        const [users, groups] = await Promise.all([erp.listUsers(), erp.groupIds(ROLE_GROUP_XML_IDS)])
        return users.map((user) => ({ id: user.id, login: user.login, name: user.name, email: user.email, active: user.active, role: roleOf(user.groupIds, groups) }))
      })
    },

    /**
     * Admin only. A person without a portal account gets an invitation tied to the instance (the
     * ERP user is created when they accept, which takes a user seat); a member of the company has
     * their ERP user created now, as a job, without a new seat.
     */
    async invite ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, instanceId: number, input: { email: string, name: string, role: UserRole }): Promise<InstanceInviteResult> {
      requireAdmin(actor, 'invite users to an instance')
      const instance = await instanceOf(em, instanceId)
      const email = normalizeEmail(input.email)
      const member = await em.findOne(User, { email })
      if (member === null) {
        const invitation = await invitations.invite({ em, actor }, { email, name: input.name, role: input.role, instance_id: instance.id })
        return { invitation, erp_user: 'pending_acceptance' }
      }
      await em.transactional(async (tx) => {
        const data: ErpUserJobData = { tenantId: actor.tenantId, instanceId: instance.id, email, name: member.name, role: input.role }
        await jobs.send(tx, ERP_USER_QUEUE, data)
        activity.record(tx, actor, {
          type: 'instance_user.invited',
          title: `${actor.kind === 'system' ? 'System' : actor.name} gave ${email} access to ${instance.name} as ${input.role}`,
          targetType: 'instance',
          targetId: String(instance.id),
          instanceId: instance.id
        })
      })
      jobs.wake(ERP_USER_QUEUE)
      return { invitation: null, erp_user: 'queued' }
    }
  }
}

export type ErpUsersService = ReturnType<typeof createErpUsersService>
