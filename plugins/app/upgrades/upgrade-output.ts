/**
 * What the service reads from an upgrade command's output (docs/upgrades.md): its last lines, and
 * the modules it reported as failing. The ERP logs a module that fails to load or update on an
 * `ERROR` line naming it, e.g. `… ERROR db odoo.modules.loading: module sale_custom: …` or
 * `… ERROR db odoo.modules.registry: Failed to load module stock_extra`; every module name that
 * follows the word `module` on an ERROR line is taken, once, in the order seen.
 */

/** How many lines of output the record keeps. */
export const LOG_TAIL_LINES = 50
const LOG_TAIL_CHARS = 8000

const ERROR_LINE = /\bERROR\b/
const MODULE = /\bmodules?[:\s]+['"]?([a-z][a-z0-9_]*)/gi

export function logTail (output: string): string {
  const lines = output.replace(/\r\n/g, '\n').trimEnd().split('\n')
  return lines.slice(-LOG_TAIL_LINES).join('\n').slice(-LOG_TAIL_CHARS)
}

export function failedModules (output: string): string[] {
  const found: string[] = []
  for (const line of output.split('\n')) {
    if (!ERROR_LINE.test(line)) continue
    for (const match of line.matchAll(MODULE)) {
      const name = match[1]
      if (name !== undefined && !found.includes(name)) found.push(name)
    }
  }
  return found
}
