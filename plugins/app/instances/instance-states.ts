import type { Observation, ObservedState } from '../../../provisioning/backend.ts'
import type { InstanceState } from './instance.entity.ts'
import { InstanceBusy, InstanceDeleted } from './instances.errors.ts'

/** What a person or agent can ask of an instance; `provision` is asked by creating it. */
export type InstanceAction = 'provision' | 'start' | 'stop' | 'restart' | 'delete'

interface ActionRule {
  /** The state the instance holds while the job works. */
  during: InstanceState
  /** Where a successful job takes it. */
  done: InstanceState
  /** States the action may start from. */
  from: readonly InstanceState[]
  /** States where the action has nothing to do (200, no job). */
  already: readonly InstanceState[]
}

export const ACTIONS: Record<InstanceAction, ActionRule> = {
  provision: { during: 'provisioning', done: 'running', from: [], already: [] },
  start: { during: 'starting', done: 'running', from: ['stopped', 'error'], already: ['running', 'starting'] },
  stop: { during: 'stopping', done: 'stopped', from: ['running', 'error'], already: ['stopped', 'stopping'] },
  restart: { during: 'restarting', done: 'running', from: ['running', 'stopped', 'error'], already: ['restarting'] },
  // Delete works from every state, a transitional one included: a job that is
  // still at work notices that the instance left its state and cleans up after itself.
  delete: { during: 'deleting', done: 'deleted', from: ['running', 'stopped', 'error', 'provisioning', 'starting', 'stopping', 'restarting'], already: ['deleting', 'deleted'] }
}

/** Steady states: nothing is in progress, the reconciler may correct them. */
export const STEADY_STATES: readonly InstanceState[] = ['running', 'stopped', 'error']

/** States a job holds an instance in while it works; none may last once its job has ended. */
export const TRANSITIONAL_STATES: readonly InstanceState[] = ['provisioning', 'starting', 'stopping', 'restarting', 'deleting']

/** States that no longer hold one of the plan's instance slots. */
export const RELEASED_STATES: readonly InstanceState[] = ['deleting', 'deleted']

/**
 * States as an SQL list (`'running', 'stopped', 'error'`) for statements built
 * once at load: the names come from the typed constants, never from input, so
 * a misspelt state fails the type check instead of matching nothing.
 */
export function sqlStates (states: readonly InstanceState[]): string {
  return states.map((state) => `'${state}'`).join(', ')
}

/** The action whose job holds an instance in a transitional state. */
export function actionDuring (state: InstanceState): InstanceAction | undefined {
  return (Object.keys(ACTIONS) as InstanceAction[]).find((action) => ACTIONS[action].during === state)
}

/**
 * Every allowed edge. Transitional states end in their action's `done`, in
 * `error`, or in `deleting` (delete is always allowed); steady states move by an
 * action, or by drift the reconciler saw.
 */
const EDGES: Record<InstanceState, readonly InstanceState[]> = {
  provisioning: ['running', 'error', 'deleting'],
  starting: ['running', 'error', 'deleting'],
  stopping: ['stopped', 'error', 'deleting'],
  restarting: ['running', 'error', 'deleting'],
  deleting: ['deleted', 'error'],
  running: ['starting', 'stopping', 'restarting', 'deleting', 'stopped', 'error', 'restoring', 'upgrading'],
  stopped: ['starting', 'restarting', 'deleting', 'running', 'error', 'restoring', 'upgrading'],
  error: ['starting', 'stopping', 'restarting', 'deleting', 'running', 'stopped', 'restoring', 'upgrading'],
  // A restore job (plugins/app/backups) holds it; no other action may start meanwhile.
  restoring: ['running', 'error'],
  // An upgrade job (plugins/app/upgrades) holds it; a failed one hands it to the restore of its rollback point.
  upgrading: ['running', 'stopped', 'error', 'restoring'],
  deleted: []
}

export function canMove (from: InstanceState, to: InstanceState): boolean {
  return EDGES[from].includes(to)
}

export function assertMove (from: InstanceState, to: InstanceState): void {
  if (!canMove(from, to)) throw new Error(`Illegal instance transition ${from} -> ${to}`)
}

/**
 * What asking for `action` in `state` means: `queue` a job, or `noop` because
 * it is done or under way already. Throws 409 when another transition runs.
 */
export function decide (state: InstanceState, action: Exclude<InstanceAction, 'provision'>): 'queue' | 'noop' {
  const rule = ACTIONS[action]
  if (rule.already.includes(state)) return 'noop'
  if (rule.from.includes(state)) return 'queue'
  if (state === 'deleted') throw InstanceDeleted('The instance was deleted')
  throw InstanceBusy(`The instance is ${state}: wait until that finishes, then ${action} it`, { state })
}

/** The transitional state a job for `action` expects to find; anything else means its work is already done. */
export function duringOf (action: InstanceAction): InstanceState {
  return ACTIONS[action].during
}

/** What the backend shows once an action's job is done. */
export const TARGET: Record<InstanceAction, readonly ObservedState[]> = {
  provision: ['running'],
  start: ['running'],
  restart: ['running'],
  stop: ['stopped', 'missing'],
  delete: ['missing']
}

/** Whether `seen` is where `action` was going. After a stop we asked for, any exit is a stop. */
export function reached (action: InstanceAction, seen: Observation): boolean {
  return TARGET[action].includes(seen.state) || (action === 'stop' && seen.exitCode !== undefined)
}
