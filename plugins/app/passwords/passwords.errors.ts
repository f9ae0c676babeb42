import { defineError } from '../../../lib/errors.ts'

/** One answer for an unknown, used, replaced or expired link: the page says to ask for a new one. */
export const PasswordResetTokenInvalid = defineError('PASSWORD_RESET_TOKEN_INVALID',
  'This password reset link is invalid, has expired or has already been used; ask for a new one', 400)
export const PasswordIncorrect = defineError('PASSWORD_INCORRECT', 'The current password is not correct', 403)
