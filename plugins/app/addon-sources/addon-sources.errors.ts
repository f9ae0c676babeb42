import { defineError } from '../../../lib/errors.ts'

export const AddonSourceNotFound = defineError('ADDON_SOURCE_NOT_FOUND', 'Addon source not found', 404)
export const AddonSourceInvalid = defineError('ADDON_SOURCE_INVALID', 'The addon source is not acceptable', 400)
export const AddonSourceAddressRefused = defineError('ADDON_SOURCE_ADDRESS_REFUSED', 'The repository\'s host is not on a public address', 400)
export const AddonSourceExists = defineError('ADDON_SOURCE_EXISTS', 'An addon source with this name already exists', 409)
export const AddonSourceBusy = defineError('ADDON_SOURCE_BUSY', 'The addon source is being synced', 409)
export const AddonSyncUnavailable = defineError('ADDON_SYNC_UNAVAILABLE', 'Addon sources cannot be synced here', 503)
export const AddonSourceInUse = defineError('ADDON_SOURCE_IN_USE', 'Modules of the addon source are installed on instances', 409)
