import { Type } from 'typebox'
import { STEP_PATTERN } from '../plugins/app/metrics/history-range.ts'
import { FiniteNumber, InstanceId, Int4, ref, Success } from './common.ts'
import { InstanceState } from './instances.ts'

// A type list, not anyOf: the serializer writes it without trying each branch (a hot path).
const numberOrNull = (description: string) => Type.Unsafe<number | null>({ type: ['number', 'null'], minimum: -Number.MAX_VALUE, maximum: Number.MAX_VALUE, description })
const MbOrNull = numberOrNull

export const InstanceMetrics = Type.Object({
  instance_id: InstanceId,
  state: InstanceState,
  sampled_at: Type.String({ format: 'date-time', description: 'When the reading was taken' }),
  source: Type.Unsafe<'sample' | 'live'>({
    type: 'string',
    enum: ['sample', 'live'],
    description: '`sample`: a stored reading younger than METRICS_INTERVAL_SECONDS, served without asking the backend (or the last one, when `stale`); `live`: read from the backend now'
  }),
  stale: Type.Boolean({ description: 'true when the backend did not answer within 2 s and the last sample is served instead' }),
  cpu: Type.Object({
    used_cores: FiniteNumber({ description: 'CPU in use, cores (0.25 = a quarter of a core); 0 when not running' }),
    limit_cores: FiniteNumber({ description: 'The plan\'s CPU limit for the instance, cores' }),
    percent_of_limit: FiniteNumber({ description: 'used_cores / limit_cores x 100' })
  }),
  memory: Type.Object({
    used_mb: FiniteNumber({ description: 'Memory in use without page cache, MB (MiB); 0 when not running' }),
    limit_mb: Int4({ description: 'The plan\'s memory limit for the instance, MB' }),
    percent_of_limit: FiniteNumber({ description: 'used_mb / limit_mb x 100' })
  }),
  storage: Type.Object({
    database_mb: MbOrNull('The ERP database, MB (pg_database_size); null when the database server cannot be asked'),
    volume_mb: MbOrNull('The data volume in use, MB; null where the backend cannot tell (Kubernetes: see volume_capacity_mb)'),
    volume_capacity_mb: MbOrNull('The data volume\'s size, MB, where it has a fixed one (a Kubernetes claim); null on Docker'),
    limit_mb: Int4({ description: 'The plan\'s storage for the instance, MB (the instance detail\'s `storage` GB x 1024)' })
  })
}, { $id: 'InstanceMetrics', description: 'An instance\'s usage now, next to its limits' })

export const InstanceMetricsResponse = Success({ metrics: ref(InstanceMetrics) }, { $id: 'InstanceMetricsResponse' })

export const MetricsHistoryQuery = Type.Object({
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Start of the range, ISO 8601 (default: `to` minus 24 hours)' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'End of the range, excluded, ISO 8601 (default: now)' })),
  step: Type.Optional(Type.String({
    pattern: STEP_PATTERN,
    'x-pattern-message': 'must be a whole number followed by s, m, h or d, such as 5m',
    default: '5m',
    description: 'Bucket width: a whole number and s, m, h or d (default 5m). At most 1,000 buckets per answer: a finer step answers 400 METRICS_TOO_MANY_POINTS naming the allowed one'
  }))
}, { additionalProperties: false })

const AvgMax = (name: string, unit: string, nullable = false) => {
  const number = (what: string) => nullable
    ? numberOrNull(`${what} ${name}, ${unit}; null when not measured`)
    : FiniteNumber({ description: `${what} ${name}, ${unit}` })
  return { avg: number('Average'), max: number('Highest') }
}

const cpu = AvgMax('CPU', 'cores')
const memory = AvgMax('memory', 'MB')
const database = AvgMax('database size', 'MB', true)
const volume = AvgMax('data volume use', 'MB', true)

const column = (item: ReturnType<typeof FiniteNumber> | ReturnType<typeof numberOrNull>) =>
  Type.Array(item, { maxItems: 1000, description: `${(item as { description?: string }).description ?? ''} per bucket` })

export const MetricsSeries = Type.Object({
  time: Type.Array(Type.String({ format: 'date-time' }), { maxItems: 1000, description: 'Start of each bucket (multiples of the step from 2000-01-01 UTC), oldest first' }),
  samples: Type.Array(Int4(), { maxItems: 1000, description: 'Readings in each bucket' }),
  cpu_avg: column(cpu.avg),
  cpu_max: column(cpu.max),
  memory_avg: column(memory.avg),
  memory_max: column(memory.max),
  database_avg: column(database.avg),
  database_max: column(database.max),
  volume_avg: column(volume.avg),
  volume_max: column(volume.max)
}, {
  $id: 'MetricsSeries',
  description: 'The series column by column: entry i of every array belongs to bucket `time[i]` (the layout chart libraries take, ' +
    'without a field name per point). Buckets without readings are left out.'
})

export const MetricsHistoryResponse = Success({
  instance_id: InstanceId,
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  step: Type.String({ description: 'The step asked for, e.g. 5m' }),
  step_seconds: Int4(),
  series: ref(MetricsSeries)
}, { $id: 'MetricsHistoryResponse' })
