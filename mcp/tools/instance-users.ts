import { Type } from 'typebox'
import { BigInt53 } from '../../schemas/common.ts'
import { InstanceInviteBody } from '../../schemas/erp-users.ts'
import { defineTool } from './tool.ts'

const instanceId = BigInt53({ minimum: 1, description: 'The instance id, an integer (from list_instances)' })

export const instanceUserTools = [
  defineTool({
    name: 'list_instance_users',
    title: 'List the users inside an instance\'s ERP',
    description: 'The users of the instance\'s ERP (id, login, name, email, active, role), read live from the ERP. ' +
      'ERP_UNAVAILABLE while the instance is not running (start it, or wait for it); ERP_ERROR with the ERP\'s message when it reports an error.',
    input: Type.Object({ instance_id: instanceId }, { additionalProperties: false }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    run: async ({ app, scope }, { instance_id: id }) => ({ users: await app.erp.users.list(scope, id) })
  }),

  defineTool({
    name: 'invite_instance_user',
    title: 'Invite someone into an instance\'s ERP',
    description: 'Admin only. Someone without a portal account is e-mailed an invitation tied to the instance; when they accept, their ERP user is created ' +
      'with the role\'s groups (`erp_user: pending_acceptance`). A member of the company gets their ERP user now (`erp_user: queued`). ' +
      'Check the result later with list_instance_users.',
    input: Type.Object({
      instance_id: instanceId,
      email: { ...InstanceInviteBody.properties.email },
      name: { ...InstanceInviteBody.properties.name },
      role: { ...InstanceInviteBody.properties.role }
    }, { additionalProperties: false }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: async ({ app, scope }, { instance_id: id, email, name, role }) => ({ ...await app.erp.users.invite(scope, id, { email, name, role }) })
  })
]
