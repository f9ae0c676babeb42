import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

/**
 * One access line per request, written when the response has been sent, in place of Fastify's
 * own "incoming request" and "request completed" lines (and its "Route ... not found", which
 * carries the raw URL): the log controller below, given to Fastify in app.ts.
 *
 * The line is a plain object, so pino writes it without a serializer: method, the route's
 * pattern (`/api/instances/:id`, never the raw URL, whose ids and query strings may carry
 * tokens), status, duration in ms, the tenant once authentication knew it; the request id comes
 * from the request's logger (`request_id`).
 *
 * An error answer adds its envelope's code (`code`).
 * Level: 5xx at error (the error handler's "request failed" line with the stack comes too),
 * anything else at info, except on the routes polled all day (health probes, instance status
 * polling, the metrics scrape): their answers below 400 are at debug, and their 503 at warn (a
 * readiness probe says "not ready" while the service starts or drains; the reason has its own line).
 */
export const ACCESS_LOG_MESSAGE = 'request'

/** Route patterns that probes, dashboards and scrapers call every few seconds. */
const POLLED_ROUTES = new Set(['/health/live', '/health/ready', '/api/instances/:id/status', '/metrics'])

export type AccessLogLevel = 'debug' | 'info' | 'warn' | 'error'

export function accessLogLevel (route: string | undefined, status: number): AccessLogLevel {
  const polled = route !== undefined && POLLED_ROUTES.has(route)
  if (status === 503 && polled) return 'warn'
  if (status >= 500) return 'error'
  if (status < 400 && polled) return 'debug'
  return 'info'
}

export interface AccessLine {
  method: string
  /** The matched route's pattern; `null` when no route matched (a 404 or 405). */
  route: string | null
  status: number
  ms: number
  tenant_id?: string
  /** The error envelope's code, when the answer is one (its message may quote the URL or the input: left out). */
  code?: string
}

const kError = Symbol('access-log error')
interface ErrorHolder { [kError]?: string }

/** The one writer of error envelopes tells the access line which error it answered (one line per request, the error in it). */
export function noteErrorCode (reply: FastifyReply, code: string): void {
  (reply as unknown as ErrorHolder)[kError] = code
}

export function accessLine (request: FastifyRequest, reply: FastifyReply): AccessLine {
  const line: AccessLine = {
    method: request.method,
    route: request.routeOptions.url ?? null,
    status: reply.statusCode,
    ms: Math.round(reply.elapsedTime * 10) / 10
  }
  const tenantId = (request.actor as { tenantId?: string } | null)?.tenantId
  if (tenantId !== undefined) line.tenant_id = tenantId
  const code = (reply as unknown as ErrorHolder)[kError]
  if (code !== undefined) line.code = code
  return line
}

/** pino's loggers have it; Fastify's stand-in for `logger: false` has not. */
interface LevelAware { isLevelEnabled?: (level: string) => boolean }

export class AccessLogController extends LogController {
  override incomingRequest (): void {}

  override routeNotFound (): void {}

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // An error here is the response stream's own (the client went away mid-answer): logged with it.
    const level = error ? 'error' : accessLogLevel(request.routeOptions.url, reply.statusCode)
    // Below the logger's level no line is built.
    if ((request.log as LevelAware).isLevelEnabled?.(level) !== true) return
    const line = accessLine(request, reply)
    if (error) request.log.error({ ...line, err: error }, ACCESS_LOG_MESSAGE)
    else request.log[level](line, ACCESS_LOG_MESSAGE)
  }
}
