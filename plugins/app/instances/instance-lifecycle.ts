/**
 * The one owner of an instance's lifecycle on its backend: the spec a backend is given (with the
 * ERP's server configuration and credentials for a start), the tenant's namespace and quota, the
 * provisioning (started, or stopped for a copy), the record that the ERP's database is
 * initialised, start, stop, remove, the wait for the backend to show the target state, and the
 * step before an instance is reported running (its ERP administrator's password).
 *
 * The instance jobs (instance-actions.job.ts) and the restore job (backups/restore.job.ts) act through
 * it, so both follow the same rules: a transient `error` report gets its grace, the wait ends at
 * the ready bound or when the job is aborted, and it ends at once when the instance left the
 * state the job holds it in. Jobs that make an instance from a backup and check it before it is
 * handed over (a staging copy, a version upgrade) use the same steps: `specOf(…, 'copy')`, then
 * `loadStopped` (made without starting its ERP, the data loaded, recorded initialised, started
 * and waited for), then `beforeRunning` with the instance the data came from, then their check.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { InstanceSpec, Observation, ProvisioningBackend } from '../../../provisioning/backend.ts'
import type { BackendRegistry } from './backend-registry.ts'
import type { ErpCredentialStore } from './erp-credentials.ts'
import type { Restored } from './erp-admin-password.ts'
import type { ErpDatabasesPort } from './erp-databases-port.ts'
import type { Instance } from './instance.entity.ts'
import { subscriptionSize, tenantQuota } from './instance-resources.ts'
import { instanceSpec } from './instance-spec.ts'
import { createWaitFor, type InstanceWaitDeps, type WaitOptions, type WaitTarget } from './instance-wait.ts'

export interface InstanceLifecycleDeps extends InstanceWaitDeps {
  backends: BackendRegistry
  databases: ErpDatabasesPort
  /** Each instance's ERP master and administrator passwords, and whether its database was initialised. */
  credentials: Pick<ErpCredentialStore, 'ensure' | 'markInitialised'>
  instancesDomain: string
  /**
   * Once the backend shows a started instance running, before it is reported so: replaces the
   * ERP administrator's default password (or checks the generated one still works); after a
   * restore, the password the backed-up database holds. A throw fails the attempt, which is
   * retried; the instance stays in its job's state meanwhile.
   */
  beforeRunning?: (em: EntityManager, instance: Instance, restored?: Restored) => Promise<void>
}

/**
 * What the spec is for. `reach`: stop, remove, observe (names only, the database password empty).
 * `data`: acting on the instance's data as it is (its database and role ensured, no ERP server
 * configuration). `start`: a start that may create the instance (its ERP configuration, the
 * database initialised the first time). `copy`: an instance made from a backup (its own ERP
 * configuration, never initialised: the backup brings an initialised database).
 */
export type SpecPurpose = 'reach' | 'data' | 'start' | 'copy'

export type InstanceLifecycle = ReturnType<typeof createInstanceLifecycle>

export function createInstanceLifecycle (deps: InstanceLifecycleDeps) {
  const { backends, databases, credentials } = deps
  const wait = createWaitFor(deps)

  const backendOf = (instance: Pick<Instance, 'backend'>): ProvisioningBackend => backends.get(instance.backend)

  /** The spec for `purpose` (`instance.tenant` loaded); `start` and `copy` make the instance's ERP secrets on first use. */
  async function specOf (em: EntityManager, instance: Instance, purpose: SpecPurpose): Promise<InstanceSpec> {
    const spec = await instanceSpec(instance, databases, deps.instancesDomain, { credentials: purpose !== 'reach' })
    if (purpose === 'reach' || purpose === 'data') return spec
    const secrets = await credentials.ensure(em, instance)
    spec.erp = { masterPassword: secrets.masterPassword, initialise: purpose === 'start' && !secrets.initialised }
    return spec
  }

  /** The tenant's shared resources (a namespace with the quota of its subscription), on a backend that has them. */
  async function ensureTenant (em: EntityManager, backend: ProvisioningBackend, spec: InstanceSpec): Promise<void> {
    if (backend.ensureTenant === undefined) return
    await backend.ensureTenant(spec.tenantSubdomain, spec.tenantId, tenantQuota(await subscriptionSize(em, spec.tenantId)))
  }

  /** The database's one-off initialisation has run (or a backup's data is in): no later start initialises it. */
  const markInitialised = async (em: EntityManager, instance: Instance): Promise<void> => credentials.markInitialised(em, instance)

  /**
   * Creates what is missing and starts it, or with `start: false` leaves the ERP not started (a copy
   * loads its data first). With `ensureTenant`, the tenant's resources first (a new instance). A
   * spec that asks for the database's initialisation gets it recorded once the backend made it.
   */
  async function provision (em: EntityManager, instance: Instance, spec: InstanceSpec, options: { ensureTenant?: boolean, start?: boolean } = {}): Promise<void> {
    const backend = backendOf(instance)
    if (options.ensureTenant === true) await ensureTenant(em, backend, spec)
    if (options.start === false) await backend.provision(spec, { start: false })
    else await backend.provision(spec)
    if (spec.erp?.initialise === true) await markInitialised(em, instance)
  }

  /** Starts (or restarts) the instance; resources gone behind our back are recreated rather than reported missing. */
  async function start (em: EntityManager, instance: Instance, spec: InstanceSpec, { restart = false } = {}): Promise<void> {
    const backend = backendOf(instance)
    const seen = await backend.observe(spec)
    if (seen.state === 'missing') await provision(em, instance, spec)
    else if (restart) await backend.restart(spec)
    else await backend.start(spec)
  }

  /** Asks the backend to stop the ERP (it gets the stop grace period, then is killed); how long the call took. */
  async function stop (instance: Instance, spec: InstanceSpec): Promise<number> {
    const began = Date.now()
    await backendOf(instance).stop(spec)
    return Date.now() - began
  }

  /** Every resource of the instance on its backend, then its database. */
  async function remove (instance: Instance, spec: InstanceSpec): Promise<void> {
    await backendOf(instance).remove(spec)
    await databases.drop(instance.uid)
  }

  /** Until the backend shows `target` (see instance-wait.ts): what it showed then. */
  const waitFor = async (instance: Instance, spec: InstanceSpec, target: WaitTarget, options: WaitOptions): Promise<Observation> =>
    wait(backendOf(instance), spec, target, options)

  /**
   * `load` run while the instance's ERP does not run: made first when `create` (its tenant's
   * resources too, its ERP not started), else stopped (an attempt that got further may have
   * started it); then a new one recorded as initialised (no start may initialise the loaded
   * database), started, and waited for until it runs.
   */
  async function loadStopped (em: EntityManager, instance: Instance, spec: InstanceSpec, options: WaitOptions & { create: boolean }, load: () => Promise<void>): Promise<void> {
    const backend = backendOf(instance)
    if (options.create) await provision(em, instance, spec, { ensureTenant: true, start: false })
    await backend.stop(spec)
    await waitFor(instance, spec, 'idle', options)
    await load()
    if (options.create) await markInitialised(em, instance)
    await backend.start(spec)
    await waitFor(instance, spec, 'running', options)
  }

  /**
   * The ERP's own neutralization of the instance's database (a staging copy, while it is stopped):
   * its scheduled actions and mail servers off, providers in test mode. A backend without it
   * cannot make staging copies: an error, so such a copy never starts un-neutralized.
   */
  async function neutralize (instance: Instance, spec: InstanceSpec): Promise<void> {
    const backend = backendOf(instance)
    if (backend.neutralize === undefined) throw new Error(`The ${backend.name} backend cannot neutralize an ERP database`)
    await backend.neutralize(spec)
  }

  /** Starts the instance on its data as it is (after a step that changed nothing); false when it does not run. */
  async function startedAgain (em: EntityManager, instance: Instance, options: WaitOptions): Promise<boolean> {
    try {
      const spec = await specOf(em, instance, 'data')
      await backendOf(instance).start(spec)
      await waitFor(instance, spec, 'running', options)
      return true
    } catch {
      return false
    }
  }

  /** The step before the instance is reported running (see `InstanceLifecycleDeps.beforeRunning`). */
  async function beforeRunning (em: EntityManager, instance: Instance, restored?: Restored): Promise<void> {
    if (deps.beforeRunning === undefined) return
    if (restored === undefined) await deps.beforeRunning(em, instance)
    else await deps.beforeRunning(em, instance, restored)
  }

  return { backendOf, specOf, ensureTenant, provision, markInitialised, start, stop, remove, waitFor, loadStopped, neutralize, startedAgain, beforeRunning }
}
