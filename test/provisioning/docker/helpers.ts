/**
 * Shared by the Docker backend tests: instance specs with unique names, a backend
 * on the test image whose containers and volumes carry the run label, the teardown
 * that removes them, and polling `observe` until a state.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import type Docker from 'dockerode'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import type { InstanceSpec, ObservedState, Observation, ProvisioningBackend } from '../../../provisioning/backend.ts'
import { createDockerBackend, type DockerBackendOptions } from '../../../provisioning/docker/index.ts'
import { createErpDatabases } from '../../../provisioning/erp-database.ts'
import { erpInitialiseCommand } from '../../../provisioning/erp/server-config.ts'
import { cleanupContainers, DEFAULT_TEST_IMAGE, dockerClient, newTestRun, testImage, TEST_IMAGE_PORT, type TestRun } from '../../support/docker/engine.ts'

/** The test image answers /healthz; busybox wget stands in for Odoo's curl. */
export const TEST_HEALTH_CHECK = {
  command: ['CMD-SHELL', `wget -q -O /dev/null http://127.0.0.1:${TEST_IMAGE_PORT}/healthz || exit 1`],
  intervalMs: 250,
  timeoutMs: 2000,
  retries: 2
}

export interface DockerFixture {
  run: TestRun
  addonsRoot: string
  /** The test image's tag without its version: `imageTemplate` is `<repo>:{version}`. */
  imageRepo: string
  imageVersion: string
  /** A backend for this file's containers; `overrides` replace the defaults. */
  backend: (overrides?: Partial<DockerBackendOptions>) => ProvisioningBackend
  /** A spec with a fresh subdomain (`t-<hex>`) of `tenant`. */
  spec: (tenant: string, overrides?: Partial<InstanceSpec>) => InstanceSpec
}

/** Once per test file; `available` is requireDockerOrSkipLoudly's (no engine: nothing is built or cleaned). */
export async function dockerFixture (t: Test, available: boolean): Promise<DockerFixture> {
  const run = newTestRun()
  const addonsRoot = await mkdtemp(join(tmpdir(), 'erp-addons-'))
  t.teardown(async () => {
    if (available) {
      await cleanupContainers(run.label)
      await removeVolumes(run.label)
    }
    await rm(addonsRoot, { recursive: true, force: true })
  })
  const image = available ? await testImage() : DEFAULT_TEST_IMAGE
  const [imageRepo = image, imageVersion = 'latest'] = image.split(':')
  return {
    run,
    addonsRoot,
    imageRepo,
    imageVersion,
    backend: (overrides = {}) => createDockerBackend({
      docker: dockerClient(),
      imageTemplate: `${imageRepo}:{version}`,
      addonsRoot,
      healthCheck: TEST_HEALTH_CHECK,
      labels: run.labels,
      callTimeoutMs: 20_000,
      ...overrides
    }),
    spec: (tenant, overrides = {}) => {
      const subdomain = `t-${randomBytes(5).toString('hex')}`
      return {
        instanceUid: randomUUID(),
        tenantId: randomUUID(),
        tenantSubdomain: tenant,
        subdomain,
        erpVersion: imageVersion,
        host: `${subdomain}.erp.test`,
        resources: { memoryMb: 256, cpuMillicores: 500, storageGb: 1, workers: 2 },
        // Port 8069: the test image reads PORT as its HTTP port (Odoo reads it as the database's).
        database: { host: 'db.internal', port: TEST_IMAGE_PORT, name: 'erp_db', user: 'erp_user', password: 's3cret-pass' },
        ...overrides
      }
    }
  }
}

export function tenantName (): string {
  return `tn-${randomBytes(4).toString('hex')}`
}

export async function removeVolumes (labelFilter: string): Promise<void> {
  const docker = dockerClient()
  const { Volumes } = await docker.listVolumes({ filters: { label: [labelFilter] } })
  for (const volume of Volumes ?? []) {
    await docker.getVolume(volume.Name).remove().catch(() => {})
  }
}

/** Polls observe until `state`; returns every distinct state seen on the way (fails after timeoutMs). */
export async function waitForState (
  backend: ProvisioningBackend, spec: InstanceSpec, state: ObservedState, timeoutMs = 30_000
): Promise<{ last: Observation, seen: ObservedState[] }> {
  const deadline = Date.now() + timeoutMs
  const seen: ObservedState[] = []
  while (true) {
    const last = await backend.observe(spec)
    if (seen.at(-1) !== last.state) seen.push(last.state)
    if (last.state === state) return { last, seen }
    if (Date.now() > deadline) throw new Error(`${spec.subdomain} did not become ${state} within ${timeoutMs} ms (seen: ${seen.join(' → ')}; last: ${JSON.stringify(last)})`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

export async function volumeExists (name: string): Promise<boolean> {
  try {
    await dockerClient().getVolume(name).inspect()
    return true
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return false
    throw error
  }
}

/** The stand-in's Odoo health check: passes once the configured database is initialised. */
export const WEB_HEALTH_CHECK = {
  command: ['CMD-SHELL', `wget -q -O /dev/null http://127.0.0.1:${TEST_IMAGE_PORT}/web/health || exit 1`],
  intervalMs: 250,
  timeoutMs: 2000,
  retries: 2
}

/**
 * A spec of `fx` on a real database and role of the test PostgreSQL (dropped in teardown), with an
 * ERP setup (a fresh master password; `initialise` true), so the stand-in's database lives there.
 */
export async function erpSpec (t: Test, fx: DockerFixture): Promise<InstanceSpec> {
  const databases = createErpDatabases({ adminUrl: process.env.TEST_DATABASE_URL ?? '', passwordKey: randomBytes(32) })
  const spec = fx.spec(tenantName())
  t.teardown(async () => {
    await databases.drop(spec.instanceUid)
    await databases.close()
  })
  return { ...spec, database: await databases.ensure(spec.instanceUid), erp: { masterPassword: `m-${randomBytes(12).toString('hex')}`, initialise: true } }
}

/** Runs the ERP's database initialisation in a one-off container of `config`'s image and env, as a first attempt did. */
export async function initialiseDirectly (config: Docker.ContainerCreateOptions, database: string, labels: Record<string, string>): Promise<number> {
  const init = await dockerClient().createContainer({ Image: config.Image, Env: config.Env, Cmd: erpInitialiseCommand(database), Labels: labels, HostConfig: { ExtraHosts: config.HostConfig?.ExtraHosts } })
  try {
    await init.start()
    return (await init.wait() as { StatusCode: number }).StatusCode
  } finally {
    await init.remove({ force: true })
  }
}
