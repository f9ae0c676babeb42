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
import { BackendUnavailableError, type InstanceSpec } from '../backend.ts'
import { type BackupRunner } from '../backup-runner.ts'
import { saveSingleFile, singleFileTar, withoutSessions } from './backup-files.ts'
import { isHostLocal } from './container-config.ts'
import { DockerEngineError, type EngineCall } from './engine-calls.ts'
import { discardStaging, filestoreRename, prepareStaging, settleStep, stagingPath, swapStagedIn } from '../filestore-swap.ts'
import { COPY_IDENTITY_ENV, copyIdentityStep } from '../copy-identity.ts'
import { ensureImage } from './image.ts'
import { demuxFrames } from './logs.ts'
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
      Labels: { ...options.labels, [LABELS.managed]: 'backup', [LABELS.instanceId]: spec.instanceUid, [LABELS.subdomain]: spec.subdomain },
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
      const text = demuxFrames(logs).text.trim().slice(-800)
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

  /** Runs the shell `command` with the data volume at DATA_PATH; `after` works on the exited container before it is removed. */
  async function onVolume (spec: InstanceSpec, pgMajor: number, what: string, command: string, after?: (container: Docker.Container) => Promise<unknown>, env: Record<string, string> = {}): Promise<void> {
    const container = await oneOff(spec, pgMajor, 'filestore import', { Cmd: ['sh', '-c', command], Env: Object.entries(env).map(([k, v]) => `${k}=${v}`), ...volumeConfig(spec, false) })
    await removing(container, async () => {
      await runToEnd(container, `${what} of ${spec.subdomain}`)
      await after?.(container)
    })
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
        await pipeline(archive, withoutSessions(DATA_PATH.slice(1)), createWriteStream(file))
      })
    },

    async restoreDatabase (spec, pgMajor, file, copy) {
      const { host, network } = connection(spec)
      const container = await oneOff(spec, pgMajor, 'pg_restore', {
        Cmd: ['sh', '-c', `pg_restore --clean --if-exists --no-owner --no-privileges --single-transaction --exit-on-error --dbname "$PGDATABASE" ${DUMP_PATH} || exit 1\n${copyIdentityStep('"$PGDATABASE"')}`],
        Env: [...pgEnv(spec, host), ...Object.entries(copy === undefined ? {} : COPY_IDENTITY_ENV).map(([k, v]) => `${k}=${v}`)],
        HostConfig: network === undefined ? {} : { NetworkMode: network }
      })
      await removing(container, async () => {
        const tar = await singleFileTar(file, DUMP_PATH.slice(1))
        await call('put archive', DUMP_PATH, (signal) => container.putArchive(tar, { path: '/', abortSignal: signal }), runTimeoutMs)
        await runToEnd(container, `pg_restore of ${spec.subdomain}`)
      })
    },

    async sweep (olderThanMs) {
      // Every one-off container is removed when its work ends; only a killed process leaves one.
      const filters = { label: [`${LABELS.managed}=backup`, ...Object.entries(options.labels).map(([k, v]) => `${k}=${v}`)] }
      const listed = await call('list', 'backup containers', (signal) => docker.listContainers({ all: true, filters, abortSignal: signal } as Docker.ContainerListOptions))
      const cutoff = (Date.now() - olderThanMs) / 1000
      let removed = 0
      for (const info of listed.filter((c) => c.Created <= cutoff)) {
        try {
          await call('remove', info.Id, (signal) => docker.getContainer(info.Id).remove({ force: true, v: false, abortSignal: signal } as Docker.ContainerRemoveOptions))
          removed++
        } catch (error) {
          if (!(error instanceof DockerEngineError && error.statusCode === 404)) throw error // gone meanwhile
        }
      }
      return removed
    },

    async importFilestore (spec, pgMajor, file, copy) {
      const into = stagingPath(DATA_PATH)
      try {
        await onVolume(spec, pgMajor, 'preparing the filestore restore', prepareStaging(DATA_PATH), (container) =>
          call('put archive', into, (signal) => container.putArchive(createReadStream(file), { path: into, abortSignal: signal }), runTimeoutMs))
      } catch (error) {
        // The unpack's error is the one to report; staging left by a failed discard goes with the next attempt's preparation.
        await onVolume(spec, pgMajor, 'discarding the staged filestore', discardStaging(DATA_PATH)).catch(() => {})
        throw error
      }
      const rename = copy === undefined ? {} : filestoreRename(copy.sourceDatabase, spec.database.name)
      await onVolume(spec, pgMajor, 'swapping in the restored filestore', swapStagedIn(DATA_PATH), undefined, rename)
    },

    async settleFilestore (spec, pgMajor, keep) {
      await onVolume(spec, pgMajor, keep === 'restored' ? 'dropping the replaced filestore' : 'putting the replaced filestore back', settleStep(DATA_PATH, keep))
    }
  }
}
