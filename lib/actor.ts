import type { UserRole } from '../plugins/app/users/user.entity.ts'
import type { AgentAccess } from './agent-access.ts'

/**
 * Who is acting. REST requests act as a portal user, MCP calls as an agent on
 * behalf of a user, background jobs as the system. Services take an actor and
 * make their role checks against it, so every entry point shares the rules.
 */
export interface UserActor {
  kind: 'user' | 'agent'
  userId: string
  tenantId: string
  role: UserRole
  email: string
  name: string
  /** The portal session (REST) or OAuth grant (agent) the request rides on. */
  sessionId: string
  /** For agents: the OAuth client's name, recorded in the activity feed. */
  clientName?: string
  /** For agents: the OAuth client's id. */
  clientId?: string
  /**
   * For agents: what the person lets this agent do (lib/agent-access.ts), read
   * from the grant on every request. Capped by `role` where it is checked.
   */
  access?: AgentAccess
}

export interface SystemActor {
  kind: 'system'
  tenantId: string
  job: string
}

export type Actor = UserActor | SystemActor
