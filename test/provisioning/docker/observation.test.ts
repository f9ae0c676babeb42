/**
 * From container inspect / list entries to observed states, without an engine. The engine
 * tests (docker-lifecycle, docker-convergence) reach the common states for real.
 */
import type Docker from 'dockerode'
import t from 'tap'
import { fromInspect, fromListEntry } from '../../../provisioning/docker/observation.ts'

type State = Docker.ContainerInspectInfo['State']

function inspected (state: Partial<State>, restarts = 0): Pick<Docker.ContainerInspectInfo, 'State' | 'RestartCount'> {
  const base: State = {
    Status: 'running', Running: true, Paused: false, Restarting: false, OOMKilled: false, Dead: false,
    Pid: 1, ExitCode: 0, Error: '', StartedAt: '', FinishedAt: ''
  }
  return { State: { ...base, ...state }, RestartCount: restarts }
}

const health = (Status: string, output = ''): State['Health'] => ({ Status, FailingStreak: 0, Log: [{ Start: '', End: '', ExitCode: 1, Output: output }] })

t.test('inspect', async (t) => {
  const cases: Array<[string, ReturnType<typeof inspected>, object]> = [
    ['running without a health check', inspected({}), { state: 'running' }],
    ['running and healthy', inspected({ Health: health('healthy') }), { state: 'running' }],
    ['running, health check pending', inspected({ Health: health('starting') }), { state: 'starting' }],
    ['running and unhealthy', inspected({ Health: health('unhealthy', 'wget: server returned error: HTTP/1.0 500\n') }),
      { state: 'error', message: 'unhealthy: wget: server returned error: HTTP/1.0 500' }],
    ['created', inspected({ Status: 'created', Running: false }), { state: 'starting', message: 'created' }],
    ['created, but its start failed', inspected({ Status: 'created', Running: false, ExitCode: 127, Error: 'exec: "odoo": executable file not found' }),
      { state: 'error', message: 'could not start: exec: "odoo": executable file not found' }],
    ['restarting', inspected({ Status: 'restarting', ExitCode: 1 }, 1), { state: 'starting', message: 'restarting after exit code 1' }],
    ['crash looping', inspected({ Status: 'restarting', ExitCode: 1 }, 3), { state: 'error', message: 'restarting repeatedly (3 restarts, last exit code 1)' }],
    ['stopped cleanly', inspected({ Status: 'exited', Running: false, ExitCode: 0 }), { state: 'stopped', message: 'exited with code 0', exitCode: 0 }],
    ['stopped by SIGTERM', inspected({ Status: 'exited', Running: false, ExitCode: 143 }), { state: 'stopped', exitCode: 143 }],
    ['killed', inspected({ Status: 'exited', Running: false, ExitCode: 137 }), { state: 'error', message: 'exited with code 137', exitCode: 137 }],
    ['out of memory', inspected({ Status: 'exited', Running: false, ExitCode: 137, OOMKilled: true }), { state: 'error', message: 'killed: out of memory (exit code 137)', exitCode: 137 }],
    ['crashed', inspected({ Status: 'exited', Running: false, ExitCode: 1 }), { state: 'error', message: 'exited with code 1', exitCode: 1 }],
    ['paused', inspected({ Status: 'paused', Paused: true }), { state: 'error' }],
    ['dead', inspected({ Status: 'dead', Running: false, Dead: true, Error: 'driver failed' }), { state: 'error', message: 'dead: driver failed' }],
    ['being removed', inspected({ Status: 'removing', Running: false }), { state: 'stopped' }]
  ]
  for (const [name, info, expected] of cases) t.match(fromInspect(info), expected, name)
  for (const [name, info] of cases.filter(([, info]) => info.State.Status !== 'exited')) {
    t.equal(fromInspect(info).exitCode, undefined, `${name}: no exit code while the process has not exited`)
  }
})

t.test('list entries: running (with health) and clean exits are read from the list; the rest need an inspect', async (t) => {
  const cases: Array<[string, string, object | undefined]> = [
    ['running', 'Up 3 seconds', { state: 'running' }],
    ['running', 'Up 2 minutes (healthy)', { state: 'running' }],
    ['running', 'Up 2 seconds (health: starting)', { state: 'starting' }],
    ['running', 'Up About a minute (unhealthy)', { state: 'error', message: 'unhealthy' }],
    ['exited', 'Exited (0) 3 seconds ago', { state: 'stopped', message: 'exited with code 0' }],
    ['exited', 'Exited (143) 1 hour ago', { state: 'stopped', exitCode: 143 }],
    ['exited', 'Exited (137) 2 seconds ago', undefined],
    ['exited', 'Exited (1) 2 seconds ago', undefined],
    ['created', 'Created', undefined],
    ['restarting', 'Restarting (1) 2 seconds ago', undefined],
    ['paused', 'Up 5 seconds (Paused)', undefined],
    ['dead', 'Dead', undefined],
    ['removing', 'Removal In Progress', undefined],
    ['running', 'something new', undefined]
  ]
  for (const [State, Status, expected] of cases) {
    const seen = fromListEntry({ State, Status })
    if (expected === undefined) t.equal(seen, undefined, `${State} / ${Status}: inspect`)
    else t.match(seen, expected, `${State} / ${Status}`)
  }
})
