import type { FastifyBaseLogger } from 'fastify'
import type { UserActor } from '../../../lib/actor.ts'
import { tenantSql, type CallerSql } from '../../../lib/tenant-sql.ts'
import type { Sql } from '../../../lib/sql.ts'
import { BackendUnavailableError } from '../../../provisioning/backend.ts'
import type { LogBackend, LogLine } from '../../../provisioning/log-backend.ts'
import type { BackendRegistry } from '../instances/backend-registry.ts'
import { withoutHealthChecks } from './health-filter.ts'
import { BackendUnavailable, InstanceDeleted, InstanceNotFound } from '../instances/instances.errors.ts'
import { IdAssigner, parseEventId, type LogEntry, type LogPosition } from './log-ids.ts'
import type { LogHub, LogTarget, Viewer } from './log-hub.ts'
import { LogStreamTokenInvalid } from './logs.errors.ts'
import { INSTANCE_LOG_TARGET, type InstanceLogTargetRow } from './logs.queries.ts'
import type { StreamTokens } from './stream-token.ts'
import type { CallScope } from '../../../lib/call-scope.ts'

export type LogStreamName = 'all' | 'stdout' | 'stderr'

export interface LogsQueryInput {
  tail?: number
  since?: string
  stream?: LogStreamName
}

export interface LogLineView {
  id: string
  time: string
  stream: LogLine['stream']
  line: string
}

export interface LogsView {
  instance_id: number
  lines: LogLineView[]
  message?: string
}

export interface LogsServiceDeps {
  sql: Sql
  backends: Pick<BackendRegistry, 'get'>
  hub: LogHub
  tokens: StreamTokens
  baseUrl: string
  /** Paths the instances' health checks probe: their passed checks' access lines are left out. */
  healthCheckPaths: readonly string[]
  log: Pick<FastifyBaseLogger, 'warn'>
}

const view = ({ id, time, stream, line }: LogEntry): LogLineView => ({ id, time, stream, line })

/**
 * Instance logs: the recorded tail (REST and MCP), stream tokens, and opening a
 * live stream on the shared hub. Members and admins alike may read the logs of
 * their company's instances.
 */
export function createLogsService (deps: LogsServiceDeps) {
  const { sql, backends, hub, tokens } = deps

  function found (rows: InstanceLogTargetRow[]): InstanceLogTargetRow {
    const [row] = rows
    if (row === undefined) throw InstanceNotFound()
    return row
  }

  const ownTarget = async (actor: UserActor, id: number): Promise<InstanceLogTargetRow> =>
    found(await tenantSql(sql, actor.tenantId)<InstanceLogTargetRow>(INSTANCE_LOG_TARGET, [id]))

  function logBackend (row: InstanceLogTargetRow): LogBackend {
    const backend = backends.get(row.backend)
    if (backend.readLogs === undefined || backend.followLogs === undefined) throw BackendUnavailable(`The ${row.backend} backend keeps no logs`)
    return withoutHealthChecks(backend as LogBackend, deps.healthCheckPaths)
  }

  const refOf = (row: InstanceLogTargetRow) => ({ instanceUid: row.uid, subdomain: row.subdomain, tenantSubdomain: row.tenant_subdomain })

  return {
    /** The last lines, oldest first. A deleted instance, or one the backend has nothing of, answers an empty list and says why. */
    async read ({ actor }: Pick<CallScope<UserActor>, 'actor'>, id: number, query: LogsQueryInput): Promise<LogsView> {
      const row = await ownTarget(actor, id)
      const instanceId = row.id
      if (row.state === 'deleted') return { instance_id: instanceId, lines: [], message: 'The instance was deleted; its logs went with it.' }
      const stream = query.stream ?? 'all'
      let lines: LogLine[] | undefined
      try {
        lines = await logBackend(row).readLogs(refOf(row), { tail: query.tail ?? 200, since: query.since === undefined ? undefined : new Date(query.since), streams: stream })
      } catch (error) {
        const hint = error instanceof BackendUnavailableError ? error.hint : undefined
        deps.log.warn({ err: error, hint, instance_id: instanceId }, 'Instance logs unavailable')
        throw BackendUnavailable('The logs cannot be read right now: the hosting platform did not answer. The operator has been told.', { backend: row.backend })
      }
      if (lines === undefined) {
        return { instance_id: instanceId, lines: [], message: `The ${row.backend} backend keeps nothing of this instance now (never started, removed, or no pod running).` }
      }
      const ids = new IdAssigner()
      return { instance_id: instanceId, lines: lines.map((line) => view(ids.next(line))).filter((line) => stream === 'all' || line.stream === stream) }
    },

    /** A token that opens this instance's live stream, for this user's session only, within `expires_in` seconds. */
    async streamToken ({ actor }: Pick<CallScope<UserActor>, 'actor'>, id: number): Promise<{ token: string, expires_in: number, stream_url: string }> {
      const row = await ownTarget(actor, id)
      if (row.state === 'deleted') throw InstanceDeleted('The instance was deleted; it has no live log')
      const token = tokens.sign({ instanceId: row.id, userId: actor.userId, tenantId: actor.tenantId, sessionId: actor.sessionId })
      return {
        token,
        expires_in: tokens.ttlSeconds,
        stream_url: `${deps.baseUrl.replace(/\/$/, '')}/api/instances/${row.id}/logs/stream?token=${encodeURIComponent(token)}`
      }
    },

    /**
     * Checks a stream token for instance `id` and that its session is still
     * live (401 otherwise), in one statement with the instance's lookup; answers
     * how to subscribe. `session` runs a tenant statement under the token's session.
     */
    async authorizeStream (token: string | undefined, id: number, session: (claims: { sessionId: string, userId: string, tenantId: string }) => CallerSql): Promise<{ target: LogTarget, sessionId: string }> {
      const grant = token === undefined ? undefined : tokens.verify(token)
      if (grant === undefined || grant.instanceId !== id) throw LogStreamTokenInvalid()
      const read = session({ sessionId: grant.sessionId, userId: grant.userId, tenantId: grant.tenantId })
      const row = found((await read<InstanceLogTargetRow>(INSTANCE_LOG_TARGET, [id])).rows)
      if (row.state === 'deleted') throw InstanceDeleted('The instance was deleted; it has no live log')
      return { target: { key: `${row.backend}/${row.uid}`, backend: logBackend(row), ref: refOf(row) }, sessionId: grant.sessionId }
    },

    subscribe: (target: LogTarget, viewer: Viewer, from?: LogPosition) => hub.subscribe(target, viewer, from),

    parsePosition: parseEventId
  }
}

export type LogsService = ReturnType<typeof createLogsService>
