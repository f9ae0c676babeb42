import { Type } from 'typebox'
import { Password } from './auth.ts'
import { Int4, Success } from './common.ts'

/** A reset link's token: 32 random bytes in base64url, as the e-mail carries it. */
const ResetToken = Type.String({ minLength: 1, maxLength: 100, description: 'The `token` of the e-mailed reset link' })

export const ChangePasswordBody = Type.Object({
  current_password: Type.String({ minLength: 1, maxLength: 256, description: 'The password in use now' }),
  new_password: Password
}, { additionalProperties: false })

export const ChangePasswordResponse = Success({
  sessions_ended: Int4({ minimum: 0, description: 'How many of your other sessions were signed out' })
}, { $id: 'ChangePasswordResponse', description: 'The new password is in use; this session stays signed in' })

export const ForgotPasswordBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254, description: 'The e-mail address of the account' })
}, { additionalProperties: false })

export const ForgotPasswordResponse = Success({
  message: Type.String({ description: 'The same words whether or not the address has an account' })
}, { $id: 'ForgotPasswordResponse', description: 'Accepted: if the address has an account, a reset link is on its way' })

export const ResetPasswordBody = Type.Object({
  token: ResetToken,
  password: Password
}, { additionalProperties: false })

export const ResetPasswordResponse = Success({
  sessions_ended: Int4({ minimum: 0, description: 'Portal sessions of the person that were signed out' }),
  agents_disconnected: Int4({ minimum: 0, description: 'Connected agents (OAuth grants) that were disconnected' })
}, { $id: 'ResetPasswordResponse', description: 'The new password is set; sign in with it' })
