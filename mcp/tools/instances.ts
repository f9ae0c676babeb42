import { Type } from 'typebox'
import { BigInt53 } from '../../schemas/common.ts'
import { CreateInstanceBody } from '../../schemas/instances.ts'
import { INSTANCE_STATUS, LIST_INSTANCES } from '../../plugins/app/instances/instance.queries.ts'
import { confirmArgument, requireConfirmation } from '../confirmation.ts'
import { watchOf } from './job-watches.ts'
import { defineTool, READ_ONLY, type ToolAnnotations } from './tool.ts'

const InstanceRef = Type.Object({
  instance_id: BigInt53({ minimum: 1, description: 'The instance id, an integer (from list_instances)' })
}, { additionalProperties: false })

/** Lifecycle requests are queued and repeat-safe: asking again while it is on its way changes nothing. */
const LIFECYCLE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true }

const ACTIONS = {
  start: 'Starts a stopped (or failed) instance.',
  stop: 'Stops a running instance; its data and database stay. Users cannot reach it until it is started again.',
  restart: 'Restarts the instance (a stopped one is started), e.g. after changing addons.'
} as const

const lifecycleTools = (Object.keys(ACTIONS) as Array<keyof typeof ACTIONS>).map((action) => defineTool({
  name: `${action}_instance`,
  title: `${action[0]?.toUpperCase()}${action.slice(1)} an instance`,
  description: `${ACTIONS[action]} The change is queued: \`queued\` is true when it was, false when there was nothing ` +
    'to do. Poll get_instance_status until the state settles. INSTANCE_BUSY while another change is running.',
  input: InstanceRef,
  annotations: action === 'stop' ? { ...LIFECYCLE, destructiveHint: true } : LIFECYCLE,
  run: async ({ app, scope }, { instance_id: id }) => app.instances.request(scope, id, action),
  follow: ({ instance_id: id }, first) => first.queued === true ? watchOf({ kind: 'instance', instanceId: id }, first) : undefined
}))

export const instanceTools = [
  defineTool({
    name: 'list_instances',
    title: 'List ERP instances',
    description: 'Every ERP instance of the company (deleted ones excluded), newest first, with its URL, version, ' +
      'backend and state. Use the ids with the other instance tools.',
    input: Type.Object({}, { additionalProperties: false }),
    annotations: READ_ONLY,
    run: async ({ app, scope }) => ({ instances: await app.instances.list(scope) }),
    firstRead: () => ({ statement: LIST_INSTANCES, values: [] })
  }),

  defineTool({
    name: 'get_instance',
    title: 'Instance details',
    description: 'One instance in full: resources (memory MB, storage GB, cpu cores), database name and size (MB), ' +
      'workers, last backup and last sync. Another company\'s id answers INSTANCE_NOT_FOUND.',
    input: InstanceRef,
    annotations: READ_ONLY,
    run: async ({ app, scope }, { instance_id: id }) => ({ instance: await app.instances.get(scope, id) })
  }),

  defineTool({
    name: 'get_instance_status',
    title: 'Instance state',
    description: 'The instance\'s state (provisioning, running, stopping, stopped, starting, restarting, error, ' +
      'deleting, deleted) and what the backend last reported. Cheap: use it to poll after create or a lifecycle change.',
    input: InstanceRef,
    annotations: READ_ONLY,
    run: async ({ app, scope }, { instance_id: id }) => ({ status: await app.instances.status(scope, id) }),
    firstRead: ({ instance_id: id }) => Number.isSafeInteger(id) && (id as number) > 0 ? { statement: INSTANCE_STATUS, values: [id] } : undefined
  }),

  defineTool({
    name: 'create_instance',
    title: 'Create an ERP instance',
    description: 'Creates an instance and queues its provisioning; it answers at once in state `provisioning`. Poll ' +
      'get_instance_status until `running` (or `error`, with status_message). Fails with PLAN_INSTANCE_LIMIT_REACHED ' +
      'when the plan has no free slot, SUBDOMAIN_TAKEN / SUBDOMAIN_RESERVED for the subdomain, ' +
      'INSTANCE_BACKEND_UNAVAILABLE when that backend is not offered here or not ready (the operator is told).',
    input: CreateInstanceBody,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: async ({ app, scope }, input) => ({ instance: await app.instances.create(scope, input) }),
    follow: (_input, first) => watchOf({ kind: 'instance', instanceId: (first.instance as { id: number }).id }, first)
  }),

  ...lifecycleTools,

  defineTool({
    name: 'delete_instance',
    title: 'Delete an instance',
    description: 'DESTRUCTIVE, admin only: removes the instance\'s ERP, its database and its files for good (backups stay); the record stays in state `deleted` and its ' +
      'subdomain stays taken. Ask the person first, and pass the instance\'s subdomain in `confirm` (CONFIRMATION_REQUIRED without it, CONFIRMATION_REFUSED ' +
      'for another value; nothing changes either way). Works from every state. `queued` is false when it is already deleted or being deleted. ' +
      'Poll get_instance_status until `deleted`.',
    input: Type.Object({
      instance_id: BigInt53({ minimum: 1, description: 'The instance id, an integer (from list_instances)' }),
      confirm: confirmArgument()
    }, { additionalProperties: false }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    run: async (context, { instance_id: id, confirm }) => {
      await requireConfirmation(context, id, confirm, {
        tool: 'delete_instance',
        adminAction: 'delete instances',
        consequence: 'Deleting the instance removes its ERP, its database and its files for good'
      })
      return context.app.instances.request(context.scope, id, 'delete')
    },
    follow: ({ instance_id: id }, first) => first.queued === true ? watchOf({ kind: 'instance', instanceId: id }, first) : undefined
  })
]
