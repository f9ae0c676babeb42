/**
 * One module uninstall through the ERP, decided like an install (module-install.ts) by the
 * module's state in the ERP and not by whether the call answered: Odoo marks the module (and every
 * installed module that depends on it) `to remove`, removes them, then reloads its registry and
 * answers nothing meanwhile. A call without an answer is "unknown": the state is read back until
 * the module is `uninstalled`, is not being removed any more, or the bound passes.
 */
import type { OdooAdapter, OdooModule } from '../../../provisioning/erp/odoo-adapter.ts'
import { ErpUnreachable } from '../../../provisioning/erp/odoo-rpc.ts'
import { noAnswer, pause, type InstallBounds } from './module-install.ts'

/** Odoo's states of a module that is not installed (nothing to uninstall). */
export const NOT_INSTALLED = new Set(['uninstalled', 'uninstallable'])

/** The call got no answer and the module is not being removed: the job asks again. */
class UninstallDidNotHappen extends ErpUnreachable {
  override name = 'UninstallDidNotHappen'
}

/**
 * Resolves once the module is uninstalled (or gone from the ERP). Throws the ERP's fault (final),
 * or ErpUnreachable when it is still unknown at the bound or the uninstall did not happen (retried).
 */
export async function uninstallModule (erp: OdooAdapter, module: OdooModule, bounds: InstallBounds): Promise<void> {
  const deadline = Date.now() + bounds.timeoutMs
  if (NOT_INSTALLED.has(module.state)) return
  if (module.state !== 'to remove') {
    try {
      await erp.uninstallModule(module.id, bounds.timeoutMs)
      return
    } catch (error) {
      if (!noAnswer(error)) throw error
    }
  }
  let unknown: unknown
  do {
    try {
      const [now] = await erp.listModules([module.name])
      if (now === undefined || NOT_INSTALLED.has(now.state)) return
      if (now.state !== 'to remove') {
        throw new UninstallDidNotHappen(`The ERP did not answer the uninstall of ${module.name}, and the module is ${now.state}: the uninstall did not happen`)
      }
      unknown = new ErpUnreachable(`The uninstall of ${module.name} was still running after ${Math.round(bounds.timeoutMs / 1000)} s`)
    } catch (error) {
      if (!noAnswer(error) || error instanceof UninstallDidNotHappen) throw error
      unknown = error
    }
    if (Date.now() < deadline) await pause(bounds.pollMs)
  } while (Date.now() < deadline)
  throw unknown
}
