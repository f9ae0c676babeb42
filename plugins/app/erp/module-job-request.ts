/**
 * An install or uninstall of an assigned module, asked for: in one transaction the assignment's
 * row is changed, one job is queued for it and the request is recorded in the activity feed; the
 * queue's workers are woken once that has committed. Shared by the install (erp-modules.service.ts)
 * and the uninstall (module-uninstall-request.ts), which differ only in the row change, the queue
 * and the activity.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Actor } from '../../../lib/actor.ts'
import type { Queue } from '../../../lib/job-queue.ts'
import type { Jobs } from '../../external/jobs.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import type { ActivityType } from '../activity/activity-types.ts'
import type { Instance } from '../instances/instance.entity.ts'
import type { ErpModuleJobData } from './erp-module.queue.ts'

export interface ModuleJobRequest<Row extends { id: number } | undefined> {
  /** ERP_MODULE_QUEUE or ERP_MODULE_UNINSTALL_QUEUE. */
  queue: Queue<ErpModuleJobData>
  /** The instance the activity is about. */
  instance: Pick<Instance, 'id'>
  /** The activity's type and the title the feed shows. */
  activity: { type: ActivityType, title: string }
  /**
   * Changes the assignment's row inside the transaction, first: answers the row (its id goes in the
   * job), or undefined when it changed nothing (another request got there first), in which case
   * nothing is queued or recorded.
   */
  change: (tx: EntityManager) => Promise<Row>
}

/** Answers what `change` answered: undefined when nothing was queued. */
export async function requestModuleJob<Row extends { id: number } | undefined> (
  em: EntityManager,
  deps: { jobs: Pick<Jobs, 'send' | 'wake'>, activity: ActivityService },
  actor: Actor,
  request: ModuleJobRequest<Row>
): Promise<Row> {
  const row = await em.transactional(async (tx) => {
    const changed = await request.change(tx)
    if (changed === undefined) return changed
    const data: ErpModuleJobData = { tenantId: actor.tenantId, instanceModuleId: changed.id }
    await deps.jobs.send(tx, request.queue, data)
    deps.activity.record(tx, actor, {
      type: request.activity.type,
      title: request.activity.title,
      targetType: 'instance',
      targetId: String(request.instance.id),
      instanceId: request.instance.id
    })
    return changed
  })
  if (row !== undefined) deps.jobs.wake(request.queue)
  return row
}
