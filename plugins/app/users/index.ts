import fp from 'fastify-plugin'
import { createUsersService, type UsersService } from './users.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    users: UsersService
  }
}

export default fp(async (fastify) => {
  fastify.decorate('users', createUsersService({ activity: fastify.activity, limits: fastify.limits }))
}, { name: 'users', dependencies: ['orm', 'activity', 'limits'] })
