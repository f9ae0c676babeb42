import { defineError } from '../../../lib/errors.ts'

export const BackupNotFound = defineError('BACKUP_NOT_FOUND', 'Backup not found', 404)
export const BackupInProgress = defineError('BACKUP_IN_PROGRESS', 'A backup of this instance is already under way', 409)
export const BackupNotCompleted = defineError('BACKUP_NOT_COMPLETED', 'The backup has not completed', 409)
export const BackupCorrupt = defineError('BACKUP_CORRUPT', 'The backup archive is damaged', 422)
export const BackupConfirmationMismatch = defineError('BACKUP_CONFIRMATION_MISMATCH', 'Type the instance\'s subdomain in `confirm` to restore over it', 400)
export const BackupUnavailable = defineError('BACKUP_UNAVAILABLE', 'Backups cannot run here', 503)
export const BackupRangeInvalid = defineError('BACKUP_RANGE_NOT_SATISFIABLE', 'The requested range is outside the archive', 416)
export const BackupInCluster = defineError('BACKUP_IN_CLUSTER', 'The archive is kept in the cluster, beside the instance', 409)
export const BackupDownloadTokenInvalid = defineError('BACKUP_DOWNLOAD_TOKEN_INVALID', 'The download token is missing, expired, or not for this backup: ask POST /api/instances/{id}/backups/{backup_id}/download-token for a new one', 401)
export const BackupDownloadsBusy = defineError('BACKUP_DOWNLOADS_BUSY', 'As many downloads of this company\'s backups as its quota allows are running: try again when one has finished', 429)
export const BackupReaderUnavailable = defineError('BACKUP_READER_UNAVAILABLE', 'The cluster did not start the pod that reads the archive in time', 503)
export const BackupArchiveUnreadable = defineError('BACKUP_ARCHIVE_UNREADABLE', 'Reading the archive in the cluster failed', 502)
