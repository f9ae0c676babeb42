import fp from 'fastify-plugin'
import { resolveHandoffSecret } from '../../../auth-server/grant-store.ts'
import { deriveKey } from '../../../lib/secrets.ts'
import { createAgentCallRetention, AGENT_CALL_RETENTION_JOB, AGENT_CALL_RETENTION_SECONDS } from './agent-call-retention.job.ts'
import { createAgentCallsService, type AgentCallsService } from './agent-calls.service.ts'
import { createGrantsService, type GrantsService } from './grants.service.ts'
import { createHandoffService, type HandoffService } from './handoff.service.ts'
import { createLoginCsrf, type LoginCsrf } from './login-csrf.ts'

declare module 'fastify' {
  interface FastifyInstance {
    oauth: {
      handoff: HandoffService
      grants: GrantsService
      /** The agents' audit trail; `pruneNow` runs the retention pass at once. */
      calls: AgentCallsService & { pruneNow: () => Promise<{ calls: number, access: number }> }
      loginCsrf: LoginCsrf
    }
  }
}

/**
 * The portal's side of agent access: handoff codes for the auth server, the
 * agents (grants) connected to an account and what each may do, their audit
 * trail (pruned hourly), and the login page's CSRF tokens.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  if (config.JWT_SECRET === undefined) throw new Error('JWT_SECRET must be resolved before the app is built')
  const calls = createAgentCallsService({ sql: fastify.sql, retentionDays: config.AGENT_CALL_RETENTION_DAYS })
  const retention = fastify.jobs.every(AGENT_CALL_RETENTION_JOB, AGENT_CALL_RETENTION_SECONDS,
    createAgentCallRetention({ calls, log: fastify.log.child({ component: 'agent-call-retention' }) }))
  fastify.decorate('oauth', {
    handoff: createHandoffService({
      sql: fastify.sql,
      baseUrl: config.BASE_URL,
      ttlSeconds: config.HANDOFF_TTL_SECONDS,
      secret: resolveHandoffSecret(config.HANDOFF_SECRET, config.JWT_SECRET)
    }),
    grants: createGrantsService({ sql: fastify.sql, activity: fastify.activity }),
    calls: { ...calls, pruneNow: retention.runNow },
    loginCsrf: createLoginCsrf({ key: deriveKey(config.JWT_SECRET, 'login-csrf'), secure: config.BASE_URL.startsWith('https:') })
  })
}, { name: 'oauth', dependencies: ['orm', 'env', 'activity', 'jobs'] })
