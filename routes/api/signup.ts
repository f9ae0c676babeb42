import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { accountKey } from '../../lib/account-key.ts'
import { clientMeta } from '../../lib/client-meta.ts'
import { LoginResponse, SignupBody } from '../../schemas/auth.ts'
import { responses } from '../../schemas/common.ts'
import { EmailTaken, SubdomainReserved, SubdomainTaken } from '../../plugins/app/tenants/tenants.errors.ts'

const HOUR = 60 * 60_000

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config } = fastify

  fastify.post('/signup', {
    config: { auth: 'none' },
    onRequest: fastify.limitPerIp('signup', { max: config.SIGNUP_LIMIT_PER_IP, timeWindow: HOUR }),
    preValidation: fastify.limitBy({ name: 'signup:account', max: config.SIGNUP_LIMIT_PER_ACCOUNT, timeWindowMs: HOUR, key: accountKey('email') }),
    schema: {
      tags: ['auth'],
      operationId: 'signUp',
      summary: 'Sign up a company',
      description: `Creates a tenant and its first administrator, and returns a session like login. Rate-limited: ${config.SIGNUP_LIMIT_PER_IP} per hour per IP and ${config.SIGNUP_LIMIT_PER_ACCOUNT} per hour per e-mail.`,
      body: SignupBody,
      response: responses({ 201: LoginResponse }, [EmailTaken, SubdomainTaken, SubdomainReserved, 413, 415, 429])
    }
  }, async (request, reply) => {
    const result = await fastify.auth.signup(request.em, request.body, clientMeta(request))
    return reply.code(201).send({ success: true as const, ...result })
  })
}

export default routes
