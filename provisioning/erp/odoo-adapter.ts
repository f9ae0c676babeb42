/**
 * One ERP instance seen through Odoo's external API (odoo-rpc.ts): its users, its modules, and
 * the one-time change of the administrator's default password. Every call authenticates with
 * the generated administrator password; the API is stateless, so nothing is cached.
 */
import { callOdoo, ErpFault, type RpcTarget } from './odoo-rpc.ts'

/** Odoo's administrator: login `admin`, user id 2, password `admin` in a fresh database. */
export const ODOO_ADMIN = { login: 'admin', uid: 2, defaultPassword: 'admin' } as const

export interface OdooUser {
  id: number
  login: string
  name: string
  email: string | null
  active: boolean
  groupIds: number[]
}

export interface OdooModule {
  id: number
  name: string
  state: string
}

export interface OdooInstance extends RpcTarget {
  database: string
  /** The generated administrator password. */
  adminPassword: string
}

/** The instance answers the default administrator password although the generated one was set. */
export class DefaultPasswordAnswers extends ErpFault {
  constructor () {
    super('control-plane.DefaultPassword', 'The instance accepts the default administrator password admin/admin again: its database was replaced or reset')
  }
}

/** Odoo answers `false` where a many2one or a char field is empty. */
const orNull = (value: unknown): string | null => typeof value === 'string' && value !== '' ? value : null

export function createOdooAdapter (instance: OdooInstance) {
  const execute = async (model: string, method: string, args: unknown[], kwargs: Record<string, unknown> = {}): Promise<unknown> =>
    callOdoo(instance, 'object', 'execute_kw', [instance.database, ODOO_ADMIN.uid, instance.adminPassword, model, method, args, kwargs])
  const authenticate = async (password: string): Promise<number | false> =>
    await callOdoo(instance, 'common', 'authenticate', [instance.database, ODOO_ADMIN.login, password, {}]) as number | false

  return {
    /**
     * First contact: when the generated password already works, nothing to do; else log in with
     * another password the database may hold (a restored one's), or admin/admin, and write the
     * generated password on uid 2, then check that it took and that the default no longer
     * answers. Safe to repeat after a failure at any step. The likeliest passwords are tried
     * first: Odoo refuses every login from an address (ours) for a minute after 5 failures in a row.
     */
    async setAdminPassword (formerPasswords: readonly string[] = []): Promise<void> {
      if (await authenticate(instance.adminPassword) === ODOO_ADMIN.uid) return
      let current: string | undefined
      for (const candidate of [...formerPasswords, ODOO_ADMIN.defaultPassword]) {
        if (await authenticate(candidate) === ODOO_ADMIN.uid) { current = candidate; break }
      }
      if (current === undefined) throw new ErpFault('odoo.exceptions.AccessDenied', 'The instance accepts neither its generated administrator password nor the default one')
      const uid = ODOO_ADMIN.uid
      try {
        await callOdoo(instance, 'object', 'execute_kw', [instance.database, uid, current, 'res.users', 'write', [[uid], { password: instance.adminPassword }]])
      } catch (error) {
        // A concurrent first contact (the post-start job, a request) set it between our two calls.
        if (!(error instanceof ErpFault && error.accessDenied) || await authenticate(instance.adminPassword) !== ODOO_ADMIN.uid) throw error
        return
      }
      if (await authenticate(instance.adminPassword) !== ODOO_ADMIN.uid) throw new ErpFault('odoo.exceptions.AccessDenied', 'The instance did not take the generated administrator password')
      if (await authenticate(ODOO_ADMIN.defaultPassword) !== false) throw new DefaultPasswordAnswers()
    },

    /**
     * Checks the generated password before a call. When it fails, an instance that answers
     * admin/admin is reported as such (its database was reset), not as a plain access error.
     */
    async checkAdmin (): Promise<void> {
      if (await authenticate(instance.adminPassword) === ODOO_ADMIN.uid) return
      if (await authenticate(ODOO_ADMIN.defaultPassword) !== false) throw new DefaultPasswordAnswers()
      throw new ErpFault('odoo.exceptions.AccessDenied', 'The instance rejects its generated administrator password')
    },

    async listUsers (): Promise<OdooUser[]> {
      const rows = await execute('res.users', 'search_read', [[]], { fields: ['login', 'name', 'email', 'active', 'groups_id'], order: 'id' }) as Array<Record<string, unknown>>
      return rows.map((row) => ({
        id: Number(row.id),
        login: String(row.login),
        name: String(row.name),
        email: orNull(row.email),
        active: row.active === true,
        groupIds: Array.isArray(row.groups_id) ? row.groups_id.map(Number) : []
      }))
    },

    /** Ids of groups by their external ids (`base.group_user`), through ir.model.data. */
    async groupIds (xmlIds: readonly string[]): Promise<Map<string, number>> {
      const found = new Map<string, number>()
      const byModule = Map.groupBy(xmlIds, (xmlId) => xmlId.split('.')[0] ?? '')
      for (const [module, ids] of byModule) {
        const rows = await execute('ir.model.data', 'search_read', [[['module', '=', module], ['model', '=', 'res.groups'], ['name', 'in', ids.map((id) => id.split('.')[1])]]], { fields: ['name', 'res_id'] }) as Array<{ name: string, res_id: number }>
        for (const row of rows) found.set(`${module}.${row.name}`, row.res_id)
      }
      return found
    },

    async findUserByLogin (login: string): Promise<OdooUser | undefined> {
      const rows = await execute('res.users', 'search_read', [[['login', '=', login], ['active', 'in', [true, false]]]], { fields: ['login', 'name', 'email', 'active', 'groups_id'] }) as Array<Record<string, unknown>>
      const row = rows[0]
      return row === undefined ? undefined : { id: Number(row.id), login: String(row.login), name: String(row.name), email: orNull(row.email), active: row.active === true, groupIds: (row.groups_id as number[]) ?? [] }
    },

    /**
     * The groups of Odoo's default user template (`base.default_user`): what Odoo gives a user
     * created without groups, and not one created with them. None when the ERP has no template.
     */
    async defaultUserGroupIds (): Promise<number[]> {
      const [template] = await execute('ir.model.data', 'search_read', [[['module', '=', 'base'], ['name', '=', 'default_user'], ['model', '=', 'res.users']]], { fields: ['res_id'] }) as Array<{ res_id: number }>
      if (template === undefined) return []
      const [row] = await execute('res.users', 'read', [[template.res_id]], { fields: ['groups_id'] }) as Array<{ groups_id?: unknown }>
      return Array.isArray(row?.groups_id) ? row.groups_id.map(Number) : []
    },

    /** `groups` are many2many commands, e.g. `[[4, id]]` (link) and `[3, id]` (unlink). */
    async createUser (values: { login: string, name: string, email: string, groups: unknown[] }): Promise<number> {
      return Number(await execute('res.users', 'create', [{ login: values.login, name: values.name, email: values.email, groups_id: values.groups }]))
    },

    /** Many2many commands on the user's groups: `(4, id)` and `(3, id)` change only those groups. */
    async writeUserGroups (userId: number, groups: unknown[]): Promise<void> {
      await execute('res.users', 'write', [[userId], { groups_id: groups }])
    },

    /**
     * Odoo's `web.base.url` (the address in the links of its own e-mails and reports), which stays
     * `http://localhost:8069` in a new database until set. Answers the value it replaced.
     */
    async setBaseUrl (url: string): Promise<string | false> {
      return await execute('ir.config_parameter', 'set_param', ['web.base.url', url]) as string | false
    },

    async listModules (names?: readonly string[]): Promise<OdooModule[]> {
      const domain = names === undefined ? [] : [['name', 'in', names]]
      return await execute('ir.module.module', 'search_read', [domain], { fields: ['name', 'state'] }) as OdooModule[]
    },

    /** Rescans the addons path for new modules (Odoo's "Update Apps List"). */
    async updateModuleList (): Promise<void> {
      await execute('ir.module.module', 'update_list', [])
    },

    /**
     * Odoo installs the module and its dependencies, then reloads its registry before it answers:
     * from seconds to minutes, so the call has its own bound (`timeoutMs`, else the instance's).
     * Past it, the install may still be running or done: read the module's state back.
     */
    async installModule (moduleId: number, timeoutMs?: number): Promise<void> {
      await callOdoo({ ...instance, timeoutMs: timeoutMs ?? instance.timeoutMs }, 'object', 'execute_kw',
        [instance.database, ODOO_ADMIN.uid, instance.adminPassword, 'ir.module.module', 'button_immediate_install', [[moduleId]], {}])
    },

    /**
     * The installed modules that depend on this one, directly or through others: Odoo's own
     * `downstream_dependencies` (the modules its uninstall would take along), read back by name.
     */
    async moduleDependents (moduleId: number): Promise<OdooModule[]> {
      const ids = await execute('ir.module.module', 'downstream_dependencies', [[moduleId]]) as number[]
      if (!Array.isArray(ids) || ids.length === 0) return []
      return await execute('ir.module.module', 'search_read', [[['id', 'in', ids]]], { fields: ['name', 'state'], order: 'name' }) as OdooModule[]
    },

    /**
     * Odoo uninstalls the module and every installed module that depends on it, then reloads its
     * registry before it answers, like an install: the call has its own bound, and past it the
     * module's state is read back.
     */
    async uninstallModule (moduleId: number, timeoutMs?: number): Promise<void> {
      await callOdoo({ ...instance, timeoutMs: timeoutMs ?? instance.timeoutMs }, 'object', 'execute_kw',
        [instance.database, ODOO_ADMIN.uid, instance.adminPassword, 'ir.module.module', 'button_immediate_uninstall', [[moduleId]], {}])
    },

    async upgradeModule (moduleId: number): Promise<void> {
      await execute('ir.module.module', 'button_immediate_upgrade', [[moduleId]])
    }
  }
}

export type OdooAdapter = ReturnType<typeof createOdooAdapter>
