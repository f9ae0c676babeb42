import formbody from '@fastify/formbody'
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { toErrorBody } from '../plugins/app/http/envelope.ts'
import { createLoginCsrf, type LoginCsrf } from '../plugins/app/oauth/login-csrf.ts'
import { deriveKey } from './secrets.ts'
import { pageCsp } from '../views/html.ts'
import { renderAccountMessagePage } from '../views/account-pages.ts'

export interface AccountPagePlumbing {
  csrf: LoginCsrf
  send: (reply: FastifyReply, status: number, page: string) => FastifyReply
  /** A fresh CSRF pair on the reply; the page gets the hidden field's value. */
  withCsrf: (reply: FastifyReply) => string
}

/**
 * What the built-in account pages (routes/invitation/, routes/password/, routes/email/) share
 * with the login page: form posts in this plugin only (the JSON API refuses
 * them), double-submit CSRF under the plugin's own path, never framed or
 * cached, no referrer (their URLs carry tokens), and a page, not the JSON
 * envelope, for whatever goes wrong.
 */
export async function setUpAccountPages (fastify: FastifyInstance, path: string): Promise<AccountPagePlumbing> {
  const { config } = fastify
  if (config.JWT_SECRET === undefined) throw new Error('JWT_SECRET must be resolved before the app is built')
  await fastify.register(formbody, { bodyLimit: config.BODY_LIMIT })
  const csrf = createLoginCsrf({
    key: deriveKey(config.JWT_SECRET, `account-page-csrf:${path}`),
    secure: config.BASE_URL.startsWith('https:'),
    path,
    cookie: `${path.slice(1)}_csrf`
  })
  const csp = pageCsp()
  const send = (reply: FastifyReply, status: number, page: string) => reply.code(status).type('text/html; charset=utf-8').send(page)

  fastify.addHook('onSend', async (_request, reply) => {
    reply.header('x-frame-options', 'DENY')
    reply.header('content-security-policy', csp)
    reply.header('cache-control', 'no-store')
    reply.header('referrer-policy', 'no-referrer')
  })

  fastify.setErrorHandler((error: FastifyError, request, reply) => {
    const { status, body } = toErrorBody(error)
    if (status >= 500) request.log.error({ err: error }, 'account page failed')
    const title = status === 429 ? 'Too many attempts' : status >= 500 ? 'Something went wrong' : 'Cannot continue'
    return send(reply, status, renderAccountMessagePage({ product: config.PRODUCT_NAME, title, message: body.message, error: true, link: { href: '/login', text: 'Back to sign in' } }))
  })

  return {
    csrf,
    send,
    withCsrf (reply) {
      const { field, setCookie } = csrf.issue()
      reply.header('set-cookie', setCookie)
      return field
    }
  }
}
