import type { UserActor } from './actor.ts'
import { effectiveLevel, instanceAllowed, LEVEL_WORDS, levelAllows, levelCap, type AgentLevel } from './agent-access.ts'
import { defineError, Forbidden } from './errors.ts'
import { InstanceNotFound } from '../plugins/app/instances/instances.errors.ts'

/**
 * The one declaration of which agent level each capability needs, named by
 * its MCP tool (the agent's only way in). A new tool must be listed here, or
 * the tool registry refuses to start (mcp/tool-registry.ts).
 */
export const AGENT_CAPABILITIES = {
  // Read only: everything an agent can read.
  whoami: 'read',
  get_dashboard: 'read',
  list_activity: 'read',
  list_instances: 'read',
  get_instance: 'read',
  get_instance_status: 'read',
  get_instance_metrics: 'read',
  get_instance_logs: 'read',
  list_backups: 'read',
  get_backup: 'read',
  get_backup_schedule: 'read',
  list_instance_modules: 'read',
  list_instance_users: 'read',
  list_modules: 'read',
  list_plans: 'read',
  get_subscription: 'read',
  get_plan_recommendation: 'read',
  list_addon_sources: 'read',
  list_tickets: 'read',
  get_ticket: 'read',
  list_users: 'read',
  list_upgrades: 'read',
  get_upgrade: 'read',
  // Operate: day-to-day running of what exists.
  start_instance: 'operate',
  stop_instance: 'operate',
  restart_instance: 'operate',
  create_backup: 'operate',
  create_ticket: 'operate',
  reply_to_ticket: 'operate',
  install_module: 'operate',
  sync_addon_source: 'operate',
  // Administer: what creates, destroys, costs money or changes who has access.
  create_instance: 'administer',
  delete_instance: 'administer',
  restore_backup: 'administer',
  restore_backup_as_new_instance: 'administer',
  create_staging_copy: 'administer',
  refresh_staging_copy: 'administer',
  upgrade_instance: 'administer',
  delete_backup: 'administer',
  set_backup_schedule: 'administer',
  add_addon_source: 'administer',
  invite_user: 'administer',
  invite_instance_user: 'administer',
  uninstall_module: 'administer'
} as const satisfies Record<string, AgentLevel>

export type AgentCapability = keyof typeof AGENT_CAPABILITIES

export const AgentLevelTooLow = defineError('AGENT_LEVEL_TOO_LOW', 'This agent is not allowed to do that', 403)

export function capabilityLevel (capability: string): AgentLevel | undefined {
  return (AGENT_CAPABILITIES as Record<string, AgentLevel>)[capability]
}

/** Whether the actor may use a capability: people always (their role rules apply in the services), agents up to their grant's level. */
export function mayUse (actor: UserActor, capability: string): boolean {
  if (actor.kind !== 'agent') return true
  const needed = capabilityLevel(capability)
  if (needed === undefined) return false
  return levelAllows(effectiveLevel(actor.access ?? { level: 'read', instanceIds: null }, actor.role), needed)
}

/**
 * Throws AGENT_LEVEL_TOO_LOW, naming the level needed and how the person raises it, when the agent's
 * grant does not allow the capability; FORBIDDEN when the person's role does not either.
 */
export function assertMayUse (actor: UserActor, capability: string): void {
  if (mayUse(actor, capability)) return
  const needed = capabilityLevel(capability) ?? 'administer'
  // Beyond what the person's own role may do: the role refuses, as the service would, and no
  // level the person could give would help.
  if (!levelAllows(levelCap(actor.role), needed)) throw Forbidden(`${capability} is for administrators; an agent cannot do more than the person who connected it`)
  const granted = actor.access === undefined ? 'read' : effectiveLevel(actor.access, actor.role)
  throw AgentLevelTooLow(
    `${capability} needs the "${LEVEL_WORDS[needed].label}" level; this agent was given "${LEVEL_WORDS[granted].label}". ` +
    'Only the person who connected it can raise that, in the portal: Connected agents (PUT /api/oauth/grants/<id>).',
    { needed, granted }
  )
}

/** Instance-bound capabilities: another instance than the grant's answers the same not-found as another company's. */
export function assertInstanceVisible (actor: UserActor, instanceId: number | string): void {
  if (actor.kind === 'agent' && !instanceAllowed(actor.access, instanceId)) throw InstanceNotFound()
}

/** Whether the actor is an agent whose grant names the instances it may see (people and unrestricted agents see all). */
export function seesSomeInstances (actor: UserActor): boolean {
  return actor.kind === 'agent' && actor.access?.instanceIds != null
}

/** A list narrowed to the grant's instances (unchanged for people and unrestricted agents). */
export function visibleInstances<T> (actor: UserActor, rows: T[], idOf: (row: T) => number | string): T[] {
  if (!seesSomeInstances(actor)) return rows
  return rows.filter((row) => instanceAllowed(actor.access, idOf(row)))
}
