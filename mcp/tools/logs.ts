import { Type } from 'typebox'
import { BigInt53, Int4 } from '../../schemas/common.ts'
import { LOG_TAIL_MAX } from '../../schemas/logs.ts'
import { defineTool } from './tool.ts'

export const logTools = [
  defineTool({
    name: 'get_instance_logs',
    title: 'Instance logs',
    description: 'The last lines an ERP instance wrote (oldest first, each with time, stream and text): to see why it fails to ' +
      'start, which module broke, or what it is doing. `tail` lines (default 200), optionally only those since a time. A deleted ' +
      'instance, or one the backend keeps nothing of, answers an empty list with a message. Another company\'s id answers INSTANCE_NOT_FOUND.',
    input: Type.Object({
      instance_id: BigInt53({ minimum: 1, description: 'The instance id, an integer (from list_instances)' }),
      tail: Type.Optional(Int4({ minimum: 1, maximum: LOG_TAIL_MAX, description: `How many of the last lines (1-${LOG_TAIL_MAX}, default 200)` })),
      since: Type.Optional(Type.String({ format: 'date-time', description: 'Only lines written at or after this time, RFC 3339 (e.g. 2026-01-31T12:00:00Z)' }))
    }, { additionalProperties: false }),
    // Reads the backend (Docker engine or Kubernetes API): open world, but changes nothing.
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    run: async ({ app, scope }, { instance_id: id, tail, since }) => ({ logs: await app.logs.read(scope, id, { tail, since }) })
  })
]
