import { defineError } from '../../../lib/errors.ts'

export const InstanceNotFound = defineError('INSTANCE_NOT_FOUND', 'Instance not found', 404)
export const InstanceBusy = defineError('INSTANCE_BUSY', 'The instance is changing state; try again when it is done', 409)
export const InstanceDeleted = defineError('INSTANCE_DELETED', 'The instance was deleted', 409)
export const BackendUnavailable = defineError('INSTANCE_BACKEND_UNAVAILABLE', 'The instance backend is not available', 503)
export const BackendNotReady = defineError('INSTANCE_BACKEND_NOT_READY', 'The hosting platform cannot run this instance right now', 503)
export const StagingNotNeutralized = defineError('STAGING_NOT_NEUTRALIZED', 'This staging copy\'s data was not neutralized: refresh it rather than start it', 409)
