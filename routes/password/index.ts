import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { accountKey } from '../../lib/account-key.ts'
import { accountLinks } from '../../lib/account-links.ts'
import { setUpAccountPages } from '../../lib/account-page-plugin.ts'
import { isAppError } from '../../lib/errors.ts'
import { oneTimeLinkLimits } from '../../lib/one-time-link-limits.ts'
import { FORGOT_ANSWER } from '../../plugins/app/passwords/passwords.service.ts'
import { responses } from '../../schemas/common.ts'
import { ForgotPasswordForm, ResetPasswordForm, TokenPageQuery } from '../../schemas/account-pages.ts'
import { PASSWORD_RULE } from '../../schemas/auth.ts'
import { HtmlPage } from '../../schemas/oauth.ts'
import { renderAccountMessagePage, renderForgotPasswordPage, renderResetPasswordPage } from '../../views/account-pages.ts'

const HOUR = 60 * 60_000
const html = { content: { 'text/html': { schema: HtmlPage } } }
const FORM_ERRORS = new Set(['WEAK_PASSWORD', 'VALIDATION_FAILED'])

/**
 * The password pages when no front end serves them (PORTAL_APP_URL unset):
 * ask for a reset link, and set a new password with one. Same services and
 * rate-limit counters as POST /api/password/forgot and /api/password/reset.
 */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config, passwords } = fastify
  const pages = await setUpAccountPages(fastify, '/password')
  const product = config.PRODUCT_NAME
  const links = accountLinks(config)
  const perIp = config.PASSWORD_RESET_LIMIT_PER_IP
  const askAgain = { href: links.forgotPassword(), text: 'Ask for a new link' }
  const expired = () => renderAccountMessagePage({
    product,
    title: 'Cannot continue',
    error: true,
    link: askAgain,
    message: 'This form has expired or was not opened on this site. Open the page again and retry.'
  })

  fastify.get('/forgot', {
    schema: {
      tags: ['auth'],
      operationId: 'showForgotPasswordPage',
      summary: 'Built-in "forgot password" page',
      description: 'Asks for the e-mail address of the account; the login page\'s "Forgot password?" link opens it.',
      response: responses({ 200: html })
    }
  }, async (_request, reply) => pages.send(reply, 200, renderForgotPasswordPage({ product, csrf: pages.withCsrf(reply) })))

  fastify.post('/forgot', {
    onRequest: fastify.limitPerIp('password-forgot', { max: perIp, timeWindow: HOUR }),
    preValidation: fastify.limitBy({ name: 'password-forgot:account', max: config.PASSWORD_RESET_LIMIT_PER_ACCOUNT, timeWindowMs: HOUR, key: accountKey('email') }),
    schema: {
      tags: ['auth'],
      operationId: 'submitForgotPasswordPage',
      summary: 'Ask for a reset link from the built-in page',
      description: 'Form post (CSRF-protected: 403 without the page\'s hidden field and cookie). Does what POST /api/password/forgot does and shows the same words whatever the address.',
      consumes: ['application/x-www-form-urlencoded'],
      body: ForgotPasswordForm,
      response: responses({ 200: html }, [403, 413, 415, 429])
    }
  }, async (request, reply) => {
    const { csrf, email = '' } = request.body
    if (!pages.csrf.verify(request.headers.cookie, csrf)) return pages.send(reply, 403, expired())
    if (email.trim() === '') return pages.send(reply, 200, renderForgotPasswordPage({ product, csrf: pages.withCsrf(reply), error: 'Enter your e-mail address.' }))
    await passwords.requestReset(request.em, email)
    return pages.send(reply, 200, renderAccountMessagePage({ product, title: 'Check your e-mail', message: FORGOT_ANSWER, link: { href: links.signIn(), text: 'Back to sign in' } }))
  })

  async function showResetForm (reply: Parameters<typeof pages.send>[0], token: string, error?: string) {
    try {
      const { email } = await passwords.checkResetToken(reply.request.em, token)
      return pages.send(reply, 200, renderResetPasswordPage({ product, csrf: pages.withCsrf(reply), token, email, rule: PASSWORD_RULE, error }))
    } catch (refusal) {
      if (!isAppError(refusal) || refusal.statusCode >= 500) throw refusal
      return pages.send(reply, refusal.statusCode, renderAccountMessagePage({ product, title: 'This link cannot be used', message: refusal.message, error: true, link: askAgain }))
    }
  }

  fastify.get('/reset', {
    // The token is in the URL: keep it out of the per-request info logs.
    logLevel: 'warn',
    onRequest: fastify.limitPerIp('password-reset-page', { max: 60, timeWindow: HOUR }),
    schema: {
      tags: ['auth'],
      operationId: 'showResetPasswordPage',
      summary: 'Built-in password reset page',
      description: 'Where the reset e-mail\'s link opens when PORTAL_APP_URL is unset: a new password, twice. Looking does not use the link up; ' +
        'an unusable one (unknown, used, replaced, expired) shows why, with a way to ask for a new one.',
      querystring: TokenPageQuery,
      response: responses({ 200: html }, [429])
    }
  }, async (request, reply) => showResetForm(reply, request.query.token ?? ''))

  fastify.post('/reset', {
    logLevel: 'warn',
    ...oneTimeLinkLimits(fastify, 'password-reset'),
    schema: {
      tags: ['auth'],
      operationId: 'submitResetPasswordPage',
      summary: 'Set a new password from the built-in page',
      description: 'Form post (CSRF-protected). Does what POST /api/password/reset does, then leads to sign-in; a weak or mistyped password shows the form again.',
      consumes: ['application/x-www-form-urlencoded'],
      body: ResetPasswordForm,
      response: responses({ 200: html }, [403, 413, 415, 429])
    }
  }, async (request, reply) => {
    const { csrf, token = '', password = '', password_confirm: confirmation } = request.body
    if (!pages.csrf.verify(request.headers.cookie, csrf)) return pages.send(reply, 403, expired())
    if (password !== confirmation) return showResetForm(reply, token, 'The two passwords differ.')
    try {
      await passwords.reset(request.em, { token, password })
    } catch (error) {
      if (isAppError(error) && FORM_ERRORS.has(error.code)) return showResetForm(reply, token, error.message)
      if (isAppError(error) && error.statusCode < 500) return showResetForm(reply, token)
      throw error
    }
    return pages.send(reply, 200, renderAccountMessagePage({
      product, title: 'Password changed', message: 'Your new password is set. You were signed out everywhere: sign in with it.', link: { href: links.signIn(), text: 'Sign in' }
    }))
  })
}

export default routes
