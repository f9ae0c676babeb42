import type { FastifyInstance } from 'fastify'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import { systemScope } from '../../../lib/call-scope.ts'
import { Backup } from '../backups/backup.entity.ts'
import { toBackupView } from '../backups/backup.view.ts'
import { User } from '../users/user.entity.ts'
import { toUserView } from '../users/users.service.ts'
import type { RenderEvent } from './webhook-fanout.ts'

/**
 * An event's `data`: its target as the API shows it (GET of the same resource), read through the
 * rooms' own services, as the company. Module events carry the instance they happened on.
 */
export function createEventRenderer (fastify: FastifyInstance): RenderEvent {
  return async (tenantId, event) => {
    const em = scopedEntityManager(fastify.orm.em, tenantId)
    const scope = { ...systemScope(em, tenantId, 'webhooks'), read: undefined as never }
    const id = event.target_id
    if (id === null) return undefined
    switch (event.target_type) {
      case 'instance': return { ...await fastify.instances.get(scope, Number(id)) }
      case 'backup': return { ...toBackupView(await em.findOneOrFail(Backup, Number(id))) }
      case 'addon_source': return { ...await fastify.addonSources.get(scope, Number(id)) }
      case 'ticket': return { ...await fastify.tickets.get(scope, id) }
      case 'subscription': return { ...await fastify.subscriptions.current(scope) }
      case 'user': return { ...toUserView(await em.findOneOrFail(User, id)) }
      default: return undefined
    }
  }
}
