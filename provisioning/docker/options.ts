import { isAbsolute } from 'node:path'
import Docker from 'dockerode'

export interface HealthCheckOptions {
  /** Docker's `Test`, e.g. `['CMD-SHELL', 'curl -fsS http://127.0.0.1:8069/web/health || exit 1']`. */
  command: string[]
  intervalMs?: number
  timeoutMs?: number
  /** Failures during this period after a start do not count (the ERP loads its modules). */
  startPeriodMs?: number
  retries?: number
}

export interface DockerBackendOptions {
  /** Default `new Docker()`, which honours DOCKER_HOST. */
  docker?: Docker
  /** `{version}` is replaced by the instance's erpVersion (without it, a fixed image for every version); default `odoo:{version}`. */
  imageTemplate?: string
  /** When set, an instance's host must be `<subdomain>.<instancesDomain>` (the Traefik rule is built from it). */
  instancesDomain?: string
  /** Absolute path ON THE DOCKER HOST; a tenant's addons are `<addonsRoot>/<tenantSubdomain>/addons`. */
  addonsRoot: string
  /** Default `/mnt/extra-addons` (the Odoo image's). */
  addonsMountPath?: string
  /** Default `/var/lib/odoo` (the Odoo image's filestore). */
  dataMountPath?: string
  /** A user-defined network to attach containers to (and tell Traefik about). */
  network?: string
  /** Publish the ERP port on 127.0.0.1 with a random host port (development without a proxy, tests). */
  publishPort?: boolean
  /** Default: Odoo's /web/health with curl; `null` for none. */
  healthCheck?: HealthCheckOptions | null
  /** Bound on every quick engine call (default 10 000). */
  callTimeoutMs?: number
  /** Bound on creating a container, and on waiting for one a racing create holds (default 120 000: a big image on vfs takes 10-50 s). */
  createTimeoutMs?: number
  /** Bound on removing a container or volume, and on waiting for a removal in progress (default 120 000). */
  removeTimeoutMs?: number
  /** Bound on pulling a missing image (default 600 000). */
  pullTimeoutMs?: number
  /** Bound on the ERP's one-off database initialisation at first start (default 600 000). */
  initTimeoutMs?: number
  /** `docker stop` grace period before SIGKILL [INSTANCE_STOP_GRACE_SECONDS, default 30]. */
  stopTimeoutSeconds?: number
  /** Container command (the image's CMD when unset); `{database}` and `{workers}` are filled in. */
  command?: string[]
  /** Extra labels on every container and volume (they cannot override the backend's own). */
  labels?: Record<string, string>
  /** Image of the backup containers, `{pg_major}` filled in (BACKUP_IMAGE); default `postgres:{pg_major}`. */
  backupImage?: string
}

export type ResolvedOptions = Required<Omit<DockerBackendOptions, 'instancesDomain' | 'network' | 'command' | 'healthCheck'>>
  & Pick<DockerBackendOptions, 'instancesDomain' | 'network' | 'command'> & { healthCheck: HealthCheckOptions | null }

export const DEFAULT_HEALTH_CHECK: HealthCheckOptions = {
  command: ['CMD-SHELL', 'curl -fsS http://127.0.0.1:8069/web/health || exit 1'],
  intervalMs: 10_000,
  timeoutMs: 5_000,
  startPeriodMs: 60_000,
  retries: 3
}

export function resolveOptions (options: DockerBackendOptions): ResolvedOptions {
  if (!isAbsolute(options.addonsRoot)) throw new TypeError(`addonsRoot must be an absolute path, got ${JSON.stringify(options.addonsRoot)}`)
  return {
    docker: options.docker ?? new Docker(),
    imageTemplate: options.imageTemplate ?? 'odoo:{version}',
    instancesDomain: options.instancesDomain,
    addonsRoot: options.addonsRoot,
    addonsMountPath: options.addonsMountPath ?? '/mnt/extra-addons',
    dataMountPath: options.dataMountPath ?? '/var/lib/odoo',
    network: options.network === '' ? undefined : options.network,
    publishPort: options.publishPort ?? false,
    healthCheck: options.healthCheck === undefined ? DEFAULT_HEALTH_CHECK : options.healthCheck,
    callTimeoutMs: options.callTimeoutMs ?? 10_000,
    createTimeoutMs: options.createTimeoutMs ?? 120_000,
    removeTimeoutMs: options.removeTimeoutMs ?? 120_000,
    pullTimeoutMs: options.pullTimeoutMs ?? 600_000,
    initTimeoutMs: options.initTimeoutMs ?? 600_000,
    stopTimeoutSeconds: options.stopTimeoutSeconds ?? 30,
    command: options.command,
    labels: options.labels ?? {},
    backupImage: options.backupImage ?? 'postgres:{pg_major}'
  }
}
