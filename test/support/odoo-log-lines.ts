/**
 * Log lines as Odoo 17 writes them (all on stderr): its own logger's prefix, and werkzeug's access
 * line for each request, the health check's included (`"GET /web/health HTTP/1.1" 200 - <queries>
 * <query time> <other time>`).
 */
const prefix = (second: number, logger: string): string =>
  `2026-11-28 10:00:${String(second % 60).padStart(2, '0')},123 7 INFO erp_acme ${logger}: `

/** The access line of one request. */
export const accessLine = (second: number, path: string, status = 200, method = 'GET'): string =>
  `${prefix(second, 'werkzeug')}127.0.0.1 - - [28/Nov/2026 10:00:${String(second % 60).padStart(2, '0')}] "${method} ${path} HTTP/1.1" ${status} - 2 0.001 0.003`

/** A passed health check's access line (Docker's curl, or the kubelet's probe). */
export const healthLine = (second: number, status = 200): string => accessLine(second, '/web/health', status)

/** A line of the ERP's own. */
export const eventLine = (name: string): string => `${prefix(0, 'odoo.modules.loading')}${name}`

/** `events` ERP lines, each followed by `per` passed health checks: what a quiet ERP's log looks like. */
export function quietErpLog (events: number, per = 3): { lines: string[], events: string[] } {
  const lines: string[] = []
  const names: string[] = []
  for (let i = 1; i <= events; i++) {
    const line = eventLine(`event ${i}`)
    names.push(line)
    lines.push(line)
    for (let j = 0; j < per; j++) lines.push(healthLine(i * 10 + j))
  }
  return { lines, events: names }
}
