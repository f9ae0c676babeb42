import { defineEntity, p } from '@mikro-orm/core'
import { uuidPrimaryKey, timestamp, createdAt, updatedAt } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

export const USER_ROLES = ['admin', 'user'] as const
export type UserRole = typeof USER_ROLES[number]

const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(Tenant).index(),
    /** Stored lower-cased: e-mail is the login and is unique across all tenants. */
    email: p.string().length(254).unique(),
    name: p.string().length(200),
    role: p.enum(USER_ROLES).default('user'),
    active: p.boolean().default(true),
    passwordHash: p.string().length(255).hidden().lazy(),
    lastLoginAt: timestamp().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  }
})

export class User extends UserSchema.class {}
UserSchema.setClass(User)
