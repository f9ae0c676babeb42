import { defineEntity, p } from '@mikro-orm/core'
import { timestamp } from '../../../database/columns.ts'
import { Instance } from '../instances/instance.entity.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

/**
 * The samples of one instance in one clock hour (UTC), averaged and maxed: kept 90 days
 * (METRICS_HOURLY_RETENTION_DAYS), after the raw samples are gone. `samples` weights the
 * averages when hours are merged into wider buckets.
 */
const MetricHourSchema = defineEntity({
  name: 'MetricHour',
  tableName: 'metric_hours',
  properties: {
    instance: () => p.manyToOne(Instance).primary().deleteRule('cascade'),
    hour: timestamp().primary(),
    tenant: () => p.manyToOne(Tenant).deleteRule('cascade'),
    samples: p.integer().check('samples > 0'),
    cpuAvg: p.double(),
    cpuMax: p.double(),
    memoryAvg: p.double(),
    memoryMax: p.double(),
    databaseAvg: p.double().nullable(),
    databaseMax: p.double().nullable(),
    volumeAvg: p.double().nullable(),
    volumeMax: p.double().nullable()
  }
})

export class MetricHour extends MetricHourSchema.class {}
MetricHourSchema.setClass(MetricHour)
