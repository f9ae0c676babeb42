/** From what the engine reports about a container to an Observation (pure). */
import type Docker from 'dockerode'
import type { Observation } from '../backend.ts'

/**
 * Exit codes of a clean exit nobody asked for: 0, or ended by a SIGTERM without a
 * handler (128 + 15). After a stop we asked for, every exit counts (see Observation.exitCode).
 */
const CLEAN_EXITS = new Set([0, 143])
/** A container restarting more often than this since its last start is crash looping. */
export const CRASH_LOOP_RESTARTS = 3

type InspectState = Docker.ContainerInspectInfo['State']

export function fromInspect (info: Pick<Docker.ContainerInspectInfo, 'State' | 'RestartCount'>): Observation {
  const state = info.State
  const detail = state.Error === '' || state.Error === undefined ? '' : `: ${state.Error}`
  switch (state.Status) {
    case 'running':
      return fromHealth(state)
    case 'created':
      // A start that failed (bad command, missing mount) leaves the container "created" with an Error.
      return detail === '' ? { state: 'starting', message: 'created' } : { state: 'error', message: `could not start${detail}` }
    case 'restarting':
      return info.RestartCount >= CRASH_LOOP_RESTARTS
        ? { state: 'error', message: `restarting repeatedly (${info.RestartCount} restarts, last exit code ${state.ExitCode})` }
        : { state: 'starting', message: `restarting after exit code ${state.ExitCode}` }
    case 'exited':
      if (state.OOMKilled) return { state: 'error', message: `killed: out of memory (exit code ${state.ExitCode})`, exitCode: state.ExitCode }
      return CLEAN_EXITS.has(state.ExitCode)
        ? { state: 'stopped', message: `exited with code ${state.ExitCode}`, exitCode: state.ExitCode }
        : { state: 'error', message: `exited with code ${state.ExitCode}${detail}`, exitCode: state.ExitCode }
    case 'paused':
      return { state: 'error', message: 'paused (docker pause)' }
    case 'removing':
      return { state: 'stopped', message: 'being removed' }
    case 'dead':
      return { state: 'error', message: `dead${detail}` }
    default:
      return { state: 'error', message: `unknown container status ${JSON.stringify(state.Status)}` }
  }
}

function fromHealth (state: InspectState): Observation {
  const health = state.Health?.Status
  if (health === 'starting') return { state: 'starting', message: 'health check pending' }
  if (health === 'unhealthy') {
    const last = state.Health?.Log?.at(-1)?.Output.trim() ?? ''
    return { state: 'error', message: last === '' ? 'unhealthy' : `unhealthy: ${last.slice(0, 200)}` }
  }
  return { state: 'running' }
}

/**
 * From one entry of a container list, when its State and Status say enough:
 * running (with its health in Status: "Up 3 seconds (healthy)", "(health: starting)",
 * "(unhealthy)") and clean exits ("Exited (0) 2 minutes ago"). Anything else
 * (non-zero exits: out of memory?; created: failed start?; restarting: crash loop?)
 * returns undefined: the caller inspects that one.
 */
export function fromListEntry (entry: Pick<Docker.ContainerInfo, 'State' | 'Status'>): Observation | undefined {
  if (entry.State === 'running') {
    if (!entry.Status.startsWith('Up ') || entry.Status.endsWith('(Paused)')) return undefined
    if (entry.Status.endsWith('(health: starting)')) return { state: 'starting', message: 'health check pending' }
    if (entry.Status.endsWith('(unhealthy)')) return { state: 'error', message: 'unhealthy' }
    return { state: 'running' }
  }
  if (entry.State === 'exited') {
    const code = /^Exited \((\d+)\)/.exec(entry.Status)?.[1]
    if (code !== undefined && CLEAN_EXITS.has(Number(code))) return { state: 'stopped', message: `exited with code ${code}`, exitCode: Number(code) }
  }
  return undefined
}
