/**
 * One module install through the ERP, decided by the module's state in the ERP and not by whether
 * the install call answered. Odoo installs, then reloads its registry before it answers: from
 * seconds to minutes (account: more than two), and nothing answers during the reload. A call
 * that gets no answer is therefore "unknown": the module's state is read back (again and again
 * while the ERP reloads) until it is installed, is not being installed any more, or the bound
 * (ERP_INSTALL_TIMEOUT_SECONDS) passes.
 */
import type { OdooAdapter, OdooModule } from '../../../provisioning/erp/odoo-adapter.ts'
import { ErpDatabaseNotInitialised, ErpFault, ErpUnreachable } from '../../../provisioning/erp/odoo-rpc.ts'

/** Odoo's states of a module whose install (or upgrade) was asked and is not finished. */
const IN_PROGRESS = new Set(['to install', 'to upgrade'])

export interface InstallBounds {
  /** The whole install: the call, then the read-back. */
  timeoutMs: number
  /** Pause between two reads of the module's state. */
  pollMs: number
}

/** The call got no answer and the module is not being installed: the job asks again. */
class InstallDidNotHappen extends ErpUnreachable {
  override name = 'InstallDidNotHappen'
}

export const pause = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

/** A call that got no answer, which may be answered later (not an uninitialised database). */
export function noAnswer (error: unknown): boolean {
  return error instanceof ErpUnreachable && !(error instanceof ErpDatabaseNotInitialised)
}

/**
 * Resolves once the module is installed. Throws the ERP's fault (final), or ErpUnreachable when it
 * is still unknown at the bound or the install did not happen (retried by the job).
 */
export async function installModule (erp: OdooAdapter, module: OdooModule, bounds: InstallBounds): Promise<void> {
  const deadline = Date.now() + bounds.timeoutMs
  if (module.state === 'installed') return
  if (!IN_PROGRESS.has(module.state)) {
    try {
      await erp.installModule(module.id, bounds.timeoutMs)
      return
    } catch (error) {
      if (!noAnswer(error)) throw error
    }
  }
  let unknown: unknown
  do {
    try {
      const [now] = await erp.listModules([module.name])
      if (now?.state === 'installed') return
      if (now?.state === 'uninstallable') throw new ErpFault('odoo.exceptions.UserError', `The ERP cannot install ${module.name}: it is not installable`)
      if (now === undefined || !IN_PROGRESS.has(now.state)) {
        throw new InstallDidNotHappen(`The ERP did not answer the install of ${module.name}, and the module is ${now?.state ?? 'gone'}: the install did not happen`)
      }
      unknown = new ErpUnreachable(`The install of ${module.name} was still running after ${Math.round(bounds.timeoutMs / 1000)} s`)
    } catch (error) {
      if (!noAnswer(error) || error instanceof InstallDidNotHappen) throw error
      unknown = error
    }
    if (Date.now() < deadline) await pause(bounds.pollMs)
  } while (Date.now() < deadline)
  throw unknown
}
