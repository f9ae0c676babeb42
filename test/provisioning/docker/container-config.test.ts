/** The container create body the Docker backend sends, without an engine (the engine tests check the result). */
import t from 'tap'
import type { InstanceSpec } from '../../../provisioning/backend.ts'
import { containerConfig, isHostLocal } from '../../../provisioning/docker/container-config.ts'
import { DEFAULT_HEALTH_CHECK, resolveOptions, type DockerBackendOptions } from '../../../provisioning/docker/options.ts'

const spec: InstanceSpec = {
  instanceUid: '6f1c2d3e-4b5a-4c6d-8e7f-901234567890',
  tenantId: '0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d',
  tenantSubdomain: 'acme',
  subdomain: 'acme-prod',
  erpVersion: '17.0',
  host: 'acme-prod.erp.example.com',
  resources: { memoryMb: 2048, cpuMillicores: 1500, storageGb: 10, workers: 3 },
  database: { host: 'db.example.com', port: 5433, name: 'erp_x', user: 'erp_x', password: 'pw' }
}

function config (options: Partial<DockerBackendOptions> = {}, overrides: Partial<InstanceSpec> = {}): ReturnType<typeof containerConfig> {
  return containerConfig({ ...spec, ...overrides }, resolveOptions({ addonsRoot: '/srv/addons', ...options }))
}

t.test('defaults: the Odoo image, its mount paths, its health check, no published port, no network', async (t) => {
  const c = config()
  t.equal(c.name, 'erp-acme-prod')
  t.equal(c.Image, 'odoo:17.0')
  t.same(c.HostConfig?.Binds, ['/srv/addons/acme/addons:/mnt/extra-addons:ro'])
  t.same(c.HostConfig?.Mounts, [{ Type: 'volume', Source: 'erp-acme-prod-data', Target: '/var/lib/odoo' }])
  t.same(c.Healthcheck, { Test: DEFAULT_HEALTH_CHECK.command, Interval: 10e9, Timeout: 5e9, StartPeriod: 60e9, Retries: 3 })
  t.equal(c.HostConfig?.PortBindings, undefined)
  t.equal(c.HostConfig?.NetworkMode, undefined)
  t.equal(c.HostConfig?.ExtraHosts, undefined, 'a remote database host needs no host-gateway alias')
  t.equal(c.Cmd, undefined, 'the image\'s own command')
  t.same(c.Env, ['HOST=db.example.com', 'PORT=5433', 'USER=erp_x', 'PASSWORD=pw', 'ERP_DATABASE=erp_x', 'ERP_WORKERS=3'])
  t.equal(c.Labels?.['traefik.docker.network'], undefined)
})

t.test('a database on the Docker host is reached as host.docker.internal through host-gateway', async (t) => {
  for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', 'host.docker.internal', 'LOCALHOST']) {
    const c = config({}, { database: { ...spec.database, host } })
    t.equal(c.Env?.[0], 'HOST=host.docker.internal', host)
    t.same(c.HostConfig?.ExtraHosts, ['host.docker.internal:host-gateway'], host)
  }
  for (const host of ['10.0.0.5', 'postgres', 'db.localhost.example.com', '128.0.0.1']) t.notOk(isHostLocal(host), host)
})

t.test('options: network (also told to Traefik), published port on 127.0.0.1, command with placeholders, no health check', async (t) => {
  const c = config({ network: 'erp-net', publishPort: true, command: ['odoo', '--database={database}', '--workers={workers}'], healthCheck: null, imageTemplate: 'registry.local/erp:{version}-custom' })
  t.equal(c.Image, 'registry.local/erp:17.0-custom')
  t.equal(c.HostConfig?.NetworkMode, 'erp-net')
  t.equal(c.Labels?.['traefik.docker.network'], 'erp-net')
  t.same(c.HostConfig?.PortBindings, { '8069/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] })
  t.same(c.Cmd, ['odoo', '--database=erp_x', '--workers=3'])
  t.equal(c.Healthcheck, undefined)
})

t.test('extra labels cannot override the backend\'s own', async (t) => {
  const c = config({ labels: { 'erp.managed': 'false', 'erp.subdomain': 'other', team: 'ops' } })
  t.match(c.Labels, { 'erp.managed': 'true', 'erp.subdomain': 'acme-prod', team: 'ops' })
})

t.test('refuses names that would escape their place', async (t) => {
  t.throws(() => config({}, { subdomain: '../etc' }), /subdomain must be a DNS label/)
  t.throws(() => config({}, { subdomain: 'Acme' }), /subdomain must be a DNS label/)
  t.throws(() => config({}, { tenantSubdomain: '..' }), /tenantSubdomain must be a DNS label/)
  t.throws(() => config({}, { erpVersion: '17.0 --privileged' }), /erpVersion must be an image tag/)
  t.throws(() => config({}, { host: 'a.example.com`) || Host(`b.example.com' }), /host must be a DNS name/)
  t.throws(() => config({ instancesDomain: 'erp.example.com' }, { host: 'bank.example.com' }), /host must be acme-prod.erp.example.com/)
  t.doesNotThrow(() => config({ instancesDomain: 'erp.example.com' }))
  t.throws(() => resolveOptions({ addonsRoot: 'relative/addons' }), /absolute path/)
})

t.test('a template without {version} is a fixed image, the same for every ERP version', async (t) => {
  for (const erpVersion of ['16.0', '17.0', '18.0']) {
    t.equal(config({ imageTemplate: 'registry.local/erp:pinned' }, { erpVersion }).Image, 'registry.local/erp:pinned')
  }
  t.throws(() => config({ imageTemplate: 'registry.local/erp:pinned' }, { erpVersion: '17.0 --privileged' }), /erpVersion must be an image tag/,
    'the version is still checked')
})
