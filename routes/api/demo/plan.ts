import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { responses } from '../../../schemas/common.ts'
import { DemoPlanQuery, PlanResponse } from '../../../schemas/plans.ts'
import { PlanNotFound } from '../../../plugins/app/plans/plans.errors.ts'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/plan', {
    config: { auth: 'none' },
    schema: {
      tags: ['plans'],
      operationId: 'getDemoPlan',
      summary: 'The plan a demo or trial starts on',
      description: 'The trial plan, or the active plan `plan_id` names. Public. Unknown or retired id: 404 PLAN_NOT_FOUND; an id that is not an integer: 400.',
      querystring: DemoPlanQuery,
      response: responses({ 200: PlanResponse }, [PlanNotFound])
    }
  }, async (request) => ({ success: true as const, plan: await fastify.plans.demoPlan(request.query.plan_id) }))
}

export default routes
