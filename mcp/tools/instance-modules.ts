import { Type } from 'typebox'
import { BigInt53, Int4 } from '../../schemas/common.ts'
import { confirmArgument, requireConfirmation } from '../confirmation.ts'
import { watchOf } from './job-watches.ts'
import { defineTool, READ_ONLY } from './tool.ts'

const instanceId = BigInt53({ minimum: 1, description: 'The instance id, an integer (from list_instances)' })

export const instanceModuleTools = [
  defineTool({
    name: 'list_instance_modules',
    title: 'List the modules assigned to an instance',
    description: 'The catalog modules assigned to the instance, each with `state` (queued, installing, installed, failed, uninstalling, uninstalled), `installed_at` and the ERP\'s `error` when it failed.',
    input: Type.Object({ instance_id: instanceId }, { additionalProperties: false }),
    annotations: READ_ONLY,
    run: async ({ app, scope }, { instance_id: id }) => ({ modules: await app.erp.modules.list(scope, id) })
  }),

  defineTool({
    name: 'install_module',
    title: 'Install a catalog module on an instance',
    description: 'Admin only. Assigns a catalog module (ids from list_modules) to the instance and queues its install through the ERP; answers at once with the module in `queued`. ' +
      'Asking again for an assigned module changes nothing. Poll list_instance_modules until `installed` or `failed` (with the ERP\'s message, e.g. a missing dependency). MODULE_NOT_FOUND for an id not in the catalog.',
    input: Type.Object({
      instance_id: instanceId,
      module_id: Int4({ minimum: 1, description: 'The catalog module\'s id (from list_modules)' })
    }, { additionalProperties: false }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    run: async ({ app, scope }, { instance_id: id, module_id: moduleId }) => {
      const { module, created } = await app.erp.modules.assign(scope, id, moduleId)
      return { module, queued: created }
    },
    follow: ({ instance_id: id, module_id: moduleId }, first) => watchOf({ kind: 'module', instanceId: id, moduleId }, first)
  }),

  defineTool({
    name: 'uninstall_module',
    title: 'Uninstall a module from an instance',
    description: 'DESTRUCTIVE, admin only: uninstalls an installed module from the instance\'s ERP, and the ERP deletes the data the module holds. ' +
      'Refused first, changing nothing: MODULE_REQUIRED_BY when installed modules depend on it (`details.required_by` names them; uninstall those first), ' +
      'MODULE_NOT_INSTALLED, MODULE_NOT_UNINSTALLABLE (base, web), ERP_UNAVAILABLE while the instance is not running. ' +
      'Ask the person first, and pass the instance\'s subdomain in `confirm` (CONFIRMATION_REQUIRED without it, CONFIRMATION_REFUSED for another value). ' +
      'Answers at once with the module `uninstalling` (`queued` false when that uninstall was already asked); poll list_instance_modules until `uninstalled` or `failed` (with the ERP\'s message).',
    input: Type.Object({
      instance_id: instanceId,
      module_id: Int4({ minimum: 1, description: 'The catalog module\'s id (module_id in list_instance_modules)' }),
      confirm: confirmArgument()
    }, { additionalProperties: false }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    run: async (context, { instance_id: id, module_id: moduleId, confirm }) => {
      const { app, scope } = context
      await requireConfirmation(context, id, confirm, {
        tool: 'uninstall_module',
        adminAction: 'uninstall modules',
        consequence: 'Uninstalling the module removes it and the data it holds from the instance\'s ERP',
        // The refusals (what depends on it, not installed) come before asking the person.
        exists: async () => await app.erp.modules.uninstall(scope, id, moduleId, { checkOnly: true })
      })
      return await app.erp.modules.uninstall(scope, id, moduleId)
    },
    follow: ({ instance_id: id, module_id: moduleId }, first) => watchOf({ kind: 'module_uninstall', instanceId: id, moduleId }, first)
  })
]
