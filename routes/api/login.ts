import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { accountKey } from '../../lib/account-key.ts'
import { clientMeta } from '../../lib/client-meta.ts'
import { LoginBody, LoginResponse } from '../../schemas/auth.ts'
import { responses } from '../../schemas/common.ts'
import { AccountDisabled, InvalidCredentials, TenantSuspended, TwoFactorEnrolmentRequired, TwoFactorRequired } from '../../plugins/app/auth/auth.errors.ts'

const MINUTE = 60_000

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config } = fastify

  fastify.post('/login', {
    config: { auth: 'none' },
    onRequest: fastify.limitPerIp('login', { max: config.LOGIN_LIMIT_PER_IP, timeWindow: MINUTE }),
    preValidation: fastify.limitBy({ name: 'login:account', max: config.LOGIN_LIMIT_PER_ACCOUNT, timeWindowMs: 15 * MINUTE, key: accountKey('login') }),
    schema: {
      tags: ['auth'],
      operationId: 'logIn',
      summary: 'Log in',
      description: 'Exchanges e-mail and password for a bearer token. Unknown e-mail and wrong password get the same 401. ' +
        'After the right password, a person with a second factor gets 401 TWO_FACTOR_REQUIRED and one whose company requires a factor they lack ' +
        '403 TWO_FACTOR_ENROLMENT_REQUIRED, each with `details: {challenge, expires_in}` for POST /api/login/2fa or /api/login/2fa/enrol. ' +
        `Rate-limited: ${config.LOGIN_LIMIT_PER_IP} per minute per IP and ${config.LOGIN_LIMIT_PER_ACCOUNT} per 15 minutes per account.`,
      body: LoginBody,
      response: responses({ 200: LoginResponse }, [InvalidCredentials, TwoFactorRequired, AccountDisabled, TenantSuspended, TwoFactorEnrolmentRequired, 413, 415, 429])
    }
  }, async (request) => {
    const result = await fastify.auth.login(request.em, request.body, clientMeta(request))
    return { success: true as const, ...result }
  })
}

export default routes
