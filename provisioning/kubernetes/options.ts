import type { KubeConfig } from '@kubernetes/client-node'
import type { KubeErpAccess } from './erp-access.ts'

/** Plain options: the app maps its configuration (env names in brackets) onto these. */
export interface KubernetesBackendOptions {
  /** Required: see loadKubeConfig() [KUBECONFIG, else in-cluster]. */
  kubeConfig: KubeConfig
  /** `{version}` is replaced by the instance's ERP version; without it, a fixed image for every version [ERP_IMAGE, default `odoo:{version}`]. */
  imageTemplate?: string
  /** Ingress `spec.ingressClassName` [KUBE_INGRESS_CLASS, default `nginx`]. */
  ingressClass?: string
  /** cert-manager ClusterIssuer named in the Ingress annotation [KUBE_TLS_ISSUER, default `letsencrypt`]. */
  tlsIssuer?: string
  /** Storage class of the per-instance data claims (ReadWriteOnce); the cluster default when unset [KUBE_STORAGE_CLASS]. */
  storageClass?: string
  /** Storage class of the per-tenant addons claim, which must offer ReadWriteMany [KUBE_ADDONS_STORAGE_CLASS, default storageClass]. */
  addonsStorageClass?: string
  /** Size of the per-tenant addons claim [KUBE_ADDONS_STORAGE_GB, default 5]. */
  addonsStorageGb?: number
  /** [ERP_ADDONS_PATH, default `/mnt/extra-addons`] */
  addonsMountPath?: string
  /** [ERP_DATA_PATH, default `/var/lib/odoo`] */
  dataMountPath?: string
  /** HTTP path of the readiness/liveness/startup probes on port 8069 [ERP_HEALTH_PATH, default `/web/health`]. */
  healthPath?: string
  /** Pod `terminationGracePeriodSeconds`: how long the ERP gets to exit after SIGTERM before it is killed [INSTANCE_STOP_GRACE_SECONDS, default 30]. */
  stopGraceSeconds?: number
  /** Pod `securityContext.fsGroup`, so the image's user can write the data volume (the Odoo image's group is 101) [KUBE_FS_GROUP, default 101]. */
  fsGroup?: number
  /** Image of the backup Jobs, `{pg_major}` filled in [BACKUP_IMAGE, default `postgres:{pg_major}`]. */
  backupImage?: string
  /** Size of the per-tenant backup claim [KUBE_BACKUP_STORAGE_GB, default 20]. */
  backupStorageGb?: number
  /** Bound of one backup Job [default 6 h]. */
  backupTimeoutMs?: number
  /** How often a running backup Job is polled [default 2000]. */
  backupPollMs?: number
  /** Image of the pod that serves a backup archive for its download: busybox's httpd (`httpd -f -p 8080 -h /backups`) [BACKUP_READER_IMAGE, default `busybox:1.37`]. */
  backupReaderImage?: string
  /** How long a download waits for its reader pod to be ready before answering 503 [BACKUP_READER_READY_SECONDS, default 60000]. */
  backupReaderReadyMs?: number
  /** How often a starting reader pod is polled [default 500]. */
  backupReaderPollMs?: number
  /** How the portal reaches an instance's ERP: the Service's cluster DNS name, or the API server's Service proxy [KUBE_ERP_ACCESS, default `service-dns`]. */
  erpAccess?: KubeErpAccess
  /** Server-side apply field manager [default `erp-portal`]. */
  fieldManager?: string
  /** Bound on every API request, connection included [default 10000]. */
  callTimeoutMs?: number
  /** Retries after a 429, a 5xx or a connection error [default 4]. */
  retries?: number
  /** First backoff step; doubles per retry, with jitter [default 250]. */
  retryBaseMs?: number
  /** Longest wait between two attempts, Retry-After included [default 30000]. */
  maxRetryDelayMs?: number
  /** Bound of check() [default 3000, at most callTimeoutMs]. */
  checkTimeoutMs?: number
  /** Bound on the ERP's one-off database initialisation Job at first start [ERP_INIT_TIMEOUT_SECONDS, default 600000]. */
  initTimeoutMs?: number
  /** How often that Job is polled [default 1000]. */
  initPollMs?: number
}

export type ResolvedOptions = Required<Omit<KubernetesBackendOptions, 'storageClass' | 'addonsStorageClass'>>
  & Pick<KubernetesBackendOptions, 'storageClass' | 'addonsStorageClass'>

export function resolveOptions (options: KubernetesBackendOptions): ResolvedOptions {
  const callTimeoutMs = options.callTimeoutMs ?? 10_000
  return {
    kubeConfig: options.kubeConfig,
    imageTemplate: options.imageTemplate ?? 'odoo:{version}',
    ingressClass: options.ingressClass ?? 'nginx',
    tlsIssuer: options.tlsIssuer ?? 'letsencrypt',
    storageClass: options.storageClass,
    addonsStorageClass: options.addonsStorageClass ?? options.storageClass,
    addonsStorageGb: options.addonsStorageGb ?? 5,
    addonsMountPath: options.addonsMountPath ?? '/mnt/extra-addons',
    dataMountPath: options.dataMountPath ?? '/var/lib/odoo',
    healthPath: options.healthPath ?? '/web/health',
    stopGraceSeconds: options.stopGraceSeconds ?? 30,
    fsGroup: options.fsGroup ?? 101,
    backupImage: options.backupImage ?? 'postgres:{pg_major}',
    backupStorageGb: options.backupStorageGb ?? 20,
    backupTimeoutMs: options.backupTimeoutMs ?? 6 * 3600_000,
    backupPollMs: options.backupPollMs ?? 2000,
    backupReaderImage: options.backupReaderImage ?? 'busybox:1.37',
    backupReaderReadyMs: options.backupReaderReadyMs ?? 60_000,
    backupReaderPollMs: options.backupReaderPollMs ?? 500,
    erpAccess: options.erpAccess ?? 'service-dns',
    fieldManager: options.fieldManager ?? 'erp-portal',
    callTimeoutMs,
    retries: options.retries ?? 4,
    retryBaseMs: options.retryBaseMs ?? 250,
    maxRetryDelayMs: options.maxRetryDelayMs ?? 30_000,
    checkTimeoutMs: Math.min(options.checkTimeoutMs ?? 3000, callTimeoutMs),
    initTimeoutMs: options.initTimeoutMs ?? 600_000,
    initPollMs: options.initPollMs ?? 1000
  }
}
