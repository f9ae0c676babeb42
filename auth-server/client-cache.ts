import type { Adapter, AdapterPayload } from 'oidc-provider'

/**
 * Registered clients are read on every token request, and after registration
 * nothing changes them (there is no client update or delete route): each
 * process keeps the ones it read for a minute. Writes through this process
 * drop its copy at once; a change made by another replica shows here within
 * `ttlMs`. Misses are not kept, so a client registered a moment ago is found.
 */
export function withClientCache (adapter: Adapter, ttlMs = 60_000, maxEntries = 1000): Adapter {
  const cache = new Map<string, { payload: AdapterPayload, until: number }>()

  return {
    ...adapter,
    async find (id) {
      const hit = cache.get(id)
      if (hit !== undefined && hit.until > Date.now()) return { ...hit.payload }
      const payload = await adapter.find(id)
      if (payload === undefined) {
        cache.delete(id)
        return undefined
      }
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string)
      cache.set(id, { payload, until: Date.now() + ttlMs })
      return { ...payload }
    },
    async upsert (id, payload, expiresIn) {
      cache.delete(id)
      await adapter.upsert(id, payload, expiresIn)
    },
    async destroy (id) {
      cache.delete(id)
      await adapter.destroy(id)
    }
  }
}
