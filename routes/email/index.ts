import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { accountLinks } from '../../lib/account-links.ts'
import { setUpAccountPages } from '../../lib/account-page-plugin.ts'
import { isAppError } from '../../lib/errors.ts'
import { oneTimeLinkLimits } from '../../lib/one-time-link-limits.ts'
import { responses } from '../../schemas/common.ts'
import { ConfirmEmailForm, TokenPageQuery } from '../../schemas/account-pages.ts'
import { HtmlPage } from '../../schemas/oauth.ts'
import { renderAccountMessagePage, renderConfirmEmailPage } from '../../views/account-pages.ts'

const HOUR = 60 * 60_000
const html = { content: { 'text/html': { schema: HtmlPage } } }

/**
 * The page the link e-mailed to a new address opens when no front end serves
 * it (PORTAL_APP_URL unset). Looking changes nothing (mail scanners fetch
 * links): the change needs the page's Confirm button, a CSRF-protected form
 * post that does what POST /api/email/confirm does, on the same counters.
 */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config, emailChanges } = fastify
  const pages = await setUpAccountPages(fastify, '/email')
  const product = config.PRODUCT_NAME
  const links = accountLinks(config)
  const signIn = { href: links.signIn(), text: 'Back to sign in' }
  const refused = (reply: FastifyReply, status: number, message: string) =>
    pages.send(reply, status, renderAccountMessagePage({ product, title: 'This link cannot be used', message, error: true, link: signIn }))

  async function showConfirmation (reply: FastifyReply, token: string) {
    try {
      const { email, new_email: newEmail } = await emailChanges.checkChange(reply.request.em, token)
      return pages.send(reply, 200, renderConfirmEmailPage({ product, csrf: pages.withCsrf(reply), token, email, newEmail }))
    } catch (refusal) {
      if (!isAppError(refusal) || refusal.statusCode >= 500) throw refusal
      return refused(reply, refusal.statusCode, refusal.message)
    }
  }

  fastify.get('/confirm', {
    // The token is in the URL: keep it out of the per-request info logs.
    logLevel: 'warn',
    onRequest: fastify.limitPerIp('email-confirm-page', { max: 60, timeWindow: HOUR }),
    schema: {
      tags: ['auth'],
      operationId: 'showConfirmEmailPage',
      summary: 'Built-in page confirming a new e-mail address',
      description: 'Where the link e-mailed to a new address opens when PORTAL_APP_URL is unset: shows the new address and a Confirm button. ' +
        'Looking changes nothing and does not use the link up; an unusable one (unknown, used, replaced, expired) shows why.',
      querystring: TokenPageQuery,
      response: responses({ 200: html }, [429])
    }
  }, async (request, reply) => showConfirmation(reply, request.query.token ?? ''))

  fastify.post('/confirm', {
    logLevel: 'warn',
    ...oneTimeLinkLimits(fastify, 'email-confirm'),
    schema: {
      tags: ['auth'],
      operationId: 'submitConfirmEmailPage',
      summary: 'Confirm a new e-mail address from the built-in page',
      description: 'Form post (CSRF-protected: 403 without the page\'s hidden field and cookie). Does what POST /api/email/confirm does, then leads to sign-in.',
      consumes: ['application/x-www-form-urlencoded'],
      body: ConfirmEmailForm,
      response: responses({ 200: html }, [403, 409, 413, 415, 429])
    }
  }, async (request, reply) => {
    const { csrf, token = '' } = request.body
    if (!pages.csrf.verify(request.headers.cookie, csrf)) {
      return refused(reply, 403, 'This form has expired or was not opened on this site. Open the link again and retry.')
    }
    try {
      const { email } = await emailChanges.confirm(request.em, token)
      return pages.send(reply, 200, renderAccountMessagePage({
        product, title: 'E-mail address changed', message: `Your e-mail address is now ${email}: sign in with it from now on.`, link: { href: links.signIn(), text: 'Sign in' }
      }))
    } catch (refusal) {
      if (!isAppError(refusal) || refusal.statusCode >= 500) throw refusal
      return refused(reply, refusal.statusCode, refusal.message)
    }
  })
}

export default routes
