import fp from 'fastify-plugin'
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql'
import { scopedEntityManager } from '../../database/tenancy.ts'
import { sqlOnPool, type Sql } from '../../lib/sql.ts'

declare module 'fastify' {
  interface FastifyInstance {
    orm: MikroORM
    /** Parameterised SQL on the ORM's pool, for hot paths (token checks, rate-limit counters). */
    sql: Sql
  }
  interface FastifyRequest {
    /**
     * The request's own EntityManager, created on first use. Once the request is
     * authenticated it is scoped to the caller's tenant (database/tenancy.ts);
     * before that, queries on tenant-owned entities throw unless they opt out.
     */
    em: EntityManager
    /** Called by authentication: from now on `request.em` sees only this tenant. */
    scopeToTenant: (tenantId: string) => void
  }
}

const kEm = Symbol('em')
const kTenant = Symbol('tenant')
interface Holder { [kEm]?: EntityManager, [kTenant]?: string }

/** The ORM is created (and migrated) by server.ts or the test helper, then handed to the app. */
export default fp<{ orm: MikroORM }>(async (fastify, { orm }) => {
  fastify.decorate('orm', orm)
  fastify.decorate('sql', sqlOnPool(await orm.em.getConnection().getNativeClient()))
  fastify.decorateRequest(kTenant, undefined)
  fastify.decorateRequest(kEm, undefined)
  fastify.decorateRequest('em', {
    getter () {
      const holder = this as unknown as Holder
      const tenantId = holder[kTenant]
      holder[kEm] ??= tenantId === undefined ? orm.em.fork() : scopedEntityManager(orm.em, tenantId)
      return holder[kEm]
    }
  })
  fastify.decorateRequest('scopeToTenant', function (tenantId: string) {
    const holder = this as unknown as Holder
    holder[kTenant] = tenantId
    holder[kEm] = undefined
  })
}, { name: 'orm' })
