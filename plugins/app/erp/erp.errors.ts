import { defineError } from '../../../lib/errors.ts'

/** The instance is not running (or its backend cannot say where it answers): try again once it runs. */
export const ErpUnavailable = defineError('ERP_UNAVAILABLE', 'The instance\'s ERP is not available', 503)
/** The ERP answered with a fault, or an answer the service cannot use; the message is the ERP's. */
export const ErpError = defineError('ERP_ERROR', 'The instance\'s ERP reported an error', 502)
/** The ERP runs but its database holds no ERP (never initialised, or emptied): an operator restores or re-creates it. */
export const ErpDatabaseNotInitialised = defineError('ERP_DATABASE_NOT_INITIALISED', 'The instance\'s ERP database is not initialised', 503)
/** A module id that is not in the catalog, or is another company's synced module. */
export const ModuleNotFound = defineError('MODULE_NOT_FOUND', 'Module not found in the catalog', 404)
