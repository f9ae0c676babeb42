import { Type } from 'typebox'
import { InstanceId, Int4, mediaResponse, ref, Success } from './common.ts'

export const LOG_TAIL_MAX = 5000
export const LOG_STREAMS = ['all', 'stdout', 'stderr'] as const

const Stream = Type.Enum(LOG_STREAMS, { default: 'all', description: '`stdout`, `stderr` or `all` (Kubernetes keeps no difference: its lines are all `stdout`)' })

export const LogsQuery = Type.Object({
  tail: Type.Optional(Int4({ minimum: 1, maximum: LOG_TAIL_MAX, default: 200, description: `The last lines, at most ${LOG_TAIL_MAX}` })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Only lines written at or after this time (RFC 3339)', examples: ['2026-01-31T12:00:00Z'] })),
  stream: Type.Optional(Stream)
}, { additionalProperties: false })

export const LogLineSchema = Type.Object({
  id: Type.String({ description: 'The line\'s position: the stream\'s event id, and its `last_event_id` to start after it', examples: ['1769860800123456789-0'] }),
  time: Type.String({ description: 'When it was written, RFC 3339 in UTC, with the backend\'s precision (nanoseconds)' }),
  stream: Type.Enum(['stdout', 'stderr'] as const),
  line: Type.String({ description: 'The text, without its line break' })
}, { $id: 'LogLine' })

export const LogsResponse = Success({
  instance_id: InstanceId,
  lines: Type.Array(ref(LogLineSchema), { description: 'Oldest first' }),
  message: Type.Optional(Type.String({ description: 'Why the list is empty or short: the instance is deleted, or the backend keeps nothing of it' }))
}, { $id: 'LogsResponse' })

export const LogStreamTokenResponse = Success({
  token: Type.String({ description: 'Opens the stream of this instance only, for you only; not a bearer token' }),
  expires_in: Int4({ description: 'Seconds left to open the stream (and to reconnect with it)', examples: [60] }),
  stream_url: Type.String({ description: 'The stream, token included: give it to an EventSource or `curl -N`' })
}, { $id: 'LogStreamTokenResponse' })

export const LogStreamQuery = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 1000, description: 'From GET /api/instances/{id}/logs/stream-token' })),
  stream: Type.Optional(Stream),
  last_event_id: Type.Optional(Type.String({ maxLength: 40, description: 'Start after this line (an `id` from GET /logs); the Last-Event-ID header wins' }))
}, { additionalProperties: false })

export const LogStreamHeaders = Type.Object({
  'last-event-id': Type.Optional(Type.String({ maxLength: 40, description: 'Sent by EventSource on a reconnect: the stream resumes after it' }))
})

export const LogStreamEvents = mediaResponse('text/event-stream', Type.String({
  description: 'One event per line (`id:` its position, `data:` {id, time, stream, line} as JSON), a `: heartbeat` comment every LOG_STREAM_HEARTBEAT_SECONDS, and `event: end` with the reason when the server ends it'
}), { description: 'Server-Sent Events: the instance\'s log lines as they are written' })
