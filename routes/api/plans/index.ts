import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { responses } from '../../../schemas/common.ts'
import { PlansResponse } from '../../../schemas/plans.ts'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('', {
    config: { auth: 'none' },
    schema: {
      tags: ['plans'],
      operationId: 'listPlans',
      summary: 'The plan catalog',
      description: 'Every plan on offer, trial included, in display order. Public: no token needed. Money in major units of each plan\'s currency.',
      response: responses({ 200: PlansResponse })
    }
  }, async () => ({ success: true as const, plans: await fastify.plans.catalog() }))
}

export default routes
