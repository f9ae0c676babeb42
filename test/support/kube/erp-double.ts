/**
 * The ERP behind each instance Service, for the service proxy (service-proxy.ts): Odoo's external
 * JSON-RPC API as far as the control plane uses it before it reports an instance running (the
 * administrator's password, web.base.url), with the
 * shapes of the shared fixture (test/support/erp-double/odoo-external-api.json). Strict like Odoo:
 * a database knows admin/admin until `res.users` `write` sets uid 2's password, then only that one.
 * Its state lives per Service and database for the life of the fake (as the ERP's database outlives
 * its pods); any other call answers the fixture's fault for an unknown method.
 */
import { readFileSync } from 'node:fs'
import { ErpDatabases, HEALTH_PATH, INTERNAL_ERROR_PAGE } from './erp-database.ts'
import { failure } from './status.ts'

const contract = JSON.parse(readFileSync(new URL('../erp-double/odoo-external-api.json', import.meta.url), 'utf8')) as {
  fault: Record<string, { name: string, message: string }> & { envelope: { error: { code: number, message: string, data: Record<string, unknown> } } }
  initialDatabase: { adminUid: number, adminLogin: string, adminPassword: string }
  server: { defaultConfigParameters: Record<string, string> }
}

export interface ErpCall { namespace: string, service: string, call: string, args: unknown[], at: Date }

export interface ErpAnswer { code: number, body: unknown, contentType: string }

export class ErpDoubles {
  readonly #passwords = new Map<string, string>()
  readonly #params = new Map<string, string>()
  readonly #down = new Set<string>()
  /** Every JSON-RPC call that reached an ERP, in order. */
  readonly calls: ErpCall[] = []
  /** Whether each database is initialised, its modules, and its installs (erp-database.ts). */
  readonly databases: ErpDatabases

  constructor (databases = new ErpDatabases()) { this.databases = databases }

  /** Whether the ERP behind the Service answers (a pod whose server does not listen answers 503 through the proxy). */
  setAnswering (namespace: string, service: string, answering: boolean): void {
    if (answering) this.#down.delete(`${namespace}/${service}`)
    else this.#down.add(`${namespace}/${service}`)
  }

  /** A system parameter (ir.config_parameter) the database holds now, e.g. web.base.url. */
  configParameter (namespace: string, service: string, database: string, name: string): string | undefined {
    return this.#params.get(`${namespace}/${service}/${database}/${name}`) ?? contract.server.defaultConfigParameters[name]
  }

  /** The administrator's password the database holds now. */
  adminPassword (namespace: string, service: string, database: string): string {
    return this.#passwords.get(`${namespace}/${service}/${database}`) ?? contract.initialDatabase.adminPassword
  }

  /** `database`: the one the pod's configuration names (db_name), if any. */
  async answer (namespace: string, service: string, method: string, path: string, raw: string, podIP: string, database?: string): Promise<ErpAnswer> {
    if (this.#down.has(`${namespace}/${service}`) || (database !== undefined && this.databases.reloading(database))) throw failure(503, `error trying to reach service: dial tcp ${podIP}:8069: connect: connection refused`)
    if (database !== undefined && !this.databases.initialised(database)) return { code: 500, body: INTERNAL_ERROR_PAGE, contentType: 'text/html; charset=utf-8' }
    if (method === 'GET' && path === HEALTH_PATH) return { code: 200, body: { status: 'pass' }, contentType: 'application/json' }
    if (method !== 'POST' || path !== '/jsonrpc') return { code: 404, body: 'Not Found', contentType: 'text/plain' }
    const request = JSON.parse(raw) as { id?: unknown, params?: { service?: string, method?: string, args?: unknown[] } }
    const call = `${request.params?.service ?? ''}.${request.params?.method ?? ''}`
    const args = request.params?.args ?? []
    this.calls.push({ namespace, service, call, args, at: new Date() })
    const reply = (result: unknown): ErpAnswer => ({ code: 200, body: { jsonrpc: '2.0', id: request.id ?? null, result }, contentType: 'application/json' })
    const fault = (kind: string, fill: Record<string, string> = {}): ErpAnswer => {
      let message = contract.fault[kind]?.message ?? kind
      for (const [key, value] of Object.entries(fill)) message = message.replaceAll(`{${key}}`, value)
      const error = { ...contract.fault.envelope.error, data: { ...contract.fault.envelope.error.data, name: contract.fault[kind]?.name, message, arguments: [message] } }
      return { code: 200, body: { jsonrpc: '2.0', id: request.id ?? null, error }, contentType: 'application/json' }
    }
    const key = `${namespace}/${service}/${String(args[0])}`
    const stored = this.adminPassword(namespace, service, String(args[0]))
    const admin = contract.initialDatabase.adminUid
    if (call === 'common.authenticate') return reply(args[1] === contract.initialDatabase.adminLogin && args[2] === stored ? admin : false)
    if (call !== 'object.execute_kw') return fault('unknownMethod', { model: String(request.params?.service), method: String(request.params?.method) })
    if (args[1] !== admin || args[2] !== stored) return fault('accessDenied')
    const [, , , model, verb, positional] = args as [string, number, string, string, string, unknown[]]
    const [ids, values] = positional ?? []
    if (model === 'res.users' && verb === 'write' && JSON.stringify(ids) === `[${admin}]` && typeof (values as { password?: unknown })?.password === 'string') {
      this.#passwords.set(key, (values as { password: string }).password)
      return reply(true)
    }
    if (model === 'ir.module.module' && verb === 'search_read') return reply(this.databases.searchRead(String(args[0]), ids))
    if (model === 'ir.module.module' && verb === 'update_list') return reply([0, 0])
    if (model === 'ir.module.module' && verb === 'button_immediate_install') {
      await this.databases.install(String(args[0]), ids)
      return reply({ type: 'ir.actions.client', tag: 'reload' })
    }
    if (model === 'ir.module.module' && verb === 'downstream_dependencies') return reply(this.databases.downstreamDependencies(String(args[0]), ids))
    if (model === 'ir.module.module' && verb === 'button_immediate_uninstall') {
      const refused = await this.databases.uninstall(String(args[0]), ids)
      return refused === undefined ? reply({ type: 'ir.actions.client', tag: 'reload' }) : fault('userError', { message: refused })
    }
    if (model === 'ir.config_parameter' && verb === 'set_param' && typeof ids === 'string') {
      const old = this.#params.get(`${key}/${ids}`) ?? contract.server.defaultConfigParameters[ids] ?? false
      this.#params.set(`${key}/${ids}`, String(values))
      return reply(old)
    }
    return fault('unknownMethod', { model: String(model), method: String(verb) })
  }
}
