import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Forbidden } from '../../../lib/errors.ts'
import { AUTHENTICATED, InstanceIdParams, responses } from '../../../schemas/common.ts'
import { AssignModuleBody, InstanceModuleListResponse, InstanceModuleResponse } from '../../../schemas/instance-modules.ts'
import { ModuleEditionUnavailable, ModuleNotFound, ModuleVersionMismatch } from '../../../plugins/app/erp/erp-modules.service.ts'
import { InstanceNotFound } from '../../../plugins/app/instances/instances.errors.ts'

/** Registered by ./index.ts (autoload loads only a folder's index.ts). */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { erp } = fastify

  fastify.get('/:id/modules', {
    config: { auth: 'portal-inline' },
    schema: {
      tags: ['instance modules'],
      operationId: 'listInstanceModules',
      summary: 'The catalog modules assigned to an instance',
      description: 'Each with where its install stands (`queued`, `installing`, `installed`, `failed` with the ERP\'s `error`). One statement, the token check included.',
      params: InstanceIdParams,
      response: responses({ 200: InstanceModuleListResponse }, [...AUTHENTICATED, 404, InstanceNotFound])
    }
  }, async (request) => ({ success: true as const, modules: await erp.modules.list(request.scope, request.params.id) }))

  fastify.post('/:id/modules', {
    schema: {
      tags: ['instance modules'],
      operationId: 'installInstanceModule',
      summary: 'Install a catalog module on an instance',
      description: 'Admin only. Records the assignment in `queued` and queues its install through the ERP (202); poll GET …/modules. ' +
        'A module already assigned answers 200 and changes nothing. 404 `MODULE_NOT_FOUND` for a module that is not in the catalog (or is another company\'s). ' +
        '409 `MODULE_ERP_VERSION_MISMATCH` for a synced module whose manifest names another ERP version than the instance runs; ' +
        '409 `MODULE_EDITION_UNAVAILABLE` for a catalog app of the Enterprise edition (`edition` in GET /api/modules) where instances run the Community edition. ' +
        'A module whose dependencies the ERP lacks ends `failed` with the ERP\'s message.',
      params: InstanceIdParams,
      body: AssignModuleBody,
      response: responses({ 200: InstanceModuleResponse, 202: InstanceModuleResponse }, [...AUTHENTICATED, Forbidden, 404, 409, 413, 415, ModuleNotFound, ModuleVersionMismatch, ModuleEditionUnavailable, InstanceNotFound])
    }
  }, async (request, reply) => {
    const { module, created } = await erp.modules.assign(request.scope, request.params.id, request.body.module_id)
    return reply.code(created ? 202 : 200).send({ success: true as const, module })
  })
}

export default routes
