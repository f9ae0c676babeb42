import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, timestamp, uuidPrimaryKey } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { User } from '../users/user.entity.ts'

/**
 * A requested change of a person's e-mail address (their login), waiting for
 * the link e-mailed to the new address. The token is only in that e-mail; the
 * row keeps its SHA-256, and confirming sets `consumed_at` with one conditional
 * UPDATE, so a link works once and only before `expires_at`.
 */
const EmailChangeSchema = defineEntity({
  name: 'EmailChange',
  tableName: 'email_changes',
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(Tenant).index(),
    user: () => p.manyToOne(User).index(),
    /** Normalized (lib/email.ts). */
    newEmail: p.string().length(254),
    tokenHash: p.string().length(64).unique().hidden(),
    createdAt: createdAt(),
    expiresAt: timestamp(),
    consumedAt: timestamp().nullable()
  }
})

export class EmailChange extends EmailChangeSchema.class {}
EmailChangeSchema.setClass(EmailChange)
