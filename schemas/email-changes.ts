import { Type } from 'typebox'
import { Int4, Success } from './common.ts'

export const RequestEmailChangeBody = Type.Object({
  new_email: Type.String({ format: 'email', maxLength: 254, description: 'The address to sign in with from now on' }),
  password: Type.String({ minLength: 1, maxLength: 256, description: 'Your current password' })
}, { additionalProperties: false })

export const EmailChangeRequestedResponse = Success({
  message: Type.String({ description: 'What happens next, in words' }),
  new_email: Type.String({ description: 'The new address (normalized), where the confirmation link went' }),
  expires_in: Int4({ minimum: 0, description: 'Seconds the link works' })
}, { $id: 'EmailChangeRequestedResponse', description: 'Accepted: the change waits for the link sent to the new address' })

export const ConfirmEmailChangeBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 100, description: 'The `token` of the link e-mailed to the new address' })
}, { additionalProperties: false })

export const EmailChangeConfirmedResponse = Success({
  email: Type.String({ description: 'The e-mail address of the account now: sign in with it' })
}, { $id: 'EmailChangeConfirmedResponse', description: 'The new address is the login' })
