import { defineError } from '../../../lib/errors.ts'

/** One answer for an unknown, used, replaced or expired link. */
export const EmailChangeTokenInvalid = defineError('EMAIL_CHANGE_TOKEN_INVALID',
  'This confirmation link is invalid, has expired or has already been used; ask for the change again', 400)
export const EmailUnchanged = defineError('EMAIL_UNCHANGED', 'This is already the e-mail address of your account', 400)
