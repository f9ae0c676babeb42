import { BackendUnavailableError, type BackendName, type ProvisioningBackend } from '../../../provisioning/backend.ts'
import { BackendUnavailable } from './instances.errors.ts'

export interface BackendRegistry {
  /** Every backend this installation offers (INSTANCE_BACKENDS). */
  readonly enabled: BackendName[]
  /** The backend, known to answer (checked at most every few seconds); 503 otherwise, saying what to configure. */
  require: (name: BackendName) => Promise<ProvisioningBackend>
  /** The backend without a check (jobs: a failing call is retried); 503 when not configured. */
  get: (name: BackendName) => ProvisioningBackend
  /** The backend when it is enabled and configured here; undefined otherwise. */
  find: (name: BackendName) => ProvisioningBackend | undefined
  /** The configured backends. */
  all: () => ProvisioningBackend[]
  close: () => Promise<void>
}

const CHECK_TTL_MS = 5000

/**
 * The backends of this installation. `notConfigured` explains, per enabled
 * backend that could not be set up, how to set it up (e.g. KUBECONFIG).
 */
export function createBackendRegistry ({ enabled, backends, notConfigured }: {
  enabled: BackendName[]
  backends: Partial<Record<BackendName, ProvisioningBackend>>
  notConfigured: Partial<Record<BackendName, string>>
}): BackendRegistry {
  const checkedAt = new Map<BackendName, number>()

  function get (name: BackendName): ProvisioningBackend {
    const backend = backends[name]
    if (!enabled.includes(name)) {
      throw BackendUnavailable(`The ${name} backend is not enabled here`, {
        backend: name,
        hint: `enabled backends: ${enabled.join(', ') || 'none'}; add ${name} to INSTANCE_BACKENDS to offer it`
      })
    }
    if (backend === undefined) {
      const hint = notConfigured[name] ?? 'configure it'
      throw BackendUnavailable(`The ${name} backend is not configured: ${hint}`, { backend: name, hint })
    }
    return backend
  }

  return {
    enabled,
    get,
    find: (name) => enabled.includes(name) ? backends[name] : undefined,
    all: () => enabled.flatMap((name) => backends[name] === undefined ? [] : [backends[name]]),
    async require (name) {
      const backend = get(name)
      const last = checkedAt.get(name)
      if (last !== undefined && Date.now() - last < CHECK_TTL_MS) return backend
      try {
        await backend.check()
      } catch (error) {
        checkedAt.delete(name)
        if (error instanceof BackendUnavailableError) {
          throw BackendUnavailable(`${error.message}: ${error.hint}`, { backend: name, hint: error.hint })
        }
        throw error
      }
      checkedAt.set(name, Date.now())
      return backend
    },
    async close () {
      await Promise.allSettled(Object.values(backends).map(async (backend) => backend?.close?.()))
    }
  }
}
