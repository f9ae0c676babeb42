import type { ProvisioningBackend } from '../../provisioning/backend.ts'
import type { ServiceMetrics } from './service-metrics.ts'

/**
 * The backend, with every failed call (a rejection or a throw) counted by
 * backend and operation: the operation is the interface method's name
 * (`backups.dumpDatabase` for the backup runner's, `clusterBackups.restore` for the
 * cluster's Jobs), a closed set.
 */
const RUNNERS = new Set<PropertyKey>(['backups', 'clusterBackups'])

export function countingBackendErrors (backend: ProvisioningBackend, metrics: ServiceMetrics): ProvisioningBackend {
  const counted = <T extends object>(target: T, prefix: string): T => {
    const wrappers = new Map<PropertyKey, unknown>()
    return new Proxy(target, {
      get (object, property, receiver) {
        const value = Reflect.get(object, property, receiver) as unknown
        if (RUNNERS.has(property) && prefix === '' && typeof value === 'object' && value !== null) {
          if (!wrappers.has(property)) wrappers.set(property, counted(value, `${String(property)}.`))
          return wrappers.get(property)
        }
        if (typeof value !== 'function' || typeof property !== 'string') return value
        if (!wrappers.has(property)) {
          const labels = { backend: backend.name, operation: `${prefix}${property}` }
          const fail = (error: unknown) => {
            metrics.backendCallErrors.inc(labels)
            throw error
          }
          wrappers.set(property, (...args: unknown[]) => {
            let result: unknown
            try {
              result = (value as (...a: unknown[]) => unknown).apply(object, args)
            } catch (error) {
              fail(error)
            }
            return result instanceof Promise ? result.catch(fail) : result
          })
        }
        return wrappers.get(property)
      }
    })
  }
  return counted(backend, '')
}
