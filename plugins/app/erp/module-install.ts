/**
 * One module install through the ERP, settled by the module's state (module-change.ts): Odoo
 * installs, then reloads its registry before it answers, and nothing answers meanwhile.
 */
import type { OdooAdapter, OdooModule } from '../../../provisioning/erp/odoo-adapter.ts'
import { ErpFault } from '../../../provisioning/erp/odoo-rpc.ts'
import { settleModuleChange, type InstallBounds } from './module-change.ts'

export type { InstallBounds } from './module-change.ts'

/** Odoo's states of a module whose install (or upgrade) was asked and is not finished. */
const IN_PROGRESS = new Set(['to install', 'to upgrade'])

/**
 * Resolves once the module is installed. Throws the ERP's fault (final), or ErpUnreachable when it
 * is still unknown at the bound or the install did not happen (retried by the job).
 */
export async function installModule (erp: OdooAdapter, module: OdooModule, bounds: InstallBounds): Promise<void> {
  await settleModuleChange((names) => erp.listModules(names), module, {
    verb: 'install',
    done: (now) => now?.state === 'installed',
    underWay: IN_PROGRESS,
    ask: () => erp.installModule(module.id, bounds.timeoutMs),
    refusal: (now) => now.state === 'uninstallable'
      ? new ErpFault('odoo.exceptions.UserError', `The ERP cannot install ${module.name}: it is not installable`)
      : undefined
  }, bounds)
}
