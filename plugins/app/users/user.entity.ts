import { randomUUID } from 'node:crypto'
import { defineEntity, p } from '@mikro-orm/core'
import { Tenant } from '../tenants/tenant.entity.ts'

export const USER_ROLES = ['admin', 'user'] as const
export type UserRole = typeof USER_ROLES[number]

const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    tenant: () => p.manyToOne(Tenant).index(),
    /** Stored lower-cased: e-mail is the login and is unique across all tenants. */
    email: p.string().length(254).unique(),
    name: p.string().length(200),
    role: p.enum(USER_ROLES).default('user'),
    active: p.boolean().default(true),
    passwordHash: p.string().length(255).hidden().lazy(),
    lastLoginAt: p.datetime().columnType('timestamptz').nullable(),
    createdAt: p.datetime().columnType('timestamptz').onCreate(() => new Date()),
    updatedAt: p.datetime().columnType('timestamptz').onCreate(() => new Date()).onUpdate(() => new Date())
  }
})

export class User extends UserSchema.class {}
UserSchema.setClass(User)
