import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { clientMeta } from '../../../lib/client-meta.ts'
import { normalizeEmail } from '../../../lib/email.ts'
import { LoginBody, LoginResponse, MeResponse, SignupBody } from '../../../schemas/auth.ts'
import { AUTHENTICATED, SuccessOnly, responses } from '../../../schemas/common.ts'

const MINUTE = 60_000

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config } = fastify

  const perIp = (name: string, max: number, timeWindow: number) => fastify.limitPerIp(name, { max, timeWindow })

  /** Per-account limit: the same e-mail from any number of IPs. */
  const perAccount = (name: string, field: 'login' | 'email', max: number, timeWindowMs: number) =>
    fastify.limitBy({
      name: `${name}:account`,
      max,
      timeWindowMs,
      key: (request: FastifyRequest) => {
        const value = (request.body as Record<string, unknown> | undefined)?.[field]
        return typeof value === 'string' ? normalizeEmail(value) : '-'
      }
    })

  fastify.post('/api/signup', {
    config: { auth: 'none' },
    onRequest: perIp('signup', config.SIGNUP_LIMIT_PER_IP, 60 * MINUTE),
    preValidation: perAccount('signup', 'email', config.SIGNUP_LIMIT_PER_ACCOUNT, 60 * MINUTE),
    schema: {
      tags: ['auth'],
      summary: 'Sign up a company',
      description: `Creates a tenant and its first administrator, and returns a session like login. Rate-limited: ${config.SIGNUP_LIMIT_PER_IP} per hour per IP and ${config.SIGNUP_LIMIT_PER_ACCOUNT} per hour per e-mail.`,
      body: SignupBody,
      response: responses({ 201: LoginResponse }, [409, 413, 415, 429])
    }
  }, async (request, reply) => {
    const result = await fastify.auth.signup(request.em, request.body, clientMeta(request))
    return reply.code(201).send({ success: true as const, ...result })
  })

  fastify.post('/api/login', {
    config: { auth: 'none' },
    onRequest: perIp('login', config.LOGIN_LIMIT_PER_IP, MINUTE),
    preValidation: perAccount('login', 'login', config.LOGIN_LIMIT_PER_ACCOUNT, 15 * MINUTE),
    schema: {
      tags: ['auth'],
      summary: 'Log in',
      description: `Exchanges e-mail and password for a bearer token. Unknown e-mail and wrong password get the same 401. Rate-limited: ${config.LOGIN_LIMIT_PER_IP} per minute per IP and ${config.LOGIN_LIMIT_PER_ACCOUNT} per 15 minutes per account.`,
      body: LoginBody,
      response: responses({ 200: LoginResponse }, [401, 403, 413, 415, 429])
    }
  }, async (request) => {
    const result = await fastify.auth.login(request.em, request.body, clientMeta(request))
    return { success: true as const, ...result }
  })

  fastify.get('/api/me', {
    schema: {
      tags: ['auth'],
      summary: 'The signed-in user',
      description: 'Re-validates a stored token: 401 once it has expired, been logged out, or its user was deactivated.',
      response: responses({ 200: MeResponse }, AUTHENTICATED)
    }
  }, async (request) => ({ success: true as const, user: fastify.auth.me(request.actor) }))

  fastify.post('/api/logout', {
    schema: {
      tags: ['auth'],
      summary: 'Log out',
      description: 'Revokes the session behind the token; the token answers 401 from then on.',
      response: responses({ 200: SuccessOnly }, AUTHENTICATED)
    }
  }, async (request) => {
    await fastify.auth.logout(request.em, request.actor)
    return { success: true as const }
  })
}

export default routes
