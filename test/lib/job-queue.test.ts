import t from 'tap'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { JobWithMetadata } from 'pg-boss'
import { loadConfig } from '../../config/env.ts'
import { defineQueue } from '../../lib/job-queue.ts'
import type { Jobs } from '../../plugins/external/jobs.ts'
import { ADDON_SYNC_QUEUE } from '../../plugins/app/addon-sources/addon-sync.queue.ts'
import { BACKUP_QUEUE, type BackupJobData, type RestoreJobData } from '../../plugins/app/backups/backup.queue.ts'
import { ERP_MODULE_QUEUE, ERP_MODULE_UNINSTALL_QUEUE } from '../../plugins/app/erp/erp-module.queue.ts'
import { ERP_USER_QUEUE } from '../../plugins/app/erp/erp-user.queue.ts'
import { INSTANCE_QUEUE, type InstanceJobData } from '../../plugins/app/instances/instance-actions.queue.ts'
import { MAIL_QUEUE } from '../../plugins/app/mail/mail.queue.ts'

// Numbers unlike each other and unlike the defaults, so a setting read from the wrong variable shows.
const config = loadConfig({
  JOB_HEARTBEAT_SECONDS: '17',
  INSTANCE_JOB_RETRIES: '3',
  INSTANCE_READY_TIMEOUT_SECONDS: '301',
  INSTANCE_STOP_GRACE_SECONDS: '11',
  BACKUP_JOB_RETRIES: '4',
  ERP_USER_JOB_RETRIES: '9',
  ERP_INSTALL_TIMEOUT_SECONDS: '1234',
  ADDON_SOURCE_SYNC_RETRIES: '6',
  ADDON_SOURCE_SYNC_TIMEOUT_SECONDS: '77',
  MAIL_MAX_ATTEMPTS: '7',
  MAIL_RETRY_SECONDS: '13'
})

t.test('each queue resolves its name and its retry, heartbeat and expiry settings from the configuration', async (t) => {
  t.same([INSTANCE_QUEUE, BACKUP_QUEUE, ERP_USER_QUEUE, ERP_MODULE_QUEUE, ADDON_SYNC_QUEUE, MAIL_QUEUE].map((queue) => queue.name),
    ['instance-actions', 'instance-backups', 'erp-users', 'erp-module-installs', 'addon-source-sync', 'mail-delivery'])
  t.same(INSTANCE_QUEUE.settings(config), { retryLimit: 3, retryDelay: 2, retryBackoff: true, retryDelayMax: 60, heartbeatSeconds: 17, expireInSeconds: 301 + 11 + 600 })
  t.same(BACKUP_QUEUE.settings(config), { retryLimit: 4, retryDelay: 5, retryBackoff: true, retryDelayMax: 300, heartbeatSeconds: 17, expireInSeconds: 6 * 3600 })
  t.same(ERP_USER_QUEUE.settings(config), { retryLimit: 9, retryDelay: 10, retryBackoff: true, retryDelayMax: 900, heartbeatSeconds: 17, expireInSeconds: 600 })
  t.same(ERP_MODULE_QUEUE.settings(config), { retryLimit: 9, retryDelay: 10, retryBackoff: true, retryDelayMax: 900, heartbeatSeconds: 17, expireInSeconds: 2468 })
  t.same(ERP_MODULE_QUEUE.settings({ ...config, ERP_INSTALL_TIMEOUT_SECONDS: 600 }).expireInSeconds, 1800, 'at least half an hour')
  t.equal(ERP_MODULE_UNINSTALL_QUEUE.name, 'erp-module-uninstalls')
  t.same(ERP_MODULE_UNINSTALL_QUEUE.settings(config), ERP_MODULE_QUEUE.settings(config), 'an uninstall is bounded as an install is')
  t.same(ADDON_SYNC_QUEUE.settings(config), { retryLimit: 6, retryDelay: 5, retryBackoff: true, retryDelayMax: 300, heartbeatSeconds: 17, expireInSeconds: 77 + 120 })
  // The dispatcher's tuning: MAIL_MAX_ATTEMPTS and MAIL_RETRY_SECONDS, a one-hour cap and a five-minute lease.
  t.same(MAIL_QUEUE.settings(config), { retryLimit: 6, retryDelay: 13, retryBackoff: true, retryDelayMax: 3600, expireInSeconds: 300, heartbeatSeconds: 17 })
})

t.test('a queue with its own tuning keeps its pg-boss settings as they are', async (t) => {
  t.same(defineQueue<{ step: number }>('probe', () => ({ retryLimit: 0 })).settings(config), { retryLimit: 0 })
})

/** Never called: the lines below are checked by the type check only. */
export function queueTypeChecks (jobs: Jobs, tx: EntityManager): void {
  void jobs.send(tx, INSTANCE_QUEUE, { instanceId: 1, tenantId: 't', action: 'stop' })
  // @ts-expect-error a backup's data does not go to the instance queue
  void jobs.send(tx, INSTANCE_QUEUE, { backupId: 1, tenantId: 't', action: 'backup' })
  void jobs.send(tx, BACKUP_QUEUE, { action: 'restore', backupId: 1, tenantId: 't', instanceId: 2, targetInstanceId: 3 })
  // @ts-expect-error the restore-only fields are not on a backup's branch
  void jobs.send(tx, BACKUP_QUEUE, { action: 'backup', backupId: 1, tenantId: 't', targetInstanceId: 3 })
  // @ts-expect-error a handler of another queue's data
  void jobs.define(BACKUP_QUEUE, async (_job: JobWithMetadata<InstanceJobData>) => {})
  void jobs.define(BACKUP_QUEUE, async (job) => {
    // @ts-expect-error only the restore branch names a target instance
    void job.data.targetInstanceId
    if (job.data.action === 'restore') void (job.data satisfies RestoreJobData).targetInstanceId
    else void (job.data satisfies BackupJobData)
  })
}
