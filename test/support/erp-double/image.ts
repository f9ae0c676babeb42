/**
 * The contract double of the ERP (build-erp-double-image.sh): $ERP_DOUBLE_IMAGE when set (it must
 * be in the engine), else built once per process. `contract` is the one fixture the double serves
 * from and the tests assert with.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dockerClient } from '../docker/engine.ts'

const BUILD_SCRIPT = fileURLToPath(new URL('../docker/build-erp-double-image.sh', import.meta.url))
export const DEFAULT_ERP_DOUBLE_IMAGE = 'erp-double-image:17.0'

export interface OdooContract {
  request: Record<'authenticate' | 'execute_kw' | 'version', { params: { service: string, method: string, args: unknown[] } }>
  response: { version: { server_version: string } }
  fault: Record<string, { name: string, message: string }>
  timing: { initSeconds: number, installSeconds: number, reloadSeconds: number }
  loginCooldown: { after: number, seconds: number }
  /** How the server answers besides JSON-RPC (the busybox stand-in reads it too). */
  server: { databaseManagerDisabled: string, defaultConfigParameters: Record<string, string>, internalErrorPage: string }
  initialDatabase: {
    adminUid: number
    adminLogin: string
    adminPassword: string
    defaultUserXmlId: string
    users: Array<{ id: number, login: string, xml_id: string, groups_id: number[] }>
    groups: Array<{ id: number, name: string, xml_id: string, implied_ids: number[] }>
    modules: Array<{ id: number, name: string, state: string, dependencies: string[], groups: Array<{ id: number, xml_id: string, defaultUser: boolean }> }>
  }
}

export const contract = JSON.parse(readFileSync(new URL('./odoo-external-api.json', import.meta.url), 'utf8')) as OdooContract

/** A fault message of the fixture with its `{placeholders}` filled in. */
export function faultMessage (kind: string, fill: Record<string, string | number> = {}): string {
  let message = contract.fault[kind]?.message ?? ''
  for (const [key, value] of Object.entries(fill)) message = message.replaceAll(`{${key}}`, String(value))
  return message
}

let image: Promise<string> | undefined

export function erpDoubleImage (): Promise<string> {
  image ??= resolveImage()
  return image
}

async function resolveImage (): Promise<string> {
  const fromEnv = process.env.ERP_DOUBLE_IMAGE
  if (fromEnv !== undefined && fromEnv !== '') {
    await dockerClient().getImage(fromEnv).inspect().catch((error: Error) => {
      throw new Error(`ERP_DOUBLE_IMAGE=${fromEnv} is not in the Docker engine (${error.message}); build it with: ${BUILD_SCRIPT} ${fromEnv}`)
    })
    return fromEnv
  }
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile('bash', [BUILD_SCRIPT, DEFAULT_ERP_DOUBLE_IMAGE], { timeout: 180_000 }, (error, out, err) => {
      if (error !== null) reject(new Error(`${BUILD_SCRIPT} failed: ${error.message}\n${err}`))
      else resolve(out)
    })
  })
  return stdout.trim().split('\n').pop() ?? DEFAULT_ERP_DOUBLE_IMAGE
}
