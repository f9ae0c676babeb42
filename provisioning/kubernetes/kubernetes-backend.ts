import { BackendUnavailableError, type ProvisioningBackend } from '../backend.ts'
import { type ClusterBackupRunner } from '../backup-runner.ts'
import { createApiCaller } from './api-call.ts'
import { KubernetesApiError } from './api-errors.ts'
import { createKubernetesBackupRunner } from './backup-job.ts'
import { createInstanceOps } from './instance-ops.ts'
import { createKubeJobs, type KubeJobs } from './jobs.ts'
import { createKubeApi } from './kube-api.ts'
import { createKubernetesLogs } from './logs.ts'
import { createKubernetesUsage } from './metrics.ts'
import { createObserveOps } from './observe-ops.ts'
import { erpUrl, kubeAuthenticatedFetch, kubeAuthenticatedStream } from './erp-access.ts'
import { resolveOptions, type KubernetesBackendOptions } from './options.ts'
import { createTenantOps } from './tenant-ops.ts'

export interface KubernetesBackend extends ProvisioningBackend {
  ensureTenant: NonNullable<ProvisioningBackend['ensureTenant']>
  /** Deletes the tenant's namespace, and everything in it. Not part of the interface; for tenant deletion. */
  removeTenant: (tenantSubdomain: string) => Promise<void>
  /** One-off Jobs in a tenant namespace, through the backend's API caller (timeouts, retries). */
  jobs: KubeJobs
  clusterBackups: ClusterBackupRunner
  close: () => Promise<void>
}

/**
 * Instances as Deployments in one namespace per tenant (`erp-<tenant>`), written with
 * server-side apply. Errors: BackendUnavailableError when the API cannot be used
 * (unreachable, timing out, failing after retries, credentials refused), KubernetesApiError
 * (with the API's Status message) when it refused the request itself.
 */
export function createKubernetesBackend (input: KubernetesBackendOptions): KubernetesBackend {
  const options = resolveOptions(input)
  const server = options.kubeConfig.getCurrentCluster()?.server ?? '(no cluster in the kubeconfig)'
  const call = createApiCaller({ timeoutMs: options.callTimeoutMs, retries: options.retries, retryBaseMs: options.retryBaseMs, maxRetryDelayMs: options.maxRetryDelayMs, server })
  const api = createKubeApi(options.kubeConfig, call)
  const tenants = createTenantOps(api, options)
  const jobs = createKubeJobs(options.kubeConfig, call)
  const instances = createInstanceOps(api, tenants, jobs, options)
  const observing = createObserveOps(api)

  return {
    name: 'kubernetes',
    async check () {
      try {
        await api.listOneNamespace({ timeoutMs: options.checkTimeoutMs, retries: 0 })
      } catch (error) {
        if (error instanceof KubernetesApiError) {
          const hint = error.code === 403
            ? 'the portal\'s Kubernetes account lacks permissions: grant it the permissions listed in docs/operations.md'
            : `check the cluster at ${server}`
          throw new BackendUnavailableError('kubernetes', error.message, hint, { cause: error })
        }
        throw error
      }
    },
    ...instances,
    ...observing,
    /** The instance's Service (erp-access.ts), while its Deployment is available. */
    async erpEndpoint (ref) {
      if ((await observing.observe(ref)).state !== 'running') return undefined
      return erpUrl(options.erpAccess, server, ref)
    },
    ...(options.erpAccess === 'api-proxy' ? { erpFetch: kubeAuthenticatedFetch(options.kubeConfig) } : {}),
    ...createKubernetesLogs(options.kubeConfig, call, api, options.callTimeoutMs),
    readUsage: createKubernetesUsage(options.kubeConfig, call, api),
    ensureTenant: tenants.ensureTenant,
    removeTenant: tenants.removeTenant,
    jobs,
    clusterBackups: createKubernetesBackupRunner(api, jobs, {
      imageTemplate: options.backupImage, storageClass: options.storageClass, claimGb: options.backupStorageGb,
      fieldManager: options.fieldManager, timeoutMs: options.backupTimeoutMs, pollMs: options.backupPollMs,
      reader: { image: options.backupReaderImage, readyMs: options.backupReaderReadyMs, pollMs: options.backupReaderPollMs, server, stream: kubeAuthenticatedStream(options.kubeConfig) }
    }),
    // Nothing to free: client-node 2.0.1 gives every request its own dispatcher; no pool or watch is kept.
    async close () {}
  }
}
