import { Type } from 'typebox'
import { Id, InstanceId, Int4, PageInfo, Pagination, ref, Success } from './common.ts'

const Role = Type.Union([Type.Literal('admin'), Type.Literal('user')], { description: '`admin` manages the company account; `user` uses it' })
const Timestamp = Type.String({ format: 'date-time' })

export const InviteBody = Type.Object({
  email: Type.String({ format: 'email', maxLength: 254, description: 'Who to invite; becomes their login' }),
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', 'x-pattern-message': 'must not be blank', description: 'Their full name' }),
  role: Role,
  instance_id: Type.Optional(Type.Union([InstanceId, Type.Null()], { description: 'An instance of this company the invitation is about' }))
}, { additionalProperties: false })

export const InvitationStatus = Type.Union(
  [Type.Literal('pending'), Type.Literal('expired'), Type.Literal('accepted'), Type.Literal('cancelled')],
  { description: '`expired`: still pending, but past `expires_at` (resend it to renew the link)' }
)

export const Invitation = Type.Object({
  id: Id,
  email: Type.String(),
  name: Type.String(),
  role: Role,
  instance_id: Type.Union([InstanceId, Type.Null()]),
  status: InvitationStatus,
  expires_at: Timestamp,
  created_at: Timestamp,
  invited_by: Type.Union([Type.Object({ id: Id, name: Type.String() }), Type.Null()], { description: 'The administrator who sent it (null if their account was deleted)' }),
  send_count: Int4({ description: 'How many times the e-mail was sent (1 + resends)' }),
  last_sent_at: Type.Union([Timestamp, Type.Null()]),
  accepted_at: Type.Union([Timestamp, Type.Null()]),
  cancelled_at: Type.Union([Timestamp, Type.Null()])
}, { $id: 'Invitation', description: 'An invitation; the token itself is never shown, it is only in the e-mail' })

export const InvitationResponse = Success({ invitation: ref(Invitation) }, { $id: 'InvitationResponse' })

export const InvitationListQuery = Pagination

export const InvitationListResponse = Success({
  invitations: Type.Array(ref(Invitation), { description: 'Pending invitations, newest first, including expired ones' }),
  total: Int4({ description: 'The same as `pagination.total` (kept from before `pagination`)' }),
  page: Int4({ description: 'The same as `pagination.page`' }),
  per_page: Int4({ description: 'The same as `pagination.per_page`' }),
  pagination: ref(PageInfo)
}, { $id: 'InvitationListResponse' })

export const InvitationIdParams = Type.Object({ id: Id })

const Token = Type.String({ minLength: 1, maxLength: 100, description: 'The token from the invitation link' })

export const InvitationTokenParams = Type.Object({ token: Token })

export const InvitationPreviewResponse = Success({
  invitation: Type.Object({
    email: Type.String(),
    name: Type.String(),
    role: Role,
    company: Type.String({ description: 'The inviting company' }),
    status: Type.Literal('pending'),
    expires_at: Timestamp
  })
}, { $id: 'InvitationPreviewResponse', description: 'What the accept page shows before the person chooses a password' })

export const AcceptInvitationBody = Type.Object({
  token: Token,
  password: Type.String({ minLength: 1, maxLength: 256, description: 'Their new password: at least 10 characters, not the e-mail address' }),
  name: Type.Optional(Type.String({ maxLength: 200, description: 'The name they go by; empty or absent: the name they were invited under' }))
}, { additionalProperties: false })
