import fp from 'fastify-plugin'
import type { MikroORM } from '@mikro-orm/postgresql'
import { createProvisioning } from '../../../provisioning/from-config.ts'
import { createBackendRegistry } from './backend-registry.ts'
import { createInstanceJobRunner } from './instance-jobs.ts'
import { createInstanceReconciler, type ReconcileResult } from './instance-reconciler.ts'
import { createInstanceTransitions } from './instance-transitions.ts'
import { createInstancesService, INSTANCE_QUEUE, type InstancesService } from './instances.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    instances: InstancesService & {
      /** One reconciliation round now, as the background loop does. */
      reconcileNow: () => Promise<ReconcileResult>
    }
  }
}

/**
 * Instances: the service behind the REST routes and MCP tools, the job that
 * carries out lifecycle actions on the Docker or Kubernetes backend, and the
 * reconciler that corrects drift.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  const orm: MikroORM = fastify.orm
  const provisioning = createProvisioning(config, {
    serviceDatabaseUrl: orm.config.get('clientUrl') as string,
    log: fastify.log.child({ component: 'provisioning' })
  })
  const backends = createBackendRegistry({
    enabled: config.instanceBackends,
    backends: provisioning.backends,
    notConfigured: provisioning.notConfigured
  })
  const transitions = createInstanceTransitions({ activity: fastify.activity })
  const service = createInstancesService({
    sql: fastify.sql,
    jobs: fastify.jobs,
    limits: fastify.limits,
    backends,
    databases: provisioning.databases,
    transitions,
    erpVersions: config.erpVersions,
    imageTemplate: config.ERP_IMAGE,
    instancesDomain: config.INSTANCES_DOMAIN,
    authenticateWith: fastify.auth.authenticateWith,
    log: fastify.log.child({ component: 'instances' })
  })
  const runJob = createInstanceJobRunner({
    em: orm.em,
    backends,
    databases: provisioning.databases,
    transitions,
    instancesDomain: config.INSTANCES_DOMAIN,
    readyTimeoutMs: config.INSTANCE_READY_TIMEOUT_SECONDS * 1000,
    errorGraceMs: config.INSTANCE_ERROR_GRACE_SECONDS * 1000,
    log: fastify.log.child({ component: 'instance-jobs' })
  })
  const reconciler = createInstanceReconciler({
    em: orm.em,
    sql: fastify.sql,
    backends,
    transitions,
    intervalMs: config.RECONCILE_SECONDS * 1000,
    log: fastify.log.child({ component: 'instance-reconciler' })
  })

  await fastify.jobs.define(INSTANCE_QUEUE, {
    retryLimit: config.INSTANCE_JOB_RETRIES,
    retryDelay: 2,
    retryBackoff: true,
    retryDelayMax: 60,
    heartbeatSeconds: config.JOB_HEARTBEAT_SECONDS,
    expireInSeconds: config.INSTANCE_READY_TIMEOUT_SECONDS + 600
  }, runJob)
  fastify.decorate('instances', { ...service, reconcileNow: reconciler.reconcileNow })
  fastify.addHook('onReady', async () => { if (fastify.jobs.working) reconciler.start() })
  fastify.addHook('onClose', async () => {
    await fastify.jobs.stop() // before the backends close under jobs in flight
    await reconciler.stop()
    await backends.close()
    await provisioning.close()
  })
}, { name: 'instances', dependencies: ['env', 'orm', 'jobs', 'activity', 'limits', 'auth'] })
