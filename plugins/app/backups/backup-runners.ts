import { BackendUnavailableError } from '../../../provisioning/backend.ts'
import { type BackupRunner, type ClusterBackupRunner } from '../../../provisioning/backup-runner.ts'
import type { BackendRegistry } from '../instances/backend-registry.ts'
import type { Instance } from '../instances/instance.entity.ts'
import { BackupUnavailable } from './backups.errors.ts'

/** The backup runner of an instance's backend, and the database server's major version it must match. */
export function createBackupRunners ({ backends, serverMajor }: { backends: BackendRegistry, serverMajor: () => Promise<number> }) {
  /** The runner whose archives stay where the instance runs (a Kubernetes Job), if the backend has one. */
  function clusterRunnerOf (instance: Pick<Instance, 'backend'>): ClusterBackupRunner | undefined {
    return backends.get(instance.backend).clusterBackups
  }

  /** The same, or undefined when the backend is not enabled or configured here: nothing here can then reach the cluster. */
  function clusterRunnerHere (instance: Pick<Instance, 'backend'>): ClusterBackupRunner | undefined {
    return backends.find(instance.backend)?.clusterBackups
  }

  function runnerOf (instance: Pick<Instance, 'backend'>): BackupRunner {
    const runner = backends.get(instance.backend).backups
    if (runner === undefined) {
      throw BackupUnavailable(`Backups of ${instance.backend} instances cannot run here: the ${instance.backend} backend has no backup runner yet`,
        { backend: instance.backend, missing: `${instance.backend} backup runner` })
    }
    return runner
  }

  return {
    runnerOf,
    clusterRunnerOf,
    clusterRunnerHere,
    serverMajor,

    /** Removes what killed backup attempts (one-off containers older than `olderThanMs`) and downloads (ended reader pods) left on every backend. */
    async sweep (olderThanMs: number): Promise<number> {
      let removed = 0
      for (const backend of backends.all()) {
        removed += await backend.backups?.sweep?.(olderThanMs) ?? 0
        removed += await backend.clusterBackups?.sweep?.() ?? 0
      }
      return removed
    },

    /** 503 naming the missing piece (runner, client image, engine) when a backup of `instance` can only fail. */
    async ready (instance: Pick<Instance, 'backend'>): Promise<{ runner: BackupRunner | ClusterBackupRunner, pgMajor: number }> {
      const runner = clusterRunnerOf(instance) ?? runnerOf(instance)
      const pgMajor = await serverMajor().catch((error: unknown) => {
        throw BackupUnavailable(`The ERP database server does not answer: ${(error as Error).message}`, { missing: 'database server' })
      })
      try {
        await runner.check(pgMajor)
      } catch (error) {
        if (error instanceof BackendUnavailableError) throw BackupUnavailable(`${error.message}: ${error.hint}`, { backend: instance.backend, hint: error.hint })
        throw error
      }
      return { runner, pgMajor }
    }
  }
}

export type BackupRunners = ReturnType<typeof createBackupRunners>
