import { defineError } from '../../../lib/errors.ts'

export const InvalidCredentials = defineError('INVALID_CREDENTIALS', 'Invalid e-mail or password', 401)
export const AccountDisabled = defineError('ACCOUNT_DISABLED', 'This account has been deactivated; ask an administrator of your company', 403)
export const TenantSuspended = defineError('TENANT_SUSPENDED', 'This company account is suspended; contact support', 403)
export const TokenMissing = defineError('TOKEN_MISSING', 'Send a bearer token in the Authorization header', 401)
export const TokenInvalid = defineError('TOKEN_INVALID', 'The token is invalid, expired or revoked; log in again', 401)
export const TwoFactorRequired = defineError('TWO_FACTOR_REQUIRED', 'Enter the code from your authenticator app (or a recovery code) to finish signing in', 401)
export const TwoFactorEnrolmentRequired = defineError('TWO_FACTOR_ENROLMENT_REQUIRED', 'Your company requires two-factor authentication: set it up to finish signing in', 403)
export const LoginChallengeInvalid = defineError('LOGIN_CHALLENGE_INVALID', 'This sign-in attempt has expired, was used, or had too many wrong codes; sign in again', 401)
export const SessionNotFound = defineError('SESSION_NOT_FOUND', 'No such session of yours', 404)
