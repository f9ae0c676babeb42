import type { FastifyPluginAsync } from 'fastify'
import { proxyToAuthServer } from '../../lib/auth-server-proxy.ts'

/** The authorization server's interactive and token endpoints, forwarded to auth-server/ (see auth-server/README.md). */
const routes: FastifyPluginAsync = async (fastify) => {
  proxyToAuthServer(fastify, [
    // GET only: oidc-provider serves POST on the authorization endpoint only with enableHttpPostMethods (off here).
    { url: '/authorize', summary: 'Authorization endpoint (code + PKCE S256)', browser: true, operations: { GET: 'startAuthorization' } },
    { url: '/authorize/:uid', summary: 'Resumes an authorization after sign-in or consent', browser: true, operations: { GET: 'resumeAuthorization' } },
    { url: '/token', summary: 'Token endpoint (form-encoded): authorization_code and refresh_token grants', perMinute: 120, operations: { POST: 'exchangeToken', OPTIONS: 'preflightToken' } },
    { url: '/revoke', summary: 'Revoke an access or refresh token (RFC 7009)', operations: { POST: 'revokeToken', OPTIONS: 'preflightRevokeToken' } },
    { url: '/handoff', summary: 'Finishes the portal sign-in handoff (oauth_transaction, handoff_code)', browser: true, operations: { GET: 'finishHandoff' } },
    { url: '/consent', summary: 'The consent page (Allow / Deny)', browser: true, operations: { GET: 'showConsent', POST: 'submitConsent' } }
  ])
}

export default routes
