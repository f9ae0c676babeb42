/**
 * Creates an invited person's ERP user on the instance, after they accepted (or at once for a
 * member who already has a portal account). A job with retries: the instance may be stopped or
 * busy. A new user starts from the ERP's default user template, as one made in the ERP would;
 * idempotent: a user with that login is given the role's groups instead of a second one, and
 * keeps every other group they have (erp-roles.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import type { JobWithMetadata } from 'pg-boss'
import type { SystemActor } from '../../../lib/actor.ts'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { Instance } from '../instances/instance.entity.ts'
import type { ErpAccess } from './erp-access.ts'
import { groupCommands, ROLE_GROUP_XML_IDS } from './erp-roles.ts'
import type { ErpUserJobData } from './erp-user.queue.ts'

export function createErpUserJob (deps: { em: EntityManager, access: ErpAccess, activity: ActivityService, log: FastifyBaseLogger }) {
  const { access, activity, log } = deps

  return async function run (job: JobWithMetadata<ErpUserJobData>): Promise<void> {
    const { tenantId, instanceId, email, name, role } = job.data
    const actor: SystemActor = { kind: 'system', tenantId, job: 'erp-user-create' }
    const em = scopedEntityManager(deps.em, tenantId)
    const instance = await em.findOne(Instance, instanceId, { populate: ['tenant'] })
    if (instance === null || instance.state === 'deleted' || instance.state === 'deleting') {
      log.info({ instanceId, email }, 'The instance is gone: no ERP user to create')
      return
    }
    try {
      const created = await access.withErp(em, instance, async (erp) => {
        const groups = groupCommands(role, await erp.groupIds(ROLE_GROUP_XML_IDS))
        const existing = await erp.findUserByLogin(email)
        if (existing !== undefined) {
          await erp.writeUserGroups(existing.id, groups)
          return false
        }
        // As Odoo's own user form: the default user template's groups, then the role's.
        const template = (await erp.defaultUserGroupIds()).map((id) => [4, id])
        await erp.createUser({ login: email, name, email, groups: [...template, ...groups] })
        return true
      })
      await em.transactional(async (tx) => {
        activity.record(tx, actor, {
          type: created ? 'instance_user.created' : 'instance_user.updated',
          title: `${created ? 'Created' : 'Updated'} the ERP user ${email} (${role}) on ${instance.name}`,
          targetType: 'instance',
          targetId: String(instance.id),
          instanceId: instance.id
        })
      })
    } catch (error) {
      const last = job.retryCount >= job.retryLimit
      log.warn({ err: error, instanceId, email, attempt: job.retryCount + 1, last }, 'Creating the ERP user failed')
      if (!last) throw error
      await em.transactional(async (tx) => {
        activity.record(tx, actor, {
          type: 'instance_user.failed',
          title: `Could not create the ERP user ${email} on ${instance.name}: ${(error as Error).message}`.slice(0, 500),
          targetType: 'instance',
          targetId: String(instance.id),
          instanceId: instance.id
        })
      })
    }
  }
}
