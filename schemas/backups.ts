import { Type } from 'typebox'
import { BACKUP_KINDS, BACKUP_STATES } from '../plugins/app/backups/backup.entity.ts'
import { BigInt53, InstanceId, Int4, mediaResponse, PageInfo, Pagination, ref, Success } from './common.ts'
import { CreateInstanceBody, InstanceState } from './instances.ts'

const Nullable = <T extends ReturnType<typeof Type.String | typeof Type.Integer>> (schema: T) => Type.Union([schema, Type.Null()])
const Stamp = Type.String({ format: 'date-time' })

export const BackupId = BigInt53({ minimum: 1, description: 'Backup id (a positive integer)', examples: [12] })
export const BackupParams = Type.Object({ id: InstanceId, backup_id: BackupId })

export const Backup = Type.Object({
  id: BackupId,
  instance_id: InstanceId,
  state: Type.Enum(BACKUP_STATES, { description: 'queued, running, completed or failed' }),
  kind: Type.Enum(BACKUP_KINDS, { description: '`manual` (asked for) or `scheduled`' }),
  step: Nullable(Type.String({ description: 'While running: what the job is doing now (dumping the database, copying the filestore, writing the archive)' })),
  size: Nullable(BigInt53({ description: 'Archive size in bytes, once completed' })),
  sha256: Nullable(Type.String({ description: 'SHA-256 of the whole archive (hex), once completed; the download\'s checksum' })),
  erp_version: Type.String({ examples: ['17.0'] }),
  pg_major: Nullable(Int4({ description: 'Major version of the database server the dump came from' })),
  error: Nullable(Type.String({ description: 'Why it failed' })),
  created_at: Stamp,
  started_at: Nullable(Stamp),
  completed_at: Nullable({ ...Stamp, description: 'When it completed (or failed)' })
}, { $id: 'Backup', description: 'A backup of an instance: one archive with the database dump, the filestore and a manifest of checksums' })

export const BackupResponse = Success({ backup: ref(Backup) }, { $id: 'BackupResponse' })
export const BackupListQuery = Pagination
export const BackupListResponse = Success({
  backups: Type.Array(ref(Backup), { description: 'Newest first' }),
  total: Int4({ description: 'The same as `pagination.total` (kept from before `pagination`)' }),
  page: Int4({ description: 'The same as `pagination.page`' }),
  per_page: Int4({ description: 'The same as `pagination.per_page`' }),
  pagination: ref(PageInfo)
}, { $id: 'BackupListResponse' })

export const DownloadHeaders = Type.Object({
  range: Type.Optional(Type.String({ description: 'One byte range, `bytes=<start>-[<end>]` or `bytes=-<suffix>`, to resume a download' }))
})
const Bytes = Type.String({ format: 'binary', contentMediaType: 'application/x-tar' })
const archiveHeaders = {
  'Content-Length': BigInt53({ description: 'Bytes in this answer' }),
  'Content-Disposition': Type.String({ description: '`attachment; filename="<name>.tar"`' }),
  'Accept-Ranges': Type.Literal('bytes', { description: 'A download resumes with `Range: bytes=<start>-`' })
}
/** The archive, sent as a stream (never serialized): a tar of manifest.json, database.dump and filestore.tar. */
export const ArchiveBytes = mediaResponse('application/x-tar', Bytes, { description: 'The whole archive (a tar)', headers: archiveHeaders })
/** The part of the archive a `Range` asked for. */
export const ArchiveRange = mediaResponse('application/x-tar', Bytes, {
  description: 'The requested range of the archive',
  headers: { ...archiveHeaders, 'Content-Range': Type.String({ description: '`bytes <start>-<end>/<size>`', examples: ['bytes 1048576-2097151/5242880'] }) }
})

export const RestoreBody = Type.Union([
  Type.Object({
    mode: Type.Literal('replace', { description: '`replace`: restore over this instance (its database and filestore are replaced)' }),
    confirm: Type.String({ minLength: 1, maxLength: 40, description: 'The instance\'s subdomain, typed again: a restore in place replaces all its data' })
  }, { additionalProperties: false, title: 'In place' }),
  Type.Object({
    mode: Type.Literal('new', { description: '`new`: a new instance made from the backup (one of the plan\'s instance slots)' }),
    name: CreateInstanceBody.properties.name,
    subdomain: CreateInstanceBody.properties.subdomain
  }, { additionalProperties: false, title: 'As a new instance' })
])

export const RestoreResponse = Success({
  backup: ref(Backup),
  instance_id: { ...InstanceId, description: 'The instance being restored: this one (`replace`), or the new one (`new`)' },
  instance_state: { ...InstanceState, description: '`restoring` until the restore job is done; then `running`, or `error` with the reason' }
}, { $id: 'RestoreResponse' })

export const DownloadTokenResponse = Success({
  token: Type.String({ description: 'Good for this backup\'s `download-by-token` route only, until it expires (as often as a resumed download needs); not a bearer token' }),
  expires_in: Int4({ description: 'Seconds the token stays good' }),
  download_url: Type.String({ description: 'The download route with the token in its query: open it in a browser or `curl -C -`' })
}, { $id: 'DownloadTokenResponse' })
export const DownloadTokenQuery = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 4096, description: 'The token from POST …/download-token' }))
})

const ScheduleFields = {
  enabled: Type.Boolean({ description: 'Whether the scheduler takes a backup every day' }),
  hour_utc: Int4({ minimum: 0, maximum: 23, description: 'The UTC hour from which the day\'s scheduled backup is taken (the scheduler looks every 5 minutes)' }),
  keep_daily: Int4({ minimum: 0, maximum: 366, description: 'Days (today included) whose newest completed scheduled backup is kept' }),
  keep_weekly: Int4({ minimum: 0, maximum: 520, description: 'ISO weeks (this one included) whose newest completed scheduled backup is kept' })
}
export const BackupScheduleBody = Type.Object(ScheduleFields, { additionalProperties: false })
export const BackupScheduleResponse = Success({
  schedule: Type.Object({
    instance_id: InstanceId,
    ...ScheduleFields,
    last_run_on: Nullable(Type.String({ format: 'date', description: 'UTC day of the last scheduled backup taken' }))
  }, { description: 'When scheduled backups are taken and which are kept. Retention deletes other scheduled backups (never manual ones, never the newest completed backup).' })
}, { $id: 'BackupScheduleResponse' })
