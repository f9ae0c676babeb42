import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Forbidden } from '../../../lib/errors.ts'
import { AUTHENTICATED, IdParams, pageOf, responses } from '../../../schemas/common.ts'
import { CreateUserBody, SetRoleBody, UserListQuery, UserListResponse, UserResponse } from '../../../schemas/users.ts'
import invitations from './invitations.ts'
import sessions from './sessions.ts'
import twoFactor from './two-factor.ts'
import { CannotDeactivateSelf, LastAdmin, UserNotFound } from '../../../plugins/app/users/users.errors.ts'
import { EmailTaken } from '../../../plugins/app/tenants/tenants.errors.ts'
import { UserLimitReached } from '../../../plugins/app/limits/limits.service.ts'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('', {
    schema: {
      tags: ['users'],
      operationId: 'listUsers',
      summary: "The company's users",
      description: 'Every member, active ones first, then by name. Any member may list. Paged: `page`, `per_page` (docs/api.md, "Lists and pages").',
      querystring: UserListQuery,
      response: responses({ 200: UserListResponse }, AUTHENTICATED)
    }
  }, async (request) => ({ success: true as const, ...await fastify.users.listPage(request.scope, pageOf(request.query)) }))

  fastify.post('/create', {
    schema: {
      tags: ['users'],
      operationId: 'createUser',
      summary: 'Add a user (admin)',
      description: 'Creates an active user with role `user`. Password: at least 10 characters, not the e-mail. Duplicate e-mail (in any company): 409 EMAIL_TAKEN.',
      body: CreateUserBody,
      response: responses({ 201: UserResponse }, [...AUTHENTICATED, Forbidden, EmailTaken, UserLimitReached])
    }
  }, async (request, reply) => {
    const user = await fastify.users.create(request.scope, request.body)
    return reply.code(201).send({ success: true as const, user })
  })

  fastify.delete('/:id', {
    schema: {
      tags: ['users'],
      operationId: 'deactivateUser',
      summary: 'Deactivate a user (admin)',
      description: 'Soft deactivation: `active` becomes false, the record stays, the user\'s tokens stop working at once. 409 for yourself (CANNOT_DEACTIVATE_SELF) and for the last active admin (LAST_ADMIN).',
      params: IdParams,
      response: responses({ 200: UserResponse }, [...AUTHENTICATED, Forbidden, UserNotFound, CannotDeactivateSelf, LastAdmin])
    }
  }, async (request) => ({ success: true as const, user: await fastify.users.deactivate(request.scope, request.params.id) }))

  fastify.put('/:id/role', {
    schema: {
      tags: ['users'],
      operationId: 'setUserRole',
      summary: 'Change a user\'s role (admin)',
      description: '`admin` or `user`; anything else is a 400 listing the allowed values. Demoting the last active admin: 409 LAST_ADMIN.',
      params: IdParams,
      body: SetRoleBody,
      response: responses({ 200: UserResponse }, [...AUTHENTICATED, Forbidden, UserNotFound, LastAdmin])
    }
  }, async (request) => ({ success: true as const, user: await fastify.users.setRole(request.scope, request.params.id, request.body.role) }))

  await fastify.register(invitations)
  await fastify.register(sessions)
  await fastify.register(twoFactor)
}

export default routes
