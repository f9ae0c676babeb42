import { defineError } from '../../../lib/errors.ts'

export const StagingOfStaging = defineError('STAGING_OF_STAGING', 'A staging copy cannot have staging copies of its own: make one from its production instance', 409)
export const InstanceNotStaging = defineError('INSTANCE_NOT_STAGING', 'Only a staging copy can be refreshed', 409)
export const StagingParentGone = defineError('STAGING_PARENT_DELETED', 'The production instance of this staging copy was deleted: there is nothing to refresh it from', 409)
