import { defineError } from '../../../lib/errors.ts'

export const TwoFactorAlreadyEnabled = defineError('TWO_FACTOR_ALREADY_ENABLED', 'Two-factor authentication is already on; turn it off first to enrol another device', 409)
export const TwoFactorNotPending = defineError('TWO_FACTOR_NOT_PENDING', 'Start the enrolment first (POST /api/me/2fa)', 409)
export const TwoFactorNotEnabled = defineError('TWO_FACTOR_NOT_ENABLED', 'Two-factor authentication is not on', 409)
export const TwoFactorCodeInvalid = defineError('TWO_FACTOR_CODE_INVALID', 'The code is wrong, expired or already used', 401)
export const TwoFactorRequiredByCompany = defineError('TWO_FACTOR_REQUIRED_BY_COMPANY', 'Your company requires two-factor authentication: it cannot be turned off', 409)
export const TwoFactorResetOwn = defineError('TWO_FACTOR_RESET_OWN', 'An administrator cannot reset their own second factor: use /api/me/2fa (or ask another administrator)', 409)
