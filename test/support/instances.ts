import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { dockerClient, testImage } from './docker/engine.ts'
import { bearer } from './accounts.ts'
import { erpDatabaseNames } from '../../provisioning/erp-database.ts'

/** The image template tests run instances with: the stand-in image, tagged once per ERP version. */
export const TEST_IMAGE_TEMPLATE = 'erp-stand-in:{version}'
export const TEST_ERP_VERSIONS = ['16.0', '17.0', '18.0']

/** Tags the stand-in ERP image (test/support/docker) as `erp-stand-in:<version>` for every version. */
export async function tagTestImages (): Promise<void> {
  const source = dockerClient().getImage(await testImage())
  for (const version of TEST_ERP_VERSIONS) await source.tag({ repo: 'erp-stand-in', tag: version })
}

/** Like TEST_IMAGE_TEMPLATE, but its PID 1 ignores SIGTERM: `docker stop` has to kill it after the grace period. */
export const STUBBORN_IMAGE_TEMPLATE = 'erp-stand-in-stubborn:{version}'

/**
 * Tags `erp-stand-in-stubborn:<version>`: the stand-in image (same busybox rootfs,
 * committed from a container of it) whose entrypoint is a shell that ignores
 * SIGTERM and serves /healthz and /jsonrpc (/serve.sh), so it is healthy until it is killed.
 */
export async function tagStubbornImages (): Promise<void> {
  const docker = dockerClient()
  const container = await docker.createContainer({ Image: await testImage(), Labels: { 'erp.test-image.stubborn': '1' } })
  try {
    // The ERP's one-off first start (`odoo … --stop-after-init`) initialises the database as the stand-in image's does; the server ignores SIGTERM.
    const script = "case \" $0 $* \" in *' --stop-after-init '*) exec /lib/erp/initialise.sh \"$0\" \"$@\";; esac; " +
      "trap '' TERM; echo 'erp-stand-in-stubborn: ignoring SIGTERM'; nc -ll -p 8069 -e /serve.sh & while :; do sleep 1; done"
    const entrypoint = JSON.stringify(['/bin/sh', '-c', script])
    await new Promise<void>((resolve, reject) => {
      execFile('docker', ['commit', '--change', `ENTRYPOINT ${entrypoint}`, container.id, 'erp-stand-in-stubborn:17.0'], (error) => error === null ? resolve() : reject(error))
    })
  } finally {
    await container.remove({ force: true })
  }
  const image = docker.getImage('erp-stand-in-stubborn:17.0')
  for (const version of TEST_ERP_VERSIONS) if (version !== '17.0') await image.tag({ repo: 'erp-stand-in-stubborn', tag: version })
}

/** Configuration for an app that really provisions on the local Docker engine (teardown removes the addons folder). */
export function dockerInstanceEnv (t: { teardown: (fn: () => unknown) => void }, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const addons = mkdtempSync(join(tmpdir(), 'erp-addons-'))
  t.teardown(() => rmSync(addons, { recursive: true, force: true }))
  return {
    INSTANCE_BACKENDS: 'docker',
    ERP_IMAGE: TEST_IMAGE_TEMPLATE,
    ERP_HEALTHCHECK: 'wget -q -O /dev/null http://127.0.0.1:8069/healthz || exit 1',
    ERP_HEALTHCHECK_INTERVAL_SECONDS: 1,
    INSTANCES_DOMAIN: 'erp.test',
    ADDONS_ROOT: addons,
    DOCKER_PUBLISH_PORTS: 'true',
    RECONCILE_SECONDS: 3600, // tests reconcile on demand
    INSTANCE_JOB_RETRIES: 2,
    ...extra
  }
}

export function uniqueSubdomain (prefix = 't'): string {
  return `${prefix}-${process.pid.toString(36)}-${randomBytes(4).toString('hex')}`
}

/** Removes what instances of the database at `databaseUrl` left on the engine and the database server. */
export async function cleanupInstances (databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ uid: string, subdomain: string }>('SELECT uid, subdomain FROM instances')
    const docker = dockerClient()
    for (const { uid, subdomain } of rows) {
      await docker.getContainer(`erp-${subdomain}`).remove({ force: true, v: true }).catch(() => {})
      await docker.getVolume(`erp-${subdomain}-data`).remove().catch(() => {})
      const name = erpDatabaseNames(uid).database
      await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`).catch(() => {})
      await client.query(`DROP ROLE IF EXISTS ${pg.escapeIdentifier(name)}`).catch(() => {})
    }
  } finally {
    await client.end()
  }
}

export interface StatusAnswer { state: string, status: string, updated_at: string }

/** Polls the status route until the state is one of `states` (or fails after `timeoutMs`). */
export async function waitForState (app: FastifyInstance, token: string, id: number, states: string[], timeoutMs = 60_000): Promise<StatusAnswer> {
  const deadline = Date.now() + timeoutMs
  let last: StatusAnswer | undefined
  while (Date.now() < deadline) {
    const response = await app.inject({ method: 'GET', url: `/api/instances/${id}/status`, headers: bearer(token) })
    last = response.json() as StatusAnswer
    if (states.includes(last.state)) return last
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`instance ${id} did not reach ${states.join('/')} within ${timeoutMs} ms; last ${JSON.stringify(last)}`)
}

/** Whether the database server at `url` has a database called `name` (an instance's own, say). */
export async function databaseExists (url: string, name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1
  } finally {
    await client.end()
  }
}
