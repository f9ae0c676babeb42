import { Type } from 'typebox'
import { Int4, Success } from './common.ts'
import { LoginResponse } from './auth.ts'

const TotpCode = Type.String({ minLength: 6, maxLength: 12, pattern: '^[0-9 ]+$', 'x-pattern-message': 'must contain only digits', description: 'The 6-digit code of the authenticator app (spaces are ignored)', examples: ['123456'] })
const RecoveryCodeText = Type.String({ minLength: 10, maxLength: 32, description: 'One of the recovery codes shown when the factor was turned on (case and hyphens are ignored)', examples: ['abcde-fghjk'] })
const Challenge = Type.String({ minLength: 43, maxLength: 43, pattern: '^[A-Za-z0-9_-]+$', 'x-pattern-message': 'must contain only letters, digits, hyphens and underscores', description: 'The `challenge` from the `details` of the login answer' })

export const TwoFactorStatusResponse = Success({
  two_factor: Type.Object({
    enabled: Type.Boolean(),
    enabled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    recovery_codes_left: Int4({ maximum: 10, description: 'Unused recovery codes' }),
    required_by_company: Type.Boolean({ description: 'The company requires a second factor of every member: it cannot be turned off' })
  })
}, { $id: 'TwoFactorStatusResponse' })

export const TwoFactorEnrolmentResponse = Success({
  secret: Type.String({ description: 'The TOTP secret in base32, for typing into an app that cannot scan' }),
  otpauth_uri: Type.String({ description: '`otpauth://totp/…`: what the QR code holds' }),
  qr_code: Type.String({ description: 'A PNG image of the QR code, as a `data:image/png;base64,…` URL' })
}, { $id: 'TwoFactorEnrolmentResponse', description: 'A pending factor: it does nothing until its first code is verified' })

export const TwoFactorVerifyBody = Type.Object({ code: TotpCode }, { additionalProperties: false })

export const RecoveryCodesResponse = Success({
  recovery_codes: Type.Array(Type.String(), { minItems: 10, maxItems: 10, description: 'Ten single-use codes, shown this once: keep them safe' })
}, { $id: 'RecoveryCodesResponse', description: 'The factor is on' })

/** A current code or a recovery code: at least one. */
export const FactorProofBody = Type.Object({
  code: Type.Optional(TotpCode),
  recovery_code: Type.Optional(RecoveryCodeText)
}, { additionalProperties: false, minProperties: 1 })

export const LoginSecondStepBody = Type.Object({
  challenge: Challenge,
  code: Type.Optional(TotpCode),
  recovery_code: Type.Optional(RecoveryCodeText)
}, { additionalProperties: false, minProperties: 2 })

export const LoginEnrolBody = Type.Object({ challenge: Challenge }, { additionalProperties: false })

export const LoginEnrolVerifyBody = Type.Object({ challenge: Challenge, code: TotpCode }, { additionalProperties: false })

export const LoginEnrolledResponse = Success({
  ...LoginResponse.properties,
  recovery_codes: Type.Array(Type.String(), { minItems: 10, maxItems: 10, description: 'Ten single-use codes, shown this once' })
}, { $id: 'LoginEnrolledResponse', description: 'The factor is on and a portal session is open' })

export const NewRecoveryCodesResponse = Success({
  recovery_codes: Type.Array(Type.String(), { minItems: 10, maxItems: 10, description: 'Ten new single-use codes, shown this once; the previous ones no longer work' })
}, { $id: 'NewRecoveryCodesResponse', description: 'New recovery codes' })

export const TwoFactorResetResponse = Success({
  sessions_ended: Int4({ description: 'How many of the member\'s portal sessions ended' }),
  agents_disconnected: Int4({ description: 'How many of the member\'s connected agents (OAuth grants) were disconnected' }),
  enrolment_required: Type.Boolean({ description: 'The company requires a second factor: the member sets a new one up at their next login' })
}, { $id: 'TwoFactorResetResponse', description: 'The member\'s second factor is gone; a notice was e-mailed to them' })
