import { Type } from 'typebox'
import { InstanceId, Int4, ref, Success } from './common.ts'
import { INSTANCE_MODULE_STATES } from '../plugins/app/erp/instance-module.entity.ts'

export const InstanceModule = Type.Object({
  module_id: Int4({ description: 'The catalog module\'s id (GET /api/modules)' }),
  technical_name: Type.String({ description: 'The ERP\'s name of the module, e.g. "contacts"' }),
  name: Type.String(),
  state: Type.Enum(INSTANCE_MODULE_STATES, { description: '`queued` (waiting, or retrying while the instance cannot be reached), `installing`, `installed`, `failed` (see `error`), `uninstalling` (an uninstall asked, until the ERP is done), `uninstalled`' }),
  installed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()], { description: 'The ERP\'s message when the install or the uninstall failed, e.g. a missing dependency' })
}, { $id: 'InstanceModule', description: 'A catalog module assigned to the instance' })

export const InstanceModuleListResponse = Success({ modules: Type.Array(ref(InstanceModule), { description: 'In the order they were assigned' }) }, { $id: 'InstanceModuleListResponse' })
export const AssignModuleBody = Type.Object({
  module_id: Int4({ minimum: 1, description: 'The catalog module\'s id (GET /api/modules)' })
}, { additionalProperties: false })
export const InstanceModuleResponse = Success({ module: ref(InstanceModule) }, { $id: 'InstanceModuleResponse' })
export const InstanceModuleParams = Type.Object({
  id: InstanceId,
  module_id: Int4({ minimum: 1, description: 'The catalog module\'s id (GET /api/modules, or module_id in GET …/modules)' })
})
