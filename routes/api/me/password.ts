import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { AUTHENTICATED, responses } from '../../../schemas/common.ts'
import { ChangePasswordBody, ChangePasswordResponse } from '../../../schemas/passwords.ts'
import { WeakPassword } from '../../../plugins/app/auth/password.ts'
import { PasswordIncorrect } from '../../../plugins/app/passwords/passwords.errors.ts'

const MINUTE = 60_000

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config } = fastify

  fastify.post('/password', {
    // Guessing the current password through a stolen session is held to the login's budget.
    preValidation: fastify.limitBy({
      name: 'password-change',
      max: config.LOGIN_LIMIT_PER_ACCOUNT,
      timeWindowMs: 15 * MINUTE,
      key: (request: FastifyRequest) => request.actor.userId
    }),
    schema: {
      tags: ['auth'],
      operationId: 'changeOwnPassword',
      summary: 'Change your password',
      description: 'Checks the current password (403 `PASSWORD_INCORRECT`), applies the password rules (400 `WEAK_PASSWORD`), sets the new one, and signs out ' +
        `every other session of yours; this one stays. Recorded in the activity feed. At most ${config.LOGIN_LIMIT_PER_ACCOUNT} attempts per 15 minutes (429).`,
      body: ChangePasswordBody,
      response: responses({ 200: ChangePasswordResponse }, [...AUTHENTICATED, 403, 413, 415, 429, PasswordIncorrect, WeakPassword])
    }
  }, async (request) => ({ success: true as const, ...await fastify.passwords.change(request.scope, request.body) }))
}

export default routes
