import { defineEntity, p, type EntityClass } from '@mikro-orm/core'
import { randomUUID } from 'node:crypto'
import { createdAt, identityPrimaryKey, timestamp, updatedAt } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

export const INSTANCE_BACKENDS = ['kubernetes', 'docker'] as const
export const INSTANCE_STATES = ['provisioning', 'running', 'starting', 'stopping', 'stopped', 'restarting', 'error', 'deleting', 'deleted', 'restoring', 'upgrading'] as const
export type InstanceState = typeof INSTANCE_STATES[number]
/** A staging copy's parent as the entity types it (the whole entity would make its type refer to itself). */
interface ParentInstance { id: number, name: string }

/** `staging`: a neutralized copy of a production instance (its `parent`), expiring at `expiresAt`. */
export const INSTANCE_KINDS = ['production', 'staging'] as const
export type InstanceKind = typeof INSTANCE_KINDS[number]

/**
 * A hosted ERP instance. `state` is the lifecycle the control plane drives
 * (instance-states.ts); `status` is what the backend was last seen doing (null
 * until first seen). Resources are fixed at creation from the subscription.
 * Deleted instances keep their row (and their subdomain, so a URL that was in
 * use is never handed to another company).
 *
 * `id` is the integer the API shows and takes. `uid` is the instance's fixed
 * internal reference: its database and login role (`erp_<uid hex>`), its
 * database password and the backend's labels are derived from it, so they stay
 * the same whatever happens to `id`. The API never shows `uid`.
 */
const InstanceSchema = defineEntity({
  name: 'Instance',
  tableName: 'instances',
  properties: {
    id: identityPrimaryKey(),
    uid: p.uuid().unique().onCreate(() => randomUUID()).defaultRaw('gen_random_uuid()'),
    tenant: () => p.manyToOne(Tenant).index(),
    name: p.string().length(100),
    subdomain: p.string().length(40).unique(),
    erpVersion: p.string().length(20),
    backend: p.enum(INSTANCE_BACKENDS),
    state: p.enum(INSTANCE_STATES).default('provisioning'),
    status: p.enum(INSTANCE_STATES).nullable(),
    statusMessage: p.string().length(500).nullable(),
    /** The image reference the backend runs, e.g. `odoo:17.0` */
    image: p.string().length(200),
    memoryMb: p.integer().check('memory_mb > 0'),
    cpuMillicores: p.integer().check('cpu_millicores > 0'),
    storageGb: p.integer().check('storage_gb > 0'),
    workers: p.integer().default(0).check('workers >= 0'),
    kind: p.enum(INSTANCE_KINDS).default('production'),
    /** The production instance a staging copy was made from (null for a production instance). */
    parent: () => p.manyToOne(Instance as unknown as EntityClass<ParentInstance>).nullable().index(),
    /** When a staging copy is deleted (null for a production instance). */
    expiresAt: timestamp().nullable(),
    /** When the tenant's admins were warned that the staging copy expires soon (once per expiry). */
    expiryWarnedAt: timestamp().nullable(),
    /** When the ERP's neutralization last succeeded on a staging copy's current data; null until then (a staging copy without it is not started). */
    neutralizedAt: timestamp().nullable(),
    /** When the reconciler last compared the record with the backend */
    lastSyncAt: timestamp().nullable(),
    lastBackupAt: timestamp().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  }
})

export class Instance extends InstanceSchema.class {}
InstanceSchema.setClass(Instance)
