import type { EntityManager } from '@mikro-orm/postgresql'
import { UniqueConstraintViolationException } from '@mikro-orm/core'
import type { Actor } from '../../../lib/actor.ts'
import type { CallScope } from '../../../lib/call-scope.ts'
import { pageWindow, type PageRequest } from '../../../lib/pages.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import type { Jobs } from '../../external/jobs.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { ACTIVE_BACKUP_STATES, Backup } from '../backups/backup.entity.ts'
import type { BackupRunners } from '../backups/backup-runners.ts'
import type { BackupsService } from '../backups/backups.service.ts'
import type { BackendRegistry } from '../instances/backend-registry.ts'
import { Instance } from '../instances/instance.entity.ts'
import type { InstanceTransitions } from '../instances/instance-transitions.ts'
import { InstanceBusy, InstanceDeleted, InstanceNotFound } from '../instances/instances.errors.ts'
import type { StagingService } from '../staging/staging.service.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { User } from '../users/user.entity.ts'
import { majorOf, type UpgradeCommands } from './upgrade-commands.ts'
import { ACTIVE_UPGRADE_STATES, InstanceUpgrade, type IncompatibleAddon, type UpgradeMode } from './upgrade.entity.ts'
import { UPGRADE_QUEUE, type UpgradeJobData } from './upgrade.queue.ts'
import { toUpgradeView, type UpgradeView } from './upgrade.view.ts'
import { UpgradeInProgress, UpgradeNotConfigured, UpgradeNotFound, UpgradeNotNewer, UpgradeSkipsAVersion, UpgradeVersionNotOffered } from './upgrades.errors.ts'

export interface UpgradesServiceDeps {
  jobs: Pick<Jobs, 'send' | 'wake'>
  activity: ActivityService
  transitions: InstanceTransitions
  backends: Pick<BackendRegistry, 'get'>
  runners: Pick<BackupRunners, 'ready'>
  backups: Pick<BackupsService, 'queueIn'>
  staging: Pick<StagingService, 'create'>
  /** ERP_VERSIONS: what the service offers. */
  erpVersions: readonly string[]
  /** ERP_UPGRADE_COMMANDS. */
  commands: UpgradeCommands
}

export interface UpgradeRequest {
  target_version: string
  mode: UpgradeMode
}

/** The states an upgrade may start from: nothing else is at work on the instance. */
const UPGRADABLE = ['running', 'stopped'] as const

/** The company's synced addon modules written for another ERP series than `target` (docs/upgrades.md). */
const INCOMPATIBLE = `SELECT technical_name AS module, erp_series, addon_source_id::float8 AS addon_source_id FROM erp_modules
WHERE tenant_id = ? AND addon_source_id IS NOT NULL AND erp_series IS NOT NULL AND erp_series <> ? ORDER BY technical_name`

/**
 * Version upgrades of an instance (docs/upgrades.md): refused unless they go to the next major
 * version the service offers and have a command configured; `apply` takes a backup (the rollback
 * point) and holds the instance `upgrading`; `test` makes a staging copy and upgrades that. The work
 * is the upgrade job's (upgrade.job.ts).
 */
export function createUpgradesService (deps: UpgradesServiceDeps) {
  const { jobs, activity, transitions } = deps

  async function load (em: EntityManager, id: number): Promise<Instance> {
    const instance = await em.findOne(Instance, id)
    if (instance === null) throw InstanceNotFound()
    return instance
  }

  /** Every refusal that depends on the versions and the configuration, before anything is made. */
  function checkTarget (instance: Instance, target: string): void {
    if (!deps.erpVersions.includes(target)) throw UpgradeVersionNotOffered(`${target} is not an ERP version this service offers (${deps.erpVersions.join(', ')})`, { offered: [...deps.erpVersions] })
    const from = majorOf(instance.erpVersion)
    const to = majorOf(target)
    if (!(to > from)) throw UpgradeNotNewer(`${instance.name} runs ${instance.erpVersion}: ${target} is not newer`, { from_version: instance.erpVersion })
    if (to > from + 1) {
      const next = deps.erpVersions.find((v) => majorOf(v) === from + 1)
      throw UpgradeSkipsAVersion(`${instance.erpVersion} to ${target} skips a major version: upgrade to ${next ?? `${from + 1}.0`} first`, { from_version: instance.erpVersion, next_version: next ?? null })
    }
    if (!deps.commands.has(target)) throw UpgradeNotConfigured(`No upgrade command is configured for ${target} (ERP_UPGRADE_COMMANDS)`, { target_version: target })
    if (deps.backends.get(instance.backend).runOneOff === undefined) throw UpgradeNotConfigured(`The ${instance.backend} backend cannot run upgrade commands`, { backend: instance.backend })
  }

  async function checkNoneActive (em: EntityManager, instanceId: number): Promise<void> {
    const active = await em.count(InstanceUpgrade, { instance: instanceId, state: { $in: [...ACTIVE_UPGRADE_STATES] } })
    if (active > 0) throw UpgradeInProgress('An upgrade of this instance is already queued or running', { instance_id: instanceId })
  }

  async function incompatibleAddons (em: EntityManager, tenantId: string, target: string): Promise<IncompatibleAddon[]> {
    return em.getConnection().execute<IncompatibleAddon[]>(INCOMPATIBLE, [tenantId, target])
  }

  function newUpgrade (tx: EntityManager, actor: Actor, instance: Instance, request: UpgradeRequest, extra: Partial<Pick<InstanceUpgrade, 'rollbackBackupId' | 'step' | 'incompatibleAddons'>> & { stagingId?: number }): InstanceUpgrade {
    return tx.create(InstanceUpgrade, {
      tenant: tx.getReference(Tenant, actor.tenantId),
      instance: tx.getReference(Instance, instance.id),
      fromVersion: instance.erpVersion,
      targetVersion: request.target_version,
      mode: request.mode,
      state: 'queued',
      step: extra.step ?? 'backup',
      stagingInstance: extra.stagingId === undefined ? null : tx.getReference(Instance, extra.stagingId),
      rollbackBackupId: extra.rollbackBackupId ?? null,
      incompatibleAddons: extra.incompatibleAddons ?? [],
      failedModules: [],
      createdBy: actor.kind === 'system' ? null : tx.getReference(User, actor.userId),
      createdByClient: actor.kind === 'agent' ? actor.clientName ?? null : null
    } as never)
  }

  async function recordAndSend (tx: EntityManager, actor: Actor, instance: Instance, upgrade: InstanceUpgrade, heldId: number): Promise<void> {
    await tx.flush()
    activity.record(tx, actor, {
      type: 'instance.upgrade_requested',
      title: `${upgrade.mode === 'apply' ? 'Upgrade' : 'Test upgrade'} of ${instance.name} from ${upgrade.fromVersion} to ${upgrade.targetVersion} requested`,
      targetType: 'upgrade',
      targetId: String(upgrade.id),
      instanceId: instance.id
    })
    await tx.flush()
    const data: UpgradeJobData = { upgradeId: upgrade.id, tenantId: actor.tenantId, instanceId: heldId }
    await jobs.send(tx, UPGRADE_QUEUE, data)
  }

  async function upgradeOf (em: EntityManager, instanceId: number, upgradeId: number): Promise<InstanceUpgrade> {
    const upgrade = await em.findOne(InstanceUpgrade, { id: upgradeId, instance: instanceId })
    if (upgrade === null) throw UpgradeNotFound()
    return upgrade
  }

  return {
    /**
     * Queues an upgrade (202). `apply`: a backup of the instance first (or the one under way), the
     * instance held `upgrading` from now on. `test`: a staging copy of it, upgraded once it runs.
     */
    async request ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, instanceId: number, request: UpgradeRequest): Promise<UpgradeView> {
      requireAdmin(actor, 'upgrade instances')
      const instance = await load(em, instanceId)
      if (instance.state === 'deleted' || instance.state === 'deleting') throw InstanceDeleted('The instance was deleted')
      checkTarget(instance, request.target_version)
      if (!(UPGRADABLE as readonly string[]).includes(instance.state)) throw InstanceBusy(`The instance is ${instance.state}: upgrade it once it is running or stopped`, { state: instance.state })
      await checkNoneActive(em, instance.id)
      const addons = await incompatibleAddons(em, actor.tenantId, request.target_version)
      let upgrade: InstanceUpgrade
      try {
        if (request.mode === 'test') {
          const copy = await deps.staging.create({ em, actor }, instance.id, {})
          upgrade = await em.transactional(async (tx) => {
            const made = newUpgrade(tx, actor, instance, request, { step: 'staging', stagingId: copy.id, incompatibleAddons: addons })
            await recordAndSend(tx, actor, instance, made, copy.id)
            return made
          })
        } else {
          await deps.runners.ready(instance)
          upgrade = await em.transactional(async (tx) => {
            const held = await transitions.moveIf(tx, actor, instance.id, UPGRADABLE, {
              to: 'upgrading', status: instance.status, title: `Instance ${instance.name} is being upgraded from ${instance.erpVersion} to ${request.target_version}`
            })
            if (held === undefined) throw InstanceBusy('The instance started changing state meanwhile: try again when that finishes')
            const running = await tx.findOne(Backup, { instance: instance.id, state: { $in: [...ACTIVE_BACKUP_STATES] } })
            const backup = running ?? await deps.backups.queueIn(tx, actor, instance, 'manual')
            const made = newUpgrade(tx, actor, instance, request, { step: 'backup', rollbackBackupId: backup.id, incompatibleAddons: addons })
            await recordAndSend(tx, actor, instance, made, instance.id)
            return made
          })
        }
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) throw UpgradeInProgress('An upgrade of this instance is already queued or running', { instance_id: instance.id })
        throw error
      }
      jobs.wake(UPGRADE_QUEUE)
      return toUpgradeView(upgrade)
    },

    /** Newest first. */
    async list ({ em }: Pick<CallScope, 'em'>, instanceId: number, page: PageRequest): Promise<{ upgrades: UpgradeView[], total: number }> {
      await load(em, instanceId)
      const { limit, offset } = pageWindow(page)
      const [rows, total] = await em.findAndCount(InstanceUpgrade, { instance: instanceId }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit, offset })
      return { upgrades: rows.map(toUpgradeView), total }
    },

    async get ({ em }: Pick<CallScope, 'em'>, instanceId: number, upgradeId: number): Promise<UpgradeView> {
      await load(em, instanceId)
      return toUpgradeView(await upgradeOf(em, instanceId, upgradeId))
    }
  }
}

export type UpgradesService = ReturnType<typeof createUpgradesService>
