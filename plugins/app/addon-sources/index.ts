import fp from 'fastify-plugin'
import type { MikroORM } from '@mikro-orm/postgresql'
import { parseAllowHosts, type OutboundPolicy } from '../../../lib/outbound-url.ts'
import { addonsHostPath } from '../../../provisioning/docker/container-config.ts'
import type { KubernetesBackend } from '../../../provisioning/kubernetes/index.ts'
import { combinedStorage, createLocalAddonStorage, type BackendStorage } from './addon-storage.ts'
import { createKubeAddonStorage } from './kube-addon-storage.ts'
import { createAddonSourcesService, type AddonSourcesService } from './addon-sources.service.ts'
import { ADDON_SYNC_QUEUE } from './addon-sync.queue.ts'
import { createCredentialSealer } from './credential-seal.ts'
import { createSyncJob } from './addon-sync.job.ts'

declare module 'fastify' {
  interface FastifyInstance {
    addonSources: AddonSourcesService
  }
}

/**
 * Git addon sources: registration, and the job that syncs a source into the
 * tenant's addons storage and lists its modules in the tenant's catalog.
 * The Docker backend's storage is the tenant's addons folder on this host;
 * the Kubernetes backend's is the tenant's addons claim, written by a Job.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  const orm: MikroORM = fastify.orm
  if (config.ERP_CREDENTIALS_KEY === undefined) throw new Error('ERP_CREDENTIALS_KEY must be resolved before the app is built')
  const sealer = createCredentialSealer(config.ERP_CREDENTIALS_KEY)
  const policy: OutboundPolicy = { allowHosts: parseAllowHosts(config.ADDON_SOURCE_ALLOWED_HOSTS) }
  // Every enabled backend may hold the company's instances; one not configured here is skipped at sync time.
  const configured = (name: 'docker' | 'kubernetes') => () => fastify.instances.backends.find(name) !== undefined
  const storages: BackendStorage[] = []
  if (config.instanceBackends.includes('docker')) {
    storages.push({
      backend: 'docker',
      configured: configured('docker'),
      storage: createLocalAddonStorage((tenantSubdomain) => addonsHostPath({ tenantSubdomain }, { addonsRoot: config.ADDONS_ROOT }))
    })
  }
  if (config.instanceBackends.includes('kubernetes')) {
    storages.push({
      backend: 'kubernetes',
      configured: configured('kubernetes'),
      storage: createKubeAddonStorage({
        jobs: () => (fastify.instances.backends.get('kubernetes') as KubernetesBackend).jobs,
        image: config.ADDON_SYNC_IMAGE,
        timeoutMs: config.ADDON_SOURCE_SYNC_TIMEOUT_SECONDS * 1000
      })
    })
  }
  const storage = storages.length === 0 ? undefined : combinedStorage(storages, fastify.log.child({ component: 'addon-source-sync' }))
  const service = createAddonSourcesService({
    jobs: fastify.jobs, activity: fastify.activity, sealer, policy, storage, syncStaleMs: (config.ADDON_SOURCE_SYNC_TIMEOUT_SECONDS + 300) * 1000
  })
  if (storage !== undefined) {
    const syncJob = createSyncJob({
      em: orm.em,
      activity: fastify.activity,
      sealer,
      policy,
      storage,
      limits: { maxBytes: config.ADDON_SOURCE_MAX_BYTES, maxFiles: config.ADDON_SOURCE_MAX_FILES, timeoutMs: config.ADDON_SOURCE_SYNC_TIMEOUT_SECONDS * 1000 },
      log: fastify.log.child({ component: 'addon-source-sync' })
    })
    await fastify.jobs.define(ADDON_SYNC_QUEUE, syncJob)
  }
  fastify.decorate('addonSources', service)
}, { name: 'addon-sources', dependencies: ['env', 'orm', 'jobs', 'activity', 'instances'] })
