import formbody from '@fastify/formbody'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { accountLinks } from '../../lib/account-links.ts'
import { userScope } from '../../lib/call-scope.ts'
import { clientMeta } from '../../lib/client-meta.ts'
import { normalizeEmail } from '../../lib/email.ts'
import { isAppError } from '../../lib/errors.ts'
import { isPrintableText } from '../../lib/storable-text.ts'
import { toErrorBody } from '../../plugins/app/http/envelope.ts'
import { responses } from '../../schemas/common.ts'
import { HtmlPage, LoginForm, LoginPageQuery, LoginSecondStepForm } from '../../schemas/oauth.ts'
import { pageCsp } from '../../views/html.ts'
import { renderLoginErrorPage, renderLoginPage, renderSignedInPage } from '../../views/login.ts'
import { renderSecondStepPage } from '../../views/login-second-step.ts'

const MINUTE = 60_000
/** Failures the person can fix by typing again: shown on the form, with the service's own message. */
const FORM_ERRORS = new Set(['INVALID_CREDENTIALS', 'ACCOUNT_DISABLED', 'TENANT_SUSPENDED'])
/** After the password: back to the first step, with the service's message (a challenge expired, used, or out of attempts). */
const SECOND_STEP_RESTARTS = new Set(['LOGIN_CHALLENGE_INVALID', 'TWO_FACTOR_NOT_ENABLED', 'ACCOUNT_DISABLED', 'TENANT_SUSPENDED'])
const ENROL_FIRST = 'Your company requires two-factor authentication. Set it up in the portal (your account\'s security settings), then connect again.'
const DAMAGED_TRANSACTION = 'This sign-in link is damaged: its authorization transaction (oauth_transaction) contains control ' +
  'characters or broken Unicode. Go back to the application and connect again.'

const html = { content: { 'text/html': { schema: HtmlPage } } }

/**
 * The built-in login page (PORTAL_LOGIN_URL's default): signs a person in with
 * the same service as POST /api/login and hands the authorization back to the
 * auth server with a one-time code. It keeps no portal session open.
 */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, config } = fastify
  const { handoff, loginCsrf } = fastify.oauth
  const csp = pageCsp([new URL(config.BASE_URL).origin])
  // Form posts only here (this plugin's routes): the JSON API answers a form body with 415, so that
  // another site cannot post to it without a CORS preflight.
  await fastify.register(formbody, { bodyLimit: config.BODY_LIMIT })

  // Only a transaction the schema would take goes back into a link: encodeURIComponent throws on a lone surrogate.
  const loginUrl = (transaction: unknown) =>
    typeof transaction !== 'string' || transaction === '' || !isPrintableText(transaction)
      ? '/login'
      : `/login?oauth_transaction=${encodeURIComponent(transaction)}`

  const sendPage = (reply: FastifyReply, status: number, page: string) => reply.code(status).type('text/html; charset=utf-8').send(page)

  function sendForm (reply: FastifyReply, status: number, input: { transaction?: string | undefined, error?: string, email?: string | undefined }) {
    const { field, setCookie } = loginCsrf.issue()
    reply.header('set-cookie', setCookie)
    return sendPage(reply, status, renderLoginPage({ csrf: field, product: config.PRODUCT_NAME, forgotUrl: accountLinks(config).forgotPassword(), ...input }))
  }

  function sendSecondStep (reply: FastifyReply, input: { challenge: string, transaction?: string | undefined, error?: string }) {
    const { field, setCookie } = loginCsrf.issue()
    reply.header('set-cookie', setCookie)
    return sendPage(reply, 200, renderSecondStepPage({ csrf: field, ...input }))
  }

  /** The person is who they say: close the session the login opened, and hand the authorization back (or say so). */
  async function signedIn (request: FastifyRequest, reply: FastifyReply, token: string, transaction: string | undefined) {
    const actor = await auth.authenticate(token)
    request.scopeToTenant(actor.tenantId)
    // The page only proves who the person is; the session login opened is not needed after this request.
    const scope = userScope(fastify.sql, actor, () => request.em)
    await auth.logout(scope)
    if (transaction === undefined || transaction === '') return sendPage(reply, 200, renderSignedInPage(actor.name))
    const { redirect_url: redirectUrl } = await handoff.mint(scope, transaction)
    return reply.code(303).header('location', redirectUrl).send()
  }

  // On every answer of these routes, errors included: never framed, never cached.
  fastify.addHook('onSend', async (_request, reply) => {
    reply.header('x-frame-options', 'DENY')
    reply.header('content-security-policy', csp)
    reply.header('cache-control', 'no-store')
  })

  // A page, not the JSON envelope, for whatever goes wrong here (rate limits, malformed forms).
  fastify.setErrorHandler((error: FastifyError, request, reply) => {
    const { status, body } = toErrorBody(error)
    if (status >= 500) request.log.error({ err: error }, 'login page failed')
    const transaction = (request.query as { oauth_transaction?: unknown } | undefined)?.oauth_transaction ??
      (request.body as { oauth_transaction?: unknown } | undefined)?.oauth_transaction
    const title = status === 429 ? 'Too many attempts' : status >= 500 ? 'Something went wrong' : 'Cannot sign in'
    const damaged = status === 400 && typeof transaction === 'string' && !isPrintableText(transaction)
    const message = damaged ? DAMAGED_TRANSACTION : body.message
    return sendPage(reply, status, renderLoginErrorPage(title, message, loginUrl(transaction)))
  })

  const limits = {
    perIp: fastify.limitPerIp('login', { max: config.LOGIN_LIMIT_PER_IP, timeWindow: MINUTE }),
    // Same counter names as POST /api/login: one budget, whichever door is used.
    perAccount: fastify.limitBy({
      name: 'login:account',
      max: config.LOGIN_LIMIT_PER_ACCOUNT,
      timeWindowMs: 15 * MINUTE,
      key: (request: FastifyRequest) => {
        const value = (request.body as { email?: unknown } | undefined)?.email
        return typeof value === 'string' ? normalizeEmail(value) : '-'
      }
    })
  }

  fastify.get('', {
    schema: {
      tags: ['oauth'],
      operationId: 'showLoginPage',
      summary: 'Built-in login page',
      description: 'Server-rendered sign-in form (Email, Password, Sign in). The auth server sends people here with `?oauth_transaction=…` when an agent asks for access.',
      querystring: LoginPageQuery,
      response: responses({ 200: html })
    }
  }, async (request, reply) => sendForm(reply, 200, { transaction: request.query.oauth_transaction }))

  fastify.post('', {
    onRequest: limits.perIp,
    preValidation: limits.perAccount,
    schema: {
      tags: ['oauth'],
      operationId: 'submitLoginPage',
      summary: 'Sign in from the built-in login page',
      description: 'Form post of the login page (CSRF-protected: 403 without the page\'s hidden field and cookie). Wrong credentials show the form again ' +
        'with an error. With `oauth_transaction`, success answers 303 to `{BASE_URL}/oauth/handoff?oauth_transaction=…&handoff_code=…`. ' +
        `Shares the limits of POST /api/login (${config.LOGIN_LIMIT_PER_IP} per minute per IP, ${config.LOGIN_LIMIT_PER_ACCOUNT} per 15 minutes per account).`,
      consumes: ['application/x-www-form-urlencoded'],
      body: LoginForm,
      response: responses({ 200: html, 303: { description: 'On to the auth server with a handoff code', type: 'null' } }, [403, 413, 415, 429])
    }
  }, async (request, reply) => {
    const { email, password, csrf, oauth_transaction: transaction } = request.body
    if (!loginCsrf.verify(request.headers.cookie, csrf)) {
      return sendPage(reply, 403, renderLoginErrorPage('Cannot sign in', 'This sign-in form has expired or was not opened on this site. Open it again and retry.', loginUrl(transaction)))
    }
    if (email === undefined || email.trim() === '' || password === undefined || password === '') {
      return sendForm(reply, 200, { transaction, email, error: 'Enter your e-mail address and your password.' })
    }
    let token: string
    try {
      token = (await auth.login(request.em, { login: email, password }, clientMeta(request))).token
    } catch (error) {
      if (isAppError(error) && FORM_ERRORS.has(error.code)) return sendForm(reply, 200, { transaction, email, error: error.message })
      if (isAppError(error) && error.code === 'TWO_FACTOR_REQUIRED') return sendSecondStep(reply, { transaction, challenge: (error.details as { challenge: string }).challenge })
      if (isAppError(error) && error.code === 'TWO_FACTOR_ENROLMENT_REQUIRED') return sendForm(reply, 200, { transaction, email, error: ENROL_FIRST })
      throw error
    }
    return signedIn(request, reply, token, transaction)
  })

  fastify.post('/2fa', {
    onRequest: fastify.limitPerIp('login-2fa', { max: config.TWO_FACTOR_LIMIT_PER_IP, timeWindow: MINUTE }),
    schema: {
      tags: ['oauth'],
      operationId: 'submitLoginSecondStep',
      summary: 'Second step of the built-in login page',
      description: 'For a person with a second factor, after the right password: the code of their authenticator app or a recovery code ' +
        '(CSRF-protected like the first step). A wrong code shows the step again; an expired or spent challenge goes back to the login form. ' +
        `Success answers as the first step would have. Shares the limit of POST /api/login/2fa (${config.TWO_FACTOR_LIMIT_PER_IP} per minute per IP).`,
      consumes: ['application/x-www-form-urlencoded'],
      body: LoginSecondStepForm,
      response: responses({ 200: html, 303: { description: 'On to the auth server with a handoff code', type: 'null' } }, [403, 413, 415, 429])
    }
  }, async (request, reply) => {
    const { challenge, code, csrf, oauth_transaction: transaction } = request.body
    if (!loginCsrf.verify(request.headers.cookie, csrf)) {
      return sendPage(reply, 403, renderLoginErrorPage('Cannot sign in', 'This sign-in form has expired or was not opened on this site. Open it again and retry.', loginUrl(transaction)))
    }
    if (challenge === undefined || challenge === '') return sendForm(reply, 200, { transaction, error: 'Sign in with your e-mail address and password first.' })
    if (code === undefined || code.trim() === '') return sendSecondStep(reply, { transaction, challenge, error: 'Enter the code from your authenticator app.' })
    // Either kind in one field: the app's code is tried first, then the recovery codes.
    const proof = { code, recovery_code: code }
    let token: string
    try {
      token = (await auth.twoStep.complete(request.em, challenge, proof, clientMeta(request))).token
    } catch (error) {
      if (isAppError(error) && error.code === 'TWO_FACTOR_CODE_INVALID') return sendSecondStep(reply, { transaction, challenge, error: error.message })
      if (isAppError(error) && SECOND_STEP_RESTARTS.has(error.code)) return sendForm(reply, 200, { transaction, error: error.message })
      throw error
    }
    return signedIn(request, reply, token, transaction)
  })
}

export default routes
