// Shared with tools/ (the agent's OAuth flow in tools/support/oauth-agent.ts), which may not import from test/.
export * from '../../tools/support/cookie-browser.ts'
