/**
 * What the service reads from an upgrade command's output (docs/upgrades.md): its last lines, and
 * the modules that failed. As Odoo 17 logs them (seen on the real server):
 *
 * - an update that fails stops at its first failing module and exits 255 with
 *   `ERROR <db> odoo.modules.registry: Failed to load registry`, which names no module: the module
 *   is the one of the last `INFO <db> odoo.modules.loading: Loading module <name> (n/N)` before it;
 * - a module whose Python code does not import: `CRITICAL <db> odoo.modules.module: Couldn't load module <name>`;
 * - an installed module the ERP cannot find (not in its addons path) is skipped and the command
 *   still exits 0, with `ERROR <db> odoo.modules.loading: Some modules have inconsistent states, some
 *   dependencies may be missing: ['<name>', …]`: the module is left half-updated (`modulesLeftBehind`).
 */

/** How many lines of output the record keeps. */
export const LOG_TAIL_LINES = 50
const LOG_TAIL_CHARS = 8000

const LOADING = /\bodoo\.modules\.loading: Loading module ([a-z][a-z0-9_]*) \(/
const REGISTRY_FAILED = /\bERROR\b.*\bodoo\.modules\.registry: Failed to load registry/
const NOT_IMPORTED = /\bCRITICAL\b.*\bodoo\.modules\.module: Couldn't load module ([a-z][a-z0-9_]*)/
const INCONSISTENT = /\bERROR\b.*\bodoo\.modules\.loading: Some modules have inconsistent states, some dependencies may be missing: \[([^\]]*)\]/

export function logTail (output: string): string {
  const lines = output.replace(/\r\n/g, '\n').trimEnd().split('\n')
  return lines.slice(-LOG_TAIL_LINES).join('\n').slice(-LOG_TAIL_CHARS)
}

const namesIn = (list: string): string[] => [...list.matchAll(/'([a-z][a-z0-9_]*)'/g)].map((match) => match[1]!)

/** The modules the output reports as failed, once each, in the order seen. */
export function failedModules (output: string): string[] {
  const found: string[] = []
  const add = (name: string | undefined) => { if (name !== undefined && !found.includes(name)) found.push(name) }
  let loading: string | undefined
  for (const line of output.split('\n')) {
    const started = LOADING.exec(line)
    if (started !== null) loading = started[1]
    else if (REGISTRY_FAILED.test(line)) add(loading)
    else add(NOT_IMPORTED.exec(line)?.[1])
    for (const name of namesIn(INCONSISTENT.exec(line)?.[1] ?? '')) add(name)
  }
  return found
}

/** Modules an update that exited 0 left half-done (the ERP could not load them): not a success. */
export function modulesLeftBehind (output: string): string[] {
  return output.split('\n').flatMap((line) => namesIn(INCONSISTENT.exec(line)?.[1] ?? ''))
}
