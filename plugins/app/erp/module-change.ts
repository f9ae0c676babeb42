/**
 * One module change through the ERP (an install or an uninstall), decided by the module's state in
 * the ERP and not by whether the call answered. Odoo makes the change, then reloads its registry
 * before it answers: from seconds to minutes (account: more than two), and nothing answers during
 * the reload. A call that gets no answer is therefore "unknown": the module's state is read back
 * (again and again while the ERP reloads) until the change is done, is not under way any more, or
 * the bound (ERP_INSTALL_TIMEOUT_SECONDS) passes.
 */
import type { OdooModule } from '../../../provisioning/erp/odoo-adapter.ts'
import { ErpDatabaseNotInitialised, ErpUnreachable } from '../../../provisioning/erp/odoo-rpc.ts'

export interface InstallBounds {
  /** The whole change: the call, then the read-back. */
  timeoutMs: number
  /** Pause between two reads of the module's state. */
  pollMs: number
}

/** What one kind of change is, in the ERP's module states. */
export interface ModuleChange {
  /** `install`, `uninstall`: for messages. */
  verb: string
  /** The module (undefined: gone from the ERP) is as the change leaves it. */
  done: (module: OdooModule | undefined) => boolean
  /** States of a module whose change was asked and is not finished. */
  underWay: ReadonlySet<string>
  /** Asks the ERP for the change. */
  ask: () => Promise<unknown>
  /** A state that settles the change as a failure of the ERP's own (thrown as it is). */
  refusal?: (module: OdooModule) => Error | undefined
}

/** The call got no answer and the change is not under way: the job asks again. */
class ChangeDidNotHappen extends ErpUnreachable {
  override name = 'ChangeDidNotHappen'
}

export const pause = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

/** A call that got no answer, which may be answered later (not an uninitialised database). */
export function noAnswer (error: unknown): boolean {
  return error instanceof ErpUnreachable && !(error instanceof ErpDatabaseNotInitialised)
}

/**
 * Resolves once the change is done. Throws the ERP's fault (final), or ErpUnreachable when it is
 * still unknown at the bound or the change did not happen (retried by the job).
 */
export async function settleModuleChange (
  listModules: (names: string[]) => Promise<OdooModule[]>, module: OdooModule, change: ModuleChange, bounds: InstallBounds
): Promise<void> {
  const deadline = Date.now() + bounds.timeoutMs
  if (change.done(module)) return
  if (!change.underWay.has(module.state)) {
    try {
      await change.ask()
      return
    } catch (error) {
      if (!noAnswer(error)) throw error
    }
  }
  let unknown: unknown
  do {
    try {
      const [now] = await listModules([module.name])
      if (change.done(now)) return
      const refused = now === undefined ? undefined : change.refusal?.(now)
      if (refused !== undefined) throw refused
      if (now === undefined || !change.underWay.has(now.state)) {
        throw new ChangeDidNotHappen(`The ERP did not answer the ${change.verb} of ${module.name}, and the module is ${now?.state ?? 'gone'}: the ${change.verb} did not happen`)
      }
      unknown = new ErpUnreachable(`The ${change.verb} of ${module.name} was still running after ${Math.round(bounds.timeoutMs / 1000)} s`)
    } catch (error) {
      if (!noAnswer(error) || error instanceof ChangeDidNotHappen) throw error
      unknown = error
    }
    if (Date.now() < deadline) await pause(bounds.pollMs)
  } while (Date.now() < deadline)
  throw unknown
}
