import fp from 'fastify-plugin'
import { createToolCallAuditTrail, type ToolCallAuditTrail } from '../../../mcp/read-audit-buffer.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The audit trail of MCP tool calls (mcp/read-audit-buffer.ts); `flush()` writes the queued read calls now. */
    mcpAudit: ToolCallAuditTrail
  }
}

/**
 * Records /api/mcp's tool calls in agent_tool_calls: successful reads batched
 * (MCP_AUDIT_FLUSH_MS), the rest at once. At the app's root, not in the route
 * plugin, so that tests and shutdown reach `flush`; what is queued is written when
 * the app closes (before server.ts closes the pool).
 */
export default fp(async (fastify) => {
  const { config } = fastify
  const trail = createToolCallAuditTrail({
    sql: fastify.sql,
    reads: config.MCP_AUDIT_READS,
    flushMs: config.MCP_AUDIT_FLUSH_MS,
    log: fastify.log.child({ component: 'mcp-audit' })
  })
  fastify.decorate('mcpAudit', trail)
  fastify.addHook('onClose', async () => trail.close())
}, { name: 'mcp-audit', dependencies: ['orm', 'env'] })
