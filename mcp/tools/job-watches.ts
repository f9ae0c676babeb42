import type { InstanceState } from '../../plugins/app/instances/instance.entity.ts'
import { TRANSITIONAL_STATES } from '../../plugins/app/instances/instance-states.ts'
import { ACTIVE_BACKUP_STATES } from '../../plugins/app/backups/backup.entity.ts'
import type { JobWatch } from '../job-progress.ts'

/**
 * How each job-starting tool is followed while a client waits with a `progressToken`
 * (mcp/job-progress.ts): the database state the services already keep, read with the
 * same services as the read tools an agent would otherwise poll.
 */

/** An instance is at work while it is in a transitional state or `restoring`. */
const atWork = (state: InstanceState) => state === 'restoring' || state === 'upgrading' || TRANSITIONAL_STATES.includes(state)

/**
 * Follows an instance's state (`get_instance_status`'s read) until it settles; `answer`
 * builds the tool's answer from the state while it works and from the instance in full at the end.
 */
export function instanceWatch (instanceId: number, answer: (state: InstanceState, instance?: Record<string, unknown>) => Record<string, unknown>): JobWatch {
  return {
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
export function withInstance (first: Record<string, unknown>) {
  return (state: InstanceState, instance?: Record<string, unknown>) => ({
    ...first,
    instance: instance ?? { ...first.instance as Record<string, unknown>, state, status: state }
  })
}

export function backupWatch (instanceId: number, backupId: number): JobWatch {
  return {
    poll: { tool: 'get_backup', arguments: { instance_id: instanceId, backup_id: backupId } },
    read: async ({ app, scope }) => {
      const backup = await app.backups.archives.get(scope, instanceId, backupId)
      const step = backup.step === null ? '' : `: ${backup.step}`
      return { done: !ACTIVE_BACKUP_STATES.includes(backup.state), message: `Backup ${backup.state}${step}`, result: { backup } }
    }
  }
}

const MODULE_AT_WORK = new Set(['queued', 'installing'])

export function moduleWatch (instanceId: number, moduleId: number, first: Record<string, unknown>): JobWatch {
  return {
    poll: { tool: 'list_instance_modules', arguments: { instance_id: instanceId } },
    read: async ({ app, scope }) => {
      const module = (await app.erp.modules.list(scope, instanceId)).find((row) => row.module_id === moduleId)
      if (module === undefined) return { done: true, message: 'Module no longer assigned', result: first }
      return { done: !MODULE_AT_WORK.has(module.state), message: `Module ${module.technical_name} ${module.state}`, result: { ...first, module } }
    }
  }
}

export function addonSourceWatch (sourceId: number): JobWatch {
  return {
    poll: { tool: 'list_addon_sources', arguments: {} },
    read: async ({ app, scope }) => {
      const source = await app.addonSources.get(scope, sourceId)
      return { done: source.state !== 'syncing', message: `Addon source ${source.name} ${source.state}`, result: { addon_source: source } }
    }
  }
}
