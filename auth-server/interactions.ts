import type pg from 'pg'
import { errors, type KoaContextWithOIDC, type KoaMiddleware } from 'oidc-provider'
import type Provider from 'oidc-provider'
import { deriveKey } from '../lib/secrets.ts'
import { resolveHandoffSecret } from './grant-store.ts'
import { createConsentRoutes } from './interactions-consent.ts'
import { createConsentCsrf } from './interactions-csrf.ts'
import { createHandoffRoute } from './interactions-handoff.ts'
import { bindTransaction, EXPIRED_MESSAGE, sendError, setFrameHeaders } from './interactions-http.ts'
import { createPortalClient } from './interactions-portal.ts'

/**
 * The login handoff and the consent page. `GET /oauth/authorize`
 * without a session sends the browser to the portal's login page with
 * `?oauth_transaction=<uid>` (the oidc-provider Interaction id); the portal
 * sends it back to `/oauth/handoff` with a one-time code. Interactions are
 * resolved by id: the library's `_interaction` cookie is scoped to the
 * interaction URL and is missing at /oauth/handoff.
 */
export interface InteractionUrlOptions {
  baseUrl: string
  portalLoginUrl?: string | undefined
  interactionTtlSeconds: number
}

export function interactionUrl (options: InteractionUrlOptions) {
  const loginUrl = options.portalLoginUrl ?? `${options.baseUrl}/login`
  const consentUrl = `${options.baseUrl}/oauth/consent`
  return async (ctx: KoaContextWithOIDC, interaction: { uid: string, prompt: { name: string } }): Promise<string> => {
    bindTransaction(ctx, interaction.uid, options.interactionTtlSeconds)
    const url = new URL(interaction.prompt.name === 'login' ? loginUrl : consentUrl)
    url.searchParams.set('oauth_transaction', interaction.uid)
    return url.href
  }
}

/** The library's error page (`renderError`): a plain explanation, never a stack trace or internals. */
export async function renderInteractionError (ctx: KoaContextWithOIDC, out: { error?: string, error_description?: string }): Promise<void> {
  const status = typeof ctx.status === 'number' && ctx.status >= 400 ? ctx.status : 400
  if (out.error === 'session_not_found' || (out.error === 'invalid_request' && /expired/.test(out.error_description ?? ''))) {
    return sendError(ctx, status, 'Sign-in request expired',
      `${EXPIRED_MESSAGE} If you signed in from another browser or device, finish the sign-in where you started it.`)
  }
  const message = status >= 500 ? 'Something went wrong on our side. Start again from your agent.' : out.error_description ?? 'This request is not valid.'
  // The OAuth error code (`invalid_client`, `invalid_request`…) is what clients and their users search for.
  const code = typeof out.error === 'string' && /^[a-z_]{1,64}$/.test(out.error) ? out.error : undefined
  sendError(ctx, status, 'Cannot continue', message, code)
}

export interface InteractionDeps {
  provider: Provider
  pool: pg.Pool
  baseUrl: string
  /** PRODUCT_NAME, on the consent page. */
  product?: string | undefined
  /** JWT_SECRET, resolved: keys the consent CSRF token (and the handoff secret when HANDOFF_SECRET is unset). */
  jwtSecret: string
  handoffSecret?: string | undefined
  /** PORTAL_API_URL; BASE_URL when unset. */
  portalApiUrl?: string | undefined
  mcpResource: string
  authorizePath: string
  log?: (message: string) => void
}

export const interactionPaths = ['/oauth/handoff', '/oauth/consent']

export function interactionRoutes (deps: InteractionDeps): KoaMiddleware {
  const log = deps.log ?? ((message: string) => console.error(message))
  const handoff = createHandoffRoute({
    provider: deps.provider,
    portal: createPortalClient({ apiUrl: deps.portalApiUrl ?? deps.baseUrl, handoffSecret: resolveHandoffSecret(deps.handoffSecret, deps.jwtSecret) }),
    log
  })
  const consent = createConsentRoutes({
    provider: deps.provider,
    pool: deps.pool,
    csrf: createConsentCsrf(deriveKey(deps.jwtSecret, 'oauth-consent')),
    mcpResource: deps.mcpResource,
    product: deps.product,
    log
  })

  return async (ctx, next) => {
    const path = ctx.path as string
    if (path === deps.authorizePath || path.startsWith(`${deps.authorizePath}/`)) {
      await next()
      setFrameHeaders(ctx)
      return
    }
    if (!interactionPaths.includes(path)) return next()
    try {
      if (path === '/oauth/handoff' && ctx.method === 'GET') return await handoff(ctx)
      if (path === '/oauth/consent' && ctx.method === 'GET') return await consent.show(ctx)
      if (path === '/oauth/consent' && ctx.method === 'POST') return await consent.decide(ctx)
      ctx.set('Allow', path === '/oauth/handoff' ? 'GET' : 'GET, POST')
      sendError(ctx, 405, 'Cannot continue', 'This address does not accept this kind of request.')
    } catch (error) {
      // Bad input the adapter refused (auth-server/adapter.ts), e.g. a NUL in the transaction id.
      if (error instanceof errors.OIDCProviderError && error.status < 500) {
        return sendError(ctx, error.status, 'Cannot continue', error.error_description ?? 'This request is not valid.')
      }
      log(`oauth ${path} failed: ${(error as Error).stack ?? String(error)}`)
      sendError(ctx, 500, 'Something went wrong', 'Something went wrong on our side. Start again from your agent.')
    }
  }
}
