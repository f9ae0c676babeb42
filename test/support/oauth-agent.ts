// The agent's OAuth flow is shared with tools/mcp-conformance.ts, which may not import from test/.
export * from '../../tools/support/oauth-agent.ts'
