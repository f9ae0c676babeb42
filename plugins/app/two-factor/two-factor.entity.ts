import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, timestamp, updatedAt } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { User } from '../users/user.entity.ts'

/**
 * A person's TOTP factor, one row per user (its primary key is the user).
 * The secret is sealed (AES-256-GCM, key derived from JWT_SECRET, the user id
 * as additional data). `enabled_at` is null while the enrolment waits for its
 * first code: such a secret never lets anyone in.
 */
const UserTwoFactorSchema = defineEntity({
  name: 'UserTwoFactor',
  tableName: 'user_two_factor',
  properties: {
    user: () => p.oneToOne(User).primary(),
    tenant: () => p.manyToOne(Tenant).index(),
    sealedSecret: p.text().hidden(),
    enabledAt: timestamp().nullable(),
    /** The newest time step whose code was accepted: older and equal steps are refused (no replay). */
    lastUsedStep: p.bigint('number').nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  }
})

export class UserTwoFactor extends UserTwoFactorSchema.class {}
UserTwoFactorSchema.setClass(UserTwoFactor)
