import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, timestamp, uuidPrimaryKey } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { User } from '../users/user.entity.ts'

/**
 * One password reset link. The token is only ever in the e-mail; the row keeps
 * its SHA-256, and using it sets `consumed_at` with one conditional UPDATE, so
 * a link works once and only before `expires_at`.
 */
const PasswordResetSchema = defineEntity({
  name: 'PasswordReset',
  tableName: 'password_resets',
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(Tenant).index(),
    user: () => p.manyToOne(User).index(),
    tokenHash: p.string().length(64).unique().hidden(),
    /** `email` (asked for on the forgot page) or `operator` (forced with `npm run accounts`). */
    origin: p.string().length(16),
    createdAt: createdAt(),
    expiresAt: timestamp(),
    consumedAt: timestamp().nullable()
  }
})

export class PasswordReset extends PasswordResetSchema.class {}
PasswordResetSchema.setClass(PasswordReset)
