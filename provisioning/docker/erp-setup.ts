/**
 * The ERP's first start on Docker: the server's configuration file put into the container before
 * it starts, and the one-off `odoo -d <db> -i base --stop-after-init` in a container of the same
 * image, volumes and network that runs to its end before the long-running one starts.
 */
import type Docker from 'dockerode'
import { extract, pack } from 'tar-stream'
import type { InstanceRef, InstanceSpec } from '../backend.ts'
import { OneOffFailedError, type OneOffRun } from '../one-off-run.ts'
import { ensureImage } from './image.ts'
import { ERP_CONFIG_PATH, erpInitialiseCommand, erpNeutralizeCommand, erpServerConfig } from '../erp/server-config.ts'
import { demuxFrames } from './logs.ts'
import { containerConfig } from './container-config.ts'
import { createContainerLookups } from './container-lookups.ts'
import { DockerEngineError, statusOf, type EngineCall } from './engine-calls.ts'
import { containerName, ERP_PORT, LABELS } from './names.ts'
import type { ResolvedOptions } from './options.ts'

export function createDockerErpSetup (docker: Docker, call: EngineCall, options: ResolvedOptions & { initTimeoutMs: number }) {
  const lookups = createContainerLookups(docker, call, options)
  function configText (spec: InstanceSpec): string {
    if (spec.erp === undefined) throw new TypeError('spec.erp is required for the ERP configuration')
    return erpServerConfig({ masterPassword: spec.erp.masterPassword, database: spec.database.name, addonsPath: options.addonsMountPath, dataDir: options.dataMountPath })
  }

  function configArchive (spec: InstanceSpec): NodeJS.ReadableStream {
    const text = configText(spec)
    const tar = pack()
    // Readable by the image's unprivileged ERP user; the container holds nothing else that reads it.
    tar.entry({ name: ERP_CONFIG_PATH.slice(1), mode: 0o644, uid: 0, gid: 0 }, text)
    tar.finalize()
    return tar as unknown as NodeJS.ReadableStream
  }

  async function putConfig (container: Docker.Container, spec: InstanceSpec, what: string): Promise<void> {
    await call('put archive', what, (signal) => container.putArchive(configArchive(spec), { path: '/', abortSignal: signal }))
  }

  /** Removes the container, or waits for a removal already in progress (409) to end. */
  async function removeIfThere (name: string): Promise<void> {
    const deadline = Date.now() + options.removeTimeoutMs
    try {
      await call('remove', name, (signal) => docker.getContainer(name).remove({ force: true, abortSignal: signal }), options.removeTimeoutMs)
    } catch (error) {
      if (statusOf(error) === 404) return
      if (statusOf(error) !== 409) throw error
    }
    while (await call('inspect', name, (signal) => docker.getContainer(name).inspect({ abortSignal: signal })).then(() => true, (error: unknown) => {
      if (statusOf(error) === 404) return false
      throw error
    })) {
      if (Date.now() > deadline) throw new DockerEngineError('remove', name, `${name} is still being removed after ${options.removeTimeoutMs} ms`, 409)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }

  /** The configuration file as the container holds it now; undefined when it has none. */
  async function readConfig (container: Docker.Container, what: string): Promise<string | undefined> {
    let archive: NodeJS.ReadableStream
    try {
      archive = await call('get archive', what, (signal) => container.getArchive({ path: ERP_CONFIG_PATH, abortSignal: signal }))
    } catch (error) {
      if (statusOf(error) === 404) return undefined
      throw error
    }
    return await new Promise<string | undefined>((resolve, reject) => {
      const entries = extract()
      let text: string | undefined
      entries.on('entry', (header, stream, next) => {
        const chunks: Buffer[] = []
        stream.on('data', (chunk: unknown) => chunks.push(chunk as Buffer))
        stream.on('end', () => {
          if (header.type === 'file') text ??= Buffer.concat(chunks).toString('utf8')
          next()
        })
        stream.resume()
      })
      entries.on('finish', () => resolve(text))
      entries.on('error', reject)
      archive.on('error', reject)
      archive.pipe(entries)
    })
  }

  /**
   * What an earlier or concurrent attempt left under the init container's name: a run under way
   * is followed to its end (its outcome is ours); a container made but never started (its create
   * timed out while the engine went on) is this very container, used rather than made again,
   * which on a slow engine would time out the same way; one that ran and was not removed goes.
   */
  async function leftover (name: string): Promise<Docker.Container | 'succeeded' | undefined> {
    const info = await lookups.settled(name)
    if (info === undefined) return undefined
    const container = docker.getContainer(name)
    if (info.State.Running) {
      const result = await call('wait', name, (signal) => container.wait({ abortSignal: signal }), options.initTimeoutMs).catch(() => undefined) as { StatusCode: number } | undefined
      if (result?.StatusCode === 0) return 'succeeded'
      throw new DockerEngineError('initialise', name, 'a concurrent run of the ERP\'s database initialisation did not succeed (or could not be followed): this attempt is retried', 409)
    }
    if (info.State.Status === 'created') return container
    await removeIfThere(name)
    return undefined
  }

  /**
   * Runs `run.command` to its end in a one-off container `erp-<subdomain>-<run.name>` of the
   * instance's image (or `run.image`), with its environment (the database connection), volumes,
   * network and server configuration; removed afterwards. The end of its output, or `fail`'s error.
   */
  async function runOneOff (spec: InstanceSpec, run: OneOffRun, fail: (name: string, code: number, logs: string) => Error): Promise<{ output: string }> {
    const name = `${containerName(spec.subdomain)}-${run.name}`
    const base = containerConfig(spec, options)
    const host = base.HostConfig ?? {}
    const image = run.image ?? String(base.Image)
    await removeIfThere(name)
    if (run.image !== undefined) await ensureImage(docker, call, image, options.pullTimeoutMs)
    const container = await call('create', name, (signal) => docker.createContainer({
      name,
      Image: image,
      Env: base.Env,
      Cmd: run.command,
      Labels: { ...options.labels, [LABELS.managed]: run.name, [LABELS.instanceId]: spec.instanceUid, [LABELS.subdomain]: spec.subdomain },
      HostConfig: { Binds: host.Binds, Mounts: host.Mounts, ExtraHosts: host.ExtraHosts, NetworkMode: host.NetworkMode, Memory: host.Memory, NanoCpus: host.NanoCpus },
      abortSignal: signal
    } as Docker.ContainerCreateOptions), options.createTimeoutMs)
    try {
      if (spec.erp !== undefined) await putConfig(container, spec, name)
      await call('start', name, (signal) => container.start({ abortSignal: signal }))
      const result = await call('wait', name, (signal) => container.wait({ abortSignal: signal }), run.timeoutMs ?? options.initTimeoutMs) as { StatusCode: number }
      const logs = demuxFrames(await container.logs({ stdout: true, stderr: true, tail: run.tailLines ?? 20 }) as unknown as Buffer).text
      if (result.StatusCode !== 0) throw fail(name, result.StatusCode, logs)
      return { output: logs }
    } finally {
      await container.remove({ force: true }).catch(() => {})
    }
  }

  return {
    /**
     * Makes sure the container holds this instance's odoo.conf (master password, list_db = False,
     * dbfilter): read back, written when missing or different, then read back again. Returns
     * whether it was written (a running ERP must then be restarted to read it). Throws when the
     * file cannot be proven in place: such an ERP must not be started. Nothing without `spec.erp`.
     */
    async ensureConfigured (spec: InstanceSpec): Promise<boolean> {
      if (spec.erp === undefined) return false
      const name = containerName(spec.subdomain)
      const container = docker.getContainer(name)
      const wanted = configText(spec)
      if (await readConfig(container, name) === wanted) return false
      await putConfig(container, spec, name)
      const found = await readConfig(container, name)
      if (found !== wanted) {
        throw new DockerEngineError('configure', name, `the ERP server configuration of ${name} (${ERP_CONFIG_PATH}) could not be proven in place after writing it (${found === undefined ? 'missing' : 'different'}): the ERP is not started`, 500)
      }
      return true
    },

    /**
     * Runs the database initialisation to its end. A run already under way (another replica's
     * job) is waited for instead of started twice, and what an earlier attempt left is used or
     * replaced (see `leftover`). A
     * non-zero exit is an error with the last log lines. Running it again on an initialised
     * database only updates `base`, so a retry after a crash is safe.
     */
    async initialise (spec: InstanceSpec): Promise<void> {
      if (spec.erp?.initialise !== true) return
      const name = `${containerName(spec.subdomain)}-init`
      const base = containerConfig(spec, options)
      const host = base.HostConfig ?? {}
      const create = async (): Promise<Docker.Container> => call('create', name, (signal) => docker.createContainer({
        name,
        Image: base.Image,
        Env: base.Env,
        Cmd: erpInitialiseCommand(spec.database.name),
        Labels: { ...options.labels, [LABELS.managed]: 'init', [LABELS.instanceId]: spec.instanceUid, [LABELS.subdomain]: spec.subdomain },
        HostConfig: { Binds: host.Binds, Mounts: host.Mounts, ExtraHosts: host.ExtraHosts, NetworkMode: host.NetworkMode, Memory: host.Memory, NanoCpus: host.NanoCpus },
        abortSignal: signal
      } as Docker.ContainerCreateOptions), options.createTimeoutMs)
      let found = await leftover(name)
      if (found === undefined) {
        try {
          found = await create()
        } catch (error) {
          if (statusOf(error) !== 409) throw error
          // Another create holds the name: a racing attempt's, or one that timed out while the
          // engine still makes the container (tens of seconds on a slow engine): waited for.
          await lookups.waitUntil(name, true, 'create')
          found = await leftover(name) ?? await create()
        }
      }
      if (found === 'succeeded') return
      const container = found
      try {
        await putConfig(container, spec, name)
        await call('start', name, (signal) => container.start({ abortSignal: signal })).catch((error: unknown) => {
          // 304: a concurrent attempt that found the same container started it first; its run is ours to wait for.
          if (statusOf(error) !== 304) throw error
        })
        const result = await call('wait', name, (signal) => container.wait({ abortSignal: signal }), options.initTimeoutMs) as { StatusCode: number }
        if (result.StatusCode !== 0) {
          const logs = demuxFrames(await container.logs({ stdout: true, stderr: true, tail: 20 }) as unknown as Buffer).text
          throw new DockerEngineError('initialise', name, `the ERP's database initialisation exited with code ${result.StatusCode}: ${logs.trim().slice(-800)}`, 500)
        }
      } finally {
        await container.remove({ force: true }).catch(() => {})
      }
    },

    /**
     * Runs `odoo neutralize -d <db>` to its end in a one-off container of the instance's image
     * (`runOneOff`). What an earlier attempt left under the name is removed first: neutralizing
     * twice is harmless. A non-zero exit is an error with the last log lines.
     */
    async neutralize (spec: InstanceSpec): Promise<void> {
      await runOneOff(spec, { name: 'neutralize', command: erpNeutralizeCommand(spec.database.name), what: 'neutralization' }, (name, code, logs) =>
        new DockerEngineError('neutralize', name, `the ERP's neutralization exited with code ${code}: ${logs.trim().slice(-800)}`, 500))
    },

    /** One ERP command line run to its end beside the instance (ProvisioningBackend.runOneOff). */
    async runOneOff (spec: InstanceSpec, run: OneOffRun): Promise<{ output: string }> {
      return runOneOff(spec, run, (name, code, logs) => new OneOffFailedError(`The ERP's ${run.what} (${name}) exited with code ${code}: ${logs.trim().slice(-800)}`, logs))
    },

    /** `http://<container address on its network>:8069` while the container runs. */
    async endpoint (ref: InstanceRef): Promise<string | undefined> {
      const name = containerName(ref.subdomain)
      let info: Docker.ContainerInspectInfo
      try {
        info = await call('inspect', name, (signal) => docker.getContainer(name).inspect({ abortSignal: signal }))
      } catch (error) {
        if (statusOf(error) === 404) return undefined
        throw error
      }
      if (!info.State.Running) return undefined
      const networks = info.NetworkSettings.Networks
      const address = (options.network === undefined ? undefined : networks[options.network]?.IPAddress) ??
        networks.bridge?.IPAddress ?? Object.values(networks).map((n) => n.IPAddress).find((ip) => ip !== '')
      if (address === undefined || address === '') return undefined
      return `http://${address.includes(':') ? `[${address}]` : address}:${ERP_PORT}`
    }
  }
}
