import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { accountLinks } from '../../lib/account-links.ts'
import { setUpAccountPages } from '../../lib/account-page-plugin.ts'
import { clientMeta } from '../../lib/client-meta.ts'
import { isAppError } from '../../lib/errors.ts'
import { userScope } from '../../lib/call-scope.ts'
import { responses } from '../../schemas/common.ts'
import { AcceptInvitationForm, TokenPageQuery } from '../../schemas/account-pages.ts'
import { PASSWORD_RULE } from '../../schemas/auth.ts'
import { HtmlPage } from '../../schemas/oauth.ts'
import { renderAccountMessagePage, renderAcceptInvitationPage } from '../../views/account-pages.ts'

const MINUTE = 60_000
const html = { content: { 'text/html': { schema: HtmlPage } } }
/** Refusals the person fixes by typing again: shown on the form. */
const FORM_ERRORS = new Set(['WEAK_PASSWORD', 'VALIDATION_FAILED'])

/**
 * The invitation e-mail's link when no front end serves it (PORTAL_APP_URL
 * unset): the accept page, which creates the account with the same service as
 * POST /api/users/invitation/accept. It keeps no session open.
 */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config, invitations, auth } = fastify
  const pages = await setUpAccountPages(fastify, '/invitation')
  const product = config.PRODUCT_NAME
  const signIn = { href: accountLinks(config).signIn(), text: 'Sign in' }
  const refused = (message: string) => renderAccountMessagePage({ product, title: 'This invitation cannot be used', message, error: true, link: signIn })

  async function showForm (reply: Parameters<typeof pages.send>[0], status: number, token: string, input: { name?: string | undefined, error?: string }) {
    const invitation = await invitations.preview(reply.request.em, token)
    return pages.send(reply, status, renderAcceptInvitationPage({
      product, csrf: pages.withCsrf(reply), token, company: invitation.company, email: invitation.email,
      name: input.name ?? invitation.name, role: invitation.role, rule: PASSWORD_RULE, error: input.error
    }))
  }

  fastify.get('/accept', {
    // The token is in the URL: keep it out of the per-request info logs.
    logLevel: 'warn',
    onRequest: fastify.limitPerIp('invitation-preview', { max: 60, timeWindow: MINUTE }),
    schema: {
      tags: ['invitations'],
      operationId: 'showInvitationPage',
      summary: 'Built-in invitation page',
      description: 'Where the invitation e-mail\'s link opens when PORTAL_APP_URL is unset: who invites, the e-mail, a name, a new password and Accept. ' +
        'An unusable link (unknown, expired, cancelled, used) shows why instead.',
      querystring: TokenPageQuery,
      response: responses({ 200: html }, [404, 429])
    }
  }, async (request, reply) => {
    const token = request.query.token ?? ''
    try {
      return await showForm(reply, 200, token, {})
    } catch (error) {
      if (isAppError(error) && error.statusCode === 404) return pages.send(reply, 404, refused(error.message))
      throw error
    }
  })

  fastify.post('/accept', {
    logLevel: 'warn',
    // Same counter as POST /api/users/invitation/accept.
    onRequest: fastify.limitPerIp('invitation-accept', { max: 20, timeWindow: 15 * MINUTE }),
    schema: {
      tags: ['invitations'],
      operationId: 'submitInvitationPage',
      summary: 'Accept from the built-in invitation page',
      description: 'Form post of the invitation page (CSRF-protected: 403 without the page\'s hidden field and cookie). Creates the account like ' +
        'POST /api/users/invitation/accept, then shows a page that leads to sign-in. A weak or mistyped password shows the form again.',
      consumes: ['application/x-www-form-urlencoded'],
      body: AcceptInvitationForm,
      response: responses({ 200: html }, [403, 404, 409, 413, 415, 429])
    }
  }, async (request, reply) => {
    const { csrf, token = '', name, password = '', password_confirm: confirmation } = request.body
    if (!pages.csrf.verify(request.headers.cookie, csrf)) {
      return pages.send(reply, 403, refused('This form has expired or was not opened on this site. Open the link from your e-mail again.'))
    }
    try {
      if (password !== confirmation) return await showForm(reply, 200, token, { name, error: 'The two passwords differ.' })
      const session = await invitations.accept(request.em, { token, password, name }, clientMeta(request))
      // The page only creates the account; the person signs in where they usually do.
      const actor = await auth.authenticate(session.token)
      request.scopeToTenant(actor.tenantId)
      await auth.logout(userScope(fastify.sql, actor, () => request.em))
      return pages.send(reply, 200, renderAccountMessagePage({
        product, title: 'Welcome aboard', message: `Your account ${actor.email} is ready. Sign in with your new password.`, link: signIn
      }))
    } catch (error) {
      if (isAppError(error) && error.code === 'TWO_FACTOR_ENROLMENT_REQUIRED') {
        // The account exists; the company wants a second factor before any session.
        return pages.send(reply, 200, renderAccountMessagePage({
          product, title: 'Welcome aboard', message: 'Your account is ready. Your company requires two-step verification: you set it up when you first sign in.', link: signIn
        }))
      }
      if (isAppError(error) && FORM_ERRORS.has(error.code)) return showForm(reply, 200, token, { name, error: error.message })
      if (isAppError(error) && error.statusCode < 500) return pages.send(reply, error.statusCode, refused(error.message))
      throw error
    }
  })
}

export default routes
