/**
 * restore_backup_as_new_instance up to the queued job: the checks made before anything changes need
 * a ready backup runner (the backup image in the real engine) and an archive whose SHA-256 matches.
 * No job workers run, so the queued restore stays queued and nothing is made on the engine.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { addMember, signup } from '../support/accounts.ts'
import { backupTestImage, completedBackup } from '../support/backups.ts'
import { requireDockerOrSkipLoudly } from '../support/docker/engine.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { dockerInstanceEnv, tagTestImages, uniqueSubdomain } from '../support/instances.ts'
import { startMcpFixture } from '../support/mcp.ts'
import { assertToolError, assertToolSuccess, latestActivity, tenantSnapshot, useTool } from './tool-helpers.ts'
import { activeSubscription } from '../support/billing-fixtures.ts'

const docker = await requireDockerOrSkipLoudly(t)

docker.test('restore_backup_as_new_instance takes a plan slot, verifies the archive, and changes nothing when it refuses', async (t) => {
  // The stand-in images and the relay that lets containers reach the test database: the backend's readiness needs both.
  await tagTestImages()
  const backupDir = mkdtempSync(join(tmpdir(), 'mcp-restore-new-'))
  t.teardown(() => rmSync(backupDir, { recursive: true, force: true }))
  const { app, connectAgent } = await startMcpFixture(t, dockerInstanceEnv(t, { BACKUP_IMAGE: await backupTestImage(), BACKUP_DIR: backupDir, JOB_WORKERS: false }))
  const admin = await signup(app)
  const token = (await connectAgent(admin, 'Restore agent')).accessToken
  const source = await recordInstance(app, admin.user.tenant_id, { name: 'Production' })
  const backup = await completedBackup(app, backupDir, admin.user.tenant_id, source)
  // A plan of two instance slots: the source holds one.
  await activeSubscription(app, admin.user.tenant_id, { instances: 2, workers: 2 })
  const args = (subdomain: string) => ({ instance_id: source, backup_id: backup.id, name: 'Copy', subdomain })

  const member = await addMember(app, admin.user.tenant_id)
  const memberToken = (await connectAgent(member, 'Member agent')).accessToken
  const untouched = await tenantSnapshot(app, admin.user.tenant_id)
  assertToolError(t, await useTool(app, memberToken, 'restore_backup_as_new_instance', args(uniqueSubdomain('cpy'))), 'FORBIDDEN', 'a member')
  const other = await signup(app)
  const otherToken = (await connectAgent(other, 'Other agent')).accessToken
  assertToolError(t, await useTool(app, otherToken, 'restore_backup_as_new_instance', args(uniqueSubdomain('cpy'))), 'BACKUP_NOT_FOUND', 'another company')
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), untouched, 'the refusals changed nothing')

  const copySubdomain = uniqueSubdomain('cpy')
  const restored = assertToolSuccess(t, await useTool(app, token, 'restore_backup_as_new_instance', args(copySubdomain)), 'restore as new')
  t.not(restored.instance_id, source, 'a new instance')
  t.match(restored, { instance_state: 'restoring', backup: { id: backup.id, instance_id: source, state: 'completed' } })
  const [copy] = await app.sql<{ name: string, subdomain: string, state: string, backend: string }>({ text: 'SELECT name, subdomain, state, backend FROM instances WHERE id = $1', values: [restored.instance_id] })
  t.same(copy, { name: 'Copy', subdomain: copySubdomain, state: 'restoring', backend: 'docker' })
  const queued = await app.sql<{ data: Record<string, unknown> }>({ text: "SELECT data FROM pgboss.job WHERE name = 'instance-backups'", values: [] })
  t.match(queued.map((job) => job.data), [{ action: 'restore', backupId: backup.id, targetInstanceId: restored.instance_id }], 'the restore job is queued')
  t.match(await latestActivity(app, admin, 'backup.restore_requested'), { target_id: String(backup.id), actor: { kind: 'agent', id: admin.user.id } })

  // Both slots are taken now: a third instance is refused, and nothing is recorded.
  const full = await tenantSnapshot(app, admin.user.tenant_id)
  assertToolError(t, await useTool(app, token, 'restore_backup_as_new_instance', args(uniqueSubdomain('cpy'))), 'PLAN_INSTANCE_LIMIT_REACHED')
  assertToolError(t, await useTool(app, token, 'restore_backup_as_new_instance', args(copySubdomain)), 'PLAN_INSTANCE_LIMIT_REACHED', 'the slot is checked before the subdomain')
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), full, 'nothing changed')

  // An archive that no longer matches its SHA-256 is refused before any instance is made.
  await app.sql({ text: 'UPDATE subscriptions SET instances = 5 WHERE tenant_id = $1', values: [admin.user.tenant_id] })
  writeFileSync(backup.path, Buffer.from(backup.bytes.map((byte, i) => i === 3000 ? byte ^ 1 : byte)))
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  assertToolError(t, await useTool(app, token, 'restore_backup_as_new_instance', args(uniqueSubdomain('cpy'))), 'BACKUP_CORRUPT')
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'nothing changed')
})
