/**
 * Backups on Docker: pg_dump and pg_restore run in a one-off container from
 * BACKUP_IMAGE (`postgres:{pg_major}`: the client matches the database server),
 * and the filestore volume is copied through the engine's archive API, so the
 * control plane needs no PostgreSQL client of its own and no access to the
 * volume's folder. A database on the Docker host's loopback is reached over the
 * host's network; any other one over the instances' network.
 */
import { createReadStream, createWriteStream } from 'node:fs'
import { pipeline } from 'node:stream/promises'
import type Docker from 'dockerode'
import { BackendUnavailableError, type BackupRunner, type InstanceSpec } from '../backend.ts'
import { saveSingleFile, singleFileTar } from './backup-files.ts'
import { isHostLocal } from './container-config.ts'
import { DockerEngineError, type EngineCall } from './engine-calls.ts'
import { ensureImage } from './image.ts'
import { dataVolumeName, LABELS } from './names.ts'

export const PG_MAJOR_PLACEHOLDER = '{pg_major}'

export interface DockerBackupOptions {
  /** e.g. `postgres:{pg_major}` */
  imageTemplate: string
  network?: string
  /** Extra labels on the one-off containers. */
  labels: Record<string, string>
  pullTimeoutMs: number
  /** Bound on one dump or restore (default 6 h). */
  runTimeoutMs?: number
}

const DUMP_PATH = '/tmp/database.dump'
const DATA_PATH = '/data'

export function backupImageFor (template: string, pgMajor: number): string {
  return template.replaceAll(PG_MAJOR_PLACEHOLDER, String(pgMajor))
}

export function createDockerBackupRunner (docker: Docker, call: EngineCall, options: DockerBackupOptions): BackupRunner {
  const runTimeoutMs = options.runTimeoutMs ?? 6 * 3600_000

  function connection (spec: InstanceSpec): { host: string, network: string | undefined } {
    if (isHostLocal(spec.database.host)) return { host: '127.0.0.1', network: 'host' }
    return { host: spec.database.host, network: options.network }
  }

  async function oneOff (spec: InstanceSpec, pgMajor: number, purpose: string, config: Partial<Docker.ContainerCreateOptions>): Promise<Docker.Container> {
    const image = backupImageFor(options.imageTemplate, pgMajor)
    await ensureImage(docker, call, image, options.pullTimeoutMs)
    return call('create', `${purpose} of ${spec.subdomain}`, (signal) => docker.createContainer({
      Image: image,
      Labels: { ...options.labels, [LABELS.managed]: 'backup', [LABELS.instanceId]: spec.instanceId, [LABELS.subdomain]: spec.subdomain },
      ...config,
      abortSignal: signal
    } as Docker.ContainerCreateOptions))
  }

  /** Starts the container and waits for its exit; a non-zero exit is an error carrying its last log lines. */
  async function runToEnd (container: Docker.Container, what: string): Promise<void> {
    await call('start', what, (signal) => container.start({ abortSignal: signal }))
    const result = await call('wait', what, (signal) => container.wait({ abortSignal: signal }), runTimeoutMs) as { StatusCode: number }
    if (result.StatusCode !== 0) {
      const logs = await container.logs({ stdout: true, stderr: true, tail: 20 }) as unknown as Buffer
      // Multiplexed log frames: an 8-byte header before each chunk.
      const text = demux(logs).trim().slice(-800)
      throw new Error(`${what} exited with code ${result.StatusCode}${text === '' ? '' : `: ${text}`}`)
    }
  }

  async function removing<T> (container: Docker.Container, work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } finally {
      await container.remove({ force: true, v: false }).catch(() => {})
    }
  }

  function pgEnv (spec: InstanceSpec, host: string): string[] {
    return [`PGHOST=${host}`, `PGPORT=${spec.database.port}`, `PGUSER=${spec.database.user}`, `PGPASSWORD=${spec.database.password}`, `PGDATABASE=${spec.database.name}`]
  }

  function volumeConfig (spec: InstanceSpec, readOnly: boolean): Partial<Docker.ContainerCreateOptions> {
    return { HostConfig: { Mounts: [{ Type: 'volume', Source: dataVolumeName(spec.subdomain), Target: DATA_PATH, ReadOnly: readOnly }] } }
  }

  return {
    async check (pgMajor) {
      const image = backupImageFor(options.imageTemplate, pgMajor)
      try {
        await ensureImage(docker, call, image, options.pullTimeoutMs)
      } catch (error) {
        if (!(error instanceof DockerEngineError)) throw error
        throw new BackendUnavailableError('docker', `The backup image ${image} is not available in the Docker engine`,
          `pull or build ${image} on the Docker host (it must hold pg_dump and pg_restore ${pgMajor}), or set BACKUP_IMAGE`, { cause: error })
      }
    },

    async dumpDatabase (spec, pgMajor, file) {
      const { host, network } = connection(spec)
      const container = await oneOff(spec, pgMajor, 'pg_dump', {
        Cmd: ['pg_dump', '--format=custom', '--no-owner', '--file', DUMP_PATH],
        Env: pgEnv(spec, host),
        HostConfig: network === undefined ? {} : { NetworkMode: network }
      })
      await removing(container, async () => {
        await runToEnd(container, `pg_dump of ${spec.subdomain}`)
        const archive = await call('archive', DUMP_PATH, (signal) => container.getArchive({ path: DUMP_PATH, abortSignal: signal } as { path: string }))
        await saveSingleFile(archive, file)
      })
    },

    async exportFilestore (spec, pgMajor, file) {
      const container = await oneOff(spec, pgMajor, 'filestore export', { Cmd: ['true'], ...volumeConfig(spec, true) })
      await removing(container, async () => {
        const archive = await call('archive', DATA_PATH, (signal) => container.getArchive({ path: DATA_PATH, abortSignal: signal } as { path: string }))
        await pipeline(archive, createWriteStream(file))
      })
    },

    async restoreDatabase (spec, pgMajor, file) {
      const { host, network } = connection(spec)
      const container = await oneOff(spec, pgMajor, 'pg_restore', {
        Cmd: ['pg_restore', '--clean', '--if-exists', '--no-owner', '--no-privileges', '--single-transaction', '--exit-on-error', '--dbname', spec.database.name, DUMP_PATH],
        Env: pgEnv(spec, host),
        HostConfig: network === undefined ? {} : { NetworkMode: network }
      })
      await removing(container, async () => {
        const tar = await singleFileTar(file, DUMP_PATH.slice(1))
        await call('put archive', DUMP_PATH, (signal) => container.putArchive(tar, { path: '/', abortSignal: signal }), runTimeoutMs)
        await runToEnd(container, `pg_restore of ${spec.subdomain}`)
      })
    },

    async importFilestore (spec, pgMajor, file) {
      const container = await oneOff(spec, pgMajor, 'filestore import', {
        Cmd: ['sh', '-c', `cd ${DATA_PATH} && rm -rf -- * .[!.]* ..?*`],
        ...volumeConfig(spec, false)
      })
      await removing(container, async () => {
        await runToEnd(container, `emptying the filestore of ${spec.subdomain}`)
        await call('put archive', DATA_PATH, (signal) => container.putArchive(createReadStream(file), { path: '/', abortSignal: signal }), runTimeoutMs)
      })
    }
  }
}

/** The text of multiplexed log frames (an 8-byte header before each chunk). */
export function demux (buffer: Buffer): string {
  let text = ''
  let offset = 0
  while (offset + 8 <= buffer.length) {
    const size = buffer.readUInt32BE(offset + 4)
    text += buffer.subarray(offset + 8, offset + 8 + size).toString('utf8')
    offset += 8 + size
  }
  return offset === 0 ? buffer.toString('utf8') : text
}
