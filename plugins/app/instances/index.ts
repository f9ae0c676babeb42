import fp from 'fastify-plugin'
import Docker from 'dockerode'
import type { MikroORM } from '@mikro-orm/postgresql'
import { createProvisioning } from '../../../provisioning/from-config.ts'
import { createDockerServeChecks } from '../../../provisioning/serve-checks.ts'
import { publishedLocalUrl } from '../../../provisioning/docker/local-address.ts'
import { countingBackendErrors } from '../../../lib/metrics/backend-errors.ts'
import { addInstanceGauge } from './instance-metrics.ts'
import { createErpCredentialStore, type ErpCredentialStore } from './erp-credentials.ts'
import { createErpAdminPassword, type ErpAdminPassword } from './erp-admin-password.ts'
import { createInstallInProgress } from '../erp/install-in-progress.ts'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import { Instance } from './instance.entity.ts'
import { instanceUrl } from './instance.view.ts'
import { createAbandonedInstances, type AbandonedSweep } from './abandoned-instances.ts'
import { createBackendRegistry, type BackendRegistry } from './backend-registry.ts'
import type { ErpDatabasesPort } from './erp-databases-port.ts'
import { createInstanceJobRunner } from './instance-actions.job.ts'
import { createInstanceLifecycle, type InstanceLifecycle, type InstanceLifecycleDeps } from './instance-lifecycle.ts'
import { createInstanceReconciler, RECONCILER_JOB, type ReconcileResult } from './instance-reconciler.job.ts'
import { createInstanceTransitions } from './instance-transitions.ts'
import { createInstancesService, type InstancesService } from './instances.service.ts'
import { INSTANCE_QUEUE } from './instance-actions.queue.ts'
import type { InstanceState } from './instance.entity.ts'

declare module 'fastify' {
  interface FastifyInstance {
    instances: InstancesService & {
      /** One reconciliation round now, as the scheduled one does. */
      reconcileNow: () => Promise<ReconcileResult>
      /** The backends and the ERP database server, for rooms that read or act on instances (metrics, backups). */
      backends: BackendRegistry
      databases: ErpDatabasesPort
      /** Each instance's generated ERP passwords (never shown by any route). */
      erpCredentials: ErpCredentialStore
      /** Opens an instance's ERP with its generated administrator password, replacing the default the first time. */
      erpAdmin: ErpAdminPassword
      /** Provisions, starts, stops and waits for instances under the instance jobs' rules, for jobs of other rooms (a restore). */
      lifecycle: InstanceLifecycle
      /**
       * Another room's queue whose jobs (with `instanceId` in their data) hold instances in `states`:
       * the reconciler moves such an instance to `error` once no live job of that queue is left for it.
       */
      sweepAbandoned: (queue: string, states: readonly InstanceState[]) => void
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
    backends: Object.fromEntries(Object.entries(provisioning.backends).map(([name, backend]) => [name, countingBackendErrors(backend, fastify.serviceMetrics)])),
    notConfigured: provisioning.notConfigured,
    // Beyond an engine that answers: the image and a database reachable from a container (refused at create, listed at start).
    serveChecks: provisioning.backends.docker === undefined
      ? {}
      : { docker: createDockerServeChecks({ imageTemplate: config.ERP_IMAGE, erpVersions: config.erpVersions, database: provisioning.databases, network: config.DOCKER_NETWORK }) },
    log: fastify.log.child({ component: 'instances' })
  })
  addInstanceGauge(fastify.serviceMetrics, { sql: fastify.sql, log: fastify.log })
  const transitions = createInstanceTransitions({ activity: fastify.activity })
  const localDocker = new Docker() // as the Docker backend's own: DOCKER_HOST, else the default socket
  if (config.ERP_CREDENTIALS_KEY === undefined) throw new TypeError('ERP_CREDENTIALS_KEY must be resolved before the instances room loads')
  const erpCredentials = createErpCredentialStore(config.ERP_CREDENTIALS_KEY)
  const erpAdmin = createErpAdminPassword({
    backends,
    databases: provisioning.databases,
    credentials: erpCredentials,
    timeoutMs: config.ERP_CALL_TIMEOUT_SECONDS * 1000,
    urlOf: (instance) => instanceUrl(instance.subdomain, config.INSTANCES_DOMAIN),
    log: fastify.log.child({ component: 'erp' })
  })
  const service = createInstancesService({
    jobs: fastify.jobs,
    limits: fastify.limits,
    backends,
    databases: provisioning.databases,
    transitions,
    erpVersions: config.erpVersions,
    imageTemplate: config.ERP_IMAGE,
    instancesDomain: config.INSTANCES_DOMAIN,
    // Without a proxy or DNS name (npm start), an instance opens at the port its container publishes on 127.0.0.1.
    ...(provisioning.backends.docker !== undefined && config.DOCKER_PUBLISH_PORTS
      ? { localUrl: async (instance: Instance) => instance.backend === 'docker' ? await publishedLocalUrl(localDocker, instance.subdomain) : undefined }
      : {}),
    log: fastify.log.child({ component: 'instances' })
  })
  const lifecycleDeps: InstanceLifecycleDeps = {
    em: orm.em,
    backends,
    databases: provisioning.databases,
    credentials: erpCredentials,
    beforeRunning: erpAdmin.secure,
    instancesDomain: config.INSTANCES_DOMAIN,
    readyTimeoutMs: config.INSTANCE_READY_TIMEOUT_SECONDS * 1000,
    errorGraceMs: config.INSTANCE_ERROR_GRACE_SECONDS * 1000
  }
  const lifecycle = createInstanceLifecycle(lifecycleDeps)
  const runJob = createInstanceJobRunner({
    ...lifecycleDeps,
    transitions,
    stopGraceSeconds: config.INSTANCE_STOP_GRACE_SECONDS,
    log: fastify.log.child({ component: 'instance-jobs' })
  })
  // The instance actions' own queue; other rooms add theirs (a restore is a job of the backups queue).
  const abandonedSweeps: AbandonedSweep[] = [createAbandonedInstances({ em: orm.em, sql: fastify.sql, transitions, queue: INSTANCE_QUEUE.name })]
  const sweepAbandoned = (queue: string, states: readonly InstanceState[]): void => {
    abandonedSweeps.push(createAbandonedInstances({ em: orm.em, sql: fastify.sql, transitions, queue, states }))
  }
  const installInProgress = createInstallInProgress({ sql: fastify.sql, boundSeconds: config.ERP_INSTALL_TIMEOUT_SECONDS })
  const reconciler = createInstanceReconciler({
    em: orm.em,
    sql: fastify.sql,
    backends,
    transitions,
    failAbandoned: async () => {
      let moved = 0
      for (const sweep of abandonedSweeps) moved += await sweep()
      return moved
    },
    beforeRunning: async (row) => {
      const em = scopedEntityManager(orm.em, row.tenant_id)
      const instance = await em.findOneOrFail(Instance, Number(row.id), { populate: ['tenant'] })
      await lifecycle.beforeRunning(em, instance)
    },
    operationInProgress: async (row) => await installInProgress(row.id),
    log: fastify.log.child({ component: 'instance-reconciler' })
  })
  const reconciliation = fastify.jobs.every(RECONCILER_JOB, config.RECONCILE_SECONDS, reconciler.reconcile)

  await fastify.jobs.define(INSTANCE_QUEUE, runJob)
  fastify.decorate('instances', { ...service, reconcileNow: reconciliation.runNow, backends, databases: provisioning.databases, erpCredentials, erpAdmin, lifecycle, sweepAbandoned })
  fastify.addHook('onClose', async () => {
    await fastify.jobs.stop() // before the backends close under jobs (and a reconciliation) in flight
    await backends.close()
    await provisioning.close()
  })
}, { name: 'instances', dependencies: ['env', 'orm', 'jobs', 'activity', 'limits', 'prometheus'] })
