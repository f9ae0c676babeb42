import type { InstanceState } from '../../plugins/app/instances/instance.entity.ts'
import { TRANSITIONAL_STATES } from '../../plugins/app/instances/instance-states.ts'
import { ACTIVE_BACKUP_STATES } from '../../plugins/app/backups/backup.entity.ts'
import type { JobWatch } from '../job-progress.ts'

/**
 * How each job-starting tool is followed while a client waits with a `progressToken`
 * (mcp/job-progress.ts): the database state the services already keep, read with the
 * same services as the read tools an agent would otherwise poll.
 */

/**
 * What a watch follows, as plain data: a 2026-07-28 task id carries it (mcp/modern/task-id.ts) so
 * `tasks/get` rebuilds the same watch with `watchOf` on any replica, with nothing kept in memory.
 * `restored_instance` is the instance a restore works on, answered `{ …, instance_state }`.
 */
export type WatchSubject =
  | { kind: 'instance', instanceId: number }
  | { kind: 'restored_instance', instanceId: number }
  | { kind: 'backup', instanceId: number, backupId: number }
  | { kind: 'module', instanceId: number, moduleId: number }
  | { kind: 'module_uninstall', instanceId: number, moduleId: number }
  | { kind: 'addon_source', sourceId: number }
  | { kind: 'upgrade', instanceId: number, upgradeId: number }

/** The key of the tool's answer each watch reads afresh: a task id need not carry it. */
export const FRESH_KEY: Record<WatchSubject['kind'], string | undefined> = {
  instance: 'instance', restored_instance: undefined, backup: 'backup', module: 'module', module_uninstall: 'module', addon_source: 'addon_source', upgrade: 'upgrade'
}

/** The watch of a job from the tool's first answer (or what a task id kept of it). */
export function watchOf (subject: WatchSubject, first: Record<string, unknown>): JobWatch {
  switch (subject.kind) {
    case 'instance': return instanceWatch(subject, withInstance(first))
    case 'restored_instance': return instanceWatch(subject, (state) => ({ ...first, instance_state: state }))
    case 'backup': return backupWatch(subject)
    case 'module': return moduleWatch(subject, first, INSTALL_AT_WORK)
    case 'module_uninstall': return moduleWatch(subject, first, UNINSTALL_AT_WORK)
    case 'addon_source': return addonSourceWatch(subject)
    case 'upgrade': return upgradeWatch(subject)
  }
}

/** An instance is at work while it is in a transitional state or `restoring`. */
const atWork = (state: InstanceState) => state === 'restoring' || state === 'upgrading' || TRANSITIONAL_STATES.includes(state)

/**
 * Follows an instance's state (`get_instance_status`'s read) until it settles; `answer`
 * builds the tool's answer from the state while it works and from the instance in full at the end.
 */
function instanceWatch (subject: WatchSubject & { instanceId: number }, answer: (state: InstanceState, instance?: Record<string, unknown>) => Record<string, unknown>): JobWatch {
  const { instanceId } = subject
  return {
    subject,
    poll: { tool: 'get_instance_status', arguments: { instance_id: instanceId } },
    read: async ({ app, scope }) => {
      const { state } = await app.instances.status(scope, instanceId)
      if (atWork(state)) return { done: false, message: `Instance ${state}`, result: answer(state) }
      const instance = await app.instances.get(scope, instanceId) as unknown as Record<string, unknown>
      return { done: true, message: `Instance ${state}`, result: answer(state, instance) }
    }
  }
}

/** The instance-shaped answer (`{ instance }`, maybe with more fields) with the state as read now. */
function withInstance (first: Record<string, unknown>) {
  return (state: InstanceState, instance?: Record<string, unknown>) => ({
    ...first,
    instance: instance ?? { ...first.instance as Record<string, unknown>, state, status: state }
  })
}

function backupWatch (subject: Extract<WatchSubject, { kind: 'backup' }>): JobWatch {
  const { instanceId, backupId } = subject
  return {
    subject,
    poll: { tool: 'get_backup', arguments: { instance_id: instanceId, backup_id: backupId } },
    read: async ({ app, scope }) => {
      const backup = await app.backups.archives.get(scope, instanceId, backupId)
      const step = backup.step === null ? '' : `: ${backup.step}`
      return { done: !ACTIVE_BACKUP_STATES.includes(backup.state), message: `Backup ${backup.state}${step}`, result: { backup } }
    }
  }
}

const INSTALL_AT_WORK = new Set(['queued', 'installing'])
const UNINSTALL_AT_WORK = new Set(['uninstalling'])

/** An install or uninstall: the module's row until it is no longer at work (`atWork`). */
function moduleWatch (subject: Extract<WatchSubject, { kind: 'module' | 'module_uninstall' }>, first: Record<string, unknown>, atWork: ReadonlySet<string>): JobWatch {
  const { instanceId, moduleId } = subject
  return {
    subject,
    poll: { tool: 'list_instance_modules', arguments: { instance_id: instanceId } },
    read: async ({ app, scope }) => {
      const module = (await app.erp.modules.list(scope, instanceId)).find((row) => row.module_id === moduleId)
      if (module === undefined) return { done: true, message: 'Module no longer assigned', result: first }
      return { done: !atWork.has(module.state), message: `Module ${module.technical_name} ${module.state}`, result: { ...first, module } }
    }
  }
}

function addonSourceWatch (subject: Extract<WatchSubject, { kind: 'addon_source' }>): JobWatch {
  const { sourceId } = subject
  return {
    subject,
    poll: { tool: 'list_addon_sources', arguments: {} },
    read: async ({ app, scope }) => {
      const source = await app.addonSources.get(scope, sourceId)
      return { done: source.state !== 'syncing', message: `Addon source ${source.name} ${source.state}`, result: { addon_source: source } }
    }
  }
}

const UPGRADE_SETTLED = new Set(['succeeded', 'failed', 'rolled_back'])

/** A version upgrade (`get_upgrade`'s read) until it succeeded, failed or was rolled back. */
function upgradeWatch (subject: Extract<WatchSubject, { kind: 'upgrade' }>): JobWatch {
  const { instanceId, upgradeId } = subject
  return {
    subject,
    poll: { tool: 'get_upgrade', arguments: { instance_id: instanceId, upgrade_id: upgradeId } },
    read: async ({ app, scope }) => {
      const upgrade = await app.upgrades.get(scope, instanceId, upgradeId)
      return { done: UPGRADE_SETTLED.has(upgrade.state), message: `Upgrade ${upgrade.state} (${upgrade.step})`, result: { upgrade } }
    }
  }
}
