import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Forbidden } from '../../../lib/errors.ts'
import { AUTHENTICATED, responses } from '../../../schemas/common.ts'
import { SettingsResponse, SettingsUpdateBody } from '../../../schemas/settings.ts'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('', {
    schema: {
      tags: ['settings'],
      operationId: 'getSettings',
      summary: 'Company settings',
      description: 'Company details and notification preferences of the caller\'s company. Any member may read them.',
      response: responses({ 200: SettingsResponse }, AUTHENTICATED)
    }
  }, async (request) => ({ success: true as const, settings: await fastify.settings.get(request.scope) }))

  fastify.put('/update', {
    schema: {
      tags: ['settings'],
      operationId: 'updateSettings',
      summary: 'Change company settings',
      description: 'Partial update, administrators only. Invalid values answer 400 VALIDATION_FAILED naming every failing field in `details.fields[]`, each with a code ' +
        '(INVALID_COUNTRY, INVALID_CURRENCY, INVALID_TIMEZONE, INVALID_LANGUAGE, INVALID_COMPANY_EMAIL, …); ' +
        'nothing is saved unless every field is valid. Answers the settings after the change.',
      body: SettingsUpdateBody,
      response: responses({ 200: SettingsResponse }, [...AUTHENTICATED, Forbidden, 413, 415])
    }
  }, async (request) => ({ success: true as const, settings: await fastify.settings.update(request.scope, request.body) }))
}

export default routes
