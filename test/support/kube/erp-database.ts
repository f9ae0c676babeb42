/**
 * What the ERP's database holds and whether the ERP answers for it, as real Odoo 17 (the facts in
 * test/support/erp-double/odoo-external-api.json): a configured database answers every request,
 * /web/health included, with the HTML 500 page until `odoo -d <db> -i base --stop-after-init` (the
 * first-start Job) or a restore Job has filled it; a module install (or uninstall, which takes the
 * modules that depend on it along) takes `installMs`, then the registry reload answers nothing for
 * `reloadMs` (readiness fails), then the call answers.
 * The database outlives pods, so the state is per database name for the life of the fake.
 */
import { readFileSync } from 'node:fs'
import { isObject, type JsonObject } from './merge.ts'

const facts = JSON.parse(readFileSync(new URL('../erp-double/odoo-external-api.json', import.meta.url), 'utf8')) as {
  fault: { serverWideUninstall: { message: string }, alreadyUninstalled: { message: string } }
  server: { healthPath: string, internalErrorPage: string, serverWideModules: string[] }
  initialDatabase: { modules: Array<{ id: number, name: string, state: string, dependencies: string[] }> }
  timing: { installSeconds: number, reloadSeconds: number }
}

export const HEALTH_PATH = facts.server.healthPath
export const INTERNAL_ERROR_PAGE = facts.server.internalErrorPage
/** Odoo's server_wide_modules (`base,web` by default): button_uninstall refuses them. */
const SERVER_WIDE = facts.server.serverWideModules

export interface ErpTiming {
  /** How long an install runs before the registry reload (default: the fixture's installSeconds). */
  installMs?: number
  /** How long the reload answers nothing (default: the fixture's reloadSeconds). */
  reloadMs?: number
}

interface Database { modules: Map<string, { id: number, name: string, state: string, dependencies: string[] }>, reloadingUntil: number }

export class ErpDatabases {
  readonly #databases = new Map<string, Database>()
  readonly #uninstallFailures = new Map<string, string>()
  /** The ERP version an upgrade Job (`-u all --stop-after-init`) last brought each database to. */
  readonly #versions = new Map<string, string>()
  readonly #installMs: number
  readonly #reloadMs: number

  constructor (timing: ErpTiming = {}) {
    this.#installMs = timing.installMs ?? facts.timing.installSeconds * 1000
    this.#reloadMs = timing.reloadMs ?? facts.timing.reloadSeconds * 1000
  }

  /** `-i base` ran, or a restore loaded a dump: the database holds Odoo's tables (modules as after `-i base`). */
  initialise (database: string): void {
    if (this.#databases.has(database)) return
    this.#databases.set(database, { modules: new Map(facts.initialDatabase.modules.map((m) => [m.name, { ...m }])), reloadingUntil: 0 })
  }

  initialised (database: string): boolean { return this.#databases.has(database) }

  /** An upgrade Job ran on the database from an image of `version`; a restore loads a dump of its own version (forgotten here). */
  setVersion (database: string, version: string | undefined): void {
    if (version === undefined) this.#versions.delete(database)
    else this.#versions.set(database, version)
  }

  /** The version the last upgrade brought the database to; undefined when none did since it was made or restored. */
  version (database: string): string | undefined { return this.#versions.get(database) }

  /** The registry reloads after an install: the ERP answers nothing. */
  reloading (database: string): boolean { return (this.#databases.get(database)?.reloadingUntil ?? 0) > Date.now() }

  /** What /web/health answers for the pod's configured database (undefined: none configured). */
  healthy (database: string | undefined): boolean {
    return database === undefined || (this.initialised(database) && !this.reloading(database))
  }

  /** ir.module.module search_read with a domain `[]`, `[['name', 'in', names]]` or `[['id', 'in', ids]]`. */
  searchRead (database: string, domain: unknown): Array<{ id: number, name: string, state: string }> {
    const clause = Array.isArray(domain) ? domain[0] : undefined
    const field = Array.isArray(clause) && (clause[0] === 'name' || clause[0] === 'id') && Array.isArray(clause[2]) ? clause[0] as 'name' | 'id' : undefined
    const wanted = field === undefined ? undefined : new Set((clause[2] as unknown[]).map(String))
    return [...(this.#databases.get(database)?.modules.values() ?? [])].filter((m) => wanted === undefined || (field !== undefined && wanted.has(String(m[field]))))
      .map(({ id, name, state }) => ({ id, name, state }))
  }

  /**
   * A module's state set by a test, as someone working in the ERP itself would leave it (e.g.
   * a module installed there, not through the control plane).
   */
  setModuleState (database: string, name: string, state: string): void {
    const module = this.#databases.get(database)?.modules.get(name)
    if (module !== undefined) module.state = state
  }

  /** The next uninstall in the database fails with this UserError (a module's uninstall hook that raises). */
  failNextUninstall (database: string, message: string): void {
    this.#uninstallFailures.set(database, message)
  }

  /**
   * Odoo's downstream_dependencies: the ids of the modules that depend on these, directly or through
   * others, except the uninstalled, uninstallable and `to remove` ones (its default exclude_states).
   */
  downstreamDependencies (database: string, ids: unknown): number[] {
    const db = this.#databases.get(database)
    if (db === undefined || !Array.isArray(ids)) return []
    const names = new Set([...db.modules.values()].filter((m) => ids.includes(m.id)).map((m) => m.name))
    const found = new Set<string>()
    let grew = true
    while (grew) {
      grew = false
      for (const module of db.modules.values()) {
        if (names.has(module.name) || found.has(module.name) || ['uninstalled', 'uninstallable', 'to remove'].includes(module.state)) continue
        if (module.dependencies.some((dependency) => names.has(dependency) || found.has(dependency))) { found.add(module.name); grew = true }
      }
    }
    return [...found].map((name) => db.modules.get(name)?.id ?? 0)
  }

  /**
   * button_immediate_uninstall, as real Odoo 17: refuses the server-wide modules and a module that is
   * not installed (UserError, the message answered); else the module and every module that depends on
   * it go `to remove`, the uninstall takes `installMs`, then `uninstalled`, then the registry reload.
   */
  async uninstall (database: string, ids: unknown): Promise<string | undefined> {
    const db = this.#databases.get(database)
    if (db === undefined) return undefined
    const failure = this.#uninstallFailures.get(database)
    if (failure !== undefined) {
      this.#uninstallFailures.delete(database)
      return failure
    }
    const wanted = [...db.modules.values()].filter((m) => Array.isArray(ids) && ids.includes(m.id))
    const serverWide = wanted.filter((m) => SERVER_WIDE.includes(m.name)).map((m) => m.name)
    if (serverWide.length > 0) return facts.fault.serverWideUninstall.message.replace('{modules}', serverWide.join(', '))
    if (wanted.some((m) => m.state !== 'installed' && m.state !== 'to upgrade')) return facts.fault.alreadyUninstalled.message
    const removed = [...wanted.map((m) => m.name), ...this.downstreamDependencies(database, ids).map((id) => [...db.modules.values()].find((m) => m.id === id)?.name ?? '')]
    for (const name of removed) Object.assign(db.modules.get(name) ?? {}, { state: 'to remove' })
    await new Promise((resolve) => setTimeout(resolve, this.#installMs))
    for (const name of removed) Object.assign(db.modules.get(name) ?? {}, { state: 'uninstalled' })
    db.reloadingUntil = Date.now() + this.#reloadMs
    await new Promise((resolve) => setTimeout(resolve, this.#reloadMs))
    return undefined
  }

  /** button_immediate_install: the modules and their missing dependencies go `to install`, then installed, then the reload. */
  async install (database: string, ids: unknown): Promise<boolean> {
    const db = this.#databases.get(database)
    if (db === undefined) return false
    const wanted = [...db.modules.values()].filter((m) => Array.isArray(ids) && ids.includes(m.id))
    const closure = new Set<string>()
    const add = (name: string): void => {
      const module = db.modules.get(name)
      if (module === undefined || module.state === 'installed' || closure.has(name)) return
      closure.add(name)
      for (const dependency of module.dependencies) add(dependency)
    }
    for (const module of wanted) add(module.name)
    for (const name of closure) Object.assign(db.modules.get(name) ?? {}, { state: 'to install' })
    await new Promise((resolve) => setTimeout(resolve, this.#installMs))
    for (const name of closure) Object.assign(db.modules.get(name) ?? {}, { state: 'installed' })
    db.reloadingUntil = Date.now() + this.#reloadMs
    await new Promise((resolve) => setTimeout(resolve, this.#reloadMs))
    return true
  }
}

const asObject = (value: unknown): JsonObject => (isObject(value) ? value : {})

/** Whether the pod template's readiness probe reads Odoo's health path (a tcpSocket probe passes whenever the port listens). */
export function probesHealth (template: JsonObject): boolean {
  const spec = asObject(template.spec)
  const container = asObject((Array.isArray(spec.containers) ? spec.containers : [])[0])
  return asObject(asObject(container.readinessProbe).httpGet).path === HEALTH_PATH
}

/** The database a pod template's ERP serves: `db_name` of the odoo.conf in one of its Secret volumes. */
export function configuredDatabase (template: JsonObject, secret: (name: string) => JsonObject | undefined): string | undefined {
  const spec = asObject(template.spec)
  for (const volume of (Array.isArray(spec.volumes) ? spec.volumes : []).map(asObject)) {
    const name = asObject(volume.secret).secretName
    if (typeof name !== 'string') continue
    for (const value of Object.values(asObject(secret(name)?.data))) {
      const match = /^\s*db_name\s*=\s*(\S+)\s*$/m.exec(Buffer.from(String(value), 'base64').toString('utf8'))
      if (match?.[1] !== undefined) return match[1]
    }
  }
  return undefined
}

/**
 * The database and version of a finished upgrade Job: `odoo -d <db> -u … --stop-after-init` from an
 * image whose tag is the version (`registry/erp:18.0` → 18.0). Undefined for any other Job.
 */
export function upgradedBy (template: JsonObject): { database: string, version: string } | undefined {
  const spec = asObject(template.spec)
  const container = asObject((Array.isArray(spec.containers) ? spec.containers : [])[0])
  const words = [...(Array.isArray(container.command) ? container.command : []), ...(Array.isArray(container.args) ? container.args : [])].map(String)
  const d = words.indexOf('-d')
  const database = d >= 0 ? words[d + 1] : undefined
  if (!words.includes('--stop-after-init') || !words.includes('-u') || database === undefined) return undefined
  return { database, version: String(container.image ?? '').split(':').at(-1) ?? '' }
}

/**
 * The databases a finished Job filled: `odoo -d <db> -i … --stop-after-init`; a restore's staged
 * RESTORE_DATABASE and the instance's own database (ERP_DATABASE of its database Secret), which the
 * control plane puts the staged one in place of once the Job succeeded.
 */
export function databasesFilledBy (template: JsonObject, secret: (name: string) => JsonObject | undefined): string[] {
  const spec = asObject(template.spec)
  const container = asObject((Array.isArray(spec.containers) ? spec.containers : [])[0])
  const words = [...(Array.isArray(container.command) ? container.command : []), ...(Array.isArray(container.args) ? container.args : [])].map(String)
  const d = words.indexOf('-d')
  if (words.includes('--stop-after-init') && words.includes('-i') && d >= 0 && words[d + 1] !== undefined) return [words[d + 1] ?? '']
  const staged = (Array.isArray(container.env) ? container.env : []).map(asObject).find((e) => e.name === 'RESTORE_DATABASE')?.value
  if (typeof staged !== 'string') return []
  const own = (Array.isArray(container.envFrom) ? container.envFrom : []).map((from) => asObject(secret(String(asObject(asObject(from).secretRef).name))?.data).ERP_DATABASE)
    .filter((value) => typeof value === 'string').map((value) => Buffer.from(String(value), 'base64').toString('utf8'))
  return [staged, ...own]
}
