import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Forbidden } from '../../../lib/errors.ts'
import { AUTHENTICATED, InstanceIdParams, responses } from '../../../schemas/common.ts'
import { AssignModuleBody, InstanceModuleListResponse, InstanceModuleParams, InstanceModuleResponse } from '../../../schemas/instance-modules.ts'
import { ErpDatabaseNotInitialised, ErpError, ErpUnavailable } from '../../../plugins/app/erp/erp.errors.ts'
import { ModuleNotInstalled, ModuleNotUninstallable, ModuleRequiredBy } from '../../../plugins/app/erp/module-uninstall-request.ts'
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
      description: 'Each with where its install stands (`queued`, `installing`, `installed`, `failed` with the ERP\'s `error`, `uninstalling`, `uninstalled`). One statement, the token check included.',
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

  fastify.delete('/:id/modules/:module_id', {
    schema: {
      tags: ['instance modules'],
      operationId: 'uninstallInstanceModule',
      summary: 'Uninstall a module from an instance',
      description: 'Admin only. Removes an installed module, and the data it holds, from the instance\'s ERP: the ERP is asked at once what depends on the module, ' +
        'then the assignment goes `uninstalling` and a job uninstalls it through the ERP (202); poll GET …/modules until `uninstalled` or `failed` (with the ERP\'s message). ' +
        'Asked again while it is `uninstalling`: 202 with the module as it stands, nothing queued twice. ' +
        '409 `MODULE_REQUIRED_BY` when installed modules depend on it, directly or through others (their technical names in the message and in `details.required_by`; ' +
        'the ERP would uninstall them too): uninstall those first. 409 `MODULE_NOT_INSTALLED` for a module not installed here (never assigned, uninstalled, its install queued, running or failed); ' +
        '409 `MODULE_NOT_UNINSTALLABLE` for a module the ERP cannot run without (`base`, `web`). 503 `ERP_UNAVAILABLE` while the instance is not running. ' +
        '404 `MODULE_NOT_FOUND` for a module that is not in the catalog (or is another company\'s). A refusal changes nothing.',
      params: InstanceModuleParams,
      response: responses({ 202: InstanceModuleResponse }, [...AUTHENTICATED, Forbidden, 404, 409, 502, 503, ModuleNotFound, InstanceNotFound, ModuleNotInstalled, ModuleRequiredBy, ModuleNotUninstallable,
        ErpUnavailable, ErpError, ErpDatabaseNotInitialised])
    }
  }, async (request, reply) => {
    const { module } = await erp.modules.uninstall(request.scope, request.params.id, request.params.module_id)
    return reply.code(202).send({ success: true as const, module })
  })
}

export default routes
