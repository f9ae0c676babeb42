import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, identityPrimaryKey, timestamp } from '../../../database/columns.ts'
import { Instance } from './instance.entity.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

/**
 * An instance's own ERP secrets, generated at its first provisioning: the password of the ERP's
 * administrator (`admin`, user id 2) and the master password of its database manager
 * (`admin_passwd`). Both are sealed (AES-256-GCM, key from ERP_CREDENTIALS_KEY, the row's
 * instance uid as additional data) and never leave the service through any route.
 * `initialisedAt`: the ERP's one-off database initialisation (`-i base`) has run;
 * `adminPasswordSetAt`: the administrator no longer has the default password.
 */
const ErpCredentialsSchema = defineEntity({
  name: 'ErpCredentials',
  tableName: 'instance_erp_credentials',
  properties: {
    id: identityPrimaryKey(),
    tenant: () => p.manyToOne(Tenant).index(),
    instance: () => p.manyToOne(Instance).unique(),
    adminPasswordSealed: p.text(),
    masterPasswordSealed: p.text(),
    initialisedAt: timestamp().nullable(),
    adminPasswordSetAt: timestamp().nullable(),
    createdAt: createdAt()
  }
})

export class ErpCredentials extends ErpCredentialsSchema.class {}
ErpCredentialsSchema.setClass(ErpCredentials)
