import fp from 'fastify-plugin'
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql'

declare module 'fastify' {
  interface FastifyInstance {
    orm: MikroORM
  }
  interface FastifyRequest {
    /**
     * The request's own EntityManager. After authentication it is scoped to the
     * caller's tenant (see database/tenancy.ts); before that, queries on
     * tenant-owned entities throw unless they opt out explicitly.
     */
    em: EntityManager
  }
}

const kEm = Symbol('em')

/** The ORM is created (and migrated) by server.ts or the test helper, then handed to the app. */
export default fp<{ orm: MikroORM }>(async (fastify, opts) => {
  fastify.decorate('orm', opts.orm)
  type Holder = { [kEm]?: EntityManager }
  fastify.decorateRequest('em', {
    getter () {
      const holder = this as unknown as Holder
      holder[kEm] ??= opts.orm.em.fork()
      return holder[kEm]
    },
    setter (value: EntityManager) {
      (this as unknown as Holder)[kEm] = value
    }
  })
}, { name: 'orm' })
