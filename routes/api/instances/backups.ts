import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { pageInfo } from '../../../lib/pages.ts'
import { AUTHENTICATED, InstanceIdParams, pageOf, responses, SuccessOnly } from '../../../schemas/common.ts'
import type { FastifyReply } from 'fastify'
import { ArchiveBytes, ArchiveRange, BackupListQuery, BackupListResponse, BackupParams, BackupResponse, DownloadHeaders, BackupScheduleBody, BackupScheduleResponse, DownloadTokenQuery, DownloadTokenResponse, RestoreBody, RestoreResponse } from '../../../schemas/backups.ts'
import { parseRange } from '../../../plugins/app/backups/backup-download.ts'
import { DOWNLOAD_TOKEN_SECONDS } from '../../../plugins/app/backups/download-links.ts'
import type { Archive } from '../../../plugins/app/backups/backups.service.ts'
import { Forbidden, ValidationFailed } from '../../../lib/errors.ts'
import { BackupArchiveUnreadable, BackupConfirmationMismatch, BackupCorrupt, BackupDownloadsBusy, BackupDownloadTokenInvalid, BackupInCluster, BackupInProgress, BackupNotCompleted, BackupNotFound, BackupRangeInvalid, BackupReaderUnavailable, BackupUnavailable } from '../../../plugins/app/backups/backups.errors.ts'
import { InstanceBusy, InstanceNotFound } from '../../../plugins/app/instances/instances.errors.ts'
import { InstanceLimitReached } from '../../../plugins/app/limits/limits.service.ts'
import { SubdomainReserved, SubdomainTaken } from '../../../plugins/app/tenants/tenants.errors.ts'

/** Registered by ./index.ts (autoload loads only a folder's index.ts). */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { backups } = fastify

  fastify.post('/:id/backup', {
    schema: {
      tags: ['backups'],
      operationId: 'createBackup',
      summary: 'Back up an instance',
      description: 'Records a backup in state `queued` and queues the job that dumps the database (pg_dump, custom format) and copies the filestore into one archive; answers 202 at once. ' +
        'Poll `GET /api/instances/{id}/backups/{backup_id}` until `completed` (or `failed`, with `error`). 409 `BACKUP_IN_PROGRESS` while another backup of the instance is queued or running; ' +
        '409 `INSTANCE_BUSY` while the instance changes state; 503 `BACKUP_UNAVAILABLE` naming what is missing when a backup could only fail (no backup runner on the backend, backup image missing, database server down). No body.',
      params: InstanceIdParams,
      response: responses({ 202: BackupResponse }, [...AUTHENTICATED, 404, 409, 503, BackupInProgress, InstanceBusy, BackupUnavailable, InstanceNotFound])
    }
  }, async (request, reply) => {
    const backup = await backups.archives.create(request.scope, request.params.id)
    return reply.code(202).send({ success: true as const, backup })
  })

  fastify.get('/:id/backups', {
    schema: {
      tags: ['backups'],
      operationId: 'listBackups',
      summary: 'An instance\'s backups',
      description: 'Newest first. Paged (docs/api.md, "Lists and pages"): `pagination`, and the same numbers at the top level as before.',
      params: InstanceIdParams,
      querystring: BackupListQuery,
      response: responses({ 200: BackupListResponse }, [...AUTHENTICATED, 404, InstanceNotFound])
    }
  }, async (request) => {
    const page = pageOf(request.query)
    const { backups: rows, total } = await backups.archives.list(request.scope, request.params.id, page)
    return { success: true as const, backups: rows, ...pageInfo(page, total), pagination: pageInfo(page, total) }
  })

  fastify.get('/:id/backups/:backup_id', {
    schema: {
      tags: ['backups'],
      operationId: 'getBackup',
      summary: 'One backup, with its progress',
      description: '`step` says what a running backup is doing now.',
      params: BackupParams,
      response: responses({ 200: BackupResponse }, [...AUTHENTICATED, 404, InstanceNotFound, BackupNotFound])
    }
  }, async (request) => ({ success: true as const, backup: await backups.archives.get(request.scope, request.params.id, request.params.backup_id) }))

  fastify.get('/:id/backups/:backup_id/download', {
    schema: {
      tags: ['backups'],
      operationId: 'downloadBackup',
      summary: 'Download a backup\'s archive',
      description: 'Streams the archive (a tar: manifest.json, database.dump, filestore.tar) with `Content-Length` and `Content-Disposition`. ' +
        'Send `Range: bytes=<start>-` to resume: 206 with `Content-Range`; 416 for a range outside the archive. Compare the SHA-256 of the whole file with the backup\'s `sha256`. ' +
        'An archive kept on a Kubernetes tenant\'s backup volume is read in the cluster by a short-lived reader pod, through the API server: ' +
        '429 `BACKUP_DOWNLOADS_BUSY` when the company\'s quota has no room for one more reader (two downloads at once), 503 `BACKUP_READER_UNAVAILABLE` when the pod is not ready within a minute, ' +
        '502 `BACKUP_ARCHIVE_UNREADABLE` when the cluster answers something else than the archive\'s bytes, 404 `BACKUP_NOT_FOUND` when the archive is missing. ' +
        '409 `BACKUP_NOT_COMPLETED` for a backup that is not completed; 409 `BACKUP_IN_CLUSTER` for an archive kept in a Kubernetes cluster whose backend is not configured here.',
      params: BackupParams,
      headers: DownloadHeaders,
      response: responses({ 200: ArchiveBytes, 206: ArchiveRange }, [...AUTHENTICATED, 404, 409, 416, 429, 502, BackupRangeInvalid, BackupDownloadsBusy, BackupReaderUnavailable, BackupArchiveUnreadable, BackupNotFound, BackupNotCompleted, BackupInCluster, InstanceNotFound])
    }
  }, async (request, reply) => sendArchive(reply, request.headers.range, await backups.archives.archive(request.scope, request.params.id, request.params.backup_id)))

  fastify.post('/:id/backups/:backup_id/download-token', {
    schema: {
      tags: ['backups'],
      operationId: 'createBackupDownloadToken',
      summary: 'A short-lived link to download a backup from a browser',
      description: `Mints a token good for ${DOWNLOAD_TOKEN_SECONDS / 60} minutes for this backup's \`download-by-token\` route only (so the bearer token never goes into a URL), ` +
        'as often as a resumed download needs. Only its SHA-256 is stored. 409 `BACKUP_NOT_COMPLETED` / `BACKUP_IN_CLUSTER` as for the download (an archive kept in a Kubernetes cluster is downloaded with it as well).',
      params: BackupParams,
      response: responses({ 201: DownloadTokenResponse }, [...AUTHENTICATED, 404, 409, BackupNotCompleted, BackupInCluster, InstanceNotFound, BackupNotFound])
    }
  }, async (request, reply) => reply.code(201).send({ success: true as const, ...await backups.links.issue(request.scope, request.params.id, request.params.backup_id) }))

  fastify.get('/:id/backups/:backup_id/download-by-token', {
    config: { auth: 'download-token' }, // the download token in the query is the credential (a browser link sends no header)
    schema: {
      tags: ['backups'],
      operationId: 'downloadBackupWithToken',
      summary: 'Download a backup\'s archive with a download token',
      description: 'As `GET …/download`, with the token from `POST …/download-token` in the query instead of a bearer token. ' +
        '401 `BACKUP_DOWNLOAD_TOKEN_INVALID` for a missing, expired or another backup\'s token (a bearer token included).',
      params: BackupParams,
      querystring: DownloadTokenQuery,
      headers: DownloadHeaders,
      response: responses({ 200: ArchiveBytes, 206: ArchiveRange }, [...AUTHENTICATED, 404, 409, 416, 429, 502, BackupDownloadTokenInvalid, InstanceNotFound, BackupNotFound, BackupNotCompleted, BackupInCluster, BackupRangeInvalid, BackupDownloadsBusy, BackupReaderUnavailable, BackupArchiveUnreadable])
    }
  }, async (request, reply) => {
    const scope = await backups.links.redeem(fastify.orm.em, request.query.token, request.params.id, request.params.backup_id)
    return sendArchive(reply, request.headers.range, await backups.archives.archive(scope, request.params.id, request.params.backup_id))
  })

  fastify.get('/:id/backup-schedule', {
    schema: {
      tags: ['backups'],
      operationId: 'getBackupSchedule',
      summary: 'The instance\'s backup schedule',
      description: 'An instance without one answers the defaults with `enabled: false`.',
      params: InstanceIdParams,
      response: responses({ 200: BackupScheduleResponse }, [...AUTHENTICATED, 404, InstanceNotFound])
    }
  }, async (request) => ({ success: true as const, schedule: await backups.schedules.getSchedule(request.scope, request.params.id) }))

  fastify.put('/:id/backup-schedule', {
    schema: {
      tags: ['backups'],
      operationId: 'setBackupSchedule',
      summary: 'Set the instance\'s backup schedule (admin)',
      description: 'A scheduled backup (`kind: scheduled`) every day from `hour_utc`, taken by one scheduler across replicas; the retention job then deletes the scheduled backups ' +
        'outside `keep_daily` days and `keep_weekly` ISO weeks (the newest completed one of each), never a manual backup and never the instance\'s newest completed backup.',
      params: InstanceIdParams,
      body: BackupScheduleBody,
      response: responses({ 200: BackupScheduleResponse }, [...AUTHENTICATED, Forbidden, 404, 413, 415, InstanceNotFound])
    }
  }, async (request) => ({ success: true as const, schedule: await backups.schedules.putSchedule(request.scope, request.params.id, request.body) }))

  async function sendArchive (reply: FastifyReply, rangeHeader: string | undefined, archive: Archive) {
    let range
    try {
      range = parseRange(rangeHeader, archive.size)
    } catch (error) {
      reply.header('content-range', `bytes */${archive.size}`)
      throw error
    }
    // Opened before any header is set: a failure to open is an error envelope, not a broken archive.
    const body = await archive.open(range)
    reply
      .header('content-type', 'application/x-tar')
      .header('content-disposition', `attachment; filename="${archive.fileName}"`)
      .header('accept-ranges', 'bytes')
      .header('cache-control', 'private, no-store')
    if (range === undefined) {
      reply.header('content-length', archive.size)
      return reply.code(200).send(body)
    }
    reply.header('content-range', `bytes ${range.start}-${range.end}/${archive.size}`).header('content-length', range.end - range.start + 1)
    return reply.code(206).send(body)
  }

  fastify.post('/:id/backups/:backup_id/restore', {
    schema: {
      tags: ['backups'],
      operationId: 'restoreBackup',
      summary: 'Restore a backup over its instance, or as a new instance (admin)',
      description: '`{mode: "new", name, subdomain}` makes a new instance from the backup: it takes one of the plan\'s instance slots, like creating one ' +
        '(402 `PLAN_INSTANCE_LIMIT_REACHED`, 409 `SUBDOMAIN_TAKEN` / `SUBDOMAIN_RESERVED`, 400 `VALIDATION_FAILED`), is created in `restoring`, provisioned, filled with the backup\'s database and filestore, and started; `instance_id` is the new instance. ' +
        'Destructive: `{mode: "replace", confirm: "<instance subdomain>"}` replaces the instance\'s database and filestore with the backup\'s. ' +
        'The archive\'s SHA-256 is checked first (422 `BACKUP_CORRUPT`, nothing changed; an archive kept in a Kubernetes cluster is checked there by the restore Job, and a mismatch leaves the instance on its own data, started again, with the reason in its `status_message`); then the instance goes to `restoring` (202): it is stopped, its database recreated and restored with pg_restore, ' +
        'its filestore replaced, and it is started again. Poll the instance status until `running` (or `error`). 400 `BACKUP_CONFIRMATION_MISMATCH` for a wrong `confirm`; ' +
        '409 `INSTANCE_BUSY` while the instance changes state (a second restore included), `BACKUP_IN_PROGRESS` while a backup runs, `BACKUP_NOT_COMPLETED` for an unfinished backup; 503 when it could only fail.',
      params: BackupParams,
      body: RestoreBody,
      response: responses({ 202: RestoreResponse }, [...AUTHENTICATED, 402, Forbidden, 404, 409, 413, 415, 422, 503, InstanceLimitReached, SubdomainTaken, SubdomainReserved, ValidationFailed, BackupCorrupt, BackupConfirmationMismatch, InstanceBusy, BackupInProgress, BackupNotCompleted, InstanceNotFound, BackupNotFound])
    }
  }, async (request, reply) => {
    const outcome = await backups.restores.restore(request.scope, request.params.id, request.params.backup_id, request.body)
    return reply.code(202).send({ success: true as const, ...outcome })
  })

  fastify.delete('/:id/backups/:backup_id', {
    schema: {
      tags: ['backups'],
      operationId: 'deleteBackup',
      summary: 'Delete a backup (admin)',
      description: 'Removes the record and its archive. 409 `BACKUP_IN_PROGRESS` for a backup still queued or running.',
      params: BackupParams,
      response: responses({ 200: SuccessOnly }, [...AUTHENTICATED, Forbidden, 404, 409, BackupInProgress, InstanceNotFound, BackupNotFound])
    }
  }, async (request) => {
    await backups.archives.remove(request.scope, request.params.id, request.params.backup_id)
    return { success: true as const }
  })
}

export default routes
