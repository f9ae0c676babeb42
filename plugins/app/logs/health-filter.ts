/**
 * Instance logs without the health check's own lines. The ERP writes an access line for every
 * probe of its health check (Odoo: `"GET /web/health HTTP/1.1" 200` on stderr, every 10 s), which
 * would bury what the company looks for in a tail. Both backends' logs pass through here, the
 * recorded tail (REST, MCP, a stream's resume) and the live stream alike; a failing check stays.
 */
import type { LogBackend } from '../../../provisioning/log-backend.ts'
import { isPassedHealthCheck } from '../../../provisioning/log-lines.ts'

/** Most lines read from a backend to find the last `tail` lines that are not health checks. */
const MAX_SCANNED_LINES = 100_000

/** The paths the health checks probe: the Kubernetes probes' path and the URL in the Docker check's command. */
export function healthCheckPaths (config: { ERP_HEALTH_PATH: string, ERP_HEALTHCHECK: string }): string[] {
  const paths = new Set([config.ERP_HEALTH_PATH])
  for (const match of config.ERP_HEALTHCHECK.matchAll(/https?:\/\/[^\s/'"]+(\/[^\s'"?;&|]*)/g)) if (match[1] !== undefined) paths.add(match[1])
  return [...paths]
}

export function withoutHealthChecks (backend: LogBackend, paths: readonly string[]): LogBackend {
  const kept = (line: { line: string }): boolean => !isPassedHealthCheck(line.line, paths)
  return {
    async readLogs (ref, options) {
      if (options.tail <= 0) return (await backend.readLogs(ref, options))?.filter(kept)
      // The backend cuts the tail before the filter: ask for more until `tail` lines are left, or there are no more.
      for (let asked = options.tail; ; asked = Math.min(asked * 4, MAX_SCANNED_LINES)) {
        const lines = await backend.readLogs(ref, { ...options, tail: asked })
        if (lines === undefined) return undefined
        const left = lines.filter(kept)
        if (left.length >= options.tail || lines.length < asked || asked >= MAX_SCANNED_LINES) return left.slice(-options.tail)
      }
    },

    async followLogs (ref, since, handlers) {
      return await backend.followLogs(ref, since, { ...handlers, line: (line) => { if (kept(line)) handlers.line(line) } })
    }
  }
}
