/**
 * create_backup with a progressToken, through the SDK Client over real HTTP: the call stays open
 * while the backup Job runs on the fake Kubernetes API server (which the test ends, as the cluster
 * would), sending the backup's state and step, and answers the completed backup.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Progress } from '@modelcontextprotocol/sdk/types.js'
import { signup } from '../support/accounts.ts'
import { cleanupInstances, uniqueSubdomain, waitForState } from '../support/instances.ts'
import { fakeKubeApiServer } from '../support/kube/fake-api-server.ts'
import { waitFor } from '../support/kube/client-helpers.ts'
import { kubeBackendEnv, startMcpFixture } from '../support/mcp.ts'
import { restCall } from './tool-helpers.ts'
import { RESULT_MARK } from '../../provisioning/kubernetes/backup-job.ts'

const slow = { timeoutMs: 20_000, intervalMs: 50 }
const kube = await fakeKubeApiServer(t, { readyDelayMs: 100 })
const dir = mkdtempSync(join(tmpdir(), 'erp-backups-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
const { app, connectAgent, databaseUrl } = await startMcpFixture(t, {
  ...kubeBackendEnv(t, kube.kubeconfigText),
  INSTANCES_DOMAIN: 'erp.test',
  BACKUP_JOB_RETRIES: 0,
  BACKUP_IMAGE: 'registry.example/erp-backup:{pg_major}',
  BACKUP_DIR: dir,
  MCP_PROGRESS_MAX_SECONDS: 30
})
t.teardown(() => cleanupInstances(databaseUrl))
const admin = await signup(app)
const namespace = `erp-${admin.subdomain}`
const { accessToken } = await connectAgent(admin, 'Backup progress agent')

t.test('create_backup with a progressToken answers the completed backup after progress notifications', async (t) => {
  const subdomain = uniqueSubdomain('bkp')
  const created = await restCall(app, admin.token, 'POST', '/api/instances/create', { name: 'Production', subdomain, erp_version: '17.0', backend: 'kubernetes' })
  const id = created.data.instance.id as number
  await waitFor(async () => kube.get('Job', namespace, `erp-${subdomain}-init`), slow)
  kube.completeJob(namespace, `erp-${subdomain}-init`)
  await waitForState(app, admin.token, id, ['running'])

  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const transport = new StreamableHTTPClientTransport(new URL(`${address}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } })
  const client = new Client({ name: 'backup-progress-test', version: '1.0.0' })
  await client.connect(transport)
  t.teardown(() => client.close())

  const updates: Progress[] = []
  const call = client.callTool({ name: 'create_backup', arguments: { instance_id: id } }, undefined, { onprogress: (update) => { updates.push(update) } })
  // The cluster runs the backup Job; here the test ends it once the call is waiting on it.
  const job = await waitFor(async () => kube.list('Job', namespace).find((j) => String(j.metadata?.name).startsWith('erp-backup-')), slow)
  await waitFor(async () => updates.length >= 1, slow)
  const name = String(job.metadata?.name)
  kube.setPodLogs(namespace, name, `${RESULT_MARK} 4096 ${'b'.repeat(64)}\n`)
  kube.completeJob(namespace, name)
  const result = await call as { isError?: boolean, structuredContent: Record<string, any> }

  t.notOk(result.isError, JSON.stringify(result.structuredContent).slice(0, 300))
  t.match(result.structuredContent, { backup: { instance_id: id, state: 'completed', size: 4096, sha256: 'b'.repeat(64) }, wait: { finished: true } })
  t.ok(updates.length >= 2, `${updates.length} notifications`)
  t.ok(updates.every((update, i) => i === 0 || update.progress > updates[i - 1]!.progress), 'progress only increases')
  t.match(updates[0]!.message, /^Backup (queued|running)/, 'first: the backup under way')
  t.equal(updates.at(-1)!.message, 'Backup completed')
  t.equal(updates.at(-1)!.total, updates.at(-1)!.progress, 'complete at the end')
  const rest = await restCall(app, admin.token, 'GET', `/api/instances/${id}/backups/${result.structuredContent.backup.id}`)
  const { wait: _wait, ...answer } = result.structuredContent
  t.same(answer, rest.data, 'the final answer is the backup as get_backup reads it')
})
