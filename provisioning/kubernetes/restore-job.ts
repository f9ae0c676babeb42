/**
 * Restores on Kubernetes: one Job in the tenant namespace, from BACKUP_IMAGE, with the instance's
 * database Secret as its environment, the tenant's backup claim mounted read-only and the
 * instance's data claim mounted to write on; it runs RESTORE_SCRIPT (restore-script.ts). The
 * instance is stopped meanwhile, so the data claim (ReadWriteOnce) is free wherever the Job's pod
 * lands: the Job needs no affinity to a node.
 */
import { type InstanceSpec } from '../backend.ts'
import { ArchiveCorruptError, type RestoreAsCopy } from '../backup-runner.ts'
import { COPY_IDENTITY_ENV } from '../copy-identity.ts'
import { filestoreRename } from '../filestore-swap.ts'
import type { JobSpec } from './jobs.ts'
import { dataClaimOf, dbSecretOf, namespaceOf } from './names.ts'
import { OneOffFailedError } from '../one-off-run.ts'
import { lastLine } from './run-job.ts'
import { DATA_PATH, parseRestoreResult, RESTORE_MARK, RESTORE_SCRIPT } from './restore-script.ts'

export interface RestoreRequest { backupId: number, key: string, sha256: string, database: string, copy?: RestoreAsCopy }

export interface RestoreJobContext {
  image: string
  labels: Record<string, string>
  /** Where the archive is, as the Job sees the backup claim. */
  archivePath: string
  backupClaim: string
  backupsPath: string
  resources: JobSpec['resources']
  activeDeadlineSeconds: number
}

/** One Job per backup and target instance: a retry adopts it, two restores of one backup do not share it. */
export const restoreJobOf = (backupId: number, instanceUid: string): string => `erp-restore-${backupId}-${instanceUid.slice(0, 8)}`

/** The Job that settles an instance's filestore after its restore (one restore of an instance runs at a time). */
export const settleJobOf = (instanceUid: string, keep: 'restored' | 'replaced'): string => `erp-restore-keep-${keep}-${instanceUid.slice(0, 8)}`

/** A copy's Job (`request.copy`) renames the filestore after `spec.database.name`, the instance's own database. */
export function restoreJobSpec (spec: Pick<InstanceSpec, 'instanceUid' | 'tenantSubdomain' | 'subdomain' | 'database'>, request: RestoreRequest, context: RestoreJobContext): JobSpec {
  const copy = request.copy === undefined ? {} : { ...filestoreRename(request.copy.sourceDatabase, spec.database.name), ...COPY_IDENTITY_ENV }
  return {
    namespace: namespaceOf(spec.tenantSubdomain),
    name: restoreJobOf(request.backupId, spec.instanceUid),
    labels: context.labels,
    image: context.image,
    command: ['sh', '-c', RESTORE_SCRIPT],
    env: { ARCHIVE: context.archivePath, EXPECTED_SHA256: request.sha256, RESTORE_DATABASE: request.database, ...copy },
    envFromSecrets: [dbSecretOf(spec.subdomain)],
    volumes: [
      { claim: context.backupClaim, mountPath: context.backupsPath, readOnly: true },
      { claim: dataClaimOf(spec.subdomain), mountPath: DATA_PATH }
    ],
    resources: context.resources,
    activeDeadlineSeconds: context.activeDeadlineSeconds
  }
}

/** Runs the restore Job and reads its result line: ArchiveCorruptError when it refused the archive, an Error with its last log line when it failed otherwise. */
export async function runRestoreJob (runJob: (job: JobSpec) => Promise<string>, job: JobSpec): Promise<void> {
  let log: string
  try {
    log = await runJob(job)
  } catch (error) {
    if (!(error instanceof OneOffFailedError)) throw error
    const result = parseRestoreResult(error.output)
    if (result?.state === 'corrupt') throw new ArchiveCorruptError(`The backup's archive is corrupt: ${result.message}; nothing was changed`)
    const line = lastLine(error.output)
    throw new Error(line === '' ? error.message : `The restore Job failed: ${line}`, { cause: error })
  }
  if (parseRestoreResult(log)?.state !== 'ok') throw new Error(`The ${job.name} Job completed without reporting its result (${RESTORE_MARK} line missing from its log)`)
}
