import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify'
import autoload from '@fastify/autoload'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { MikroORM } from '@mikro-orm/postgresql'
import type { AppConfig } from './config/env.ts'
import { createValidatorCompiler } from './lib/validation.ts'
import { sendError, toErrorBody } from './plugins/app/http/envelope.ts'
import { recordRoutes } from './lib/route-table.ts'
import type { AuthServerProcess } from './lib/auth-server-process.ts'
import { createAuthServerUpstream } from './lib/auth-server-upstream.ts'
import { AccessLogController } from './lib/access-log.ts'

export interface AppOptions {
  config: AppConfig
  orm: MikroORM
  logger?: FastifyServerOptions['logger']
  /** The auth server child `npm start` runs; without it the auth server is the one at 127.0.0.1:AUTH_PORT. */
  authServer?: Pick<AuthServerProcess, 'url'>
}

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/** Files beside a room's index that autoload must not mistake for plugins. */
const NOT_PLUGINS = /(\.(entity|service|errors|d)\.(ts|js)$)|(\.map$)/

/** A client may pass its own X-Request-Id; anything odd is replaced. */
function requestId (request: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = request.headers['x-request-id']
  return typeof incoming === 'string' && /^[\w.:-]{8,64}$/.test(incoming) ? incoming : randomUUID()
}

export async function buildApp ({ config, orm, logger, authServer }: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: logger ?? { level: config.LOG_LEVEL, redact: ['req.headers.authorization', 'req.headers.cookie'] },
    bodyLimit: config.BODY_LIMIT,
    trustProxy: config.TRUST_PROXY,
    genReqId: requestId,
    // One access line per request instead of Fastify's two (lib/access-log.ts).
    logController: new AccessLogController({ requestIdLogLabel: 'request_id' }),
    return503OnClosing: true,
    // Errors raised before routing (malformed URL, over-long path segment) get the envelope too.
    frameworkErrors: (error, request, reply) => {
      const { status, body } = toErrorBody(error)
      void sendError((reply as unknown as FastifyReply).header('x-request-id', request.id), status, body)
    }
  }).withTypeProvider<TypeBoxTypeProvider>()
  recordRoutes(app)
  // First hook of all, so that even a request refused by a later hook carries its id.
  app.addHook('onRequest', async (request, reply) => { reply.header('x-request-id', request.id) })
  app.setValidatorCompiler(createValidatorCompiler(() => app.getSchemas()))
  // JSON only (the login page's own plugin adds form posts for itself): anything else is a 415.
  app.removeContentTypeParser('text/plain')

  app.decorate('authServer', createAuthServerUpstream({ config, child: authServer }))

  const options = { config, orm }
  await app.register(autoload, { dir: here('./plugins/external'), options, ignorePattern: NOT_PLUGINS })
  await app.register(autoload, { dir: here('./plugins/app'), options, ignorePattern: NOT_PLUGINS, maxDepth: 1 })
  // The folder is the URL prefix: routes/api/instances/index.ts serves /api/instances/..., and each
  // route declares its path relative to its folder (test/routes/placement.test.ts holds every route to it).
  await app.register(autoload, { dir: here('./routes'), options, ignorePattern: NOT_PLUGINS })
  return app
}
