import t from 'tap'
import { dockerClient, requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { tagTestImages, uniqueSubdomain } from '../../../support/instances.ts'
import { crashableServer } from '../../../support/crash-server.ts'

const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

docker.test('killing the process in the middle of provisioning: the next start finishes the job, with one container and one database', async (t) => {
  const { start, api, query, signUp } = await crashableServer(t, { prefix: 'erp-crash' })
  const first = await start()
  const { token } = await signUp('crash')
  const subdomain = uniqueSubdomain('mid')
  const created = await api('/api/instances/create', { name: 'Mid-job', subdomain, erp_version: '17.0', backend: 'docker' }, token)
  t.equal(created.status, 202)
  const id = created.json.instance.id as number

  // The container exists but is not healthy yet: the job is between provision and readiness.
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    if (await dockerClient().getContainer(`erp-${subdomain}`).inspect().then(() => true, () => false)) break
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  first.child.kill('SIGKILL')
  await first.exited
  const [job] = await query<{ state: string }>("SELECT state FROM pgboss.job WHERE name = 'instance-actions'")
  const [before] = await query<{ state: string }>('SELECT state FROM instances WHERE id = $1', [id])
  t.equal(job?.state, 'active', 'the job was in flight when the process died')
  t.equal(before?.state, 'provisioning')

  await start()
  const until = Date.now() + 90_000
  let state = 'provisioning'
  while (Date.now() < until && state === 'provisioning') {
    await new Promise((resolve) => setTimeout(resolve, 250))
    state = (await api(`/api/instances/${id}/status`, undefined, token)).json.state
  }
  t.equal(state, 'running', 'the retried job finished it')
  const [retried] = await query<{ state: string, retry_count: number }>("SELECT state, retry_count FROM pgboss.job WHERE name = 'instance-actions'")
  t.match(retried, { state: 'completed' })
  t.ok(retried!.retry_count >= 1, 'it completed on a retry')
  const [{ uid }] = await query<{ uid: string }>('SELECT uid FROM instances WHERE id = $1', [id]) as [{ uid: string }]
  const containers = await dockerClient().listContainers({ all: true, filters: { label: [`erp.instance-id=${uid}`] } })
  t.equal(containers.length, 1, 'exactly one container')
  const databases = await query('SELECT 1 FROM pg_database WHERE datname = $1', [`erp_${uid.replaceAll('-', '')}`])
  t.equal(databases.length, 1, 'exactly one database')
})
