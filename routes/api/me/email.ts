import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { EMAIL_CHANGE_ANSWER } from '../../../plugins/app/email-changes/email-changes.service.ts'
import { AUTHENTICATED, responses } from '../../../schemas/common.ts'
import { EmailChangeRequestedResponse, RequestEmailChangeBody } from '../../../schemas/email-changes.ts'
import { EmailUnchanged } from '../../../plugins/app/email-changes/email-changes.errors.ts'
import { PasswordIncorrect } from '../../../plugins/app/passwords/passwords.errors.ts'
import { EmailTaken } from '../../../plugins/app/tenants/tenants.errors.ts'

const MINUTE = 60_000

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config } = fastify

  fastify.post('/email', {
    // Guessing the password through a stolen session is held to the login's budget.
    preValidation: fastify.limitBy({
      name: 'email-change',
      max: config.LOGIN_LIMIT_PER_ACCOUNT,
      timeWindowMs: 15 * MINUTE,
      key: (request: FastifyRequest) => request.actor.userId
    }),
    schema: {
      tags: ['auth'],
      operationId: 'requestEmailChange',
      summary: 'Change your e-mail address (your login)',
      description: 'Checks your password (403 `PASSWORD_INCORRECT`) and the address: 409 `EMAIL_TAKEN` when an account has it, 400 `EMAIL_UNCHANGED` when it is ' +
        'yours already. Nothing changes yet: the new address gets a link that confirms the change (once, for ' +
        `${config.EMAIL_CHANGE_TTL_MINUTES} minutes; a newer request replaces it) and the current address a notice. ` +
        `At most ${config.LOGIN_LIMIT_PER_ACCOUNT} attempts per 15 minutes (429).`,
      body: RequestEmailChangeBody,
      response: responses({ 202: EmailChangeRequestedResponse }, [...AUTHENTICATED, 403, 409, 413, 415, 429, PasswordIncorrect, EmailTaken, EmailUnchanged])
    }
  }, async (request, reply) => {
    const requested = await fastify.emailChanges.requestChange(request.scope, request.body)
    return reply.code(202).send({ success: true as const, message: EMAIL_CHANGE_ANSWER, ...requested })
  })
}

export default routes
