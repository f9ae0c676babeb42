import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Forbidden } from '../../../lib/errors.ts'
import { pageInfo } from '../../../lib/pages.ts'
import type { FastifyRequest } from 'fastify'
import { clientMeta } from '../../../lib/client-meta.ts'
import { TwoFactorEnrolmentRequired } from '../../../plugins/app/auth/auth.errors.ts'
import { WeakPassword } from '../../../plugins/app/auth/password.ts'
import { EmailTaken } from '../../../plugins/app/tenants/tenants.errors.ts'
import { InvitationCancelled, InvitationExpired, InvitationNotFound, InvitationNotPending, InvitationUsed } from '../../../plugins/app/invitations/invitations.errors.ts'
import { LoginResponse } from '../../../schemas/auth.ts'
import { AUTHENTICATED, pageOf, responses } from '../../../schemas/common.ts'
import {
  AcceptInvitationBody, InvitationIdParams, InvitationListQuery, InvitationListResponse, InvitationPreviewResponse,
  InvitationResponse, InvitationTokenParams, InviteBody
} from '../../../schemas/invitations.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE

/** The token is a credential: both public routes are limited per client IP. */
const ACCEPT_LIMIT_PER_IP = { max: 20, timeWindow: 15 * MINUTE }
const PREVIEW_LIMIT_PER_IP = { max: 60, timeWindow: MINUTE }

const ADMIN = [...AUTHENTICATED, Forbidden]

/** Registered by ./index.ts (autoload loads only a folder's index.ts). */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config, invitations } = fastify

  const perIp = fastify.limitPerIp

  /** Per invitation (and tenant, so another company cannot use up this one's budget). */
  const resendLimit = fastify.limitBy({
    name: 'invitation-resend',
    max: config.INVITATION_RESEND_LIMIT,
    timeWindowMs: HOUR,
    key: (request: FastifyRequest) => `${request.actor.tenantId}:${(request.params as { id?: string }).id ?? '-'}`
  })

  const inviteSchema = {
    tags: ['invitations'],
    description: `Admin only. Creates a pending invitation valid for ${config.INVITATION_TTL_DAYS} days and e-mails its link ` +
      '(`{BASE_URL}/invitation/accept?token=…`). The e-mail goes through a durable outbox: if it cannot be sent yet, the ' +
      'invitation is still created and delivery is retried. 409 `INVITATION_PENDING` when the address already has a pending ' +
      'invitation here, 409 `EMAIL_TAKEN` when it already has an account; 404 `INSTANCE_NOT_FOUND` for an instance that is not this company\'s.',
    body: InviteBody,
    response: responses({ 201: InvitationResponse }, [...ADMIN, 404, 409, 413, 415])
  }
  const inviteRoutes = [
    { url: '/invite', operationId: 'inviteUser', summary: 'Invite a user' },
    { url: '/invitation', operationId: 'createInvitation', summary: 'Invite a user (alias of /api/users/invite)' }
  ]
  for (const { url, operationId, summary } of inviteRoutes) {
    fastify.post(url, {
      schema: { ...inviteSchema, operationId, summary }
    }, async (request, reply) => {
      const invitation = await invitations.invite(request.scope, request.body)
      return reply.code(201).send({ success: true as const, invitation })
    })
  }

  fastify.get('/invitations', {
    schema: {
      tags: ['invitations'],
      operationId: 'listInvitations',
      summary: 'Pending invitations',
      description: 'Admin only. Pending invitations, newest first; those past their expiry are included with `status: "expired"` so they can be resent or cancelled.' +
        ' Paged (docs/api.md, "Lists and pages"): `pagination`, and the same numbers at the top level as before.',
      querystring: InvitationListQuery,
      response: responses({ 200: InvitationListResponse }, ADMIN)
    }
  }, async (request) => {
    const page = pageOf(request.query)
    const { invitations: rows, total } = await invitations.list(request.scope, page)
    return { success: true as const, invitations: rows, ...pageInfo(page, total), pagination: pageInfo(page, total) }
  })

  fastify.post('/invitation/:id/resend', {
    preValidation: resendLimit,
    schema: {
      tags: ['invitations'],
      operationId: 'resendInvitation',
      summary: 'Resend an invitation',
      description: `Admin only. Issues a new link (the previous one stops working at once), renews the expiry and sends the e-mail again. Pending invitations only (409 \`INVITATION_NOT_PENDING\`). At most ${config.INVITATION_RESEND_LIMIT} per invitation per hour (429).`,
      params: InvitationIdParams,
      response: responses({ 200: InvitationResponse }, [...ADMIN, 404, 409, 429, InvitationNotFound, InvitationNotPending])
    }
  }, async (request) => ({ success: true as const, invitation: await invitations.resend(request.scope, request.params.id) }))

  fastify.post('/invitation/:id/cancel', {
    schema: {
      tags: ['invitations'],
      operationId: 'cancelInvitation',
      summary: 'Cancel an invitation',
      description: 'Admin only. Pending invitations only (409 `INVITATION_NOT_PENDING`); its link then answers 404 `INVITATION_CANCELLED`.',
      params: InvitationIdParams,
      response: responses({ 200: InvitationResponse }, [...ADMIN, 404, 409, InvitationNotPending, InvitationCancelled, InvitationNotFound])
    }
  }, async (request) => ({ success: true as const, invitation: await invitations.cancel(request.scope, request.params.id) }))

  fastify.get('/invitation/:token', {
    config: { auth: 'none' },
    // The token is in the path: keep it out of the per-request info logs ("incoming request" has the URL).
    logLevel: 'warn',
    onRequest: perIp('invitation-preview', PREVIEW_LIMIT_PER_IP),
    schema: {
      tags: ['invitations'],
      operationId: 'previewInvitation',
      summary: 'Look up an invitation by its token',
      description: 'Public: what the accept page shows. 404 with `INVITATION_NOT_FOUND`, `INVITATION_EXPIRED`, `INVITATION_CANCELLED` or `INVITATION_USED`.',
      params: InvitationTokenParams,
      response: responses({ 200: InvitationPreviewResponse }, [404, 429, InvitationNotFound, InvitationExpired, InvitationCancelled, InvitationUsed])
    }
  }, async (request) => ({ success: true as const, invitation: await invitations.preview(request.em, request.params.token) }))

  fastify.post('/invitation/accept', {
    config: { auth: 'none' },
    onRequest: perIp('invitation-accept', ACCEPT_LIMIT_PER_IP),
    schema: {
      tags: ['invitations'],
      operationId: 'acceptInvitation',
      summary: 'Accept an invitation',
      description: `Public. Creates the account (in the inviting company, with the invited role) and answers a session exactly like login. The token works once. Same 404 codes as the lookup; 400 \`WEAK_PASSWORD\`; 409 \`EMAIL_TAKEN\` if the address got an account meanwhile. When the company requires a second factor, the account is made but no session opens: 403 \`TWO_FACTOR_ENROLMENT_REQUIRED\` with \`details: {challenge, expires_in}\` for POST /api/login/2fa/enrol, as at login. Rate-limited: ${ACCEPT_LIMIT_PER_IP.max} per 15 minutes per IP.`,
      body: AcceptInvitationBody,
      response: responses({ 200: LoginResponse }, [403, 404, 409, 413, 415, 429, WeakPassword, EmailTaken, TwoFactorEnrolmentRequired])
    }
  }, async (request) => ({ success: true as const, ...await invitations.accept(request.em, request.body, clientMeta(request)) }))
}

export default routes
