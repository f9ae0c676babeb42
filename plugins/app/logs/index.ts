import fp from 'fastify-plugin'
import { deriveKey } from '../../../lib/secrets.ts'
import { healthCheckPaths } from './health-filter.ts'
import { createLogHub } from './log-hub.ts'
import { createLogsService, type LogsService } from './logs.service.ts'
import { LIVE_SESSIONS } from './logs.queries.ts'
import { createStreamTokens } from './stream-token.ts'

declare module 'fastify' {
  interface FastifyInstance {
    logs: LogsService & {
      /** Open streams and backend follows (for tests and the benchmark). */
      streamStats: () => { channels: number, viewers: number }
    }
  }
}

/** Seconds a stream token may be used to open (or reopen) a stream. */
export const STREAM_TOKEN_SECONDS = 60
/** How often open streams' sessions are checked: a logout closes them within this. */
const SESSION_CHECK_MS = 2000

/**
 * Instance logs: the recorded tail, stream tokens (signed with a key of their
 * own, derived from JWT_SECRET under the label `log-stream-tokens`), and the
 * hub that shares one backend follow among every viewer of an instance.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  if (config.JWT_SECRET === undefined) throw new Error('JWT_SECRET must be resolved before the app is built')
  const hub = createLogHub({
    liveSessions: async (ids) => new Set((await fastify.sql<{ id: string }>({ ...LIVE_SESSIONS, values: [ids] })).map((row) => row.id)),
    heartbeatMs: config.LOG_STREAM_HEARTBEAT_SECONDS * 1000,
    sessionCheckMs: SESSION_CHECK_MS,
    log: fastify.log.child({ component: 'log-hub' })
  })
  const service = createLogsService({
    sql: fastify.sql,
    backends: fastify.instances.backends,
    hub,
    tokens: createStreamTokens(deriveKey(config.JWT_SECRET, 'log-stream-tokens'), STREAM_TOKEN_SECONDS),
    baseUrl: config.BASE_URL,
    healthCheckPaths: healthCheckPaths(config),
    log: fastify.log.child({ component: 'logs' })
  })
  fastify.decorate('logs', { ...service, streamStats: hub.stats })
  // preClose: open streams would otherwise hold the server's close until they end.
  fastify.addHook('preClose', async () => { hub.close() })
}, { name: 'logs', dependencies: ['env', 'instances'] })
