import { LockMode } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Actor } from '../../../lib/actor.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { TenantSettings } from './tenant-settings.entity.ts'
import { parseSettingsUpdate, type SettingsChange, type SettingsUpdate } from './settings-validation.ts'
import { loadSettingsView, toSettingsView, type SettingsView } from './settings.view.ts'
import type { CallScope } from '../../../lib/call-scope.ts'

export interface SettingsServiceDeps {
  activity: ActivityService
}

/**
 * Creates the tenant's settings row if it has none, then locks it. Concurrent
 * first updates both reach the lock (the primary key settles who inserts), and
 * each applies its changes on top of the other's: no duplicate, no lost field.
 */
async function lockSettingsRow (tx: EntityManager, tenantId: string): Promise<TenantSettings> {
  await tx.execute(
    'INSERT INTO tenant_settings (tenant_id, created_at, updated_at) VALUES (?, now(), now()) ON CONFLICT (tenant_id) DO NOTHING',
    [tenantId], 'run'
  )
  return tx.findOneOrFail(TenantSettings, { tenant: tenantId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true })
}

function actorName (actor: Actor): string {
  return actor.kind === 'system' ? 'The system' : actor.name
}

export function createSettingsService ({ activity }: SettingsServiceDeps) {
  return {
    /** Any member may read the company settings. `em` is scoped to the actor's tenant. */
    async get ({ em, actor }: Pick<CallScope, 'em' | 'actor'>): Promise<SettingsView> {
      return loadSettingsView(em, actor.tenantId)
    },

    /**
     * Applies a partial update (admins only) and answers the settings after it.
     * Everything is validated before anything is written; the change and its
     * activity record commit together. Values equal to the current ones are not
     * changes: an update that changes nothing records no activity.
     */
    async update ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, input: SettingsUpdate): Promise<SettingsView> {
      requireAdmin(actor, 'change company settings')
      const changes = parseSettingsUpdate(input)
      const rename = changes.find((c) => c.target === 'tenantName')
      const settingsChanges = changes.filter((c) => c.target !== 'tenantName')

      return em.transactional(async (tx) => {
        const lock = rename !== undefined ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}
        const tenant = await tx.findOneOrFail(Tenant, { id: actor.tenantId }, { ...lock, refresh: true })
        const row = settingsChanges.length > 0
          ? await lockSettingsRow(tx, actor.tenantId)
          : await tx.findOne(TenantSettings, { tenant: actor.tenantId })

        const changed: string[] = []
        if (rename !== undefined && tenant.name !== rename.value) {
          tenant.name = String(rename.value)
          changed.push(rename.label)
        }
        if (row !== null) changed.push(...applySettingsChanges(tx, row, settingsChanges))

        if (changed.length > 0) {
          activity.record(tx, actor, {
            type: 'settings.updated',
            title: `${actorName(actor)} changed the company settings: ${changed.join(', ')}`,
            targetType: 'settings',
            targetId: actor.tenantId
          })
        }
        return toSettingsView(tenant.name, row)
      })
    }
  }
}

/** Assigns the values that differ from the row's, and answers their labels. */
function applySettingsChanges (tx: EntityManager, row: TenantSettings, changes: SettingsChange[]): string[] {
  const current = row as unknown as Record<string, unknown>
  const differing = changes.filter((c) => current[c.target] !== c.value)
  tx.assign(row, Object.fromEntries(differing.map((c) => [c.target, c.value])))
  return differing.map((c) => c.label)
}

export type SettingsService = ReturnType<typeof createSettingsService>
