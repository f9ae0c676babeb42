import t from 'tap'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { tagTestImages, uniqueSubdomain } from '../../../support/instances.ts'
import { backupTestImage, inFilestore } from '../../../support/backups.ts'
import { crashableServer } from '../../../support/crash-server.ts'

// Two server starts, an instance, a retry after the heartbeat lapses: more than the default two minutes on a busy machine.
t.setTimeout(300_000)
const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

/** Every file under `dir`, relative, sorted. */
function filesUnder (dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`]).sort()
}

docker.test('killing the process while the archive is written: the retried job leaves exactly one whole archive and no partial file', { timeout: 300_000 }, async (t) => {
  const { start, api, query, signUp, dataDir } = await crashableServer(t, { prefix: 'erp-backup-crash', env: { BACKUP_IMAGE: await backupTestImage() } })
  const backupDir = join(dataDir, 'backups')
  const first = await start()
  const { token, tenantId } = await signUp('bcrash')
  const subdomain = uniqueSubdomain('bc')
  const id = (await api('/api/instances/create', { name: 'Crash', subdomain, erp_version: '17.0', backend: 'docker' }, token)).json.instance.id as number
  for (let state = ''; state !== 'running';) {
    await new Promise((resolve) => setTimeout(resolve, 250))
    state = (await api(`/api/instances/${id}/status`, undefined, token)).json.state
  }
  // A filestore big enough that writing the archive takes a while.
  await inFilestore(subdomain, 'head -c 31457280 /dev/urandom > /data/big && echo small > /data/small')
  const posted = await api(`/api/instances/${id}/backup`, {}, token)
  t.equal(posted.status, 202, JSON.stringify(posted.json))
  const backupId = posted.json.backup.id as number

  const deadline = Date.now() + 60_000
  let seen: string[] = []
  while (Date.now() < deadline) {
    seen = (() => { try { return filesUnder(backupDir) } catch { return [] } })()
    if (seen.some((file) => file.includes('.partial-'))) break
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  first.child.kill('SIGKILL')
  await first.exited
  t.ok(seen.some((file) => file.endsWith(`backup-${backupId}.tar`) === false && file.includes(`backup-${backupId}.tar.partial-`)), 'killed while a partial archive was being written')
  const [before] = await query<{ state: string }>('SELECT state FROM backups WHERE id = $1', [backupId])
  t.equal(before?.state, 'running')

  await start()
  const until = Date.now() + 120_000
  let backup: Record<string, any> = {}
  while (Date.now() < until) {
    backup = (await api(`/api/instances/${id}/backups/${backupId}`, undefined, token)).json.backup
    if (backup.state === 'completed' || backup.state === 'failed') break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  t.equal(backup.state, 'completed', backup.error ?? '')
  const [job] = await query<{ state: string, retry_count: number }>("SELECT state, retry_count FROM pgboss.job WHERE name = 'instance-backups'")
  t.match(job, { state: 'completed' })
  t.ok(job!.retry_count >= 1, 'it completed on a retry')
  t.same(filesUnder(backupDir), [`${tenantId}/${id}/backup-${backupId}.tar`], 'exactly one archive; no partial file, no scratch left')
  t.ok(backup.size > 31_457_280, `the whole archive: ${backup.size} bytes`)
})
