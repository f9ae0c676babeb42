/**
 * The one interface both backends (docker/, kubernetes/) implement. The
 * instances service and its jobs only ever talk to a backend through it; the
 * instance's `backend` field picks which one.
 *
 * Every method is idempotent: a job may run it twice (retry after a crash, two
 * replicas), so "already there" and "already gone" are successes, not errors.
 */

import type { BackupRunner, ClusterBackupRunner } from './backup-runner.ts'
import type { RpcFetch } from './erp/odoo-rpc.ts'
import type { ErpServerSetup } from './erp/server-config.ts'
import type { LogBackend } from './log-backend.ts'
import type { OneOffRun } from './one-off-run.ts'

export type BackendName = 'docker' | 'kubernetes'

/** Everything a backend needs to run one instance; built by the instances service from the database. */
export interface InstanceSpec {
  /** The instance's uid (a uuid that never changes; not the API's integer id): the value of the instance-id label. */
  instanceUid: string
  tenantId: string
  /** The tenant's subdomain: names the Kubernetes namespace and the addons folder / claim. */
  tenantSubdomain: string
  /** The instance's own DNS label: names the container / Deployment, and its host name. */
  subdomain: string
  /** e.g. `17.0`; fills `{version}` in the image template. */
  erpVersion: string
  /** `<subdomain>.<INSTANCES_DOMAIN>` */
  host: string
  resources: InstanceResources
  /** Credentials of the instance's own database and login role (see erp-database.ts). */
  database: DatabaseCredentials
  /**
   * The ERP server's configuration (master password) and whether its database still needs the
   * one-off initialisation. Absent: the image runs with its own configuration, nothing is initialised.
   */
  erp?: ErpServerSetup
}

export interface InstanceResources {
  /** Memory limit in MB (MiB). */
  memoryMb: number
  /** CPU limit in thousandths of a core (1000 = one core). */
  cpuMillicores: number
  /** Filestore volume size in GB (GiB). */
  storageGb: number
  /** ERP worker processes. */
  workers: number
}

export interface DatabaseCredentials {
  /** As the ERP server process must reach it (not necessarily as the portal does). */
  host: string
  port: number
  name: string
  user: string
  password: string
}

/** Resource limits for a whole tenant (Kubernetes ResourceQuota), from its subscription. */
export interface TenantQuota {
  instances: number
  memoryMb: number
  cpuMillicores: number
  storageGb: number
}

/**
 * What the backend sees right now.
 * - `running`: serving (container running and healthy / Deployment rolled out and available).
 * - `starting`: on its way to running (created, starting, health check pending, rollout in progress).
 * - `stopped`: exists, deliberately not running (container exited cleanly / replicas 0).
 * - `error`: exists but broken (exited non-zero, unhealthy, crash looping, rollout failed).
 * - `missing`: nothing there.
 */
export type ObservedState = 'running' | 'starting' | 'stopped' | 'error' | 'missing'

export interface Observation {
  state: ObservedState
  /** Human-readable detail, e.g. "exited with code 137" or "0/1 replicas available". */
  message?: string
  /**
   * Set when the ERP process has ended (a container that exited), whatever its
   * code: after a stop we asked for, any exit is a stop (137: killed after the
   * grace period). `state` alone judges an exit nobody asked for.
   */
  exitCode?: number
}

/** What an instance uses right now, as the backend measures it. */
export interface UsageReading {
  /** CPU in cores (0.5 = half a core), averaged over the backend's own window (~1 s Docker, ~15 s metrics-server). */
  cpuCores: number
  /** Memory in MB (MiB), page cache excluded as `docker stats` and `kubectl top` do. */
  memoryMb: number
  /** The data volume's use in MB; null when the backend cannot tell (a Kubernetes claim reports capacity only). */
  volumeMb: number | null
  /** The data volume's size in MB where it has one (a Kubernetes claim); null otherwise. */
  volumeCapacityMb: number | null
}

/** The backend (Docker engine, Kubernetes API) cannot be reached or is not configured. */
export class BackendUnavailableError extends Error {
  override name = 'BackendUnavailableError'
  readonly backend: BackendName
  /** Says what to configure or check, e.g. "set DOCKER_HOST or start the Docker engine". */
  readonly hint: string
  constructor (backend: BackendName, message: string, hint: string, options?: { cause?: unknown }) {
    super(message, options)
    this.backend = backend
    this.hint = hint
  }
}

export type InstanceRef = Pick<InstanceSpec, 'instanceUid' | 'tenantSubdomain' | 'subdomain'>

export interface ProvisioningBackend extends Partial<LogBackend> {
  readonly name: BackendName

  /** Throws BackendUnavailableError when the backend is not configured or does not answer (bounded wait, ~3 s). */
  check: () => Promise<void>

  /**
   * Creates whatever is missing and converges what exists to `spec`, then starts
   * it. Does not wait for readiness: callers poll `observe`. Twice in a row
   * leaves exactly one set of resources. With `start: false` the ERP is not started
   * (a restore loads the instance's data first, then calls start): a container is
   * created and left so, a Deployment has 0 replicas.
   */
  provision: (spec: InstanceSpec, options?: { start?: boolean }) => Promise<void>

  /** Starts (or scales up) an existing instance; a running one is left alone. */
  start: (spec: InstanceSpec) => Promise<void>

  /**
   * Stops (or scales to zero); a stopped or missing one is a success. The ERP gets
   * the backend's grace period to exit after SIGTERM, then it is killed.
   */
  stop: (spec: InstanceSpec) => Promise<void>

  /** Restarts a running instance (a stopped one is started). */
  restart: (spec: InstanceSpec) => Promise<void>

  /** Removes every resource of the instance (not the tenant's shared ones, not the database); missing is a success. */
  remove: (spec: InstanceSpec) => Promise<void>

  /** The instance as the backend sees it now. */
  observe: (spec: Pick<InstanceSpec, 'instanceUid' | 'tenantSubdomain' | 'subdomain'>) => Promise<Observation>

  /**
   * Every instance this backend manages, keyed by instance subdomain, in as few
   * calls as possible (one container list / one Deployment list per namespace):
   * for the reconciler. Instances absent from the map are `missing`.
   */
  observeAll: (tenantSubdomains: string[]) => Promise<Map<string, Observation>>

  /**
   * CPU and memory in use (zeros when `running` is false: nothing is asked) and the data volume.
   * Bounded by `timeoutMs`; BackendUnavailableError when the backend (or its metrics source,
   * metrics-server) cannot answer in time.
   */
  readUsage: (spec: Pick<InstanceSpec, 'instanceUid' | 'tenantSubdomain' | 'subdomain'>, options: { running: boolean, timeoutMs: number }) => Promise<UsageReading>

  /**
   * Where the ERP's HTTP port answers on the backend's own network (Docker: the container's
   * address on its network; Kubernetes: the Service's cluster DNS name, or the API server's proxy
   * to that Service when the portal runs outside the cluster), never the public URL.
   * Undefined when the instance is not running there.
   */
  erpEndpoint?: (ref: InstanceRef) => Promise<string | undefined>

  /** How requests to erpEndpoint are sent when plain `fetch` cannot (the Kubernetes API proxy needs the cluster's credentials). */
  erpFetch?: RpcFetch

  /** The tenant-wide resources (namespace, quota, addons claim); Docker has none and does nothing. */
  ensureTenant?: (tenantSubdomain: string, tenantId: string, quota: TenantQuota) => Promise<void>

  /**
   * Runs the ERP's neutralization (`odoo neutralize -d <db>`) on the instance's database, from the
   * instance's own image with its database connection and server configuration, to its end, while
   * the instance is stopped: a one-off container (Docker) or Job (Kubernetes). A failure is an error
   * carrying the end of the ERP's output. Running it again on a neutralized database changes nothing.
   */
  neutralize?: (spec: InstanceSpec) => Promise<void>

  /**
   * Runs one ERP command line to its end on the instance's database and volumes, as `neutralize`
   * does (the same one-off container or Job, named `erp-<subdomain>-<run.name>`), from `run.image`
   * (default: the instance's own), while the instance is stopped: the end of its output, or a
   * OneOffFailedError carrying it. What an earlier attempt left under the name is removed first.
   * The version upgrade's command runs through it.
   */
  runOneOff?: (spec: InstanceSpec, run: OneOffRun) => Promise<{ output: string }>

  /**
   * Makes the instance's server run `spec.erpVersion`'s image from its next start, its data kept
   * (Docker: the container made again, the volume kept; Kubernetes: the Deployment takes the image
   * when it is applied, so nothing to do). Called while the instance is stopped.
   */
  changeImage?: (spec: InstanceSpec) => Promise<void>

  /** Frees what the backend holds open (connections, watches). */
  close?: () => Promise<void>

  /** Dump and restore next to the instance (backups); absent when the backend cannot run them. */
  backups?: BackupRunner
  /** Backups made and kept where the instance runs (a Kubernetes Job and a tenant volume), instead of `backups`. */
  clusterBackups?: ClusterBackupRunner
}
