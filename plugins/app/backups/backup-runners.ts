import { BackendUnavailableError } from '../../../provisioning/backend.ts'
import { type BackupRunner, type ClusterBackupRunner } from '../../../provisioning/backup-runner.ts'
import type { BackendRegistry } from '../instances/backend-registry.ts'
import type { Instance } from '../instances/instance.entity.ts'
import { platformNotReadyMessage, withOperatorDetail } from '../instances/platform-refusals.ts'
import { BackupUnavailable } from './backups.errors.ts'

/** 503 BACKUP_UNAVAILABLE in the tenant's words; the operator's reason and hint go to the log with the request. */
export function backupsNotReady (backend: string | undefined, reason: string, hint?: string) {
  return withOperatorDetail(BackupUnavailable(platformNotReadyMessage('Backups'), backend === undefined ? undefined : { backend }), { reason, hint })
}

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
      throw BackupUnavailable(`Backups of instances on ${instance.backend} are not offered yet`, { backend: instance.backend })
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

    /** 503 when a backup of `instance` can only fail: the tenant reads that the platform is not ready, the log names the missing piece (runner, client image, engine). */
    async ready (instance: Pick<Instance, 'backend'>): Promise<{ runner: BackupRunner | ClusterBackupRunner, pgMajor: number }> {
      const runner = clusterRunnerOf(instance) ?? runnerOf(instance)
      const pgMajor = await serverMajor().catch((error: unknown) => {
        throw backupsNotReady(undefined, `The ERP database server does not answer: ${(error as Error).message}`)
      })
      try {
        await runner.check(pgMajor)
      } catch (error) {
        if (error instanceof BackendUnavailableError) throw backupsNotReady(instance.backend, error.message, error.hint)
        throw error
      }
      return { runner, pgMajor }
    }
  }
}

export type BackupRunners = ReturnType<typeof createBackupRunners>
