import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AUTHENTICATED, SuccessOnly, responses } from '../../../schemas/common.ts'
import { FactorProofBody, NewRecoveryCodesResponse, RecoveryCodesResponse, TwoFactorEnrolmentResponse, TwoFactorStatusResponse, TwoFactorVerifyBody } from '../../../schemas/two-factor.ts'
import { TwoFactorAlreadyEnabled, TwoFactorCodeInvalid, TwoFactorNotEnabled, TwoFactorNotPending, TwoFactorRequiredByCompany } from '../../../plugins/app/two-factor/two-factor.errors.ts'

const MINUTE = 60_000

/** The caller's own second factor (TOTP): status, enrolment, new recovery codes, turning it off. */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config, twoFactor } = fastify
  // Guessing codes with a stolen token: the same budget as a login's per account.
  const perUser = fastify.limitBy({
    name: 'two-factor:user',
    max: config.LOGIN_LIMIT_PER_ACCOUNT,
    timeWindowMs: 15 * MINUTE,
    key: (request) => request.actor.userId
  })

  fastify.get('/2fa', {
    schema: {
      tags: ['auth'],
      operationId: 'getTwoFactor',
      summary: 'Your second factor',
      description: 'Whether it is on, how many recovery codes are left, and whether the company requires it.',
      response: responses({ 200: TwoFactorStatusResponse }, AUTHENTICATED)
    }
  }, async (request) => ({ success: true as const, two_factor: await twoFactor.status(request.scope) }))

  fastify.post('/2fa', {
    schema: {
      tags: ['auth'],
      operationId: 'startTwoFactorEnrolment',
      summary: 'Set up a second factor',
      description: 'A new TOTP secret, its `otpauth://` URI and a QR code to scan. Nothing changes at login until POST /api/me/2fa/verify. ' +
        'Calling it again replaces a pending secret; with the factor already on: 409 TWO_FACTOR_ALREADY_ENABLED.',
      response: responses({ 200: TwoFactorEnrolmentResponse }, [...AUTHENTICATED, TwoFactorAlreadyEnabled])
    }
  }, async (request) => {
    const { actor, em } = request.scope
    return { success: true as const, ...await twoFactor.begin(em, actor) }
  })

  fastify.post('/2fa/verify', {
    preValidation: perUser,
    schema: {
      tags: ['auth'],
      operationId: 'confirmTwoFactorEnrolment',
      summary: 'Turn the second factor on',
      description: 'The first code of the app: turns the factor on and answers ten single-use recovery codes, shown only this once. ' +
        'Wrong code: 401 TWO_FACTOR_CODE_INVALID; nothing pending: 409 TWO_FACTOR_NOT_PENDING.',
      body: TwoFactorVerifyBody,
      response: responses({ 200: RecoveryCodesResponse }, [...AUTHENTICATED, TwoFactorCodeInvalid, TwoFactorNotPending, TwoFactorAlreadyEnabled, 413, 415, 429])
    }
  }, async (request) => {
    const { actor, em } = request.scope
    return { success: true as const, recovery_codes: await twoFactor.confirm(em, actor, request.body.code) }
  })

  fastify.post('/2fa/recovery-codes', {
    preValidation: perUser,
    schema: {
      tags: ['auth'],
      operationId: 'rotateTwoFactorRecoveryCodes',
      summary: 'New recovery codes',
      description: 'Needs a current `code` or a `recovery_code`, as turning the factor off does. Answers ten new single-use codes, shown only this once; ' +
        'the previous ones stop working in the same transaction. Wrong: 401 TWO_FACTOR_CODE_INVALID; not on: 409 TWO_FACTOR_NOT_ENABLED.',
      body: FactorProofBody,
      response: responses({ 200: NewRecoveryCodesResponse }, [...AUTHENTICATED, TwoFactorCodeInvalid, TwoFactorNotEnabled, 413, 415, 429])
    }
  }, async (request) => ({ success: true as const, recovery_codes: await twoFactor.regenerateRecoveryCodes(request.scope, request.body) }))

  fastify.post('/2fa/disable', {
    preValidation: perUser,
    schema: {
      tags: ['auth'],
      operationId: 'deleteTwoFactor',
      summary: 'Turn the second factor off',
      description: 'Needs a current `code` or a `recovery_code`. Wrong: 401 TWO_FACTOR_CODE_INVALID; not on: 409 TWO_FACTOR_NOT_ENABLED; ' +
        'the company requires it: 409 TWO_FACTOR_REQUIRED_BY_COMPANY.',
      body: FactorProofBody,
      response: responses({ 200: SuccessOnly }, [...AUTHENTICATED, TwoFactorCodeInvalid, TwoFactorNotEnabled, TwoFactorRequiredByCompany, 413, 415, 429])
    }
  }, async (request) => {
    await twoFactor.disable(request.scope, request.body)
    return { success: true as const }
  })
}

export default routes
