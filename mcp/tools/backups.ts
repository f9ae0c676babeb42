import { Type } from 'typebox'
import { BigInt53, Int4 } from '../../schemas/common.ts'
import { defineTool, READ_ONLY } from './tool.ts'

const instanceId = BigInt53({ minimum: 1, description: 'The instance id, an integer (from list_instances)' })
const backupId = BigInt53({ minimum: 1, description: 'The backup id, an integer (from list_backups)' })

export const backupTools = [
  defineTool({
    name: 'create_backup',
    title: 'Back up an instance',
    description: 'Queues a backup of the instance (its database dump and filestore in one archive) and answers at once in state `queued`. ' +
      'Poll list_backups until it is `completed` (or `failed`, with `error`). BACKUP_IN_PROGRESS while another backup of the instance runs; ' +
      'BACKUP_UNAVAILABLE when a backup cannot run here, with what is missing.',
    input: Type.Object({ instance_id: instanceId }, { additionalProperties: false }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: async ({ app, em, actor }, { instance_id: id }) => ({ backup: await app.backups.create(em, actor, id) })
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
    run: async ({ app, em, actor }, { instance_id: id, page = 1, per_page: perPage = 25 }) => ({
      ...await app.backups.list(em, actor, id, { page, per_page: perPage }), page, per_page: perPage
    })
  }),

  defineTool({
    name: 'restore_backup',
    title: 'Restore a backup over its instance',
    description: 'DESTRUCTIVE, admin only: replaces the instance\'s database and filestore with the backup\'s; what changed since the backup is lost. ' +
      'Ask the person first, and pass the instance\'s subdomain in `confirm`. The archive\'s checksum is verified before anything changes ' +
      '(BACKUP_CORRUPT). The instance goes to `restoring`; poll get_instance_status until `running` (or `error`).',
    input: Type.Object({
      instance_id: instanceId,
      backup_id: backupId,
      confirm: Type.String({ minLength: 1, maxLength: 40, description: 'The instance\'s subdomain, typed again to confirm that its data is replaced' })
    }, { additionalProperties: false }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    run: async ({ app, em, actor }, { instance_id: id, backup_id: backup, confirm }) => app.backups.restore(em, actor, id, backup, { mode: 'replace', confirm })
  })
]
