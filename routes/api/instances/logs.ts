import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AUTHENTICATED, InstanceIdParams, responses } from '../../../schemas/common.ts'
import { LogStreamEvents, LogStreamHeaders, LogStreamQuery, LogStreamTokenResponse, LogsQuery, LogsResponse } from '../../../schemas/logs.ts'
import { openSseViewer } from '../../../plugins/app/logs/sse-viewer.ts'
import { BackendUnavailable, InstanceDeleted, InstanceNotFound } from '../../../plugins/app/instances/instances.errors.ts'
import { LogStreamTokenInvalid } from '../../../plugins/app/logs/logs.errors.ts'

/** A slow client is disconnected (it resumes with Last-Event-ID) once this much waits in its socket buffer. */
const MAX_BUFFERED_BYTES = 1024 * 1024

/** Registered by ./index.ts (autoload loads only a folder's index.ts). */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/:id/logs', {
    schema: {
      tags: ['instances'],
      operationId: 'getInstanceLogs',
      summary: 'An instance\'s last log lines',
      description: 'The last `tail` lines (default 200, at most 5000), oldest first, each `{id, time, stream, line}`. ' +
        'A stopped instance answers what the backend still keeps; a deleted one (or one the backend keeps nothing of) an empty list with `message`. ' +
        '503 when the backend does not answer.',
      params: InstanceIdParams,
      querystring: LogsQuery,
      response: responses({ 200: LogsResponse }, [...AUTHENTICATED, 404, 503, InstanceNotFound, BackendUnavailable])
    }
  }, async (request) => ({ success: true as const, ...await fastify.logs.read(request.scope, request.params.id, request.query) }))

  fastify.get('/:id/logs/stream-token', {
    schema: {
      tags: ['instances'],
      operationId: 'getInstanceLogStreamToken',
      summary: 'A token to open the instance\'s live log stream',
      description: 'Short-lived (`expires_in` seconds to open the stream, or to reconnect with it) and single-purpose: this instance, ' +
        'this user and session, the stream route only; it is no bearer token. Open `stream_url` with an EventSource or `curl -N`.',
      params: InstanceIdParams,
      response: responses({ 200: LogStreamTokenResponse }, [...AUTHENTICATED, 404, 409, InstanceNotFound, InstanceDeleted])
    }
  }, async (request) => ({ success: true as const, ...await fastify.logs.streamToken(request.scope, request.params.id) }))

  fastify.get('/:id/logs/stream', {
    config: { auth: 'stream-token' }, // the stream token in the query is the credential (EventSource sends no headers)
    schema: {
      tags: ['instances'],
      operationId: 'openInstanceLogStream',
      summary: 'The instance\'s live log (Server-Sent Events)',
      description: 'Lines as they are written, each an event with `id:`; a reconnect with `Last-Event-ID` (or `last_event_id`) resumes after that line ' +
        'without gaps or duplicates. A `: heartbeat` comment every 15 s. Ends (`event: end`) after LOG_STREAM_MAX_SECONDS, or within seconds of a ' +
        'logout, a deactivated user or a suspended company. A client that reads too slowly is disconnected and resumes. ' +
        '401 LOG_STREAM_TOKEN_INVALID for a missing, expired or other instance\'s token (a bearer token included).',
      params: InstanceIdParams,
      querystring: LogStreamQuery,
      headers: LogStreamHeaders,
      response: responses({ 200: LogStreamEvents }, [LogStreamTokenInvalid, 404, 409, 503, InstanceNotFound, InstanceDeleted, BackendUnavailable])
    }
  }, async (request, reply) => {
    const { target, sessionId } = await fastify.logs.authorizeStream(request.query.token, request.params.id, (claims) => async (statement, values) => fastify.auth.queryAsSession(claims, statement, values))
    const from = fastify.logs.parsePosition(request.headers['last-event-id'] ?? request.query.last_event_id)
    reply.hijack()
    // oxlint-disable-next-line prefer-const -- onClose below reads it, and may run before subscribe() returns
    let leave: (() => void) | undefined
    let gone = false
    const viewer = openSseViewer(reply.raw, reply.getHeaders(), {
      sessionId,
      stream: request.query.stream ?? 'all',
      maxBufferedBytes: MAX_BUFFERED_BYTES,
      maxLifetimeMs: fastify.config.LOG_STREAM_MAX_SECONDS * 1000,
      retryMs: 1000,
      onClose: () => { gone = true; leave?.() }
    })
    leave = await fastify.logs.subscribe(target, viewer, from)
    if (gone) leave()
  })
}

export default routes
