import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Forbidden } from '../../../lib/errors.ts'
import { AUTHENTICATED, IdParams, responses } from '../../../schemas/common.ts'
import { TwoFactorResetResponse } from '../../../schemas/two-factor.ts'
import { UserNotFound } from '../../../plugins/app/users/users.errors.ts'

/** An administrator removes the second factor of a member who lost their phone and recovery codes. */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/:id/2fa/reset', {
    schema: {
      tags: ['users'],
      operationId: 'resetUserTwoFactor',
      summary: 'Reset a member\'s lost second factor (admin)',
      description: 'Deletes the member\'s TOTP factor and recovery codes, ends every session and connected agent of theirs, and e-mails them a notice. ' +
        'They sign in with the password alone again, or set a new factor up at their next login where the company requires one. ' +
        'Not an administrator: 403 FORBIDDEN; a user of another company: 404 USER_NOT_FOUND; yourself: 409 TWO_FACTOR_RESET_OWN (use /api/me/2fa); ' +
        'no factor on: 409 TWO_FACTOR_NOT_ENABLED.',
      params: IdParams,
      response: responses({ 200: TwoFactorResetResponse }, [...AUTHENTICATED, Forbidden, 404, 409, UserNotFound])
    }
  }, async (request) => ({ success: true as const, ...await fastify.twoFactor.resetOf(request.scope, request.params.id) }))
}

export default routes
