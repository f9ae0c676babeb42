import type { AppConfig } from '../config/env.ts'
import { STANDALONE_AUTH_PORT } from '../config/schema.ts'
import type { AuthServerProcess } from './auth-server-process.ts'
import { defineError } from './errors.ts'

export const AuthServerUnavailable = defineError('AUTH_SERVER_UNAVAILABLE', 'The authorization server does not answer', 502)

/** How long a successful identity check stands before the next request checks again. */
const VERIFIED_FOR_MS = 5000
const CHECK_TIMEOUT_MS = 2000

/**
 * Where this deployment's authorization server is, for the OAuth proxy, the
 * MCP endpoint's JWKS and readiness. With the portal's own child process
 * (`npm start`) that is the address the child reported over IPC; otherwise
 * AUTH_SERVER_URL (an auth server deployed on its own), else 127.0.0.1:AUTH_PORT
 * (default 3001). Either way nothing is sent to it until it
 * has shown it is ours: its discovery document names BASE_URL as the issuer.
 * On one machine with two deployments, a server on a port we expected can be
 * the other one's, whose tokens this deployment must refuse.
 */
export interface AuthServerUpstream {
  /** The verified origin (`http://127.0.0.1:P`); throws AuthServerUnavailable (502) when there is none. */
  origin: () => Promise<string>
  /**
   * Why this deployment is not ready on account of its auth server, or
   * undefined. Only the portal's own child counts: an auth server deployed on
   * its own has its own readiness.
   */
  readinessProblem: () => Promise<string | undefined>
}

export function createAuthServerUpstream ({ config, child, verifiedForMs = VERIFIED_FOR_MS }: {
  config: Pick<AppConfig, 'BASE_URL' | 'AUTH_PORT' | 'AUTH_SERVER_URL'>
  child?: Pick<AuthServerProcess, 'url'> | undefined
  verifiedForMs?: number
}): AuthServerUpstream {
  const fixed = config.AUTH_SERVER_URL?.replace(/\/+$/, '') ?? `http://127.0.0.1:${config.AUTH_PORT ?? STANDALONE_AUTH_PORT}`
  const locate = (): string | undefined => child === undefined ? fixed : child.url()
  let verified: { origin: string, at: number } | undefined
  let pending: { origin: string, problem: Promise<string | undefined> } | undefined

  /** One identity check at a time per origin; a success is remembered for `verifiedForMs`. */
  function check (origin: string): Promise<string | undefined> {
    if (pending?.origin === origin) return pending.problem
    const problem = identityProblem(origin, config.BASE_URL).then((found) => {
      verified = found === undefined ? { origin, at: Date.now() } : undefined
      return found
    }).finally(() => { if (pending?.problem === problem) pending = undefined })
    pending = { origin, problem }
    return problem
  }

  return {
    async origin () {
      const origin = locate()
      if (origin === undefined) throw AuthServerUnavailable('The authorization server is starting or restarting; try again shortly')
      if (verified?.origin === origin && Date.now() - verified.at < verifiedForMs) return origin
      const problem = await check(origin)
      if (problem !== undefined) throw AuthServerUnavailable(`The authorization server is unavailable: ${problem}`)
      return origin
    },
    async readinessProblem () {
      if (child === undefined) return undefined
      const origin = locate()
      if (origin === undefined) return 'the authorization server is not running (starting or restarting)'
      return check(origin)
    }
  }
}

/** Undefined when the server at `origin` is this deployment's auth server, else what is wrong. */
async function identityProblem (origin: string, baseUrl: string): Promise<string | undefined> {
  const publicUrl = new URL(baseUrl)
  let issuer: unknown
  try {
    const response = await fetch(`${origin}/.well-known/oauth-authorization-server`, {
      headers: { 'x-forwarded-host': publicUrl.host, 'x-forwarded-proto': publicUrl.protocol.replace(':', '') },
      signal: AbortSignal.timeout(CHECK_TIMEOUT_MS)
    })
    if (response.status !== 200) return `${origin} answers ${response.status} to its discovery document`
    issuer = ((await response.json()) as { issuer?: unknown }).issuer
  } catch (error) {
    return `${origin} does not answer (${error instanceof Error ? error.message : String(error)})`
  }
  if (issuer !== baseUrl) return `the server at ${origin} belongs to another deployment (issuer ${JSON.stringify(issuer)}, expected ${baseUrl})`
  return undefined
}

declare module 'fastify' {
  interface FastifyInstance {
    authServer: AuthServerUpstream
  }
}
