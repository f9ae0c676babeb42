import { defineQueue } from '../../../lib/job-queue.ts'

export interface ErpModuleJobData {
  tenantId: string
  instanceModuleId: number
}

/** Installs of catalog modules in an instance's ERP, one job per assigned module. */
export const ERP_MODULE_QUEUE = defineQueue<ErpModuleJobData>('erp-module-installs', (config) => ({
  preset: 'patient',
  retryLimit: config.ERP_USER_JOB_RETRIES,
  // An attempt may wait its whole install bound for the ERP, and more for opening it first.
  expireInSeconds: Math.max(1800, config.ERP_INSTALL_TIMEOUT_SECONDS * 2)
}))

/** Uninstalls of assigned modules from an instance's ERP, one job per uninstall asked. */
export const ERP_MODULE_UNINSTALL_QUEUE = defineQueue<ErpModuleJobData>('erp-module-uninstalls', (config) => ({
  preset: 'patient',
  retryLimit: config.ERP_USER_JOB_RETRIES,
  expireInSeconds: Math.max(1800, config.ERP_INSTALL_TIMEOUT_SECONDS * 2)
}))
