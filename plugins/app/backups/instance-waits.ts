/** Waiting for a backend to report an instance running, or its ERP not running, during a restore. */
import type { InstanceSpec, Observation, ProvisioningBackend } from '../../../provisioning/backend.ts'

/**
 * The ERP is not running: stopped, missing, ended, or a container made but never started (Docker
 * reports that one `starting`, "created", as it would be a moment before a first start).
 */
export const idle = (seen: Observation): boolean => seen.state === 'stopped' || seen.state === 'missing' || seen.exitCode !== undefined ||
  (seen.state === 'starting' && seen.message === 'created')

export interface InstanceWaits {
  /** Polls observe until the instance is `running`, or its ERP is `idle`; an Error naming what the backend reports when that takes longer than the bound or `signal` aborts. */
  until: (backend: ProvisioningBackend, spec: InstanceSpec, want: 'running' | 'idle', signal: AbortSignal) => Promise<void>
}

export function createInstanceWaits (options: { timeoutMs: number, pollMs: number }): InstanceWaits {
  return {
    async until (backend, spec, want, signal) {
      const deadline = Date.now() + options.timeoutMs
      const reached = (seen: Observation): boolean => want === 'idle' ? idle(seen) : seen.state === 'running'
      let seen = await backend.observe(spec)
      while (!reached(seen)) {
        if (Date.now() > deadline || signal.aborted) {
          throw new Error(`The instance is not ${want === 'idle' ? 'stopped' : 'running'} in time: the backend reports ${seen.state}${seen.message ? ` (${seen.message})` : ''}`)
        }
        await new Promise((resolve) => setTimeout(resolve, options.pollMs))
        seen = await backend.observe(spec)
      }
    }
  }
}
