import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { accountKey } from '../../../lib/account-key.ts'
import { oneTimeLinkLimits } from '../../../lib/one-time-link-limits.ts'
import { responses } from '../../../schemas/common.ts'
import { FORGOT_ANSWER } from '../../../plugins/app/passwords/passwords.service.ts'
import { ForgotPasswordBody, ForgotPasswordResponse, ResetPasswordBody, ResetPasswordResponse } from '../../../schemas/passwords.ts'
import { WeakPassword } from '../../../plugins/app/auth/password.ts'
import { PasswordResetTokenInvalid } from '../../../plugins/app/passwords/passwords.errors.ts'

const HOUR = 60 * 60_000

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config, passwords } = fastify
  const perIp = config.PASSWORD_RESET_LIMIT_PER_IP
  const perAccount = config.PASSWORD_RESET_LIMIT_PER_ACCOUNT

  fastify.post('/forgot', {
    config: { auth: 'none' },
    onRequest: fastify.limitPerIp('password-forgot', { max: perIp, timeWindow: HOUR }),
    preValidation: fastify.limitBy({ name: 'password-forgot:account', max: perAccount, timeWindowMs: HOUR, key: accountKey('email') }),
    schema: {
      tags: ['auth'],
      operationId: 'requestPasswordReset',
      summary: 'Ask for a password reset link',
      description: 'Always 202 with the same body, whether or not the address has an account, and after the same work (one queued job), so neither the answer ' +
        `nor its time tells. An active account gets an e-mail with a link that works once, for ${config.PASSWORD_RESET_TTL_MINUTES} minutes; a newer link ` +
        `replaces it. Rate-limited: ${perIp} per hour per IP and ${perAccount} per hour per address (429).`,
      body: ForgotPasswordBody,
      response: responses({ 202: ForgotPasswordResponse }, [413, 415, 429])
    }
  }, async (request, reply) => {
    await passwords.requestReset(request.em, request.body.email)
    return reply.code(202).send({ success: true as const, message: FORGOT_ANSWER })
  })

  fastify.post('/reset', {
    config: { auth: 'none' },
    ...oneTimeLinkLimits(fastify, 'password-reset'),
    schema: {
      tags: ['auth'],
      operationId: 'resetPassword',
      summary: 'Set a new password with a reset link',
      description: 'Uses the link\'s token once (400 `PASSWORD_RESET_TOKEN_INVALID` when unknown, used, replaced or expired; 400 `WEAK_PASSWORD` leaves it usable). ' +
        'Every session of the person and every connected agent (OAuth grant) ends; recorded in the activity feed. ' +
        `Rate-limited: ${perIp} per hour per IP and as many per link (429).`,
      body: ResetPasswordBody,
      response: responses({ 200: ResetPasswordResponse }, [413, 415, 429, PasswordResetTokenInvalid, WeakPassword])
    }
  }, async (request) => ({ success: true as const, ...await passwords.reset(request.em, request.body) }))
}

export default routes
