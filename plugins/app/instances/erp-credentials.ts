import { randomBytes } from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import { openText, sealText } from '../../../lib/aead.ts'
import { deriveKey } from '../../../lib/secrets.ts'
import type { Instance } from './instance.entity.ts'
import { ErpCredentials } from './erp-credentials.entity.ts'

export interface ErpSecrets {
  /** The password of the ERP's administrator (`admin`, uid 2) once it is set. */
  adminPassword: string
  /** The database manager's master password (`admin_passwd` in the server's configuration). */
  masterPassword: string
  initialised: boolean
  adminPasswordSet: boolean
}

export type ErpCredentialStore = ReturnType<typeof createErpCredentialStore>

/** 32 characters of base64url: 192 random bits, no character a configuration file would mangle. */
export const generateErpPassword = (): string => randomBytes(24).toString('base64url')

/**
 * Each instance's generated ERP secrets, sealed under a key derived from ERP_CREDENTIALS_KEY
 * (HKDF info `erp-instance-credentials`), with `<instance uid>:<which>` as additional data: a
 * value copied to another row or column does not open. Created once, at the first provisioning;
 * concurrent first calls agree on one row.
 */
export function createErpCredentialStore (credentialsKey: string) {
  const key = deriveKey(credentialsKey, 'erp-instance-credentials')
  const aad = (instance: Pick<Instance, 'uid'>, which: 'admin' | 'master'): string => `${instance.uid}:${which}`

  function secretsOf (row: ErpCredentials, instance: Pick<Instance, 'uid'>): ErpSecrets {
    return {
      adminPassword: openText(key, row.adminPasswordSealed, aad(instance, 'admin')),
      masterPassword: openText(key, row.masterPasswordSealed, aad(instance, 'master')),
      initialised: row.initialisedAt !== null && row.initialisedAt !== undefined,
      adminPasswordSet: row.adminPasswordSetAt !== null && row.adminPasswordSetAt !== undefined
    }
  }

  async function find (em: EntityManager, instance: Pick<Instance, 'id'>): Promise<ErpCredentials | null> {
    return em.fork().findOne(ErpCredentials, { instance: instance.id }, { filters: false })
  }

  async function mark (em: EntityManager, instance: Pick<Instance, 'id'>, column: 'initialised_at' | 'admin_password_set_at'): Promise<void> {
    await em.getConnection().execute(`update instance_erp_credentials set ${column} = coalesce(${column}, now()) where instance_id = ?`, [instance.id])
  }

  return {
    /** The instance's secrets, generated and stored on the first call. */
    async ensure (em: EntityManager, instance: Pick<Instance, 'id' | 'uid'> & { tenant: { id: string } }): Promise<ErpSecrets> {
      const existing = await find(em, instance)
      if (existing !== null) return secretsOf(existing, instance)
      await em.getConnection().execute(
        'insert into instance_erp_credentials (tenant_id, instance_id, admin_password_sealed, master_password_sealed, created_at) values (?, ?, ?, ?, now()) on conflict (instance_id) do nothing',
        [instance.tenant.id, instance.id, sealText(key, generateErpPassword(), aad(instance, 'admin')), sealText(key, generateErpPassword(), aad(instance, 'master'))])
      const row = await find(em, instance)
      if (row === null) throw new Error(`the ERP credentials of instance ${instance.id} were not stored`)
      return secretsOf(row, instance)
    },

    /** Undefined before the instance's first provisioning. */
    async read (em: EntityManager, instance: Pick<Instance, 'id' | 'uid'>): Promise<ErpSecrets | undefined> {
      const row = await find(em, instance)
      return row === null ? undefined : secretsOf(row, instance)
    },

    /** The one-off database initialisation has run: later starts skip it. */
    markInitialised: async (em: EntityManager, instance: Pick<Instance, 'id'>): Promise<void> => mark(em, instance, 'initialised_at'),

    /** The administrator's password is the generated one: from now on admin/admin is an error. */
    markAdminPasswordSet: async (em: EntityManager, instance: Pick<Instance, 'id'>): Promise<void> => mark(em, instance, 'admin_password_set_at')
  }
}
