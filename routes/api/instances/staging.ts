import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AUTHENTICATED, InstanceIdParams, responses } from '../../../schemas/common.ts'
import { CreateStagingBody, InstanceResponse } from '../../../schemas/instances.ts'
import { Forbidden, ValidationFailed } from '../../../lib/errors.ts'
import { BackupCorrupt, BackupInCluster, BackupNotCompleted, BackupNotFound, BackupUnavailable } from '../../../plugins/app/backups/backups.errors.ts'
import { BackendNotReady, BackendUnavailable, InstanceBusy, InstanceDeleted, InstanceNotFound } from '../../../plugins/app/instances/instances.errors.ts'
import { InstanceLimitReached } from '../../../plugins/app/limits/limits.service.ts'
import { SubdomainReserved, SubdomainTaken } from '../../../plugins/app/tenants/tenants.errors.ts'
import { InstanceNotStaging, StagingOfStaging, StagingParentGone } from '../../../plugins/app/staging/staging.errors.ts'

/** Staging copies of an instance (docs/staging.md). */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/:id/staging', {
    schema: {
      tags: ['instances'],
      operationId: 'createStagingCopy',
      summary: 'Make a staging copy of an instance (admin)',
      description: 'A new instance of kind `staging`, linked to this one (`parent_id`), made from `from_backup_id` (a completed backup of this instance) or from a fresh backup taken for it ' +
        '(a backup already under way is used instead), neutralized by the ERP before it first starts (scheduled actions and outgoing mail servers off, providers in test mode), with one worker, ' +
        'deleted after STAGING_TTL_DAYS (`expires_at`). Defaults: name `<name> (staging)`, subdomain `<subdomain>-staging` (with a number when taken). Answers 202 with the copy in `restoring`: poll its status until `running` (or `error`). ' +
        '409 `STAGING_OF_STAGING` for a staging copy; `BACKUP_NOT_FOUND` / `BACKUP_NOT_COMPLETED` / `BACKUP_CORRUPT` for a backup that is not a completed one of this instance; 402 `PLAN_INSTANCE_LIMIT_REACHED` unless the plan says staging copies do not count (`staging_counts_in_limit`).',
      params: InstanceIdParams,
      body: CreateStagingBody,
      response: responses({ 202: InstanceResponse }, [...AUTHENTICATED, 402, Forbidden, 404, 409, 413, 415, 422, 503, InstanceNotFound, StagingOfStaging, InstanceBusy, InstanceDeleted, BackupNotFound, BackupNotCompleted,
        BackupCorrupt, BackupInCluster, BackupUnavailable, InstanceLimitReached, SubdomainTaken, SubdomainReserved, ValidationFailed, BackendUnavailable, BackendNotReady])
    }
  }, async (request, reply) => {
    const instance = await fastify.staging.create(request.scope, request.params.id, request.body)
    return reply.code(202).send({ success: true as const, instance })
  })

  fastify.post('/:id/refresh', {
    schema: {
      tags: ['instances'],
      operationId: 'refreshStagingCopy',
      summary: 'Refresh a staging copy from its production instance (admin)',
      description: 'Replaces the staging copy\'s database and filestore with a fresh backup of its production instance, in place (same id, subdomain and URL), neutralized again before it starts; `expires_at` starts over. ' +
        'Answers 202 with the copy in `restoring`. 409 `INSTANCE_NOT_STAGING` for a production instance, `STAGING_PARENT_DELETED` when the production instance is gone, `INSTANCE_BUSY` while either changes state. No body.',
      params: InstanceIdParams,
      response: responses({ 202: InstanceResponse }, [...AUTHENTICATED, Forbidden, 404, 409, 503, InstanceNotFound, InstanceNotStaging, StagingParentGone, InstanceBusy, InstanceDeleted, BackupUnavailable])
    }
  }, async (request, reply) => {
    const instance = await fastify.staging.refresh(request.scope, request.params.id)
    return reply.code(202).send({ success: true as const, instance })
  })
}

export default routes
