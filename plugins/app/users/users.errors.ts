import { defineError } from '../../../lib/errors.ts'

export const UserNotFound = defineError('USER_NOT_FOUND', 'User not found', 404)
export const CannotDeactivateSelf = defineError('CANNOT_DEACTIVATE_SELF', 'You cannot deactivate your own account', 409)
export const LastAdmin = defineError('LAST_ADMIN', 'A company needs at least one active administrator', 409)
