import { Type } from 'typebox'
import { BigInt53, Int4 } from '../../schemas/common.ts'
import { BackupScheduleBody } from '../../schemas/backups.ts'
import { CreateInstanceBody } from '../../schemas/instances.ts'
import { confirmArgument, requireConfirmation } from '../confirmation.ts'
import { watchOf } from './job-watches.ts'
import { defineTool, READ_ONLY } from './tool.ts'

const instanceId = BigInt53({ minimum: 1, description: 'The instance id, an integer (from list_instances)' })
const backupId = BigInt53({ minimum: 1, description: 'The backup id, an integer (from list_backups)' })
const BackupRef = Type.Object({ instance_id: instanceId, backup_id: backupId }, { additionalProperties: false })
const InstanceRef = Type.Object({ instance_id: instanceId }, { additionalProperties: false })

/** A restore answers `{ backup, instance_id, instance_state }`: followed on the restored instance's state. */
const restoredInstance = (first: Record<string, unknown>) => watchOf({ kind: 'restored_instance', instanceId: first.instance_id as number }, first)

export const backupTools = [
  defineTool({
    name: 'create_backup',
    title: 'Back up an instance',
    description: 'Queues a backup of the instance (its database dump and filestore in one archive) and answers at once in state `queued`. ' +
      'Poll get_backup until it is `completed` (or `failed`, with `error`). BACKUP_IN_PROGRESS while another backup of the instance runs; ' +
      'BACKUP_UNAVAILABLE when the hosting platform is not ready for backups (the operator is told).',
    input: InstanceRef,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: async ({ app, scope }, { instance_id: id }) => ({ backup: await app.backups.archives.create(scope, id) }),
    follow: ({ instance_id: id }, first) => watchOf({ kind: 'backup', instanceId: id, backupId: (first.backup as { id: number }).id }, first)
  }),

  defineTool({
    name: 'list_backups',
    title: 'List an instance\'s backups',
    description: 'The instance\'s backups, newest first, with state, size in bytes, SHA-256 and times; `step` says what a running one is doing.',
    input: Type.Object({
      instance_id: instanceId,
      page: Type.Optional(Int4({ minimum: 1, description: 'Page number, from 1 (default 1)' })),
      per_page: Type.Optional(Int4({ minimum: 1, maximum: 100, description: 'Backups per page, at most 100 (default 25)' }))
    }, { additionalProperties: false }),
    annotations: READ_ONLY,
    run: async ({ app, scope }, { instance_id: id, page = 1, per_page: perPage = 25 }) => ({
      ...await app.backups.archives.list(scope, id, { page, per_page: perPage }), page, per_page: perPage
    })
  }),

  defineTool({
    name: 'get_backup',
    title: 'One backup, with its progress',
    description: 'One backup of the instance: state (queued, running, completed, failed), `step` (what a running backup is doing now), ' +
      'size in bytes and SHA-256 once completed, `error` when it failed. Cheap: use it to poll after create_backup. Another company\'s ids answer BACKUP_NOT_FOUND.',
    input: BackupRef,
    annotations: READ_ONLY,
    run: async ({ app, scope }, { instance_id: id, backup_id: backup }) => ({ backup: await app.backups.archives.get(scope, id, backup) })
  }),

  defineTool({
    name: 'restore_backup',
    title: 'Restore a backup over its instance',
    description: 'DESTRUCTIVE, admin only: replaces the instance\'s database and filestore with the backup\'s; what changed since the backup is lost. ' +
      'Ask the person first, and pass the instance\'s subdomain in `confirm` (CONFIRMATION_REQUIRED without it, BACKUP_CONFIRMATION_MISMATCH for another value; nothing changes either way). ' +
      'To keep the instance as it is, use restore_backup_as_new_instance instead. ' +
      'The archive\'s checksum is verified before anything changes (BACKUP_CORRUPT). The instance goes to `restoring`; poll get_instance_status until `running` (or `error`).',
    input: Type.Object({
      instance_id: instanceId,
      backup_id: backupId,
      confirm: confirmArgument('to confirm that its data is replaced')
    }, { additionalProperties: false }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    run: async (context, { instance_id: id, backup_id: backup, confirm }) => {
      // A wrong value is refused by the restore service itself (as for REST); an absent one here, saying what to pass
      // or asking the person (elicitation), whose answer then goes to the service like `confirm`.
      const given = confirm ?? await requireConfirmation(context, id, confirm, {
        tool: 'restore_backup',
        adminAction: 'restore backups',
        consequence: `Restoring backup #${backup} replaces the instance's database and filestore; what changed since the backup is lost`,
        exists: async () => context.app.backups.archives.get(context.scope, id, backup),
        serviceChecksValue: true
      })
      return context.app.backups.restores.restore(context.scope, id, backup, { mode: 'replace', confirm: given })
    },
    follow: (_input, first) => restoredInstance(first)
  }),

  defineTool({
    name: 'restore_backup_as_new_instance',
    title: 'Restore a backup as a new instance',
    description: 'Admin only: makes a new instance (same ERP version and backend) holding the backup\'s database and filestore; the backed-up instance is not touched ' +
      '(it may even be deleted). It takes one of the plan\'s instance slots like create_instance: PLAN_INSTANCE_LIMIT_REACHED, SUBDOMAIN_TAKEN / SUBDOMAIN_RESERVED. ' +
      'The archive\'s checksum is verified first (BACKUP_CORRUPT, nothing made). Answers the new `instance_id` in `restoring`; poll get_instance_status until `running` (or `error`).',
    input: Type.Object({
      instance_id: { ...instanceId, description: 'The id of the instance the backup was taken of (from list_instances)' },
      backup_id: backupId,
      name: { ...CreateInstanceBody.properties.name, description: 'The new instance\'s display name, 1-100 characters' },
      subdomain: { ...CreateInstanceBody.properties.subdomain, description: 'The new instance\'s subdomain, a DNS label of 3-40 characters: lowercase letters, digits and inner hyphens; not reserved; unique across all companies' }
    }, { additionalProperties: false }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: async ({ app, scope }, { instance_id: id, backup_id: backup, name, subdomain }) => app.backups.restores.restore(scope, id, backup, { mode: 'new', name, subdomain }),
    follow: (_input, first) => restoredInstance(first)
  }),

  defineTool({
    name: 'delete_backup',
    title: 'Delete a backup',
    description: 'DESTRUCTIVE, admin only: removes the backup and its archive for good; it can no longer be downloaded or restored. ' +
      'Ask the person first, and pass the instance\'s subdomain in `confirm` (CONFIRMATION_REQUIRED without it, CONFIRMATION_REFUSED for another value; nothing changes either way). ' +
      'BACKUP_IN_PROGRESS for a backup still queued or running. Answers `deleted: true`; asking again answers BACKUP_NOT_FOUND.',
    input: Type.Object({ instance_id: instanceId, backup_id: backupId, confirm: confirmArgument() }, { additionalProperties: false }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    run: async (context, { instance_id: id, backup_id: backup, confirm }) => {
      const { app, scope } = context
      await requireConfirmation(context, id, confirm, {
        tool: 'delete_backup',
        adminAction: 'delete backups',
        consequence: `Deleting backup #${backup} removes its archive for good`,
        exists: async () => app.backups.archives.get(scope, id, backup)
      })
      await app.backups.archives.remove(scope, id, backup)
      return { deleted: true, instance_id: id, backup_id: backup }
    }
  }),

  defineTool({
    name: 'get_backup_schedule',
    title: 'An instance\'s backup schedule',
    description: 'Whether a backup is taken every day, from which UTC hour, and how many scheduled backups retention keeps (`keep_daily` days, `keep_weekly` ISO weeks); ' +
      '`last_run_on` is the day of the last scheduled backup. An instance without a schedule answers the defaults with `enabled: false`.',
    input: InstanceRef,
    annotations: READ_ONLY,
    run: async ({ app, scope }, { instance_id: id }) => ({ schedule: await app.backups.schedules.getSchedule(scope, id) })
  }),

  defineTool({
    name: 'set_backup_schedule',
    title: 'Set an instance\'s backup schedule',
    description: 'Admin only: sets the whole schedule (all four fields; read get_backup_schedule first to change one). Retention then deletes the scheduled backups ' +
      'outside `keep_daily` days and `keep_weekly` ISO weeks, so lowering them removes older scheduled backups: ask the person first. ' +
      'Manual backups and the newest completed backup are never deleted. Setting the same schedule again leaves it as it is.',
    input: Type.Object({ instance_id: instanceId, ...BackupScheduleBody.properties }, { additionalProperties: false }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: async ({ app, scope }, { instance_id: id, ...schedule }) => ({ schedule: await app.backups.schedules.putSchedule(scope, id, schedule) })
  })
]
