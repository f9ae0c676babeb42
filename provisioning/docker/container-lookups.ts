/** Finding an instance's container, and waiting for one a racing or timed-out call holds. */
import type Docker from 'dockerode'
import { DockerEngineError, statusOf, type EngineCall } from './engine-calls.ts'
import type { ResolvedOptions } from './options.ts'

export function createContainerLookups (docker: Docker, call: EngineCall, options: Pick<ResolvedOptions, 'createTimeoutMs' | 'removeTimeoutMs'>) {
  async function inspect (name: string): Promise<Docker.ContainerInspectInfo | undefined> {
    try {
      return await call('inspect', name, (signal) => docker.getContainer(name).inspect({ abortSignal: signal }))
    } catch (error) {
      if (statusOf(error) === 404) return undefined
      throw error
    }
  }

  async function inspectExisting (name: string, why: string): Promise<Docker.ContainerInspectInfo> {
    const info = await inspect(name)
    if (info === undefined) throw new DockerEngineError(why, name, `cannot ${why} ${name}: there is no such container (provision the instance first)`, 404)
    return info
  }

  /**
   * Polls inspect until the container is there (`present`, bounded by the create timeout) or gone
   * (bounded by the remove timeout): a racing or timed-out create holds the name (409) a moment
   * before inspect finds the container, and a removal in progress answers 409 until done.
   */
  async function waitUntil (name: string, present: true, why: string): Promise<Docker.ContainerInspectInfo>
  async function waitUntil (name: string, present: false, why: string): Promise<undefined>
  async function waitUntil (name: string, present: boolean, why: string): Promise<Docker.ContainerInspectInfo | undefined> {
    const boundMs = present ? options.createTimeoutMs : options.removeTimeoutMs
    const deadline = Date.now() + boundMs
    while (true) {
      const info = await inspect(name)
      if ((info !== undefined) === present) return info
      if (Date.now() > deadline) throw new DockerEngineError(why, name, `${name} is still ${present ? 'missing' : 'there'} after ${boundMs} ms of a concurrent ${why}`, 409)
      await new Promise((resolve) => setTimeout(resolve, present ? 50 : 250))
    }
  }

  /** The container, or undefined when there is none or it was being removed (waited for until gone). */
  async function settled (name: string): Promise<Docker.ContainerInspectInfo | undefined> {
    const info = await inspect(name)
    if (info?.State.Status !== 'removing' && info?.State.Dead !== true) return info
    await waitUntil(name, false, 'remove')
    return undefined
  }

  return { inspect, inspectExisting, waitUntil, settled }
}
