/**
 * Downloads of archives kept on a tenant's backup claim. The control plane mounts no tenant
 * volume, so each download starts a short-lived reader pod in the tenant namespace: busybox httpd
 * serving the instance's folder of the claim (mounted read-only, subPath = the instance's uid, so
 * it can serve nothing else), and reads the archive through the API server's pod proxy with the
 * kubeconfig's credentials, streaming it as it comes. The pod is deleted when the stream ends,
 * fails or is dropped; activeDeadlineSeconds and sweep() bound what a killed process leaves.
 */
import { pipeline, Transform, type Readable } from 'node:stream'
import type { IncomingMessage } from 'node:http'
import type { V1Affinity, V1LabelSelector, V1Pod } from '@kubernetes/client-node'
import { type InstanceSpec } from '../backend.ts'
import { ArchiveReadError } from '../backup-runner.ts'
import { KubernetesApiError } from './api-errors.ts'
import { besidePods, nearPods } from './claim-affinity.ts'
import type { KubeApi } from './kube-api.ts'
import { LABEL, MANAGED_BY, namespaceOf, selectorLabels } from './names.ts'

export const READER_PORT = 8080
export const READER_PURPOSE = 'backup-reader'
/** One reader pod's limits; the tenant quota has room for CONCURRENT_READERS of them (tenant-ops.ts). */
export const READER_LIMITS = { memoryMb: 64, cpuMillicores: 200 }
export const CONCURRENT_READERS = 2
/** `nobody`: the backup Job writes the archives world-readable (its shell's umask 022), so no more is needed. */
const READER_USER = 65534
const PURPOSE = 'erp.portal/purpose'
const BACKUP_LABEL = 'erp.portal/backup'
/** Every pod that mounts a tenant's backup claim: the backup, restore and removal Jobs' pods, and readers. */
const CLAIM_HOLDERS: V1LabelSelector = {
  matchLabels: { [LABEL.managedBy]: MANAGED_BY },
  matchExpressions: [{ key: PURPOSE, operator: 'In', values: ['backup', 'restore', 'backup-removal', READER_PURPOSE] }]
}

export interface ArchiveReaderOptions {
  image: string
  /** The claim a tenant's archives are on. */
  claimOf: (tenantSubdomain: string) => string
  /** How long a download waits for its pod to be ready. */
  readyMs: number
  pollMs: number
  /** The pod's activeDeadlineSeconds: the longest a download may take. */
  deadlineSeconds: number
  /** The API server's URL (the pod proxy is under it). */
  server: string
  stream: (url: URL, init: { headers?: Record<string, string> }) => Promise<IncomingMessage>
}

type Where = Pick<InstanceSpec, 'instanceUid' | 'tenantSubdomain' | 'subdomain'>
type Range = { start: number, end: number }

export function readerPodManifest (spec: Where, backupId: number, options: Pick<ArchiveReaderOptions, 'image' | 'claimOf' | 'deadlineSeconds'>, affinity: { affinity?: V1Affinity }): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `erp-backup-reader-${backupId}-`,
      namespace: namespaceOf(spec.tenantSubdomain),
      labels: { [LABEL.managedBy]: MANAGED_BY, [LABEL.tenant]: spec.tenantSubdomain, [LABEL.instanceId]: spec.instanceUid, [PURPOSE]: READER_PURPOSE, [BACKUP_LABEL]: String(backupId) }
    },
    spec: {
      restartPolicy: 'Never',
      activeDeadlineSeconds: options.deadlineSeconds,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      ...affinity,
      securityContext: { runAsNonRoot: true, runAsUser: READER_USER, runAsGroup: READER_USER, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{
        name: 'reader',
        image: options.image,
        command: ['httpd', '-f', '-p', String(READER_PORT), '-h', '/backups'],
        ports: [{ name: 'http', containerPort: READER_PORT }],
        readinessProbe: { tcpSocket: { port: READER_PORT }, periodSeconds: 1 },
        volumeMounts: [{ name: 'backups', mountPath: '/backups', subPath: spec.instanceUid, readOnly: true }],
        resources: { requests: { memory: '16Mi', cpu: '20m' }, limits: { memory: `${READER_LIMITS.memoryMb}Mi`, cpu: `${READER_LIMITS.cpuMillicores}m` } },
        securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } }
      }],
      volumes: [{ name: 'backups', persistentVolumeClaim: { claimName: options.claimOf(spec.tenantSubdomain), readOnly: true } }]
    }
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
const isReady = (pod: V1Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true

/** What the pod is waiting for, for the 503's message. */
function waitingFor (pod: V1Pod | undefined): string {
  if (pod === undefined) return 'the pod is gone'
  const waiting = pod.status?.containerStatuses?.[0]?.state?.waiting?.reason
  const unscheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False')?.message
  return unscheduled ?? `phase ${pod.status?.phase ?? 'unknown'}${waiting === undefined ? '' : `, ${waiting}`}`
}

/** Passes the body on, and errors instead of ending when fewer (or more) than `expected` bytes came. */
function counted (body: IncomingMessage, expected: number): Readable {
  let seen = 0
  const check = new Transform({
    transform (chunk: Buffer, _encoding, done) { seen += chunk.length; done(null, chunk) },
    flush (done) { done(seen === expected ? null : new ArchiveReadError('unreadable', `The archive stream ended after ${seen} of ${expected} bytes`)) }
  })
  pipeline(body, check, () => {})
  return check
}

export function createArchiveReader (api: KubeApi, options: ArchiveReaderOptions) {
  /**
   * Beside a pod that holds the ReadWriteOnce backup claim (required); otherwise near the
   * instance's pods (preferred): a backup Job must run on the instance's node (its data claim is
   * ReadWriteOnce too) and would wait for a reader that attached the backup claim elsewhere.
   */
  async function readerAffinity (spec: Where, namespace: string): Promise<{ affinity?: V1Affinity }> {
    const beside = await besidePods(api, namespace, CLAIM_HOLDERS)
    return beside.affinity === undefined ? nearPods({ matchLabels: selectorLabels(spec.subdomain) }) : beside
  }

  async function waitReady (namespace: string, name: string): Promise<void> {
    const deadline = Date.now() + options.readyMs
    for (;;) {
      const pod = await api.readPod(namespace, name)
      if (pod !== undefined && isReady(pod)) return
      const ended = pod === undefined || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed'
      if (ended || Date.now() >= deadline) {
        throw new ArchiveReadError('not-ready', `The pod that reads the archive from the backup claim (${namespace}/${name}) was not ready within ${Math.round(options.readyMs / 1000)} s: ${waitingFor(pod)}`)
      }
      await sleep(options.pollMs)
    }
  }

  /** The answer must be the archive's bytes, exactly those asked for. */
  async function checked (answer: IncomingMessage, read: { size: number, range?: Range }): Promise<Readable> {
    const expected = read.range === undefined ? read.size : read.range.end - read.range.start + 1
    const status = answer.statusCode ?? 0
    const length = answer.headers['content-length']
    const contentRange = answer.headers['content-range']
    let problem: string | undefined
    if (status === 404 && !String(answer.headers['content-type']).startsWith('application/json')) {
      answer.resume()
      throw new ArchiveReadError('missing', 'The backup\'s archive is missing from the tenant\'s backup claim')
    }
    if (status !== (read.range === undefined ? 200 : 206)) problem = `answered ${status}`
    else if (length !== undefined && Number(length) !== expected) problem = `sent ${length} bytes where ${expected} were expected`
    else if (read.range !== undefined && contentRange !== `bytes ${read.range.start}-${read.range.end}/${read.size}`) problem = `sent the range ${String(contentRange)}, not bytes ${read.range.start}-${read.range.end}/${read.size}`
    if (problem !== undefined) {
      answer.resume()
      throw new ArchiveReadError('unreadable', `Reading the archive through the cluster's pod proxy failed: it ${problem} (is the archive recorded at the size it has?)`)
    }
    return counted(answer, expected)
  }

  /** Deletions this process has asked for and the API server has not answered yet. */
  const pendingRemovals = new Set<Promise<unknown>>()
  function removing (removal: Promise<unknown>): Promise<unknown> {
    pendingRemovals.add(removal)
    return removal.finally(() => pendingRemovals.delete(removal))
  }

  /**
   * A client that downloads in sequence (one range after another) asks for the next pod while the
   * last one's deletion, started when its stream closed, may still be on its way: a quota refusal
   * then waits for those deletions and tries once more before it answers "busy".
   */
  async function createReader (manifest: V1Pod): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      try {
        return (await api.createPod(manifest)).metadata?.name ?? ''
      } catch (error) {
        const quotaFull = error instanceof KubernetesApiError && error.code === 403 && (error.status?.message ?? '').includes('exceeded quota')
        if (!quotaFull) throw error
        if (attempt === 0 && pendingRemovals.size > 0) {
          await Promise.all(pendingRemovals)
          continue
        }
        throw new ArchiveReadError('busy', `The tenant's quota has no room for one more reader pod (${CONCURRENT_READERS} downloads of its backups can run at once, beside a backup)`, { cause: error })
      }
    }
  }

  return {
    async open (spec: Where, key: string, read: { size: number, range?: Range, backupId: number }): Promise<Readable> {
      const file = new RegExp(`^kubernetes:${options.claimOf(spec.tenantSubdomain)}/${spec.instanceUid}/(backup-\\d+\\.tar)$`).exec(key)?.[1]
      if (file === undefined) throw new TypeError(`backup key ${JSON.stringify(key)} is not an archive of instance ${spec.instanceUid} on the backup claim of ${spec.tenantSubdomain}`)
      const namespace = namespaceOf(spec.tenantSubdomain)
      const manifest = readerPodManifest(spec, read.backupId, options, await readerAffinity(spec, namespace))
      const name = await createReader(manifest)
      let removed: Promise<unknown> | undefined
      const remove = (): Promise<unknown> => (removed ??= removing(api.removePod(namespace, name).catch(() => false)))
      try {
        await waitReady(namespace, name)
        const url = new URL(`${options.server.replace(/\/$/, '')}/api/v1/namespaces/${namespace}/pods/${name}:${READER_PORT}/proxy/${file}`)
        const answer = await options.stream(url, { headers: read.range === undefined ? {} : { range: `bytes=${read.range.start}-${read.range.end}` } })
        const body = await checked(answer, read)
        body.once('close', () => { void remove() })
        return body
      } catch (error) {
        await remove()
        throw error
      }
    },

    /** Reader pods that ended, or outlived their deadline (their process was killed mid-download). */
    async sweep (): Promise<number> {
      const pods = await api.listPodsEverywhere(`${LABEL.managedBy}=${MANAGED_BY},${PURPOSE}=${READER_PURPOSE}`)
      const old = Date.now() - options.deadlineSeconds * 1000
      const stale = pods.filter((pod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed' || new Date(pod.metadata?.creationTimestamp ?? Date.now()).getTime() < old)
      let removed = 0
      for (const pod of stale) if (await api.removePod(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '')) removed++
      return removed
    }
  }
}
