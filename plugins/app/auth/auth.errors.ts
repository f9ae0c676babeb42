import { defineError } from '../../../lib/errors.ts'

export const InvalidCredentials = defineError('INVALID_CREDENTIALS', 'Invalid e-mail or password', 401)
export const AccountDisabled = defineError('ACCOUNT_DISABLED', 'This account has been deactivated; ask an administrator of your company', 403)
export const TenantSuspended = defineError('TENANT_SUSPENDED', 'This company account is suspended; contact support', 403)
export const TokenMissing = defineError('TOKEN_MISSING', 'Send a bearer token in the Authorization header', 401)
export const TokenInvalid = defineError('TOKEN_INVALID', 'The token is invalid, expired or revoked; log in again', 401)
