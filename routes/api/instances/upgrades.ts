import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { pageInfo } from '../../../lib/pages.ts'
import { AUTHENTICATED, InstanceIdParams, pageOf, responses } from '../../../schemas/common.ts'
import { UpgradeBody, UpgradeListQuery, UpgradeListResponse, UpgradeParams, UpgradeResponse } from '../../../schemas/upgrades.ts'
import { Forbidden, ValidationFailed } from '../../../lib/errors.ts'
import { BackupUnavailable } from '../../../plugins/app/backups/backups.errors.ts'
import { BackendNotReady, BackendUnavailable, InstanceBusy, InstanceDeleted, InstanceNotFound } from '../../../plugins/app/instances/instances.errors.ts'
import { InstanceLimitReached } from '../../../plugins/app/limits/limits.service.ts'
import { StagingOfStaging } from '../../../plugins/app/staging/staging.errors.ts'
import { SubdomainTaken } from '../../../plugins/app/tenants/tenants.errors.ts'
import { UpgradeInProgress, UpgradeNotConfigured, UpgradeNotFound, UpgradeNotNewer, UpgradeSkipsAVersion, UpgradeVersionNotOffered } from '../../../plugins/app/upgrades/upgrades.errors.ts'

/** Version upgrades of an instance (docs/upgrades.md). */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/:id/upgrade', {
    schema: {
      tags: ['instances'],
      operationId: 'upgradeInstance',
      summary: 'Upgrade an instance to the next ERP version, as a test or for real (admin)',
      description: '`test`: a staging copy of the instance is made (as `POST /api/instances/{id}/staging` makes one) and upgraded; the instance itself is not touched. ' +
        '`apply`: a backup of the instance is taken first (its rollback point), then the instance is stopped, the configured upgrade command runs on its database, and it starts on the target version; ' +
        'any failure restores the rollback point and starts it on its old version (`rolled_back`). Answers 202 with the upgrade: poll it until `succeeded`, `failed` or `rolled_back`. ' +
        'Refused (nothing changes): 409 `UPGRADE_SKIPS_A_VERSION` (one major version at a time), `UPGRADE_NOT_NEWER`, `UPGRADE_VERSION_NOT_OFFERED`, `UPGRADE_NOT_CONFIGURED` (no command for the target), ' +
        '`UPGRADE_IN_PROGRESS`, `INSTANCE_BUSY` (the instance is not running or stopped).',
      params: InstanceIdParams,
      body: UpgradeBody,
      response: responses({ 202: UpgradeResponse }, [...AUTHENTICATED, 402, Forbidden, 404, 409, 413, 415, 503, InstanceNotFound, InstanceBusy, InstanceDeleted, UpgradeSkipsAVersion, UpgradeNotNewer,
        UpgradeVersionNotOffered, UpgradeNotConfigured, UpgradeInProgress, StagingOfStaging, InstanceLimitReached, SubdomainTaken, BackupUnavailable, ValidationFailed, BackendUnavailable, BackendNotReady])
    }
  }, async (request, reply) => {
    const upgrade = await fastify.upgrades.request(request.scope, request.params.id, request.body)
    return reply.code(202).send({ success: true as const, upgrade })
  })

  fastify.get('/:id/upgrades', {
    schema: {
      tags: ['instances'],
      operationId: 'listUpgrades',
      summary: 'An instance\'s version upgrades',
      description: 'Newest first, tests and applied ones. Paged (docs/api.md, "Lists and pages").',
      params: InstanceIdParams,
      querystring: UpgradeListQuery,
      response: responses({ 200: UpgradeListResponse }, [...AUTHENTICATED, 404, InstanceNotFound])
    }
  }, async (request) => {
    const page = pageOf(request.query)
    const { upgrades, total } = await fastify.upgrades.list(request.scope, request.params.id, page)
    return { success: true as const, upgrades, pagination: pageInfo(page, total) }
  })

  fastify.get('/:id/upgrades/:upgrade_id', {
    schema: {
      tags: ['instances'],
      operationId: 'getUpgrade',
      summary: 'One version upgrade, with its report',
      description: 'Its state and step, duration, the end of the upgrade command\'s output, the modules it reported failing, and the synced addons not written for the target version.',
      params: UpgradeParams,
      response: responses({ 200: UpgradeResponse }, [...AUTHENTICATED, 404, InstanceNotFound, UpgradeNotFound])
    }
  }, async (request) => ({ success: true as const, upgrade: await fastify.upgrades.get(request.scope, request.params.id, request.params.upgrade_id) }))
}

export default routes
