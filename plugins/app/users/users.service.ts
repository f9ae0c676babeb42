import { pageInfo, pageWindow, type PageInfo, type PageRequest } from '../../../lib/pages.ts'
import { UniqueConstraintViolationException, type QueryOrderMap } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { UserActor } from '../../../lib/actor.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import { normalizeEmail } from '../../../lib/email.ts'
import { ACROSS_TENANTS, lockTenant } from '../../../database/tenancy.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import type { LimitsService } from '../limits/limits.service.ts'
import { assertPasswordPolicy, hashPassword } from '../auth/password.ts'
import { PortalSession } from '../auth/session.entity.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { EmailTaken } from '../tenants/tenants.errors.ts'
import { User, type UserRole } from './user.entity.ts'
import { CannotDeactivateSelf, LastAdmin, UserNotFound } from './users.errors.ts'
import type { CallScope } from '../../../lib/call-scope.ts'

export interface UserView {
  id: string
  name: string
  email: string
  login: string
  role: UserRole
  active: boolean
  created_at: string
  last_login: string | null
}

export function toUserView (user: User): UserView {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    login: user.email,
    role: user.role,
    active: user.active,
    created_at: user.createdAt.toISOString(),
    last_login: user.lastLoginAt?.toISOString() ?? null
  }
}

/** Active members first, then by name; the id breaks ties so pages never repeat or skip a member. */
const ROSTER_ORDER: Array<QueryOrderMap<User>> = [{ active: 'desc' }, { name: 'asc' }, { id: 'asc' }]

export function createUsersService ({ activity, limits }: { activity: ActivityService, limits: Pick<LimitsService, 'assertUserSeat'> }) {
  async function isLastActiveAdmin (tx: EntityManager, user: User): Promise<boolean> {
    if (user.role !== 'admin' || !user.active) return false
    return await tx.count(User, { role: 'admin', active: true }) <= 1
  }

  async function findUser (tx: EntityManager, id: string): Promise<User> {
    const user = await tx.findOne(User, { id })
    if (user === null) throw UserNotFound()
    return user
  }

  async function list (em: EntityManager): Promise<UserView[]> {
    const users = await em.find(User, {}, { orderBy: ROSTER_ORDER })
    return users.map(toUserView)
  }

  return {
    /** Any member may see the roster in the portal. */
    list: async ({ em }: Pick<CallScope, 'em'>): Promise<UserView[]> => await list(em),

    /** One page of the roster (REST), counted in the same call. */
    async listPage ({ em }: Pick<CallScope, 'em'>, request: PageRequest): Promise<{ users: UserView[], pagination: PageInfo }> {
      const [users, total] = await em.findAndCount(User, {}, { orderBy: ROSTER_ORDER, ...pageWindow(request) })
      return { users: users.map(toUserView), pagination: pageInfo(request, total) }
    },

    /** The roster for agents, whose team tools are admin-only (MCP `list_users`). */
    async listAsAdmin ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>): Promise<UserView[]> {
      requireAdmin(actor, 'list the team through an agent')
      return list(em)
    },

    async create ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>, input: { email: string, name: string, password: string }): Promise<UserView> {
      requireAdmin(actor, 'add users')
      const email = normalizeEmail(input.email)
      assertPasswordPolicy(input.password, email)
      if (await em.count(User, { email }, ACROSS_TENANTS) > 0) throw EmailTaken(undefined, { field: 'email' })
      const passwordHash = await hashPassword(input.password)
      try {
        return await em.transactional(async (tx) => {
          await limits.assertUserSeat(tx, actor.tenantId)
          const user = tx.create(User, {
            tenant: tx.getReference(Tenant, actor.tenantId),
            email,
            name: input.name.trim(),
            role: 'user',
            active: true,
            passwordHash,
            lastLoginAt: null
          })
          activity.record(tx, actor, { type: 'user.created', title: `${actor.name} added ${user.name} (${email})`, targetType: 'user', targetId: user.id })
          await tx.flush()
          return toUserView(user)
        })
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) throw EmailTaken(undefined, { field: 'email' })
        throw error
      }
    },

    /** Soft deactivation: the record stays, its sessions end at once. */
    async deactivate ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>, id: string): Promise<UserView> {
      requireAdmin(actor, 'deactivate users')
      return em.transactional(async (tx) => {
        await lockTenant(tx, actor.tenantId)
        const user = await findUser(tx, id)
        if (user.id === actor.userId) throw CannotDeactivateSelf()
        if (!user.active) return toUserView(user)
        if (await isLastActiveAdmin(tx, user)) throw LastAdmin()
        user.active = false
        await tx.nativeUpdate(PortalSession, { user: user.id, revokedAt: null }, { revokedAt: new Date() })
        activity.record(tx, actor, { type: 'user.deactivated', title: `${actor.name} deactivated ${user.name}`, targetType: 'user', targetId: user.id })
        await tx.flush()
        return toUserView(user)
      })
    },

    async setRole ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>, id: string, role: UserRole): Promise<UserView> {
      requireAdmin(actor, 'change roles')
      return em.transactional(async (tx) => {
        await lockTenant(tx, actor.tenantId)
        const user = await findUser(tx, id)
        if (user.role === role) return toUserView(user)
        if (role === 'user' && await isLastActiveAdmin(tx, user)) throw LastAdmin('The last active administrator cannot be demoted')
        user.role = role
        activity.record(tx, actor, { type: 'user.role_changed', title: `${actor.name} made ${user.name} ${role === 'admin' ? 'an administrator' : 'a user'}`, targetType: 'user', targetId: user.id })
        await tx.flush()
        return toUserView(user)
      })
    }
  }
}

export type UsersService = ReturnType<typeof createUsersService>
