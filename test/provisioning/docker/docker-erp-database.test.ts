/**
 * End to end: erp-database.ensure makes the instance's database and role on the real
 * PostgreSQL, and the Docker backend hands those credentials to the container. The test image
 * (busybox) cannot speak PostgreSQL, so the proof is the container's environment and its
 * host.docker.internal alias, not a login from inside it.
 */
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { createErpDatabases } from '../../../provisioning/erp-database.ts'
import { execIn, requireDockerOrSkipLoudly } from '../../support/docker/engine.ts'
import { dockerFixture, tenantName, waitForState } from './helpers.ts'

const engine = await requireDockerOrSkipLoudly(t)
const fx = await dockerFixture(t, engine.available)

engine.test('the container gets the real credentials of its database, reached through the Docker host', async (t) => {
  const databases = createErpDatabases({ adminUrl: process.env.TEST_DATABASE_URL ?? '', passwordKey: randomBytes(32) })
  // The test image would take PORT (5432 here) as its HTTP port: no HTTP health check.
  const backend = fx.backend({ healthCheck: null })
  const spec = fx.spec(tenantName())
  t.teardown(async () => {
    await backend.remove(spec)
    await databases.drop(spec.instanceUid)
    await databases.close()
  })

  const credentials = await databases.ensure(spec.instanceUid)
  t.equal(credentials.host, new URL(process.env.TEST_DATABASE_URL ?? '').hostname, 'the portal reaches it on loopback')
  await backend.provision({ ...spec, database: credentials })
  await waitForState(backend, spec, 'running')

  const container = engine.docker.getContainer(`erp-${spec.subdomain}`)
  const info = await container.inspect()
  const env = new Set(info.Config.Env)
  for (const entry of [
    'HOST=host.docker.internal',
    `PORT=${credentials.port}`,
    `USER=${credentials.user}`,
    `PASSWORD=${credentials.password}`,
    `ERP_DATABASE=${credentials.name}`
  ]) t.ok(env.has(entry), entry.startsWith('PASSWORD=') ? 'env PASSWORD=<the role\'s password>' : `env ${entry}`)
  t.same(info.HostConfig.ExtraHosts, ['host.docker.internal:host-gateway'])
  const hosts = await execIn(container, ['grep', 'host.docker.internal', '/etc/hosts'])
  t.match(hosts.stdout, /^\d+\.\d+\.\d+\.\d+\s+host\.docker\.internal/, 'the alias resolves to the Docker host inside the container')

  await backend.remove(spec)
  t.ok(await databases.exists(spec.instanceUid), 'remove leaves the database (it is the instances service\'s to drop)')
})
