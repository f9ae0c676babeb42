import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, identityPrimaryKey, timestamp, updatedAt } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

export const ADDON_SOURCE_STATES = ['pending', 'syncing', 'synced', 'failed'] as const
export type AddonSourceState = typeof ADDON_SOURCE_STATES[number]
export const CREDENTIAL_KINDS = ['token', 'deploy_key'] as const
export type CredentialKind = typeof CREDENTIAL_KINDS[number]

/**
 * A Git repository (one branch, optionally one folder of it) whose ERP addon
 * modules a tenant syncs into its addons storage. Registering installs
 * nothing; a sync makes the modules present and lists them in the catalog.
 * A credential (token or deploy key) is stored sealed and never read back out.
 */
const AddonSourceSchema = defineEntity({
  name: 'AddonSource',
  tableName: 'addon_sources',
  properties: {
    id: identityPrimaryKey(),
    tenant: () => p.manyToOne(Tenant).index(),
    name: p.string().length(120),
    repositoryUrl: p.string().length(500),
    branch: p.string().length(200),
    subpath: p.string().length(500).nullable(),
    state: p.enum(ADDON_SOURCE_STATES).default('pending'),
    lastSyncedAt: timestamp().nullable(),
    lastCommit: p.string().length(64).nullable(),
    error: p.string().length(1000).nullable(),
    /** Technical names of the modules the last sync found. */
    modules: p.json<string[]>().default('[]'),
    credentialKind: p.enum(CREDENTIAL_KINDS).nullable(),
    /** An ssh source's server key (`<type> <base64>`): pinned by the first sync (or given), required by every later one. */
    sshHostKey: p.string().length(2000).nullable(),
    /** AES-256-GCM, bound to the row id (credential-seal.ts). */
    sealedCredential: p.text().nullable().lazy(),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  },
  uniques: [{ name: 'addon_sources_tenant_name_unique', properties: ['tenant', 'name'] }]
})

export class AddonSource extends AddonSourceSchema.class {}
AddonSourceSchema.setClass(AddonSource)
