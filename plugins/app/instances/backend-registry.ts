import type { FastifyBaseLogger } from 'fastify'
import { BackendUnavailableError, type BackendName, type ProvisioningBackend } from '../../../provisioning/backend.ts'
import type { DockerServeChecks } from '../../../provisioning/serve-checks.ts'
import { BackendNotReady, BackendUnavailable } from './instances.errors.ts'
import { platformNotReadyMessage, withOperatorDetail } from './platform-refusals.ts'

/** 503 INSTANCE_BACKEND_UNAVAILABLE in the tenant's words; the operator's reason and hint (settings, engine address) go to the log with the request. */
function backendNotReady (name: BackendName, reason: string, hint?: string) {
  return withOperatorDetail(BackendUnavailable(platformNotReadyMessage(`Instances on ${name}`), { backend: name }), { reason, hint })
}

export interface BackendRegistry {
  /** Every backend this installation offers (INSTANCE_BACKENDS). */
  readonly enabled: BackendName[]
  /** The backend, known to answer (checked at most every few seconds); 503 otherwise, in the tenant's words, what to configure logged. */
  require: (name: BackendName) => Promise<ProvisioningBackend>
  /**
   * As `require`, and the backend can serve a new instance of `erpVersion` (its image, its
   * database reachable from a container): 503 INSTANCE_BACKEND_NOT_READY in the tenant's words
   * otherwise, the operator's reason logged.
   */
  requireServing: (name: BackendName, erpVersion: string) => Promise<ProvisioningBackend>
  /** One line per problem an instance would meet on each enabled backend, with the setting that fixes it (printed at start). */
  startupProblems: () => Promise<string[]>
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
export function createBackendRegistry ({ enabled, backends, notConfigured, serveChecks = {}, log }: {
  enabled: BackendName[]
  backends: Partial<Record<BackendName, ProvisioningBackend>>
  notConfigured: Partial<Record<BackendName, string>>
  /** What a backend needs beyond answering (provisioning/serve-checks.ts). */
  serveChecks?: Partial<Record<BackendName, DockerServeChecks>>
  log?: Pick<FastifyBaseLogger, 'warn'>
}): BackendRegistry {
  const checkedAt = new Map<BackendName, number>()

  function get (name: BackendName): ProvisioningBackend {
    const backend = backends[name]
    if (!enabled.includes(name)) {
      throw withOperatorDetail(BackendUnavailable(`Instances on ${name} are not offered here`, { backend: name, offered: enabled }), {
        reason: `The ${name} backend is not enabled here`,
        hint: `enabled backends: ${enabled.join(', ') || 'none'}; add ${name} to INSTANCE_BACKENDS to offer it`
      })
    }
    if (backend === undefined) {
      const hint = notConfigured[name] ?? 'configure it'
      throw backendNotReady(name, `The ${name} backend is not configured`, hint)
    }
    return backend
  }

  async function require (name: BackendName): Promise<ProvisioningBackend> {
    const backend = get(name)
    const last = checkedAt.get(name)
    if (last !== undefined && Date.now() - last < CHECK_TTL_MS) return backend
    try {
      await backend.check()
    } catch (error) {
      checkedAt.delete(name)
      if (error instanceof BackendUnavailableError) {
        throw backendNotReady(name, error.message, error.hint)
      }
      throw error
    }
    checkedAt.set(name, Date.now())
    return backend
  }

  return {
    enabled,
    get,
    find: (name) => enabled.includes(name) ? backends[name] : undefined,
    all: () => enabled.flatMap((name) => backends[name] === undefined ? [] : [backends[name]]),
    require,
    async requireServing (name, erpVersion) {
      const backend = await require(name)
      const problems = await serveChecks[name]?.problems(erpVersion) ?? []
      if (problems.length === 0) return backend
      for (const problem of problems) log?.warn({ backend: name, erpVersion }, `An instance was refused: ${problem.reason}`)
      throw BackendNotReady(problems[0]!.tenantMessage, { backend: name })
    },
    async startupProblems () {
      const lines: string[] = []
      for (const name of enabled) {
        const backend = backends[name]
        if (backend === undefined) {
          lines.push(`Instances on ${name}: not configured: ${notConfigured[name] ?? 'configure it'} (or leave ${name} out of INSTANCE_BACKENDS)`)
          continue
        }
        try {
          await backend.check()
        } catch (error) {
          const hint = error instanceof BackendUnavailableError ? `: ${error.hint}` : ''
          lines.push(`Instances on ${name}: ${(error as Error).message}${hint}`)
          continue
        }
        for (const problem of await serveChecks[name]?.problems() ?? []) lines.push(`Instances on ${name}: ${problem.reason}`)
      }
      return lines
    },
    async close () {
      await Promise.allSettled(Object.values(backends).map(async (backend) => backend?.close?.()))
    }
  }
}
