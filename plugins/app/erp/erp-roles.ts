/**
 * The one table from a portal role to the ERP's groups (Odoo external ids). An invited person is
 * given the role's groups and loses only the groups another role means (and the portal user type,
 * which Odoo does not let an internal user keep), written as Odoo's many2many commands
 * `(4, id)` (link) and `(3, id)` (unlink): every other group the ERP gave them (an app's rights
 * added by a module install, the default user template's) stays. Listing reads the role back from
 * the groups a user has.
 *
 * | role    | Odoo groups                                                      |
 * |---------|------------------------------------------------------------------|
 * | `admin` | base.group_user, base.group_erp_manager, base.group_system      |
 * | `user`  | base.group_user                                                  |
 */
import type { UserRole } from '../users/user.entity.ts'

export const ERP_ROLE_GROUPS: Record<UserRole, readonly string[]> = {
  admin: ['base.group_user', 'base.group_erp_manager', 'base.group_system'],
  user: ['base.group_user']
}

/** What GET …/users shows: a portal role, `portal` for Odoo's portal users, `other` for anything else. */
export const ERP_USER_ROLES = ['admin', 'user', 'portal', 'other'] as const
export type ErpUserRole = typeof ERP_USER_ROLES[number]

const PORTAL_GROUP = 'base.group_portal'
export const ROLE_GROUP_XML_IDS = [...new Set([...Object.values(ERP_ROLE_GROUPS).flat(), PORTAL_GROUP])]

export type GroupCommand = [3 | 4, number]

/**
 * Unlinks first (`(3, id)`: the groups of the other roles this one does not mean, and the portal
 * user type), then links the role's (`(4, id)`); never `(6, 0, ids)`, which would drop every group
 * the ERP gave the user. `ids` must hold ROLE_GROUP_XML_IDS; throws when the ERP lacks a group of the role.
 */
export function groupCommands (role: UserRole, ids: Map<string, number>): GroupCommand[] {
  const wanted = ERP_ROLE_GROUPS[role].map((xmlId) => {
    const id = ids.get(xmlId)
    if (id === undefined) throw new Error(`The ERP has no group ${xmlId}`)
    return id
  })
  const unwanted = ROLE_GROUP_XML_IDS.filter((xmlId) => !ERP_ROLE_GROUPS[role].includes(xmlId))
    .map((xmlId) => ids.get(xmlId)).filter((id): id is number => id !== undefined)
  return [...unwanted.map((id): GroupCommand => [3, id]), ...wanted.map((id): GroupCommand => [4, id])]
}

/** The most privileged role whose groups the user all has. */
export function roleOf (groupIds: readonly number[], ids: Map<string, number>): ErpUserRole {
  const has = (xmlId: string): boolean => { const id = ids.get(xmlId); return id !== undefined && groupIds.includes(id) }
  if (ERP_ROLE_GROUPS.admin.every(has)) return 'admin'
  if (ERP_ROLE_GROUPS.user.every(has)) return 'user'
  if (has('base.group_portal')) return 'portal'
  return 'other'
}
