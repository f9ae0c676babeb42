import { isLoopbackOrigin, LOOPBACK_HOSTNAMES } from '../lib/loopback.ts'

export interface OriginPolicyOptions {
  baseUrl: string
  /** CORS_ORIGINS: front ends allowed to call the API from a browser. */
  corsOrigins: string[]
}

export type OriginVerdict = { allowed: true } | { allowed: false, reason: string }

/**
 * Against DNS rebinding: a page on another site that gets its name resolved to
 * this server still sends its own Host and Origin. A request is refused when
 * its Host is neither BASE_URL's host nor a loopback name, or when it carries
 * an Origin that is neither BASE_URL's, one of CORS_ORIGINS, nor a loopback
 * one (local tools such as the MCP Inspector run on localhost). Agents outside
 * a browser send no Origin.
 */
export function createOriginPolicy ({ baseUrl, corsOrigins }: OriginPolicyOptions) {
  const base = new URL(baseUrl)
  const origins = new Set([base.origin, ...corsOrigins])

  return function check (host: string | undefined, origin: string | undefined): OriginVerdict {
    const hostname = host === undefined ? undefined : hostnameOf(host)
    if (hostname === undefined || (hostname !== base.hostname && !LOOPBACK_HOSTNAMES.has(hostname))) {
      return { allowed: false, reason: `Host ${host ?? '(none)'} is not this service's` }
    }
    if (origin === undefined || origins.has(origin) || isLoopbackOrigin(origin)) return { allowed: true }
    return { allowed: false, reason: `Origin ${origin} is not allowed` }
  }
}

function hostnameOf (host: string): string | undefined {
  try {
    return new URL(`http://${host}`).hostname.toLowerCase()
  } catch {
    return undefined
  }
}
