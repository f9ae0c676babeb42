import { Type } from 'typebox'
import { BigInt53 } from '../../schemas/common.ts'
import { defineTool, READ_ONLY } from './tool.ts'

export const metricsTools = [
  defineTool({
    name: 'get_instance_metrics',
    title: 'Instance usage now',
    description: 'What an instance uses now, next to its plan limits: CPU (used_cores, limit_cores, percent_of_limit), ' +
      'memory (used_mb, limit_mb) and storage (database_mb, volume_mb, limit_mb). `source` says whether it is a recent ' +
      'sample or was read live; `stale: true` means the backend did not answer and the last sample is shown. A stopped ' +
      'instance shows zero CPU and memory. METRICS_UNAVAILABLE when nothing can be read; another company\'s id is INSTANCE_NOT_FOUND.',
    input: Type.Object({
      instance_id: BigInt53({ minimum: 1, description: 'The instance id, an integer (from list_instances)' })
    }, { additionalProperties: false }),
    // Reads the backend (Docker, Kubernetes) but changes nothing.
    annotations: { ...READ_ONLY, openWorldHint: true },
    run: async ({ app, scope }, { instance_id: id }) => ({ metrics: await app.metrics.current(scope, id) })
  })
]
