import { Invitation } from './invitation.entity.ts'

export type InvitationViewStatus = 'pending' | 'expired' | 'accepted' | 'cancelled'

export interface InvitationView {
  id: string
  email: string
  name: string
  role: 'admin' | 'user'
  instance_id: number | null
  status: InvitationViewStatus
  expires_at: string
  created_at: string
  invited_by: { id: string, name: string } | null
  send_count: number
  last_sent_at: string | null
  accepted_at: string | null
  cancelled_at: string | null
}

/** `expired` is derived, never stored: a pending invitation past its expiry. */
export function invitationStatus (invitation: Pick<Invitation, 'status' | 'expiresAt'>, now = new Date()): InvitationViewStatus {
  return invitation.status === 'pending' && invitation.expiresAt.getTime() <= now.getTime() ? 'expired' : invitation.status
}

const iso = (date: Date | null | undefined) => date == null ? null : date.toISOString()

/** `invitedBy` must be populated (or null). */
export function toInvitationView (invitation: Invitation): InvitationView {
  const inviter = invitation.invitedBy ?? null
  return {
    id: invitation.id,
    email: invitation.email,
    name: invitation.name,
    role: invitation.role,
    instance_id: invitation.instance?.id ?? null,
    status: invitationStatus(invitation),
    expires_at: invitation.expiresAt.toISOString(),
    created_at: invitation.createdAt.toISOString(),
    invited_by: inviter === null ? null : { id: inviter.id, name: inviter.name },
    send_count: invitation.sendCount,
    last_sent_at: iso(invitation.lastSentAt),
    accepted_at: iso(invitation.acceptedAt),
    cancelled_at: iso(invitation.cancelledAt)
  }
}
