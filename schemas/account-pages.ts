import { Type } from 'typebox'

/**
 * The built-in account pages' forms and links. Every field is optional so the
 * page, not a validation error, tells the person what is missing.
 */

const Csrf = Type.Optional(Type.String({ maxLength: 128, description: 'The hidden field the page sets' }))
const PageToken = Type.String({ maxLength: 100, description: 'The token of the e-mailed link' })
const NewPassword = Type.Optional(Type.String({ maxLength: 256, description: 'The new password' }))
const Confirmation = Type.Optional(Type.String({ maxLength: 256, description: 'The new password again' }))

export const TokenPageQuery = Type.Object({ token: Type.Optional(PageToken) })

export const AcceptInvitationForm = Type.Object({
  csrf: Csrf,
  token: Type.Optional(PageToken),
  name: Type.Optional(Type.String({ maxLength: 200, description: 'The name the person goes by (default: the one invited)' })),
  password: NewPassword,
  password_confirm: Confirmation
})

export const ForgotPasswordForm = Type.Object({
  csrf: Csrf,
  email: Type.Optional(Type.String({ maxLength: 254, description: 'The e-mail address of the account' }))
})

export const ResetPasswordForm = Type.Object({
  csrf: Csrf,
  token: Type.Optional(PageToken),
  password: NewPassword,
  password_confirm: Confirmation
})

export const ConfirmEmailForm = Type.Object({
  csrf: Csrf,
  token: Type.Optional(PageToken)
})
