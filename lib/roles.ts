import type { Actor } from './actor.ts'
import { Forbidden } from './errors.ts'

/**
 * Admin-only actions. Lives beside the services (not in routes) so REST, MCP
 * and jobs share it. System jobs act with full rights inside their tenant.
 */
export function requireAdmin (actor: Actor, action: string): void {
  if (actor.kind === 'system' || actor.role === 'admin') return
  throw Forbidden(`Only administrators can ${action}`)
}
