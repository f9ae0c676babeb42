import { readFile } from 'node:fs/promises'
import t from 'tap'
import { parse } from 'yaml'
import { loadConfig } from '../../config/env.ts'
import { VARIABLES } from '../../config/schema.ts'
import { containerConfig } from '../../provisioning/docker/container-config.ts'
import { resolveOptions } from '../../provisioning/docker/options.ts'
import type { InstanceSpec } from '../../provisioning/backend.ts'

// docker-compose.yml, read as Compose reads it, checked for the wiring the local full stack needs:
// one image for every process, settings the service accepts, the auth server where the portal
// looks for it, and instance containers on the network Traefik watches with labels it routes.

interface Service {
  image?: string
  build?: unknown
  command?: string[]
  user?: string
  environment?: Record<string, string>
  volumes?: string[]
  labels?: Record<string, string>
  depends_on?: Record<string, { condition: string }>
  networks?: string[]
  ports?: string[]
}
interface Compose { services: Record<string, Service>, networks: Record<string, { name?: string }> }

const root = new URL('../../', import.meta.url)
const compose = parse(await readFile(new URL('docker-compose.yml', root), 'utf8'), { merge: true }) as Compose
const dockerfile = await readFile(new URL('Dockerfile', root), 'utf8')

/** `${NAME:-default}` → default; `${NAME:?message}` → the value the operator's .env would give. */
const given: Record<string, string> = { JWT_SECRET: 'j'.repeat(44), ERP_CREDENTIALS_KEY: Buffer.alloc(32, 7).toString('base64') }
const interpolate = (value: string) => value.replace(/\$\{(\w+)(?::-([^}]*)|:\?[^}]*)?\}/g, (_m, name: string, fallback?: string) => given[name] ?? fallback ?? '')
const envOf = (service: Service) => Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]))

const { services } = compose
const network = compose.networks.erp?.name

t.test('the five services, one image built once for the three processes', async (t) => {
  t.same(Object.keys(services).sort(), ['auth-server', 'migrate', 'portal', 'postgres', 'traefik'])
  const ours = ['migrate', 'auth-server', 'portal'].map((name) => services[name])
  t.ok(ours.every((s) => s?.image === 'erp-portal:local'), 'the same image')
  t.equal(ours.filter((s) => s?.build !== undefined).length, 1, 'built once')
  t.same(services['auth-server']?.command, ['node', 'dist/auth-server/server.js'])
  t.ok(dockerfile.includes('node dist/auth-server/server.js'), 'the auth server command the Dockerfile documents')
  t.same(services.migrate?.command, ['node', 'dist/database/cli.js', 'migrate'])
  t.ok(dockerfile.includes('node dist/database/cli.js migrate'))
  t.match(services.portal?.depends_on, { migrate: { condition: 'service_completed_successfully' } })
  t.match(services['auth-server']?.depends_on, { migrate: { condition: 'service_completed_successfully' } })
  t.match(services.migrate?.depends_on, { postgres: { condition: 'service_healthy' } })
  for (const [name, service] of Object.entries(services)) t.same(service.networks, ['erp'], `${name} is on the one network`)
})

t.test('every setting is one the service knows and accepts', async (t) => {
  for (const name of ['migrate', 'auth-server', 'portal']) {
    const env = envOf(services[name] as Service)
    t.same(Object.keys(env).filter((key) => !VARIABLES.includes(key) && key !== 'HEALTHCHECK_PORT'), [], `${name}: no unknown variable`)
    t.doesNotThrow(() => loadConfig(env), `${name}: a valid configuration`)
  }
  const postgres = services.postgres?.environment ?? {}
  const database = new URL(envOf(services.portal as Service).DATABASE_URL ?? '')
  t.equal(database.hostname, 'postgres', 'the database is the postgres service')
  t.equal(database.username, postgres.POSTGRES_USER)
  t.equal(database.password, postgres.POSTGRES_PASSWORD)
  t.equal(database.pathname, `/${postgres.POSTGRES_DB}`)
  t.equal(envOf(services['auth-server'] as Service).DATABASE_URL, database.href.replace(/\/$/, ''), 'one database for both')
})

t.test('the portal reaches the auth server as its own deployment, and the auth server reaches the portal', async (t) => {
  const portal = loadConfig(envOf(services.portal as Service))
  const auth = loadConfig(envOf(services['auth-server'] as Service))
  t.equal(portal.AUTH_SERVER_PROCESS, false, 'no child auth server')
  const authUrl = new URL(portal.AUTH_SERVER_URL ?? '')
  t.equal(authUrl.hostname, 'auth-server', 'the service name')
  t.equal(Number(authUrl.port), auth.AUTH_PORT)
  t.equal(auth.AUTH_HOST, '0.0.0.0', 'listening beyond loopback')
  t.equal(envOf(services['auth-server'] as Service).HEALTHCHECK_PORT, String(auth.AUTH_PORT), 'the image health check asks the auth server\'s port')
  t.equal(new URL(auth.PORTAL_API_URL ?? '').hostname, 'portal')
  t.equal(portal.BASE_URL, auth.BASE_URL, 'one issuer')
  t.equal(portal.TRUST_PROXY, true, 'behind Traefik')
})

t.test('Traefik routes the portal and every instance container the Docker backend creates', async (t) => {
  const traefik = services.traefik as Service
  t.ok(network !== undefined, 'the network has a fixed name')
  t.ok(traefik.command?.includes('--providers.docker=true'), 'the Docker provider')
  t.ok(traefik.command?.includes('--providers.docker.exposedbydefault=false'), 'only labelled containers')
  t.ok(traefik.command?.includes(`--providers.docker.network=${network}`))
  t.ok(traefik.volumes?.some((v) => v.startsWith('/var/run/docker.sock:/var/run/docker.sock')), 'Traefik watches the engine')
  t.ok(traefik.ports?.includes('80:80'))
  t.match(services.portal?.labels, { 'traefik.enable': 'true', 'traefik.http.services.erp-portal.loadbalancer.server.port': '3000' })
  t.equal(services.portal?.labels?.['traefik.http.routers.erp-portal.rule'], `Host(\`${new URL(loadConfig(envOf(services.portal as Service)).BASE_URL).hostname}\`)`)

  const config = loadConfig(envOf(services.portal as Service))
  t.ok(config.instanceBackends.includes('docker'))
  t.equal(config.DOCKER_NETWORK, network, 'instances join the network Traefik watches')
  t.ok(services.portal?.volumes?.includes('/var/run/docker.sock:/var/run/docker.sock'), 'the portal drives the engine')
  const addons = config.ADDONS_ROOT ?? ''
  t.ok(services.portal?.volumes?.map(interpolate).includes(`${addons}:${addons}`), 'ADDONS_ROOT is the same path on the host and in the portal')

  // The container the Docker backend would create for an instance, with this configuration.
  const spec: InstanceSpec = {
    instanceUid: '0b6f3c1e-9a55-4c1b-8d0e-5a1f2b3c4d5e',
    tenantId: '1b6f3c1e-9a55-4c1b-8d0e-5a1f2b3c4d5e',
    tenantSubdomain: 'acme',
    subdomain: 'shop',
    erpVersion: '17.0',
    host: `shop.${config.INSTANCES_DOMAIN}`,
    resources: { memoryMb: 1024, cpuMillicores: 1000, storageGb: 10, workers: 2 },
    database: { host: new URL(config.DATABASE_URL ?? '').hostname, port: 5432, name: 'erp_shop', user: 'erp_shop', password: 'x' }
  }
  const container = containerConfig(spec, resolveOptions({ instancesDomain: config.INSTANCES_DOMAIN, addonsRoot: addons, network: config.DOCKER_NETWORK, publishPort: config.DOCKER_PUBLISH_PORTS }))
  t.equal(spec.host, 'shop.localhost', 'instances at http://<subdomain>.localhost')
  t.match(container.Labels, { 'traefik.enable': 'true', 'traefik.http.routers.erp-shop.rule': 'Host(`shop.localhost`)', 'traefik.docker.network': network })
  t.equal(container.HostConfig?.NetworkMode, network)
  t.ok(container.Env?.includes('HOST=postgres'), 'the ERP reaches the database by its service name on that network')
})
