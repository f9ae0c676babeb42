import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, identityPrimaryKey } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

/**
 * The audit trail of agents: one row per MCP tool call (mcp/tool-audit.ts),
 * read by `GET /api/oauth/grants/:id/calls`, deleted after
 * AGENT_CALL_RETENTION_DAYS. `arguments` is a summary with secrets removed.
 */
const AgentToolCallSchema = defineEntity({
  name: 'AgentToolCall',
  tableName: 'agent_tool_calls',
  // A grant's calls newest first (by the call's time: batched reads are inserted after later writes), and its last call.
  indexes: [{ properties: ['grantId', 'createdAt', 'id'] }, { properties: ['createdAt'] }],
  properties: {
    id: identityPrimaryKey(),
    tenant: () => p.manyToOne(Tenant),
    grantId: p.string().length(255),
    clientId: p.string().length(255),
    clientName: p.string().length(200),
    userId: p.uuid(),
    tool: p.string().length(100),
    arguments: p.json<Record<string, unknown>>(),
    /** `ok`, or the error code the agent got. */
    outcome: p.string().length(64),
    durationMs: p.integer(),
    createdAt: createdAt()
  }
})

export class AgentToolCall extends AgentToolCallSchema.class {}
AgentToolCallSchema.setClass(AgentToolCall)
