import fc from 'fast-check'
import t from 'tap'
import { INSTANCE_STATES, type InstanceState } from '../../../../plugins/app/instances/instance.entity.ts'
import { ACTIONS, RELEASED_STATES, STEADY_STATES, sqlStates, TRANSITIONAL_STATES, actionDuring, assertMove, canMove, decide, duringOf, type InstanceAction } from '../../../../plugins/app/instances/instance-states.ts'

type Lifecycle = Exclude<InstanceAction, 'provision'>

const LIFECYCLE: readonly Lifecycle[] = ['start', 'stop', 'restart', 'delete']
const EVERY_ACTION: readonly InstanceAction[] = ['provision', ...LIFECYCLE]
const TRANSITIONAL: readonly InstanceState[] = ['provisioning', 'starting', 'stopping', 'restarting', 'deleting']

/** The intended rules (the routes: 202 queued, 200 nothing to do, 409 busy), written out independently of the module under test. */
const DOCUMENTED: Record<InstanceAction, { during: InstanceState, done: InstanceState, from: InstanceState[], already: InstanceState[] }> = {
  provision: { during: 'provisioning', done: 'running', from: [], already: [] },
  start: { during: 'starting', done: 'running', from: ['stopped', 'error'], already: ['running', 'starting'] },
  stop: { during: 'stopping', done: 'stopped', from: ['running', 'error'], already: ['stopped', 'stopping'] },
  restart: { during: 'restarting', done: 'running', from: ['running', 'stopped', 'error'], already: ['restarting'] },
  delete: { during: 'deleting', done: 'deleted', from: ['running', 'stopped', 'error', 'provisioning', 'starting', 'stopping', 'restarting'], already: ['deleting', 'deleted'] }
}

const state = fc.constantFrom(...INSTANCE_STATES)
const lifecycle = fc.constantFrom(...LIFECYCLE)
const action = fc.constantFrom(...EVERY_ACTION)
/** Every pair as an explicit example, so each run covers the whole table whatever the seed. */
const allPairs = <A, B>(as: readonly A[], bs: readonly B[]): Array<[A, B]> => as.flatMap((a) => bs.map((b): [A, B] => [a, b]))

type Outcome = 'queue' | 'noop' | { code: string, statusCode: number, details?: unknown }

function outcomeOf (s: InstanceState, a: Lifecycle): Outcome {
  try {
    return decide(s, a)
  } catch (error) {
    const e = error as { code: string, statusCode: number, details?: unknown }
    return { code: e.code, statusCode: e.statusCode, details: e.details }
  }
}

t.test('the action table is the intended one; steady and transitional states split every state', async (t) => {
  for (const a of EVERY_ACTION) {
    t.same({ ...ACTIONS[a], from: [...ACTIONS[a].from].sort(), already: [...ACTIONS[a].already].sort() },
      { ...DOCUMENTED[a], from: [...DOCUMENTED[a].from].sort(), already: [...DOCUMENTED[a].already].sort() }, a)
    t.equal(duringOf(a), DOCUMENTED[a].during)
  }
  // `restoring` is held by the restore job of the backups room, `upgrading` by the upgrade job, not by an instance action.
  t.same([...STEADY_STATES, ...TRANSITIONAL, 'deleted', 'restoring', 'upgrading'].sort(), [...INSTANCE_STATES].sort())
  t.equal(actionDuring('restoring'), undefined)
  t.equal(actionDuring('upgrading'), undefined)
  t.same([...TRANSITIONAL_STATES].sort(), [...TRANSITIONAL].sort())
  for (const a of EVERY_ACTION) t.equal(actionDuring(DOCUMENTED[a].during), a, `${DOCUMENTED[a].during} is ${a}'s`)
  for (const s of [...STEADY_STATES, 'deleted' as const]) t.equal(actionDuring(s), undefined, `no job holds ${s}`)
})

t.test('decide: queue exactly from `from`, noop exactly for `already`, else 409 busy (or deleted)', async (t) => {
  fc.assert(fc.property(state, lifecycle, (s, a) => {
    const outcome = outcomeOf(s, a)
    const rule = DOCUMENTED[a]
    if (rule.from.includes(s)) return outcome === 'queue'
    if (rule.already.includes(s)) return outcome === 'noop'
    if (typeof outcome === 'string') return false
    if (s === 'deleted') return outcome.code === 'INSTANCE_DELETED' && outcome.statusCode === 409
    return outcome.code === 'INSTANCE_BUSY' && outcome.statusCode === 409 && (outcome.details as { state?: string } | undefined)?.state === s
  }), { examples: allPairs(INSTANCE_STATES, LIFECYCLE), numRuns: 500 })
  t.pass(`${INSTANCE_STATES.length * LIFECYCLE.length} state × action pairs, plus random draws`)
})

t.test('decide never queues from deleted, nor from a transitional state except a delete', async (t) => {
  fc.assert(fc.property(fc.constantFrom(...TRANSITIONAL, 'deleted'), lifecycle, (s, a) => outcomeOf(s, a) !== 'queue' || (a === 'delete' && s !== 'deleted')),
    { examples: allPairs([...TRANSITIONAL, 'deleted' as const], LIFECYCLE) })
  // Delete works from every state but deleted and deleting (nothing to do there), restoring and upgrading (it waits for that job).
  for (const s of INSTANCE_STATES) {
    if (s === 'restoring' || s === 'upgrading') t.match(outcomeOf(s, 'delete'), { code: 'INSTANCE_BUSY', statusCode: 409 }, `delete during ${s}`)
    else t.equal(outcomeOf(s, 'delete'), s === 'deleted' || s === 'deleting' ? 'noop' : 'queue', `delete from ${s}`)
  }
  // And the converse: from a steady state every action either queues or has nothing to do.
  fc.assert(fc.property(fc.constantFrom(...STEADY_STATES), lifecycle, (s, a) => {
    const outcome = outcomeOf(s, a)
    return outcome === 'queue' || outcome === 'noop'
  }), { examples: allPairs(STEADY_STATES, LIFECYCLE) })
  t.pass()
})

t.test('every edge an action takes is allowed: from → during, during → done, during → error', async (t) => {
  fc.assert(fc.property(action, (a) => {
    const rule = ACTIONS[a]
    return rule.from.every((from) => canMove(from, rule.during)) && canMove(rule.during, rule.done) && canMove(rule.during, 'error')
  }), { examples: EVERY_ACTION.map((a) => [a]) })
  fc.assert(fc.property(action, (a) => {
    const rule = ACTIONS[a]
    for (const from of rule.from) assertMove(from, rule.during)
    assertMove(rule.during, rule.done)
    assertMove(rule.during, 'error')
    return true
  }), { examples: EVERY_ACTION.map((a) => [a]) })
  t.pass()
})

t.test('a transitional state ends only in its action\'s done state, in error, or in deleting', async (t) => {
  fc.assert(fc.property(action, state, (a, to) => {
    const rule = ACTIONS[a]
    return canMove(rule.during, to) === (to === rule.done || to === 'error' || (to === 'deleting' && rule.during !== 'deleting'))
  }), { examples: allPairs(EVERY_ACTION, INSTANCE_STATES) })
  t.pass()
})

t.test('deleted has no way out; nothing goes back to provisioning; no state moves to itself', async (t) => {
  fc.assert(fc.property(state, (to) => !canMove('deleted', to)), { examples: INSTANCE_STATES.map((s) => [s]) })
  fc.assert(fc.property(state, (from) => !canMove(from, 'provisioning') && !canMove(from, from)), { examples: INSTANCE_STATES.map((s) => [s]) })
  fc.assert(fc.property(state, (from) => canMove(from, 'deleted') === (from === 'deleting')), { examples: INSTANCE_STATES.map((s) => [s]) })
  for (const to of INSTANCE_STATES) t.throws(() => assertMove('deleted', to), /Illegal instance transition deleted -> /, `deleted -> ${to}`)
})

t.test('assertMove throws exactly on a disallowed edge, naming both states', async (t) => {
  let allowed = 0
  fc.assert(fc.property(state, state, (from, to) => {
    let thrown: Error | undefined
    try {
      assertMove(from, to)
    } catch (error) {
      thrown = error as Error
    }
    if (canMove(from, to)) return thrown === undefined
    return thrown !== undefined && thrown.message.includes(`${from} -> ${to}`)
  }), { examples: allPairs(INSTANCE_STATES, INSTANCE_STATES), numRuns: 500 })
  for (const [from, to] of allPairs(INSTANCE_STATES, INSTANCE_STATES)) if (canMove(from, to)) allowed++
  // 5 transitional × 2, 4 of them to deleting, running 7, stopped 6, error 7 (restoring included), restoring 2, deleted 0;
  // each steady state -> upgrading (3), and upgrading -> running, stopped (an upgrade whose backup failed), error, restoring (the rollback) (4)
  t.equal(allowed, 43, 'the number of allowed edges is the documented one')
  for (const from of STEADY_STATES) t.ok(canMove(from, 'restoring'), `${from} -> restoring`)
  t.same(INSTANCE_STATES.filter((to) => canMove('restoring', to)), ['running', 'error'], 'a restore ends running or in error')
  t.same(INSTANCE_STATES.filter((to) => canMove('upgrading', to)), ['running', 'stopped', 'error', 'restoring'], 'an upgrade ends running, in error, or hands over to its rollback')
})

t.test('state lists in SQL come from the typed constants', async (t) => {
  t.equal(sqlStates(STEADY_STATES), "'running', 'stopped', 'error'")
  t.equal(sqlStates(RELEASED_STATES), "'deleting', 'deleted'")
  t.same([...RELEASED_STATES].filter((state) => STEADY_STATES.includes(state)), [], 'a released instance is never steady')
})
