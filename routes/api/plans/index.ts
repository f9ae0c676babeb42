import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { responses } from '../../../schemas/common.ts'
import { DemoPlanQuery, PlanResponse, PlansResponse } from '../../../schemas/plans.ts'
import recommendationRoutes from './recommendation.ts'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/api/plans', {
    config: { auth: 'none' },
    schema: {
      tags: ['plans'],
      summary: 'The plan catalog',
      description: 'Every plan on offer, trial included, in display order. Public: no token needed. Money in major units of each plan\'s currency.',
      response: responses({ 200: PlansResponse })
    }
  }, async () => ({ success: true as const, plans: await fastify.plans.catalog() }))

  fastify.get('/api/demo/plan', {
    config: { auth: 'none' },
    schema: {
      tags: ['plans'],
      summary: 'The plan a demo or trial starts on',
      description: 'The trial plan, or the active plan `plan_id` names. Public. Unknown or retired id: 404 PLAN_NOT_FOUND; an id that is not an integer: 400.',
      querystring: DemoPlanQuery,
      response: responses({ 200: PlanResponse }, [404])
    }
  }, async (request) => ({ success: true as const, plan: await fastify.plans.demoPlan(request.query.plan_id) }))

  await fastify.register(recommendationRoutes)
}

export default routes
