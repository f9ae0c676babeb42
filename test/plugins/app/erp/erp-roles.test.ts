/**
 * A role changes only the groups it means: the role's are linked (4, id), the other roles' that it
 * does not mean and the portal user type are unlinked (3, id), and nothing replaces the user's
 * groups (6, 0, ids), so the groups an ERP gave a user (an app's, the template's) stay.
 */
import t from 'tap'
import { groupCommands, roleOf, ROLE_GROUP_XML_IDS } from '../../../../plugins/app/erp/erp-roles.ts'

const ids = new Map([['base.group_user', 1], ['base.group_erp_manager', 2], ['base.group_system', 3], ['base.group_portal', 10]])

t.test('admin links its three groups and unlinks the portal user type, first', async (t) => {
  t.same(groupCommands('admin', ids), [[3, 10], [4, 1], [4, 2], [4, 3]])
})

t.test('user links the internal user group and unlinks the admin role\'s and the portal user type', async (t) => {
  t.same(groupCommands('user', ids), [[3, 2], [3, 3], [3, 10], [4, 1]])
})

t.test('applied to a user with an app\'s groups, only the role\'s groups change', async (t) => {
  const apply = (groups: number[], commands: Array<[number, number]>): number[] =>
    commands.reduce((acc, [code, id]) => code === 4 ? [...new Set([...acc, id])] : acc.filter((g) => g !== id), groups)
  const reinvited = apply([16, 28, 30, 1, 2, 3, 12, 7, 15, 14], groupCommands('user', ids))
  t.same(reinvited.toSorted((a, b) => a - b), [1, 7, 12, 14, 15, 16, 28, 30], 'a demoted admin keeps Sales and Invoicing rights')
  t.equal(roleOf(reinvited, ids), 'user')
  t.equal(roleOf(apply(reinvited, groupCommands('admin', ids)), ids), 'admin')
})

t.test('an ERP without a group of the role is an error; ROLE_GROUP_XML_IDS holds every group the commands need', async (t) => {
  t.throws(() => groupCommands('admin', new Map([['base.group_user', 1]])), /The ERP has no group base.group_erp_manager/)
  t.same([...ids.keys()].toSorted(), [...ROLE_GROUP_XML_IDS].toSorted())
})
