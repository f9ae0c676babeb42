import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AUTHENTICATED, responses } from '../../../schemas/common.ts'
import { HandoffBody, HandoffConsumeBody, HandoffConsumeHeaders, HandoffIdentityResponse, HandoffResponse } from '../../../schemas/oauth.ts'
import { AccountDisabled, TenantSuspended } from '../../../plugins/app/auth/auth.errors.ts'
import { HandoffCodeInvalid, HandoffSecretInvalid } from '../../../plugins/app/oauth/oauth.errors.ts'

const HANDOFF_LIMIT_PER_IP = { max: 30, timeWindow: 60_000 }

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { handoff } = fastify.oauth
  const ttl = fastify.config.HANDOFF_TTL_SECONDS

  fastify.post('/handoff', {
    onRequest: fastify.limitPerIp('oauth-handoff', HANDOFF_LIMIT_PER_IP),
    schema: {
      tags: ['oauth'],
      operationId: 'mintHandoffCode',
      summary: 'Mint a handoff code for an agent authorization',
      description: `Any member. After the person signs in on the portal's login page (reached with \`?oauth_transaction=…\`), ` +
        `the portal asks for a one-time code and sends the browser to \`redirect_url\`. The code works once, within ${ttl} seconds. ` +
        `Rate-limited: ${HANDOFF_LIMIT_PER_IP.max} per minute per IP.`,
      body: HandoffBody,
      response: responses({ 200: HandoffResponse }, [...AUTHENTICATED, 413, 415, 429])
    }
  }, async (request) => ({ success: true as const, ...await handoff.mint(request.scope, request.body.oauth_transaction) }))

  fastify.post('/handoff/consume', {
    config: { auth: 'none' },
    // The code is a credential: keep request bodies out of the info logs as much as the URL.
    logLevel: 'warn',
    schema: {
      tags: ['oauth'],
      operationId: 'consumeHandoffCode',
      summary: 'Exchange a handoff code for the person (auth server only)',
      description: 'Called by the authorization server with `X-OAuth-Handoff-Secret` (401 `HANDOFF_SECRET_INVALID` when wrong or missing; ' +
        'the code stays usable). Answers who signed in and the transaction the code was minted for. Single use: an unknown, used or ' +
        'expired code is 400 `HANDOFF_CODE_INVALID`; a person deactivated or a company suspended since is 403 `ACCOUNT_DISABLED` / `TENANT_SUSPENDED`.',
      headers: HandoffConsumeHeaders,
      body: HandoffConsumeBody,
      response: responses({ 200: HandoffIdentityResponse }, [401, 403, 413, 415, HandoffSecretInvalid, HandoffCodeInvalid, AccountDisabled, TenantSuspended])
    },
    // Before the body is validated, so a caller without the secret learns nothing from validation errors.
    preValidation: async (request) => { handoff.checkSecret(secretHeader(request.headers['x-oauth-handoff-secret'])) }
  }, async (request) => ({ success: true as const, ...await handoff.consume(request.body.code) }))
}

function secretHeader (value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value
}

export default routes
