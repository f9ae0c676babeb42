import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { oneTimeLinkLimits } from '../../../lib/one-time-link-limits.ts'
import { responses } from '../../../schemas/common.ts'
import { ConfirmEmailChangeBody, EmailChangeConfirmedResponse } from '../../../schemas/email-changes.ts'
import { EmailChangeTokenInvalid } from '../../../plugins/app/email-changes/email-changes.errors.ts'
import { EmailTaken } from '../../../plugins/app/tenants/tenants.errors.ts'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config } = fastify
  const perIp = config.PASSWORD_RESET_LIMIT_PER_IP

  fastify.post('/confirm', {
    config: { auth: 'none' },
    ...oneTimeLinkLimits(fastify, 'email-confirm'),
    schema: {
      tags: ['auth'],
      operationId: 'confirmEmailChange',
      summary: 'Confirm a new e-mail address with its link',
      description: 'Uses the token of the link e-mailed to the new address, once (400 `EMAIL_CHANGE_TOKEN_INVALID` when unknown, used, replaced or expired), ' +
        'and makes the new address the login; the old one gets a notice, and reset links sent to it stop working. When the address got an account ' +
        `meanwhile: 409 \`EMAIL_TAKEN\`, nothing changes. Recorded in the activity feed. Rate-limited: ${perIp} per hour per IP and as many per link (429).`,
      body: ConfirmEmailChangeBody,
      response: responses({ 200: EmailChangeConfirmedResponse }, [409, 413, 415, 429, EmailChangeTokenInvalid, EmailTaken])
    }
  }, async (request) => ({ success: true as const, ...await fastify.emailChanges.confirm(request.em, request.body.token) }))
}

export default routes
