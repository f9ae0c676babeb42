import type { KoaMiddleware } from 'oidc-provider'

/**
 * HOOK POINT for the login handoff and the consent page (issue 6, not built yet).
 *
 * What exists: `GET /oauth/authorize` without a session redirects (303) to
 * `interactionUrl(...)` below, i.e. `${PORTAL_LOGIN_URL ?? BASE_URL + '/login'}?oauth_transaction=<uid>`,
 * where `<uid>` is the oidc-provider Interaction id.
 *
 * What the next engineer fills in, in `interactionRoutes`:
 * - `GET /oauth/handoff?oauth_transaction&handoff_code`: exchange the code with
 *   `POST {PORTAL_API_URL}/api/oauth/handoff/consume` (header `X-OAuth-Handoff-Secret`),
 *   check the transaction matches, then resolve the interaction BY ID
 *   (`provider.Interaction.find(uid)`: the `_interaction` cookie is scoped to the
 *   interaction URL and is missing here), set `result.login = { accountId }`,
 *   save, and continue to the consent page.
 * - the consent page (Allow / Deny, CSRF, `frame-ancestors 'none'`); on Allow
 *   create a `provider.Grant({ accountId, clientId })`, `addResourceScope(mcpResource, 'mcp')`,
 *   save it, finish with `result.consent = { grantId }` and redirect to `interaction.returnTo`;
 *   on Deny finish with `{ error: 'access_denied' }`.
 * Until then these routes answer 501.
 */
export function interactionUrl (options: { baseUrl: string, portalLoginUrl?: string }) {
  const loginUrl = options.portalLoginUrl ?? `${options.baseUrl}/login`
  return async (_ctx: unknown, interaction: { uid: string }): Promise<string> => {
    const url = new URL(loginUrl)
    url.searchParams.set('oauth_transaction', interaction.uid)
    return url.href
  }
}

export const interactionPaths = ['/oauth/handoff', '/oauth/consent']

export function interactionRoutes (): KoaMiddleware {
  return async (ctx, next) => {
    if (!interactionPaths.includes(ctx.path as string)) return next()
    ctx.status = 501
    ctx.type = 'text/plain'
    ctx.body = 'Signing in agents is not available yet on this server.'
  }
}
