import { UniqueConstraintViolationException } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { UserActor } from '../../../lib/actor.ts'
import { ACROSS_TENANTS } from '../../../database/tenancy.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { TenantSuspended } from '../auth/auth.errors.ts'
import { sessionOrSecondStep, type ClientMeta, type LoginResult, type PasswordOutcome } from '../auth/auth.service.ts'
import { assertPasswordPolicy, hashPassword } from '../auth/password.ts'
import type { LimitsService } from '../limits/limits.service.ts'
import type { Jobs } from '../../external/jobs.ts'
import { ERP_USER_QUEUE, type ErpUserJobData } from '../erp/erp-user.queue.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { EmailTaken } from '../tenants/tenants.errors.ts'
import { User, type UserRole } from '../users/user.entity.ts'
import { Invitation } from './invitation.entity.ts'
import { hashInvitationToken } from './invitation-token.ts'
import { InvitationCancelled, InvitationExpired, InvitationNotFound, InvitationUsed } from './invitations.errors.ts'

export interface AcceptanceDeps {
  activity: ActivityService
  /** fastify.auth.afterPassword: a session, or the second step the company requires (as for a login). */
  afterPassword: (em: EntityManager, user: User, meta: ClientMeta) => Promise<PasswordOutcome>
  /** fastify.limits: the subscription's user seats. */
  limits: Pick<LimitsService, 'assertUserSeat'>
  /** Queues the ERP user of an invitation tied to an instance. */
  jobs: Pick<Jobs, 'send' | 'wake'>
}

export interface InvitationPreview {
  email: string
  name: string
  role: UserRole
  company: string
  status: 'pending'
  expires_at: string
}

interface ConsumedRow { id: string, tenant_id: string, email: string, name: string, role: UserRole, instance_id: number | null }

/**
 * Consumes the token: of any number of concurrent accepts, exactly one gets the
 * row back; the others wait for its commit and then match nothing.
 */
const CONSUME = `
UPDATE invitations SET status = 'accepted', accepted_at = now(), updated_at = now()
WHERE token_hash = ? AND status = 'pending' AND expires_at > now()
RETURNING id, tenant_id, email, name, role, instance_id::float8 AS instance_id`

/** Why a token cannot be used, if it cannot; `claimFailed`: the database just refused a pending one, so it expired by its clock. */
function refusal (invitation: Invitation | null, claimFailed = false): Error | undefined {
  if (invitation === null) return InvitationNotFound()
  if (invitation.status === 'accepted') return InvitationUsed()
  if (invitation.status === 'cancelled') return InvitationCancelled()
  if (claimFailed || invitation.expiresAt.getTime() <= Date.now()) return InvitationExpired()
  return undefined
}

function assertUsable (invitation: Invitation | null): asserts invitation is Invitation {
  const problem = refusal(invitation)
  if (problem !== undefined) throw problem
}

/** Public, token-authenticated: the token is looked up across tenants because it names its tenant. */
export function createInvitationAcceptance ({ activity, afterPassword, limits, jobs }: AcceptanceDeps) {
  async function findByToken (em: EntityManager, token: string): Promise<Invitation | null> {
    return em.findOne(Invitation, { tokenHash: hashInvitationToken(token) }, { ...ACROSS_TENANTS, populate: ['tenant'], refresh: true })
  }

  return {
    /** What the accept page shows; every unusable token is a 404 with a code saying why. */
    async preview (em: EntityManager, token: string): Promise<InvitationPreview> {
      const invitation = await findByToken(em, token)
      assertUsable(invitation)
      return {
        email: invitation.email,
        name: invitation.name,
        role: invitation.role,
        company: invitation.tenant.name,
        status: 'pending',
        expires_at: invitation.expiresAt.toISOString()
      }
    },

    /** Creates the user in the inviting tenant and logs them in, exactly once per token. */
    async accept (em: EntityManager, input: { token: string, password: string, name?: string | undefined }, meta: ClientMeta): Promise<LoginResult> {
      const tokenHash = hashInvitationToken(input.token)
      const found = await findByToken(em, input.token)
      assertUsable(found)
      if (found.tenant.status !== 'active') throw TenantSuspended()
      assertPasswordPolicy(input.password, found.email)
      const passwordHash = await hashPassword(input.password)

      try {
        const result = await em.transactional(async (tx) => {
          const [consumed] = await tx.execute<ConsumedRow[]>(CONSUME, [tokenHash])
          if (consumed === undefined) throw refusal(await findByToken(tx, input.token), true) ?? InvitationExpired()
          // The person may correct the name they were invited under.
          const chosen = input.name?.trim()
          const row = chosen === undefined || chosen === '' ? consumed : { ...consumed, name: chosen }
          // Refused here, the whole transaction rolls back: the invitation stays pending for later.
          await limits.assertUserSeat(tx, row.tenant_id)
          const user = tx.create(User, {
            tenant: tx.getReference(Tenant, row.tenant_id),
            email: row.email,
            name: row.name,
            role: row.role,
            active: true,
            passwordHash,
            lastLoginAt: null
          })
          await tx.flush()
          await tx.nativeUpdate(Invitation, { id: row.id }, { acceptedUser: user.id }, ACROSS_TENANTS)
          // The new member is the actor of their own arrival; they have no session yet.
          const newcomer: UserActor = { kind: 'user', userId: user.id, tenantId: row.tenant_id, role: row.role, email: row.email, name: row.name, sessionId: '' }
          activity.record(tx, newcomer, { type: 'invitation.accepted', title: `${row.name} (${row.email}) accepted the invitation and joined as ${row.role}`, targetType: 'user', targetId: user.id })
          if (row.instance_id !== null) {
            // The ERP user is made by a job with retries: the acceptance never waits for the ERP.
            const data: ErpUserJobData = { tenantId: row.tenant_id, instanceId: row.instance_id, email: row.email, name: row.name, role: row.role }
            await jobs.send(tx, ERP_USER_QUEUE, data)
          }
          return afterPassword(tx, user, meta)
        })
        jobs.wake(ERP_USER_QUEUE)
        // The member exists now; a company that requires a second factor has them enrol first.
        return sessionOrSecondStep(result)
      } catch (error) {
        // Someone signed up (or was added) with this address since the invitation was sent.
        if (error instanceof UniqueConstraintViolationException && error.message.includes('users_email')) throw EmailTaken()
        throw error
      }
    }
  }
}
