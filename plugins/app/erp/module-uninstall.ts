/**
 * One module uninstall through the ERP, settled like an install by the module's state
 * (module-change.ts): Odoo marks the module (and every installed module that depends on it)
 * `to remove`, removes them, then reloads its registry and answers nothing meanwhile.
 */
import type { OdooAdapter, OdooModule } from '../../../provisioning/erp/odoo-adapter.ts'
import { settleModuleChange, type InstallBounds } from './module-change.ts'

/** Odoo's states of a module that is not installed (nothing to uninstall). */
export const NOT_INSTALLED = new Set(['uninstalled', 'uninstallable'])

/**
 * Resolves once the module is uninstalled (or gone from the ERP). Throws the ERP's fault (final),
 * or ErpUnreachable when it is still unknown at the bound or the uninstall did not happen (retried).
 */
export async function uninstallModule (erp: OdooAdapter, module: OdooModule, bounds: InstallBounds): Promise<void> {
  await settleModuleChange((names) => erp.listModules(names), module, {
    verb: 'uninstall',
    done: (now) => now === undefined || NOT_INSTALLED.has(now.state),
    underWay: new Set(['to remove']),
    ask: () => erp.uninstallModule(module.id, bounds.timeoutMs)
  }, bounds)
}
