import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { bearer } from './accounts.ts'
import { build } from './build.ts'

interface Teardown { teardown: (fn: () => unknown) => void }

/** The app with the Docker backend's addons storage in a temporary folder, and `localhost` opened for the local Git server. */
export async function buildWithAddons (t: Teardown, env: Record<string, unknown> = {}) {
  const addonsRoot = mkdtempSync(join(tmpdir(), 'erp-addons-'))
  t.teardown(() => rmSync(addonsRoot, { recursive: true, force: true }))
  const built = await build(t, { env: { INSTANCE_BACKENDS: 'docker', ADDONS_ROOT: addonsRoot, ADDON_SOURCE_ALLOWED_HOSTS: 'localhost', ADDON_SOURCE_SYNC_RETRIES: 0, ...env } })
  return { ...built, addonsRoot, addonsOf: (subdomain: string) => join(addonsRoot, subdomain, 'addons') }
}

export function api (app: FastifyInstance, token: string) {
  return async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) => {
    const response = await app.inject({ method, url, headers: bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) })
    return { status: response.statusCode, json: response.json() as Record<string, any> }
  }
}

/** Polls the source until its sync has ended (`synced` or `failed`). */
export async function waitForSync (call: ReturnType<typeof api>, id: number): Promise<Record<string, any>> {
  for (;;) {
    const { json } = await call('GET', `/api/addon-sources/${id}`)
    if (json.addon_source.state !== 'syncing') return json.addon_source
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export const manifest = (name: string, summary = `${name} summary`) => `{\n    'name': '${name}',\n    'summary': "${summary}",\n    'version': '17.0.1.0.0',\n    'depends': ['base'],\n}\n`
