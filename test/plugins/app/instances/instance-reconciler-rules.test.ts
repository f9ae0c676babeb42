import fc from 'fast-check'
import t from 'tap'
import type { Observation, ObservedState } from '../../../../provisioning/backend.ts'
import { correction } from '../../../../plugins/app/instances/instance-reconciler.job.ts'
import { INSTANCE_STATES } from '../../../../plugins/app/instances/instance.entity.ts'
import { canMove, STEADY_STATES } from '../../../../plugins/app/instances/instance-states.ts'

const OBSERVED: readonly ObservedState[] = ['running', 'starting', 'stopped', 'error', 'missing']
const steady = fc.constantFrom(...STEADY_STATES)
const observation: fc.Arbitrary<Observation> = fc.record({
  state: fc.constantFrom(...OBSERVED),
  message: fc.option(fc.string({ minLength: 1, maxLength: 80 }), { nil: undefined })
}, { requiredKeys: ['state'] })

t.test('the table, for every steady recorded state and every observed state', async (t) => {
  const crash: Observation = { state: 'error', message: 'pod erp-shop-x: container erp is CrashLoopBackOff' }
  const rows: Array<[string, ReturnType<typeof correction>, ReturnType<typeof correction>]> = []
  const expect = (recorded: typeof STEADY_STATES[number], seen: Observation, wanted: ReturnType<typeof correction>) => rows.push([`${recorded} / ${seen.state}`, correction(recorded, seen), wanted])

  for (const recorded of STEADY_STATES) expect(recorded, { state: 'starting', message: 'rollout in progress' }, undefined)
  expect('running', { state: 'missing' }, { state: 'error', status: 'error', message: 'Its resources are gone from the backend' })
  expect('stopped', { state: 'missing' }, { state: 'error', status: 'error', message: 'Its resources are gone from the backend' })
  expect('error', { state: 'missing' }, undefined)
  expect('running', { state: 'running', message: '1/1 replicas available' }, undefined)
  expect('stopped', { state: 'stopped', message: 'scaled to 0 replicas' }, undefined)
  expect('error', crash, undefined)
  expect('running', { state: 'stopped', message: 'scaled to 0 replicas' }, { state: 'stopped', status: 'stopped', message: null })
  expect('error', { state: 'stopped' }, { state: 'stopped', status: 'stopped', message: null })
  expect('stopped', { state: 'running', message: '1/1 replicas available' }, { state: 'running', status: 'running', message: null })
  expect('error', { state: 'running' }, { state: 'running', status: 'running', message: null })
  expect('running', crash, { state: 'error', status: 'error', message: crash.message ?? null })
  expect('stopped', { state: 'error' }, { state: 'error', status: 'error', message: 'The backend reports an error' })
  // A stop that had to kill the ERP leaves a container exited with 137: still stopped, as recorded.
  expect('stopped', { state: 'error', message: 'exited with code 137', exitCode: 137 }, undefined)
  expect('stopped', { state: 'error', message: 'exited with code 1', exitCode: 1 }, undefined)
  // The same exit of a running instance, which nobody stopped, is a failure.
  expect('running', { state: 'error', message: 'exited with code 137', exitCode: 137 }, { state: 'error', status: 'error', message: 'exited with code 137' })

  for (const [label, actual, wanted] of rows) t.same(actual, wanted, label)
})

t.test('starting never changes anything, whatever was recorded', async (t) => {
  fc.assert(fc.property(fc.constantFrom(...INSTANCE_STATES), fc.option(fc.string(), { nil: undefined }), (recorded, message) =>
    correction(recorded, message === undefined ? { state: 'starting' } : { state: 'starting', message }) === undefined))
  t.pass()
})

t.test('the corrected state is what was seen (missing: error), and no change when it is already recorded', async (t) => {
  fc.assert(fc.property(steady, observation, (recorded, seen) => {
    const fix = correction(recorded, seen)
    if (seen.state === 'starting') return fix === undefined
    const target = seen.state === 'missing' ? 'error' : seen.state
    if (target === recorded) return fix === undefined
    return fix !== undefined && fix.state === target && fix.status === target
  }), { numRuns: 2000 })
  t.pass()
})

t.test('a message only for error, and always one for error: the backend\'s own, else a default', async (t) => {
  fc.assert(fc.property(steady, observation, (recorded, seen) => {
    const fix = correction(recorded, seen)
    if (fix === undefined) return true
    if (fix.state !== 'error') return fix.message === null
    if (seen.state === 'missing') return fix.message === 'Its resources are gone from the backend'
    return typeof fix.message === 'string' && fix.message.length > 0 && (seen.message === undefined || fix.message === seen.message)
  }), { numRuns: 2000 })
  t.pass()
})

t.test('every correction of a steady state is an edge the state machine allows, to another steady state', async (t) => {
  fc.assert(fc.property(steady, observation, (recorded, seen) => {
    const fix = correction(recorded, seen)
    return fix === undefined || (fix.state !== recorded && canMove(recorded, fix.state) && STEADY_STATES.includes(fix.state))
  }), { numRuns: 2000 })
  t.pass()
})
