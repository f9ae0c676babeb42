import { defineError } from '../../../lib/errors.ts'

export const UpgradeNotFound = defineError('UPGRADE_NOT_FOUND', 'Upgrade not found', 404)
export const UpgradeSkipsAVersion = defineError('UPGRADE_SKIPS_A_VERSION', 'An upgrade goes one major version at a time: upgrade to the next version first', 409)
export const UpgradeVersionNotOffered = defineError('UPGRADE_VERSION_NOT_OFFERED', 'The target ERP version is not one the service offers', 409)
export const UpgradeNotNewer = defineError('UPGRADE_NOT_NEWER', 'The target ERP version is not newer than the instance\'s', 409)
export const UpgradeNotConfigured = defineError('UPGRADE_NOT_CONFIGURED', 'No upgrade command is configured for the target ERP version', 409)
export const UpgradeInProgress = defineError('UPGRADE_IN_PROGRESS', 'An upgrade of this instance is already queued or running', 409)
