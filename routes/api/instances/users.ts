import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Forbidden } from '../../../lib/errors.ts'
import { AUTHENTICATED, InstanceIdParams, responses } from '../../../schemas/common.ts'
import { ErpUserListResponse, InstanceInviteBody, InstanceInviteResponse } from '../../../schemas/erp-users.ts'
import { ErpError, ErpUnavailable } from '../../../plugins/app/erp/erp.errors.ts'
import { InvitationPending } from '../../../plugins/app/invitations/invitations.errors.ts'
import { EmailTaken } from '../../../plugins/app/tenants/tenants.errors.ts'
import { InstanceNotFound } from '../../../plugins/app/instances/instances.errors.ts'

/** Registered by ./index.ts (autoload loads only a folder's index.ts). */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { erp } = fastify

  fastify.get('/:id/users', {
    schema: {
      tags: ['instance users'],
      operationId: 'listInstanceUsers',
      summary: 'The users inside an instance\'s ERP',
      description: 'Read live from the instance\'s ERP (its external API, over the backend\'s network) within ERP_CALL_TIMEOUT_SECONDS. ' +
        '503 `ERP_UNAVAILABLE` while the instance is not running or its ERP does not answer; 502 `ERP_ERROR` with the ERP\'s message when it reports an error.',
      params: InstanceIdParams,
      response: responses({ 200: ErpUserListResponse }, [...AUTHENTICATED, 404, 502, 503, ErpUnavailable, ErpError, InstanceNotFound])
    }
  }, async (request) => ({ success: true as const, users: await erp.users.list(request.scope, request.params.id) }))

  fastify.post('/:id/users/invite', {
    schema: {
      tags: ['instance users'],
      operationId: 'inviteInstanceUser',
      summary: 'Invite someone into an instance\'s ERP',
      description: 'Admin only. A person without a portal account gets an invitation tied to the instance, e-mailed through the outbox; when they accept, ' +
        'their portal account is created (it takes a user seat) and a job with retries creates their ERP user with the role\'s groups; the acceptance does not wait for the ERP. ' +
        'A member of the company gets their ERP user at once, as a job, without a new seat. 409 `EMAIL_TAKEN` for an address of another company, ' +
        '409 `INVITATION_PENDING` when one is pending for it.',
      params: InstanceIdParams,
      body: InstanceInviteBody,
      response: responses({ 202: InstanceInviteResponse }, [...AUTHENTICATED, Forbidden, 404, 409, 413, 415, EmailTaken, InvitationPending, InstanceNotFound])
    }
  }, async (request, reply) => {
    const result = await erp.users.invite(request.scope, request.params.id, request.body)
    return reply.code(202).send({ success: true as const, ...result })
  })
}

export default routes
