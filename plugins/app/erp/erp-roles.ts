/**
 * The one table from a portal role to the ERP's groups (Odoo external ids). An invited person
 * gets exactly these groups on the instance, written as Odoo's many2many command
 * `(6, 0, ids)` (replace). Listing reads the role back from the groups a user has.
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

export const ROLE_GROUP_XML_IDS = [...new Set([...Object.values(ERP_ROLE_GROUPS).flat(), 'base.group_portal'])]

/** `(6, 0, ids)`: the user's groups become exactly the role's. Throws when the ERP lacks one of them. */
export function groupCommands (role: UserRole, ids: Map<string, number>): Array<[6, 0, number[]]> {
  const wanted = ERP_ROLE_GROUPS[role].map((xmlId) => {
    const id = ids.get(xmlId)
    if (id === undefined) throw new Error(`The ERP has no group ${xmlId}`)
    return id
  })
  return [[6, 0, wanted]]
}

/** The most privileged role whose groups the user all has. */
export function roleOf (groupIds: readonly number[], ids: Map<string, number>): ErpUserRole {
  const has = (xmlId: string): boolean => { const id = ids.get(xmlId); return id !== undefined && groupIds.includes(id) }
  if (ERP_ROLE_GROUPS.admin.every(has)) return 'admin'
  if (ERP_ROLE_GROUPS.user.every(has)) return 'user'
  if (has('base.group_portal')) return 'portal'
  return 'other'
}
