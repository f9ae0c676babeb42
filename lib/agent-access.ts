import type { UserRole } from '../plugins/app/users/user.entity.ts'

/**
 * How much a person lets an agent do: chosen at consent, stored with the grant
 * (plugins/app/oauth/grant-access.entity.ts), changed in the portal. The
 * levels nest: read ⊂ operate ⊂ administer. `mcp` stays the only OAuth
 * scope; the level is a property of the grant, not of the token.
 */
export const AGENT_LEVELS = ['read', 'operate', 'administer'] as const
export type AgentLevel = typeof AGENT_LEVELS[number]

/** What each level lets an agent do, in the words the consent page and errors use. */
export const LEVEL_WORDS: Record<AgentLevel, { label: string, allows: string }> = {
  read: {
    label: 'Read only',
    allows: 'read your instances, their status, metrics, logs and backups list, your support tickets, the module catalog and the dashboard; it cannot change anything'
  },
  operate: {
    label: 'Operate',
    allows: 'everything Read only allows, plus start, stop and restart instances, take backups, open and reply to support tickets, install modules and sync addon sources'
  },
  administer: {
    label: 'Administer',
    allows: 'everything you may do yourself, including deleting instances, restoring a backup over one, deleting backups, uninstalling modules, inviting and removing users, changing roles, registering addon sources and subscribing to plans'
  }
}

/** The grant's choice: a level, and optionally the only instances the agent may see. */
export interface AgentAccess {
  level: AgentLevel
  /** null: every instance of the company. */
  instanceIds: number[] | null
}

const rank = (level: AgentLevel) => AGENT_LEVELS.indexOf(level)

export function isAgentLevel (value: unknown): value is AgentLevel {
  return typeof value === 'string' && (AGENT_LEVELS as readonly string[]).includes(value)
}

/** The highest level a person's role lets them give: a member's agent never administers. */
export function levelCap (role: UserRole): AgentLevel {
  return role === 'admin' ? 'administer' : 'operate'
}

/** The lower of two levels. */
export function lowerLevel (a: AgentLevel, b: AgentLevel): AgentLevel {
  return rank(a) <= rank(b) ? a : b
}

export function levelAllows (granted: AgentLevel, needed: AgentLevel): boolean {
  return rank(granted) >= rank(needed)
}

/** What the grant allows now: its level, capped by the person's current role (a demoted admin's agent drops too). */
export function effectiveLevel (access: AgentAccess, role: UserRole): AgentLevel {
  return lowerLevel(access.level, levelCap(role))
}

/** Whether an instance is within the grant's instances (always, when the grant names none). */
export function instanceAllowed (access: AgentAccess | undefined, instanceId: number | string): boolean {
  if (access?.instanceIds == null) return true
  return access.instanceIds.includes(Number(instanceId))
}
