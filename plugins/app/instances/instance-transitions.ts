import { LockMode } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Actor } from '../../../lib/actor.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { Instance, type InstanceState } from './instance.entity.ts'
import { assertMove } from './instance-states.ts'

const TITLES: Record<InstanceState, string> = {
  provisioning: 'is being provisioned',
  running: 'is running',
  starting: 'is starting',
  stopping: 'is stopping',
  stopped: 'is stopped',
  restarting: 'is restarting',
  error: 'failed',
  deleting: 'is being deleted',
  deleted: 'was deleted',
  restoring: 'is being restored from a backup',
  upgrading: 'is being upgraded to a new ERP version'
}

/** The activity feed keeps titles to 300 characters: a longer one ends at a word, with an ellipsis. */
const TITLE_MAX = 300
const MESSAGE_MAX = 500

export function clipAtWord (text: string, max: number): string {
  if (text.length <= max) return text
  const cut = text.slice(0, max - 1)
  const space = cut.lastIndexOf(' ')
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`
}

export interface Move {
  to: InstanceState
  /** What the backend shows, when known. */
  status?: InstanceState | null
  message?: string | null
  /** Activity title override, e.g. for drift the reconciler found. */
  title?: string
}

/**
 * The one way an instance changes state: checked against the state machine,
 * recorded in the activity feed, in the caller's transaction.
 */
export function createInstanceTransitions ({ activity }: { activity: ActivityService }) {
  function apply (tx: EntityManager, actor: Actor, instance: Instance, move: Move): void {
    assertMove(instance.state, move.to)
    instance.state = move.to
    instance.status = move.status === undefined ? move.to : move.status
    instance.statusMessage = move.message === undefined || move.message === null ? null : clipAtWord(move.message, MESSAGE_MAX)
    activity.record(tx, actor, {
      type: `instance.${move.to}`,
      title: clipAtWord(move.title ?? `Instance ${instance.name} ${TITLES[move.to]}${move.to === 'error' && move.message ? `: ${move.message}` : ''}`, TITLE_MAX),
      targetType: 'instance',
      targetId: String(instance.id),
      instanceId: instance.id
    })
  }

  return {
    apply,

    /** The first record of a new instance (it starts in `provisioning`). */
    created (tx: EntityManager, actor: Actor, instance: Instance): void {
      activity.record(tx, actor, {
        type: 'instance.created',
        title: `Instance ${instance.name} (${instance.subdomain}) created on ${instance.backend}`,
        targetType: 'instance',
        targetId: String(instance.id),
        instanceId: instance.id
      })
    },

    /**
     * Locks the row and moves it only when it is still in `expected`: a job that
     * lost a race (a retry after its work was done, a drift correction) changes nothing.
     */
    async moveIf (tx: EntityManager, actor: Actor, instanceId: number, expected: readonly InstanceState[], move: Move): Promise<Instance | undefined> {
      const instance = await tx.findOne(Instance, instanceId, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true })
      if (instance === null || !expected.includes(instance.state)) return undefined
      apply(tx, actor, instance, move)
      await tx.flush()
      return instance
    }
  }
}

export type InstanceTransitions = ReturnType<typeof createInstanceTransitions>
