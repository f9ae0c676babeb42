/**
 * Backups on Kubernetes: the whole archive is made by one Job in the tenant namespace, from
 * BACKUP_IMAGE (`postgres:{pg_major}`), with the instance's database Secret as its environment,
 * its data claim mounted read-only, and the tenant's backup claim (`backups-<tenant>`) mounted
 * to write the archive on. The archive stays on that claim: the control plane mounts no tenant
 * volume, so a restore is a Job too (restore-job.ts), and a download reads the archive through a
 * short-lived reader pod (archive-reader.ts; see docs/backups.md).
 *
 * The script builds the same archive as the Docker path (manifest.json, database.dump,
 * filestore.tar with entries under data/, the ERP's web sessions left out: each top-level entry
 * of the claim but `sessions`, as busybox's tar has no --exclude), writes it under a temporary name, renames it into
 * place, and prints its size and SHA-256 as its last log line, which the control plane records.
 */
import type { V1PersistentVolumeClaim } from '@kubernetes/client-node'
import type { InstanceSpec } from '../backend.ts'
import type { ClusterBackupRunner } from '../backup-runner.ts'
import { createArchiveReader, type ArchiveReaderOptions } from './archive-reader.ts'
import { besidePods } from './claim-affinity.ts'
import { ensureClaim } from './claims.ts'
import type { JobSpec, KubeJobs } from './jobs.ts'
import type { KubeApi } from './kube-api.ts'
import { dataClaimOf, dbSecretOf, LABEL, MANAGED_BY, namespaceOf, selectorLabels } from './names.ts'
import { createJobRunner } from './run-job.ts'
import { restoreJobSpec, runRestoreJob, settleJobOf } from './restore-job.ts'
import { DATA_PATH } from './restore-script.ts'
import { SESSIONS, settleStep } from '../filestore-swap.ts'

export const RESULT_MARK = 'ERP-BACKUP-RESULT'
/** The backup pod's limits; the tenant quota has this much room beyond the plan (tenant-manifests.ts). */
export const BACKUP_JOB_LIMITS = { memoryMb: 512, cpuMillicores: 500 }
const BACKUPS_PATH = '/backups'
/** A Job that only moves or removes files. */
const FILE_JOB_RESOURCES = { requests: { memory: '32Mi', cpu: '50m' }, limits: { memory: '64Mi', cpu: '100m' } }

export interface KubernetesBackupOptions {
  /** `postgres:{pg_major}` */
  imageTemplate: string
  storageClass: string | undefined
  /** Size of the per-tenant backup claim (ReadWriteOnce, mounted by one Job at a time). */
  claimGb: number
  fieldManager: string
  /** Bound of one backup: the Job's activeDeadlineSeconds, and how long the control plane waits. */
  timeoutMs: number
  pollMs: number
  /** How downloads read archives off the claim (archive-reader.ts); their deadline is timeoutMs too. */
  reader: Omit<ArchiveReaderOptions, 'claimOf' | 'deadlineSeconds'>
}

export const backupClaimOf = (tenantSubdomain: string): string => `backups-${tenantSubdomain}`
export const backupJobOf = (backupId: number, purpose = 'backup'): string => `erp-${purpose}-${backupId}`

/** The location recorded as the backup's archive key: `kubernetes:<claim>/<path on the claim>`. */
export const clusterKey = (tenantSubdomain: string, path: string): string => `kubernetes:${backupClaimOf(tenantSubdomain)}/${path}`
export const isClusterKey = (key: string): boolean => key.startsWith('kubernetes:')

/**
 * The Job's script. MANIFEST_HEAD is the manifest without its `parts` and closing brace; the
 * Secret's keys (HOST, PORT, USER, PASSWORD, ERP_DATABASE) become libpq's variables.
 */
export const BACKUP_SCRIPT = `set -eu
export PGHOST="$HOST" PGPORT="$PORT" PGUSER="$USER" PGPASSWORD="$PASSWORD" PGDATABASE="$ERP_DATABASE"
work="${BACKUPS_PATH}/.work-$BACKUP_ID"
rm -rf "$work" && mkdir -p "$work" "$(dirname "$ARCHIVE")"
pg_dump --format=custom --no-owner --file "$work/database.dump"
cd /
set --
for f in data/* data/.[!.]* data/..?*; do
  if [ "$f" != data/${SESSIONS} ] && { [ -e "$f" ] || [ -L "$f" ]; }; then set -- "$@" "$f"; fi
done
if [ $# = 0 ]; then tar --no-recursion -cf "$work/filestore.tar" data; else tar -cf "$work/filestore.tar" "$@"; fi
part () { printf '{"name":"%s","bytes":%s,"sha256":"%s"}' "$1" "$(wc -c < "$work/$1" | tr -d ' ')" "$(sha256sum "$work/$1" | cut -d' ' -f1)"; }
printf '%s,"parts":[%s,%s]}\\n' "$MANIFEST_HEAD" "$(part database.dump)" "$(part filestore.tar)" > "$work/manifest.json"
tar -C "$work" -cf "$ARCHIVE.partial" manifest.json database.dump filestore.tar
mv "$ARCHIVE.partial" "$ARCHIVE"
rm -rf "$work"
echo "${RESULT_MARK} $(wc -c < "$ARCHIVE" | tr -d ' ') $(sha256sum "$ARCHIVE" | cut -d' ' -f1)"
`

export function backupClaimManifest (tenantSubdomain: string, options: Pick<KubernetesBackupOptions, 'claimGb' | 'storageClass'>): V1PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: backupClaimOf(tenantSubdomain), namespace: namespaceOf(tenantSubdomain), labels: { [LABEL.managedBy]: MANAGED_BY, [LABEL.tenant]: tenantSubdomain } },
    spec: {
      accessModes: ['ReadWriteOnce'],
      ...(options.storageClass === undefined ? {} : { storageClassName: options.storageClass }),
      resources: { requests: { storage: `${options.claimGb}Gi` } }
    }
  }
}

/** `ERP-BACKUP-RESULT <bytes> <sha256>` from the Job's log, or undefined. */
export function parseResult (log: string): { bytes: number, sha256: string } | undefined {
  const match = new RegExp(`^${RESULT_MARK} (\\d+) ([0-9a-f]{64})$`, 'm').exec(log)
  return match === null ? undefined : { bytes: Number(match[1]), sha256: match[2] ?? '' }
}

export function createKubernetesBackupRunner (api: KubeApi, jobs: KubeJobs, options: KubernetesBackupOptions): ClusterBackupRunner {
  const image = (pgMajor: number): string => options.imageTemplate.replaceAll('{pg_major}', String(pgMajor))
  type Where = Pick<InstanceSpec, 'instanceUid' | 'tenantSubdomain' | 'subdomain'>
  const labels = (spec: Where, purpose: string): Record<string, string> => ({
    [LABEL.managedBy]: MANAGED_BY, [LABEL.instanceId]: spec.instanceUid, [LABEL.tenant]: spec.tenantSubdomain, 'erp.portal/purpose': purpose
  })

  const runJob = createJobRunner(jobs, options)
  const reader = createArchiveReader(api, { ...options.reader, claimOf: backupClaimOf, deadlineSeconds: Math.ceil(options.timeoutMs / 1000) })
  const jobResources = { requests: { memory: '256Mi', cpu: '250m' }, limits: { memory: `${BACKUP_JOB_LIMITS.memoryMb}Mi`, cpu: `${BACKUP_JOB_LIMITS.cpuMillicores}m` } }
  /**
   * The backup pod mounts the instance's data claim, ReadWriteOnce: while an instance pod has it
   * attached, only a pod on that pod's node can mount it too (claim-affinity.ts).
   */
  const besideInstance = (spec: Where): Promise<Pick<JobSpec, 'affinity'>> =>
    besidePods(api, namespaceOf(spec.tenantSubdomain), { matchLabels: selectorLabels(spec.subdomain) })

  /** Where an archive key of this tenant is, as a Job mounting the backup claim sees it. */
  function pathOnClaim (spec: Where, key: string): string {
    const prefix = clusterKey(spec.tenantSubdomain, '')
    if (!key.startsWith(prefix) || key.includes('..')) throw new TypeError(`backup key ${JSON.stringify(key)} is not on the backup claim of ${spec.tenantSubdomain}`)
    return `${BACKUPS_PATH}/${key.slice(prefix.length)}`
  }

  return {
    async check () {}, // The image is pulled by the cluster; nothing to ask before the Job runs.

    async archive (spec, pgMajor, request) {
      await ensureClaim(api, backupClaimManifest(spec.tenantSubdomain, options), options.fieldManager)
      const path = `${spec.instanceUid}/backup-${request.backupId}.tar`
      const name = backupJobOf(request.backupId)
      const head = JSON.stringify(request.manifest).replace(/}$/, '')
      const log = await runJob({
        namespace: namespaceOf(spec.tenantSubdomain),
        name,
        labels: labels(spec, 'backup'),
        ...await besideInstance(spec),
        image: image(pgMajor),
        command: ['sh', '-c', BACKUP_SCRIPT],
        env: { BACKUP_ID: String(request.backupId), ARCHIVE: `${BACKUPS_PATH}/${path}`, MANIFEST_HEAD: head },
        envFromSecrets: [dbSecretOf(spec.subdomain)],
        volumes: [
          { claim: dataClaimOf(spec.subdomain), mountPath: '/data', readOnly: true },
          { claim: backupClaimOf(spec.tenantSubdomain), mountPath: BACKUPS_PATH }
        ],
        resources: jobResources,
        activeDeadlineSeconds: Math.ceil(options.timeoutMs / 1000)
      })
      const result = parseResult(log)
      if (result === undefined) throw new Error(`The backup Job of ${spec.subdomain} completed without reporting its archive (${RESULT_MARK} line missing from its log)`)
      return { key: clusterKey(spec.tenantSubdomain, path), ...result }
    },

    async restore (spec, pgMajor, request) {
      await runRestoreJob(runJob, restoreJobSpec(spec, request, {
        image: image(pgMajor),
        labels: labels(spec, 'restore'),
        archivePath: pathOnClaim(spec, request.key),
        backupClaim: backupClaimOf(spec.tenantSubdomain),
        backupsPath: BACKUPS_PATH,
        resources: jobResources,
        activeDeadlineSeconds: Math.ceil(options.timeoutMs / 1000)
      }))
    },

    async settleFilestore (spec, pgMajor, keep) {
      await runJob({
        namespace: namespaceOf(spec.tenantSubdomain),
        name: settleJobOf(spec.instanceUid, keep),
        labels: labels(spec, 'restore-settle'),
        image: image(pgMajor),
        command: ['sh', '-c', settleStep(DATA_PATH, keep)],
        volumes: [{ claim: dataClaimOf(spec.subdomain), mountPath: DATA_PATH }],
        resources: FILE_JOB_RESOURCES,
        activeDeadlineSeconds: 600
      })
    },

    openArchive: (spec, key, read) => reader.open(spec, key, read),
    sweep: () => reader.sweep(),

    async removeArchive (spec, pgMajor, key) {
      const path = pathOnClaim(spec, key)
      const name = backupJobOf(Number(/backup-(\d+)\.tar$/.exec(key)?.[1] ?? 0), 'backup-rm')
      await runJob({
        namespace: namespaceOf(spec.tenantSubdomain),
        name,
        labels: labels(spec, 'backup-removal'),
        image: image(pgMajor),
        command: ['rm', '-f', path, `${path}.partial`],
        volumes: [{ claim: backupClaimOf(spec.tenantSubdomain), mountPath: BACKUPS_PATH }],
        resources: FILE_JOB_RESOURCES,
        activeDeadlineSeconds: 600
      })
    }
  }
}
