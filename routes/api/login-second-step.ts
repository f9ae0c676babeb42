import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { clientMeta } from '../../lib/client-meta.ts'
import { LoginResponse } from '../../schemas/auth.ts'
import { responses } from '../../schemas/common.ts'
import { LoginEnrolBody, LoginEnrolledResponse, LoginEnrolVerifyBody, LoginSecondStepBody, TwoFactorEnrolmentResponse } from '../../schemas/two-factor.ts'
import { AccountDisabled, LoginChallengeInvalid, TenantSuspended } from '../../plugins/app/auth/auth.errors.ts'
import { TwoFactorAlreadyEnabled, TwoFactorCodeInvalid, TwoFactorNotEnabled, TwoFactorNotPending } from '../../plugins/app/two-factor/two-factor.errors.ts'

const MINUTE = 60_000

/**
 * The second step of POST /api/login: a TOTP or recovery code after
 * TWO_FACTOR_REQUIRED, or a first enrolment after TWO_FACTOR_ENROLMENT_REQUIRED.
 */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config } = fastify
  const { twoStep } = fastify.auth
  const perIp = fastify.limitPerIp('login-2fa', { max: config.TWO_FACTOR_LIMIT_PER_IP, timeWindow: MINUTE })
  const limits = `Rate-limited: ${config.TWO_FACTOR_LIMIT_PER_IP} per minute per IP; a challenge takes ${config.TWO_FACTOR_MAX_ATTEMPTS} wrong codes, then the person signs in again.`

  fastify.post('/login/2fa', {
    config: { auth: 'none' },
    onRequest: perIp,
    schema: {
      tags: ['auth'],
      operationId: 'finishTwoFactorLogin',
      summary: 'Log in: the second factor',
      description: 'After POST /api/login answered 401 TWO_FACTOR_REQUIRED: its `details.challenge` with a `code` of the authenticator app or a `recovery_code`. ' +
        'Answers like a login. A wrong code: 401 TWO_FACTOR_CODE_INVALID (the challenge stays usable); an expired, used or exhausted challenge: 401 LOGIN_CHALLENGE_INVALID. ' +
        `A code works once: its time step cannot be replayed. ${limits}`,
      body: LoginSecondStepBody,
      response: responses({ 200: LoginResponse }, [LoginChallengeInvalid, TwoFactorCodeInvalid, AccountDisabled, TenantSuspended, TwoFactorNotEnabled, 413, 415, 429])
    }
  }, async (request) => {
    const { challenge, ...proof } = request.body
    return { success: true as const, ...await twoStep.complete(request.em, challenge, proof, clientMeta(request)) }
  })

  fastify.post('/login/2fa/enrol', {
    config: { auth: 'none' },
    onRequest: perIp,
    schema: {
      tags: ['auth'],
      operationId: 'startLoginEnrolment',
      summary: 'Log in: set up the required factor',
      description: 'After POST /api/login answered 403 TWO_FACTOR_ENROLMENT_REQUIRED (the company requires a second factor): a new secret and QR code ' +
        'for the `details.challenge`. Calling it again replaces the secret. Then POST /api/login/2fa/enrol/verify.',
      body: LoginEnrolBody,
      response: responses({ 200: TwoFactorEnrolmentResponse }, [LoginChallengeInvalid, AccountDisabled, TenantSuspended, TwoFactorAlreadyEnabled, 413, 415, 429])
    }
  }, async (request) => ({ success: true as const, ...await twoStep.startEnrolment(request.em, request.body.challenge) }))

  fastify.post('/login/2fa/enrol/verify', {
    config: { auth: 'none' },
    onRequest: perIp,
    schema: {
      tags: ['auth'],
      operationId: 'finishLoginEnrolment',
      summary: 'Log in: turn the factor on',
      description: 'The first code of the app just set up: turns the factor on and answers like a login, plus ten recovery codes shown only this once. ' +
        `Wrong code: 401 TWO_FACTOR_CODE_INVALID. ${limits}`,
      body: LoginEnrolVerifyBody,
      response: responses({ 200: LoginEnrolledResponse }, [LoginChallengeInvalid, TwoFactorCodeInvalid, AccountDisabled, TenantSuspended, TwoFactorNotPending, 413, 415, 429])
    }
  }, async (request) => {
    const { challenge, code } = request.body
    return { success: true as const, ...await twoStep.finishEnrolment(request.em, challenge, code, clientMeta(request)) }
  })
}

export default routes
