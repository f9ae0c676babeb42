import { defineEntity, p } from '@mikro-orm/core'
import { identityPrimaryKey, timestamp } from '../../../database/columns.ts'
import { Instance } from '../instances/instance.entity.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

/**
 * One reading of an instance's usage: by the sampler every METRICS_INTERVAL_SECONDS, or by a
 * live read of GET /metrics. Units as the instance detail: cpu in cores, memory and storage in MB.
 * Raw rows are kept METRICS_RAW_RETENTION_DAYS; older hours live on as MetricHour roll-ups.
 * Written and read with plain SQL (metrics.queries.ts); the entity gives the table its migration.
 */
const MetricSampleSchema = defineEntity({
  name: 'MetricSample',
  tableName: 'metric_samples',
  indexes: [{ properties: ['instance', 'sampledAt'] }],
  properties: {
    id: identityPrimaryKey(),
    tenant: () => p.manyToOne(Tenant).deleteRule('cascade'),
    instance: () => p.manyToOne(Instance).deleteRule('cascade'),
    sampledAt: timestamp(),
    cpuCores: p.double(),
    memoryMb: p.double(),
    /** null when the database server could not be asked */
    databaseMb: p.double().nullable(),
    /** null when the backend cannot tell (Kubernetes reports a claim's capacity, not its use) */
    volumeMb: p.double().nullable(),
    /** The data volume's size where the backend gives it one (a Kubernetes claim's capacity) */
    volumeCapacityMb: p.double().nullable()
  }
})

export class MetricSample extends MetricSampleSchema.class {}
MetricSampleSchema.setClass(MetricSample)
