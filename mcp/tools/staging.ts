import { Type } from 'typebox'
import { BigInt53 } from '../../schemas/common.ts'
import { CreateStagingBody } from '../../schemas/instances.ts'
import { InstanceNotStaging } from '../../plugins/app/staging/staging.errors.ts'
import { confirmArgument, requireConfirmation } from '../confirmation.ts'
import { watchOf } from './job-watches.ts'
import { defineTool } from './tool.ts'

const instanceId = BigInt53({ minimum: 1, description: 'The instance id, an integer (from list_instances)' })

/** Staging copies (docs/staging.md): the same service as POST /api/instances/{id}/staging and /refresh. */
export const stagingTools = [
  defineTool({
    name: 'create_staging_copy',
    title: 'Make a staging copy of an instance',
    description: 'Admin only: makes a new instance of kind `staging` from a production instance, a safe copy to try things on: its database and files from ' +
      '`from_backup_id` (a completed backup of that instance) or from a fresh backup taken for it, NEUTRALIZED by the ERP before it first starts (scheduled actions and ' +
      'outgoing mail servers off, payment and delivery providers in test mode), with one worker, deleted automatically at `expires_at`. The production instance is not touched. ' +
      'Answers the copy in `restoring`; poll get_instance_status until `running` (or `error`). STAGING_OF_STAGING for a staging copy; BACKUP_NOT_FOUND / BACKUP_NOT_COMPLETED for ' +
      'a backup that is not a completed one of that instance; PLAN_INSTANCE_LIMIT_REACHED unless the plan says staging copies do not count; SUBDOMAIN_TAKEN / SUBDOMAIN_RESERVED.',
    input: Type.Object({
      instance_id: { ...instanceId, description: 'The production instance to copy (from list_instances)' },
      name: CreateStagingBody.properties.name,
      subdomain: CreateStagingBody.properties.subdomain,
      from_backup_id: CreateStagingBody.properties.from_backup_id
    }, { additionalProperties: false }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: async ({ app, scope }, { instance_id: id, ...request }) => ({ instance: await app.staging.create(scope, id, request) }),
    follow: (_input, first) => watchOf({ kind: 'instance', instanceId: (first.instance as { id: number }).id }, first)
  }),

  defineTool({
    name: 'refresh_staging_copy',
    title: 'Refresh a staging copy',
    description: 'DESTRUCTIVE, admin only: the staging copy\'s database and files are replaced by a fresh backup of its production instance (what was done on the copy is lost), ' +
      'in place (same id and URL), neutralized again before it starts; its expiry starts over. Ask the person first, and pass the copy\'s subdomain in `confirm` ' +
      '(CONFIRMATION_REQUIRED without it, CONFIRMATION_REFUSED for another value; nothing changes either way). Answers the copy in `restoring`; poll get_instance_status until ' +
      '`running`. INSTANCE_NOT_STAGING for a production instance (before anyone is asked), STAGING_PARENT_DELETED when its production instance is gone, INSTANCE_BUSY while either changes state.',
    input: Type.Object({
      instance_id: { ...instanceId, description: 'The staging copy to refresh (kind `staging`, from list_instances)' },
      confirm: confirmArgument()
    }, { additionalProperties: false }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    run: async (context, { instance_id: id, confirm }) => {
      const { app, scope } = context
      const copy = await app.instances.get(scope, id)
      if (copy.kind !== 'staging') throw InstanceNotStaging(`${copy.name} is a production instance: only a staging copy can be refreshed`)
      await requireConfirmation(context, id, confirm, {
        tool: 'refresh_staging_copy',
        adminAction: 'refresh staging copies',
        consequence: 'Refreshing the staging copy replaces its database and files with a fresh copy of its production instance; what was done on it is lost'
      })
      return { instance: await app.staging.refresh(scope, id) }
    },
    follow: ({ instance_id: id }, first) => watchOf({ kind: 'instance', instanceId: id }, first)
  })
]
