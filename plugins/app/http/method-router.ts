import FindMyWay, { type HTTPMethod } from 'find-my-way'

const CANONICAL = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']
const rank = (method: string) => CANONICAL.includes(method) ? CANONICAL.indexOf(method) : CANONICAL.length
const byCanonicalOrder = (a: string, b: string) => rank(a) - rank(b) || a.localeCompare(b)

/**
 * A shadow router holding every registered route, so that an unmatched request
 * can be told apart: unknown path (404) or known path with another method
 * (405 with an Allow header).
 */
export function createMethodRouter () {
  const router = FindMyWay({ ignoreTrailingSlash: false, ignoreDuplicateSlashes: false })
  const methods = new Set<string>()

  return {
    add (method: string | string[], url: string): void {
      if (url === '*' || url === '/*') return
      for (const m of Array.isArray(method) ? method : [method]) {
        try {
          router.on(m as HTTPMethod, url, () => {})
          methods.add(m)
        } catch {
          // Duplicate shapes are already known; the Fastify router rejects real conflicts itself.
        }
      }
    },
    /**
     * The methods a known path answers; empty for an unknown path. OPTIONS is
     * always among them: the CORS plugin answers it on every path.
     */
    allowedMethods (url: string): string[] {
      const path = url.split('?')[0] ?? url
      const found = [...methods].filter((method) => method !== 'OPTIONS' && router.find(method as HTTPMethod, path) !== null)
      return found.length === 0 ? [] : [...found, 'OPTIONS'].sort(byCanonicalOrder)
    }
  }
}
