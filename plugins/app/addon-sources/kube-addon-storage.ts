/**
 * The Kubernetes addons storage: a sync (or a removal) runs as a Job in the tenant's namespace
 * that mounts the claim `addons-<tenant>`; the portal never mounts tenant volumes. The portal
 * has resolved and checked the repository's host already: the Job is given that address
 * (curl's resolve list, or the ssh address), never a name to resolve again. A credential goes
 * into a Secret made for the Job, owned by it and deleted with it; the Job's spec only names that Secret.
 */
import { randomBytes } from 'node:crypto'
import type { JobSpec, KubeJobs } from '../../../provisioning/kubernetes/jobs.ts'
import { addonsClaimOf, LABEL, MANAGED_BY, namespaceOf } from '../../../provisioning/kubernetes/names.ts'
import { manifestModule, type FoundModule } from './addon-checkout.ts'
import type { AddonStorage, SyncOutcome, SyncRequest } from './addon-storage.ts'
import { explainGitFailure } from './git-fetch.ts'
import { GitError } from './git-run.ts'
import { SYNC_SCRIPT } from './kube-sync-script.ts'

export interface KubeAddonStorageOptions {
  /** The backend's Jobs; a function, because the backend may be set up (or not) after this. */
  jobs: () => KubeJobs
  /** A git-capable image with a POSIX shell (ADDON_SYNC_IMAGE). */
  image: string
  /** How long a Job may run; the portal stops waiting then too. */
  timeoutMs: number
  /** Poll interval of the wait. */
  intervalMs?: number
}

const MOUNT = '/addons'
const LOG_PREFIX = 'ADDON-SYNC '

function defaultPort (url: URL): string {
  return url.port !== '' ? url.port : url.protocol === 'ssh:' ? '22' : '443'
}

/** What the Job is told about where to connect: the checked address, pinned. */
export function pinnedConnection (url: URL, address: { address: string, family: number }): Record<string, string> {
  const ip = address.family === 6 ? `[${address.address}]` : address.address
  if (url.protocol === 'https:') return { FETCH_URL: url.href, PIN_RESOLVE: `${url.hostname}:${defaultPort(url)}:${ip}` }
  const pinned = new URL(url.href)
  pinned.hostname = ip
  return { FETCH_URL: pinned.href, SSH_HOST_ALIAS: url.hostname }
}

/** The last `ADDON-SYNC {…}` line of the Job's log. */
export function reportOf (log: string): Record<string, unknown> | undefined {
  const line = log.split('\n').reverse().find((l) => l.startsWith(LOG_PREFIX))
  if (line === undefined) return undefined
  try {
    const parsed = JSON.parse(line.slice(LOG_PREFIX.length)) as unknown
    return typeof parsed === 'object' && parsed !== null ? parsed as Record<string, unknown> : undefined
  } catch {
    return undefined
  }
}

function outcomeOf (report: Record<string, unknown>): SyncOutcome {
  const commit = report.commit
  if (typeof commit !== 'string' || !/^[0-9a-f]{40,64}$/.test(commit)) throw new GitError('the sync Job reported no commit')
  const modules: FoundModule[] = []
  for (const entry of Array.isArray(report.modules) ? report.modules as unknown[] : []) {
    const { name, manifest } = (entry ?? {}) as { name?: unknown, manifest?: unknown }
    if (typeof name !== 'string' || typeof manifest !== 'string') continue
    const found = manifestModule(name, Buffer.from(manifest, 'base64').toString('utf8'))
    if (found !== undefined) modules.push(found)
  }
  const skipped = (Array.isArray(report.skipped) ? report.skipped as unknown[] : []).filter((s): s is string => typeof s === 'string')
  const hostKey = typeof report.host_key === 'string' && report.host_key !== '' ? report.host_key : null
  return { commit, modules: modules.sort((a, b) => a.technicalName.localeCompare(b.technicalName)), skipped, hostKey }
}

export function createKubeAddonStorage (options: KubeAddonStorageOptions): AddonStorage {
  function jobSpec (tenantSubdomain: string, sourceId: number, env: Record<string, string>, secret: boolean): JobSpec {
    const namespace = namespaceOf(tenantSubdomain)
    const name = `addon-sync-${sourceId}-${randomBytes(4).toString('hex')}`
    return {
      namespace,
      name,
      labels: { [LABEL.managedBy]: MANAGED_BY, [LABEL.tenant]: tenantSubdomain, 'erp.portal/addon-source': String(sourceId) },
      image: options.image,
      command: ['/bin/sh', '-c', SYNC_SCRIPT],
      env: { ADDONS: MOUNT, SOURCE_ID: String(sourceId), ...env },
      ...(secret ? { envFromSecrets: [name] } : {}),
      volumes: [{ claim: addonsClaimOf(tenantSubdomain), mountPath: MOUNT }],
      // The tenant's quota counts limits: a pod without them is refused.
      resources: { limits: { memory: '256Mi', cpu: '500m' }, requests: { memory: '64Mi', cpu: '50m' } },
      activeDeadlineSeconds: Math.max(1, Math.ceil(options.timeoutMs / 1000)),
      ttlSecondsAfterFinished: 3600
    }
  }

  async function run (tenantSubdomain: string, sourceId: number, env: Record<string, string>, secret: Record<string, string> | undefined, host = ''): Promise<Record<string, unknown>> {
    const jobs = options.jobs()
    const spec = jobSpec(tenantSubdomain, sourceId, env, secret !== undefined)
    const { namespace, name } = spec
    try {
      await jobs.create(spec)
      if (secret !== undefined) {
        // Owned by the Job: garbage-collected with it (its TTL) even if this process dies before the cleanup below.
        const uid = await jobs.uid(namespace, name)
        if (uid === undefined) throw new GitError('the sync Job was deleted before it started')
        await jobs.putSecret({ namespace, name, ...(spec.labels === undefined ? {} : { labels: spec.labels }), data: secret, ownerJob: { name, uid } })
      }
      const ended = await jobs.wait(namespace, name, { timeoutMs: options.timeoutMs + 5000, ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }) })
      const report = reportOf(await jobs.logs(namespace, name, { tailLines: 20 }).catch(() => ''))
      if (typeof report?.error === 'string') throw new GitError(explainGitFailure(report.error, host))
      if (ended.state === 'timeout') throw new GitError('timed out')
      if (ended.state === 'missing') throw new GitError('the sync Job was deleted before it finished')
      if (ended.state === 'failed') throw new GitError(ended.reason === 'DeadlineExceeded' ? 'timed out' : `the sync Job failed: ${ended.message || ended.reason}`)
      if (report === undefined) throw new GitError('the sync Job ended without a report')
      return report
    } finally {
      await jobs.remove(namespace, name).catch(() => {})
      if (secret !== undefined) await jobs.removeSecret(namespace, name).catch(() => {})
    }
  }

  return {
    async sync (request: SyncRequest) {
      const { credential } = request
      const secret: Record<string, string> | undefined = credential === undefined
        ? undefined
        : credential.kind === 'token' ? { GIT_TOKEN: credential.secret } : { DEPLOY_KEY: credential.secret }
      const taken = Object.entries(request.taken ?? {}).map(([module, source]) => `${module}=${source.replace(/[^A-Za-z0-9._-]/g, '_')}`).join(' ')
      const report = await run(request.tenantSubdomain, request.sourceId, {
        MODE: 'sync',
        ...pinnedConnection(request.url, request.address),
        ...(request.url.protocol === 'ssh:' ? { SSH_HOST_KEY: request.hostKey ?? '' } : {}),
        BRANCH: request.branch,
        SUBPATH: request.subpath ?? '',
        MAX_BYTES: String(request.maxBytes),
        MAX_FILES: String(request.maxFiles),
        TAKEN: taken,
        // name=instance_names: spaces become underscores (the script splits on spaces and turns them back)
        INSTALLED: Object.entries(request.installed ?? {}).map(([module, where]) => `${module}=${where.replace(/[^A-Za-z0-9.,()-]/g, '_')}`).join(' ')
      }, secret, request.url.hostname)
      return outcomeOf(report)
    },

    /** Started, not awaited: a deletion answers at once, and the cluster deletes the finished Job (its TTL). */
    async remove (tenantSubdomain, sourceId) {
      await options.jobs().create(jobSpec(tenantSubdomain, sourceId, { MODE: 'remove' }, false))
    }
  }
}
