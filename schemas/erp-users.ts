import { Type } from 'typebox'
import { BigInt53, ref, Success } from './common.ts'
import { Invitation } from './invitations.ts'

const InviteRole = Type.Union([Type.Literal('admin'), Type.Literal('user')], {
  description: 'The person\'s role: their portal role (for a new account) and their ERP groups on the instance ' +
    '(`admin`: base.group_user, base.group_erp_manager, base.group_system; `user`: base.group_user)'
})

export const ErpUser = Type.Object({
  id: BigInt53({ minimum: 1, description: 'The user\'s id in the ERP' }),
  login: Type.String(),
  name: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  active: Type.Boolean(),
  role: Type.Union([Type.Literal('admin'), Type.Literal('user'), Type.Literal('portal'), Type.Literal('other')], {
    description: 'Read back from the user\'s ERP groups: `admin` and `user` as in the role table, `portal` for the ERP\'s portal users, `other` for anything else'
  })
}, { $id: 'ErpUser', description: 'A user inside the instance\'s ERP' })

export const ErpUserListResponse = Success({ users: Type.Array(ref(ErpUser), { description: 'Active users of the ERP, by id' }) }, { $id: 'ErpUserListResponse' })

export const InstanceInviteBody = Type.Object({
  email: Type.String({ format: 'email', maxLength: 254, description: 'Who to invite; becomes their ERP login (and their portal login if they have no account)' }),
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', 'x-pattern-message': 'must not be blank', description: 'Their full name' }),
  role: InviteRole
}, { additionalProperties: false })

export const InstanceInviteResponse = Success({
  invitation: Type.Union([ref(Invitation), Type.Null()], { description: 'The invitation e-mailed to a person without a portal account; null for a member of the company' }),
  erp_user: Type.Union([Type.Literal('pending_acceptance'), Type.Literal('queued')], {
    description: '`pending_acceptance`: the ERP user is created (by a job with retries) once the invitation is accepted; `queued`: it is being created now'
  })
}, { $id: 'InstanceInviteResponse' })
