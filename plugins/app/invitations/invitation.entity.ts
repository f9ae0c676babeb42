import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, timestamp, updatedAt, uuidPrimaryKey } from '../../../database/columns.ts'
import { Instance } from '../instances/instance.entity.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { USER_ROLES, User } from '../users/user.entity.ts'

/** `expired` is not stored: a pending invitation past expires_at is expired. */
export const INVITATION_STATUSES = ['pending', 'accepted', 'cancelled'] as const
export type InvitationStatus = typeof INVITATION_STATUSES[number]

const InvitationSchema = defineEntity({
  name: 'Invitation',
  tableName: 'invitations',
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(Tenant).index(),
    /** Lower-cased. */
    email: p.string().length(254),
    name: p.string().length(200),
    role: p.enum(USER_ROLES),
    instance: () => p.manyToOne(Instance).nullable(),
    /** SHA-256 of the token (hex); the token itself is only ever in the e-mail. */
    tokenHash: p.string().length(64).unique().hidden(),
    status: p.enum(INVITATION_STATUSES).default('pending'),
    expiresAt: timestamp(),
    invitedBy: () => p.manyToOne(User).nullable(),
    acceptedUser: () => p.manyToOne(User).nullable(),
    acceptedAt: timestamp().nullable(),
    cancelledAt: timestamp().nullable(),
    sendCount: p.integer().default(0),
    lastSentAt: timestamp().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  },
  uniques: [
    // At most one pending invitation per e-mail in a tenant.
    { name: 'invitations_pending_email_unique', properties: ['tenant', 'email'], where: { status: 'pending' } }
  ]
})

export class Invitation extends InvitationSchema.class {}
InvitationSchema.setClass(Invitation)
