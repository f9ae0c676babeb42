/** Agent access: the OAuth authorization server. */
import { Type, type TSchema } from 'typebox'
import { optionalPort, seconds, httpUrl, secret, allowedHosts, STANDALONE_AUTH_PORT } from '../schema-kinds.ts'

export const AGENTS_SECTIONS = {
  'Agent access (OAuth authorization server)': {
    AUTH_PORT: optionalPort(STANDALONE_AUTH_PORT, 'Port of the auth server, on 127.0.0.1. Unset: the auth server started by the portal takes any free port ' +
      '(so two deployments can run on one machine); `npm run auth`, and a portal with AUTH_SERVER_PROCESS=false, use 3001. A port given here that is taken stops the start.'),
    AUTH_SERVER_PROCESS: Type.Boolean({ default: true, description: '`npm start` runs the auth server as a child process; false when it is deployed on its own (`npm run auth`).' }),
    AUTH_SERVER_URL: httpUrl('Where the portal reaches an auth server deployed on its own, on another host; when set, the portal starts no auth server child. ' +
      'Default http://127.0.0.1:AUTH_PORT. Whatever the address, the portal forwards nothing until the server there names BASE_URL as its issuer.', 'http://erp-auth-server:3001'),
    AUTH_HOST: Type.String({
      minLength: 1, default: '127.0.0.1',
      description: 'Interface the auth server listens on: loopback when the portal on the same machine forwards to it; 0.0.0.0 in a container that another host reaches (AUTH_SERVER_URL).',
      examples: ['0.0.0.0']
    }),
    PORTAL_LOGIN_URL: httpUrl('Login page the auth server sends people to. Default: the built-in one under BASE_URL.', 'https://portal.example.com/login'),
    PORTAL_API_URL: httpUrl('The portal API as the auth server reaches it. Default BASE_URL.', 'http://portal.internal:3000'),
    HANDOFF_SECRET: secret('Shared by the portal and the auth server for the login handoff. Default: a key derived from JWT_SECRET.'),
    HANDOFF_TTL_SECONDS: seconds(10, 60, 60, 'Lifetime of a login handoff code.'),
    OAUTH_ACCESS_TOKEN_TTL_SECONDS: seconds(60, 86_400, 900, 'Lifetime of an agent access token.'),
    OAUTH_REFRESH_TOKEN_TTL_SECONDS: seconds(3600, 31_536_000, 2_592_000, 'Lifetime of an agent refresh token.'),
    OAUTH_REFRESH_GRACE_SECONDS: seconds(0, 300, 30, 'How long a rotated refresh token is still accepted (a retried request).'),
    CLIENT_METADATA_TIMEOUT_SECONDS: seconds(1, 8, 5, 'Bound on fetching a client metadata document (connection, headers and body); a slower one is refused with invalid_client. ' +
      'At most 8: below the 10 s the portal waits for the auth server, so a slow document never looks like an outage (502).'),
    CLIENT_METADATA_ALLOWED_HOSTS: allowedHosts('Hosts whose client metadata documents may be fetched even on private or loopback addresses (a test server on localhost); empty: public addresses only.',
      'localhost'),
    AGENT_CALL_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: 90, description: 'Days each agent tool call stays in the audit trail (GET /api/oauth/grants/:id/calls); older ones are deleted by a periodic job.' }),
    MCP_AUDIT_READS: Type.Union([Type.Literal('all'), Type.Literal('refused')], {
      default: 'all',
      description: 'Which calls of read-only MCP tools the audit trail keeps: `all`, or `refused` (only those refused or failed: a busy agent polling status then ' +
        'writes no row per poll). Calls of every other tool are always recorded.'
    }),
    MCP_AUDIT_FLUSH_MS: Type.Integer({
      minimum: 10,
      maximum: 60_000,
      default: 1000,
      description: 'How long a read-only MCP tool\'s successful call may wait in memory before it is written to the audit trail ' +
        '(with the others of that moment, as one INSERT; 200 waiting are written at once). A grant\'s `last_used_at` lags by at most this much. ' +
        'Every other call is written before the agent gets its answer.'
    }),
    MCP_PROGRESS_MAX_SECONDS: seconds(1, 55, 50, 'How long an MCP tool call that started a job (create, start, stop, restart, backup, restore, module install, addon sync) and carries a ' +
      '`progressToken` stays open, sending progress notifications, before it answers that the job is still running and which read tool to poll. ' +
      'At most 55: MCP clients give up on a request after 60 s unless progress resets their timer.')
  }
} satisfies Record<string, Record<string, TSchema>>
