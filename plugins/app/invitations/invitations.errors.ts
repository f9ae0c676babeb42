import { defineError } from '../../../lib/errors.ts'

// Public token answers: distinct codes so the accept page can say what to do,
// and messages that say nothing about the company behind the token.
export const InvitationNotFound = defineError('INVITATION_NOT_FOUND', 'This invitation does not exist or its link has been replaced by a newer one', 404)
export const InvitationExpired = defineError('INVITATION_EXPIRED', 'This invitation has expired; ask an administrator to send it again', 404)
export const InvitationCancelled = defineError('INVITATION_CANCELLED', 'This invitation has been cancelled', 404)
export const InvitationUsed = defineError('INVITATION_USED', 'This invitation has already been accepted; log in instead', 404)

export const InvitationPending = defineError('INVITATION_PENDING', 'This e-mail address already has a pending invitation; resend or cancel it instead', 409)
export const InvitationNotPending = defineError('INVITATION_NOT_PENDING', 'Only a pending invitation can be resent or cancelled', 409)
