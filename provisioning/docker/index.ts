/**
 * The Docker backend: one container `erp-<subdomain>` per instance, routed by
 * Traefik labels, with a named filestore volume and the tenant's addons folder
 * bound read-only. An existing container is never replaced: provision creates
 * what is missing and starts it, so a changed image or limit needs remove +
 * provision (the filestore volume goes with remove).
 */
import { mkdir } from 'node:fs/promises'
import type Docker from 'dockerode'
import { BackendUnavailableError, type InstanceSpec, type Observation, type ProvisioningBackend } from '../backend.ts'
import { addonsHostPath, containerConfig } from './container-config.ts'
import { createEngineCall, describeEndpoint, DOCKER_HINT, statusOf } from './engine-calls.ts'
import { createDockerBackupRunner } from './backup-runner.ts'
import { createContainerLookups } from './container-lookups.ts'
import { createDockerErpSetup } from './erp-setup.ts'
import { ensureImage } from './image.ts'
import { createDockerLogs } from './logs.ts'
import { createDockerUsage } from './metrics.ts'
import { containerName, dataVolumeName, LABELS } from './names.ts'
import { fromInspect, fromListEntry } from './observation.ts'
import { resolveOptions, type DockerBackendOptions } from './options.ts'

export { DockerEngineError } from './engine-calls.ts'
export type { DockerBackendOptions, HealthCheckOptions } from './options.ts'

export function createDockerBackend (input: DockerBackendOptions): ProvisioningBackend {
  const options = resolveOptions(input)
  const { docker } = options
  const call = createEngineCall(docker, options.callTimeoutMs)
  const stopCallMs = options.callTimeoutMs + options.stopTimeoutSeconds * 1000
  const readUsage = createDockerUsage(docker, call)
  const erp = createDockerErpSetup(docker, call, options)
  const { inspect, inspectExisting, waitUntil, settled } = createContainerLookups(docker, call, options)

  async function startContainer (name: string, info: Docker.ContainerInspectInfo): Promise<void> {
    if (info.State.Paused) {
      await call('unpause', name, (signal) => docker.getContainer(name).unpause({ abortSignal: signal }))
      return
    }
    if (info.State.Running) return
    try {
      await call('start', name, (signal) => docker.getContainer(name).start({ abortSignal: signal }))
    } catch (error) {
      if (statusOf(error) !== 304) throw error // 304: started by someone else meanwhile
    }
  }

  async function create (spec: InstanceSpec, name: string): Promise<void> {
    const config = containerConfig(spec, options)
    await ensureImage(docker, call, String(config.Image), options.pullTimeoutMs)
    // The service runs on the Docker host, so the bind source can be made here.
    const addons = addonsHostPath(spec, options)
    await mkdir(addons, { recursive: true }).catch((error: unknown) => {
      throw new Error(`cannot create the addons folder ${addons} for ${name} (ADDONS_ROOT must be a writable folder on the Docker host): ${(error as Error).message}`, { cause: error })
    })
    const volume = dataVolumeName(spec.subdomain)
    const labels = { ...options.labels, [LABELS.managed]: 'true', [LABELS.instanceId]: spec.instanceUid, [LABELS.subdomain]: spec.subdomain }
    await call('volume create', volume, (signal) => docker.createVolume({ Name: volume, Labels: labels, abortSignal: signal }))
    await erp.initialise(spec)
    const createIt = async (): Promise<void> => {
      try {
        await call('create', name, (signal) => docker.createContainer({ ...config, abortSignal: signal }), options.createTimeoutMs)
      } catch (error) {
        if (statusOf(error) !== 409) throw error // 409: a racing provision created it first
      }
    }
    await createIt()
    // The name may be held by a removal still in progress (an earlier remove that timed out): wait it out, then create.
    if (await settled(name) === undefined) await createIt()
  }

  /**
   * Every path that runs the ERP comes through here: the container gets this instance's server
   * configuration (no database manager, its master password) before it starts, and a running
   * one that lacks it is given it and restarted. A container found from an earlier attempt that
   * failed after the engine made it is configured like a new one. Returns whether it restarted.
   */
  async function configureThenStart (spec: InstanceSpec, name: string, info: Docker.ContainerInspectInfo): Promise<boolean> {
    const written = await erp.ensureConfigured(spec)
    await startContainer(name, info)
    if (written && (info.State.Running || info.State.Restarting)) {
      await call('restart', name, (signal) => docker.getContainer(name).restart({ t: options.stopTimeoutSeconds, abortSignal: signal }), stopCallMs)
      return true
    }
    return false
  }

  /** An entry the list did not say enough about; undefined when it was removed since. */
  async function inspectListed (id: string): Promise<Observation | undefined> {
    const info = await inspect(id)
    return info === undefined ? undefined : fromInspect(info)
  }

  return {
    name: 'docker',
    ...createDockerLogs(docker, call, options.callTimeoutMs),
    backups: createDockerBackupRunner(docker, call, {
      imageTemplate: options.backupImage, network: options.network, labels: options.labels, pullTimeoutMs: options.pullTimeoutMs
    }),

    async check () {
      try {
        // dockerode takes an abortSignal here; @types/dockerode does not say so.
        await (docker as unknown as { ping: (opts: { abortSignal: AbortSignal }) => Promise<unknown> }).ping({ abortSignal: AbortSignal.timeout(3000) })
      } catch (error) {
        throw new BackendUnavailableError('docker', `The Docker engine does not answer at ${describeEndpoint(docker)}`, DOCKER_HINT, { cause: error })
      }
    },

    async provision (spec, { start = true } = {}) {
      const name = containerName(spec.subdomain)
      // A container an earlier attempt left (e.g. its create timed out) is reused and configured below.
      let info = await settled(name)
      if (info === undefined) {
        await create(spec, name)
        info = await waitUntil(name, true, 'create')
      } else if (spec.erp?.initialise === true) {
        // A provision that crashed after creating the container, before the initialisation was recorded.
        await erp.initialise(spec)
      }
      if (start) await configureThenStart(spec, name, info)
      else await erp.ensureConfigured(spec)
    },

    async start (spec) {
      const name = containerName(spec.subdomain)
      await configureThenStart(spec, name, await inspectExisting(name, 'start'))
    },

    async stop (spec) {
      const name = containerName(spec.subdomain)
      try {
        await call('stop', name, (signal) => docker.getContainer(name).stop({ t: options.stopTimeoutSeconds, abortSignal: signal }), stopCallMs)
      } catch (error) {
        const status = statusOf(error)
        if (status !== 304 && status !== 404) throw error // already stopped / nothing to stop
      }
    },

    async restart (spec) {
      const name = containerName(spec.subdomain)
      const info = await inspectExisting(name, 'restart')
      if (info.State.Paused || !info.State.Running) {
        await configureThenStart(spec, name, info)
        return
      }
      await erp.ensureConfigured(spec) // when it was written, the restart below makes the ERP read it
      await call('restart', name, (signal) => docker.getContainer(name).restart({ t: options.stopTimeoutSeconds, abortSignal: signal }), stopCallMs)
    },

    async remove (spec) {
      const name = containerName(spec.subdomain)
      try {
        await call('remove', name, (signal) => docker.getContainer(name).remove({ force: true, v: true, abortSignal: signal }), options.removeTimeoutMs)
      } catch (error) {
        const status = statusOf(error)
        if (status === 409) await waitUntil(name, false, 'remove')
        else if (status !== 404) throw error
      }
      const volume = dataVolumeName(spec.subdomain)
      const deadline = Date.now() + options.removeTimeoutMs
      while (true) {
        try {
          await call('volume remove', volume, (signal) => docker.getVolume(volume).remove({ abortSignal: signal }), options.removeTimeoutMs)
          break
        } catch (error) {
          const status = statusOf(error)
          if (status === 404) break
          // 409: still in use by the container whose removal the engine is finishing.
          if (status !== 409 || Date.now() > deadline) throw error
          await new Promise((resolve) => setTimeout(resolve, 250))
        }
      }
    },

    async observe (spec) {
      const info = await inspect(containerName(spec.subdomain))
      return info === undefined ? { state: 'missing' } : fromInspect(info)
    },

    readUsage,

    erpEndpoint: erp.endpoint,

    neutralize: erp.neutralize,

    runOneOff: erp.runOneOff,

    /** The container made again from the spec's image (a version upgrade), its named data volume kept; nothing when it runs that image already. */
    async changeImage (spec) {
      const name = containerName(spec.subdomain)
      const info = await settled(name)
      if (info !== undefined && info.Config.Image === String(containerConfig(spec, options).Image)) return
      if (info !== undefined) {
        try {
          await call('remove', name, (signal) => docker.getContainer(name).remove({ force: true, abortSignal: signal }), options.removeTimeoutMs)
        } catch (error) {
          const status = statusOf(error)
          if (status === 409) await waitUntil(name, false, 'remove')
          else if (status !== 404) throw error
        }
      }
      await create(spec, name)
      await waitUntil(name, true, 'create')
      await erp.ensureConfigured(spec)
    },

    async observeAll (tenantSubdomains) {
      const tenants = new Set(tenantSubdomains)
      const found = new Map<string, Observation>()
      const list = await call('list', 'containers', (signal) =>
        docker.listContainers({ all: true, filters: { label: [`${LABELS.managed}=true`] }, abortSignal: signal }))
      await Promise.all(list.map(async (entry) => {
        const subdomain = entry.Labels[LABELS.subdomain]
        if (subdomain === undefined || !tenants.has(entry.Labels[LABELS.tenant] ?? '')) return
        const seen = fromListEntry(entry) ?? await inspectListed(entry.Id)
        if (seen !== undefined) found.set(subdomain, seen)
      }))
      return found
    }
  }
}
