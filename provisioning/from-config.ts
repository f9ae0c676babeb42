import type { FastifyBaseLogger } from 'fastify'
import type { AppConfig } from '../config/env.ts'
import { erpPasswordKey } from '../lib/secrets.ts'
import type { BackendName, ProvisioningBackend } from './backend.ts'
import { createDockerBackend } from './docker/index.ts'
import { createErpDatabases, type ErpDatabases } from './erp-database.ts'
import { createKubernetesBackend, loadKubeConfig } from './kubernetes/index.ts'

export interface Provisioning {
  backends: Partial<Record<BackendName, ProvisioningBackend>>
  /** Why an enabled backend could not be set up, and how to set it up. */
  notConfigured: Partial<Record<BackendName, string>>
  databases: ErpDatabases
  close: () => Promise<void>
}

/**
 * The backends and the ERP database server, from the configuration. A backend
 * that cannot be set up is absent, with the reason the API reports (503).
 * `config.ERP_CREDENTIALS_KEY` must be resolved (server.ts reads or creates it).
 */
export function createProvisioning (config: AppConfig, { serviceDatabaseUrl, log }: {
  serviceDatabaseUrl: string
  log: FastifyBaseLogger
}): Provisioning {
  if (config.ERP_CREDENTIALS_KEY === undefined) throw new TypeError('ERP_CREDENTIALS_KEY must be resolved before provisioning is set up (resolveErpCredentialsKey)')
  const usesDocker = config.instanceBackends.includes('docker')
  const erp = createErpDatabases({
    adminUrl: config.ERP_DATABASE_URL ?? serviceDatabaseUrl,
    instanceHost: config.ERP_DATABASE_HOST,
    viaDockerHost: usesDocker,
    passwordKey: erpPasswordKey(config.ERP_CREDENTIALS_KEY)
  })

  const backends: Provisioning['backends'] = {}
  const notConfigured: Provisioning['notConfigured'] = {}
  if (usesDocker) {
    backends.docker = createDockerBackend({
      imageTemplate: config.ERP_IMAGE,
      instancesDomain: config.INSTANCES_DOMAIN,
      addonsRoot: config.ADDONS_ROOT,
      addonsMountPath: config.ERP_ADDONS_PATH,
      dataMountPath: config.ERP_DATA_PATH,
      network: config.DOCKER_NETWORK,
      publishPort: config.DOCKER_PUBLISH_PORTS,
      stopTimeoutSeconds: config.INSTANCE_STOP_GRACE_SECONDS,
      backupImage: config.BACKUP_IMAGE,
      initTimeoutMs: config.ERP_INIT_TIMEOUT_SECONDS * 1000,
      callTimeoutMs: config.DOCKER_CALL_TIMEOUT_SECONDS * 1000,
      createTimeoutMs: config.DOCKER_CREATE_TIMEOUT_SECONDS * 1000,
      removeTimeoutMs: config.DOCKER_REMOVE_TIMEOUT_SECONDS * 1000,
      pullTimeoutMs: config.DOCKER_PULL_TIMEOUT_SECONDS * 1000,
      healthCheck: {
        command: ['CMD-SHELL', config.ERP_HEALTHCHECK],
        intervalMs: config.ERP_HEALTHCHECK_INTERVAL_SECONDS * 1000,
        timeoutMs: 5000,
        startPeriodMs: 60_000,
        retries: 3
      }
    })
  }
  if (config.instanceBackends.includes('kubernetes')) {
    const kubeConfig = loadKubeConfig(config.KUBECONFIG)
    if (kubeConfig === undefined) {
      notConfigured.kubernetes = 'set KUBECONFIG to a kubeconfig file, or run the service inside the cluster'
    } else {
      backends.kubernetes = createKubernetesBackend({
        kubeConfig,
        imageTemplate: config.ERP_IMAGE,
        ingressClass: config.KUBE_INGRESS_CLASS,
        tlsIssuer: config.KUBE_TLS_ISSUER,
        storageClass: config.KUBE_STORAGE_CLASS,
        addonsStorageClass: config.KUBE_ADDONS_STORAGE_CLASS,
        addonsStorageGb: config.KUBE_ADDONS_STORAGE_GB,
        fsGroup: config.KUBE_FS_GROUP,
        // Outside the cluster (a kubeconfig file), Service DNS names do not resolve.
        erpAccess: config.KUBE_ERP_ACCESS === 'auto' ? (config.KUBECONFIG === undefined ? 'service-dns' : 'api-proxy') : config.KUBE_ERP_ACCESS,
        addonsMountPath: config.ERP_ADDONS_PATH,
        dataMountPath: config.ERP_DATA_PATH,
        healthPath: config.ERP_HEALTH_PATH,
        stopGraceSeconds: config.INSTANCE_STOP_GRACE_SECONDS,
        backupImage: config.BACKUP_IMAGE,
        backupStorageGb: config.KUBE_BACKUP_STORAGE_GB,
        backupReaderImage: config.BACKUP_READER_IMAGE,
        backupReaderReadyMs: config.BACKUP_READER_READY_SECONDS * 1000,
        initTimeoutMs: config.ERP_INIT_TIMEOUT_SECONDS * 1000
      })
    }
  }
  log.debug({ backends: Object.keys(backends), notConfigured }, 'Provisioning backends')
  return {
    backends,
    notConfigured,
    databases: erp,
    close: async () => { await erp.close() }
  }
}
