/**
 * Every route of the API, classified. The matrix tests walk this table; a route
 * that is registered but not listed here (or listed but gone) fails them, so a
 * new route cannot skip the cross-tenant and role checks.
 */
/** `agent`: an OAuth access token from our authorization server, never a portal token (test/mcp). */
export type Access = 'public' | 'member' | 'admin' | 'operator' | 'agent'
export type Resource = 'user' | 'ticket' | 'invitation' | 'instance' | 'grant' | 'addon_source' | 'webhook' | 'session'

export interface RouteSpec {
  access: Access
  /** What `:id` names, for routes that take one. */
  resource?: Resource
  /** A body that passes validation, so the check under test is the one that answers. */
  body?: Record<string, unknown>
  /** Values for the path's other parameters (`:backup_id`): well-formed, so the id under test decides. */
  params?: Record<string, string>
}

const inviteBody = { email: 'matrix-invitee@example.com', name: 'Matrix Invitee', role: 'user' }

export const ROUTES: Record<string, RouteSpec> = {
  'POST /api/mcp': { access: 'agent', body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
  'GET /api/mcp': { access: 'agent' },
  'DELETE /api/mcp': { access: 'agent' },
  'POST /api/signup': { access: 'public' },
  'POST /api/login': { access: 'public' },
  'GET /api/modules': { access: 'public' },
  'GET /api/plans': { access: 'public' },
  'GET /api/demo/plan': { access: 'public' },
  'GET /api/users/invitation/:token': { access: 'public' },
  'POST /api/users/invitation/accept': { access: 'public' },
  // The authorization server's endpoints, forwarded to auth-server/ (test/routes/oauth/proxy.test.ts).
  'GET /.well-known/oauth-authorization-server': { access: 'public' },
  'OPTIONS /.well-known/oauth-authorization-server': { access: 'public' },
  'GET /.well-known/openid-configuration': { access: 'public' },
  'OPTIONS /.well-known/openid-configuration': { access: 'public' },
  'GET /.well-known/jwks.json': { access: 'public' },
  'OPTIONS /.well-known/jwks.json': { access: 'public' },
  'POST /api/oauth/register': { access: 'public' },
  'OPTIONS /api/oauth/register': { access: 'public' },
  'GET /oauth/authorize': { access: 'public' },
  'GET /oauth/authorize/:uid': { access: 'public' },
  'POST /oauth/token': { access: 'public' },
  'OPTIONS /oauth/token': { access: 'public' },
  'POST /oauth/revoke': { access: 'public' },
  'OPTIONS /oauth/revoke': { access: 'public' },
  'GET /oauth/handoff': { access: 'public' },
  'GET /oauth/consent': { access: 'public' },
  'POST /oauth/consent': { access: 'public' },
  'GET /health/live': { access: 'public' },
  'GET /health/ready': { access: 'public' },
  // Signed by the payment provider instead of a portal token (test/routes/api/payments).
  'POST /api/payments/webhook/:provider': { access: 'public' },
  // Guarded by X-OAuth-Handoff-Secret instead of a portal token (test/routes/api/oauth/handoff.test.ts).
  'POST /api/oauth/handoff/consume': { access: 'public' },
  // Opened with a stream token in the query instead of a portal token (test/routes/api/instances/instances-logs-docker.test.ts).
  'GET /api/instances/:id/logs/stream': { access: 'public' },
  // Opened with a download token in the query instead of a portal token (test/routes/api/instances/backups-download-token.test.ts).
  'GET /api/instances/:id/backups/:backup_id/download-by-token': { access: 'public' },
  'GET /.well-known/oauth-protected-resource': { access: 'public' },
  'GET /.well-known/oauth-protected-resource/api/mcp': { access: 'public' },
  'GET /login': { access: 'public' },
  'POST /login': { access: 'public' },
  'POST /login/2fa': { access: 'public' },
  'GET /invitation/accept': { access: 'public' },
  'POST /invitation/accept': { access: 'public' },
  'GET /password/forgot': { access: 'public' },
  'POST /password/forgot': { access: 'public' },
  'GET /password/reset': { access: 'public' },
  'POST /password/reset': { access: 'public' },
  'POST /api/login/2fa': { access: 'public' },
  'POST /api/login/2fa/enrol': { access: 'public' },
  'POST /api/login/2fa/enrol/verify': { access: 'public' },
  'POST /api/password/forgot': { access: 'public' },
  'POST /api/password/reset': { access: 'public' },
  'POST /api/email/confirm': { access: 'public' },
  'GET /email/confirm': { access: 'public' },
  'POST /email/confirm': { access: 'public' },

  'GET /api/me': { access: 'member' },
  'POST /api/me/password': { access: 'member', body: { current_password: 'not the password', new_password: 'another long password 1' } },
  'POST /api/me/email': { access: 'member', body: { password: 'not the password', new_email: 'new-address@example.com' } },
  'GET /api/me/sessions': { access: 'member' },
  'DELETE /api/me/sessions/:id': { access: 'member', resource: 'session' },
  'POST /api/me/sessions/revoke-others': { access: 'member' },
  'GET /api/me/2fa': { access: 'member' },
  'POST /api/me/2fa': { access: 'member' },
  'POST /api/me/2fa/verify': { access: 'member', body: { code: '123456' } },
  'POST /api/me/2fa/disable': { access: 'member', body: { code: '123456' } },
  'POST /api/me/2fa/recovery-codes': { access: 'member', body: { code: '123456' } },
  'POST /api/users/:id/sessions/revoke': { access: 'admin', resource: 'user' },
  'POST /api/users/:id/2fa/reset': { access: 'admin', resource: 'user' },
  'GET /api/webhooks': { access: 'admin' },
  'POST /api/webhooks': { access: 'admin', body: { url: 'https://hooks.example.com/erp', events: ['instance.running'] } },
  'GET /api/webhooks/:id': { access: 'admin', resource: 'webhook' },
  'PUT /api/webhooks/:id': { access: 'admin', resource: 'webhook', body: { enabled: false } },
  'DELETE /api/webhooks/:id': { access: 'admin', resource: 'webhook' },
  'POST /api/webhooks/:id/rotate-secret': { access: 'admin', resource: 'webhook' },
  'GET /api/webhooks/:id/deliveries': { access: 'admin', resource: 'webhook' },
  'POST /api/webhooks/:id/deliveries/:delivery_id/redeliver': { access: 'admin', resource: 'webhook', params: { delivery_id: '00000000-0000-4000-8000-000000000001' } },
  'POST /api/webhooks/:id/test': { access: 'admin', resource: 'webhook' },
  'POST /api/logout': { access: 'member' },
  'GET /api/activity': { access: 'member' },
  'GET /api/dashboard': { access: 'member' },
  'GET /api/subscription/recommendation': { access: 'member' },
  'GET /api/settings': { access: 'member' },
  'GET /api/users': { access: 'member' },
  'GET /api/tickets': { access: 'member' },
  'POST /api/tickets/create': { access: 'member', body: { subject: 'Matrix ticket', description: 'Text', priority: 'low' } },
  'GET /api/tickets/:id': { access: 'member', resource: 'ticket' },
  'GET /api/subscription/current': { access: 'member' },
  'POST /api/tickets/:id/reply': { access: 'member', resource: 'ticket', body: { message: 'Matrix reply' } },
  'GET /api/instances': { access: 'member' },
  'POST /api/instances/create': { access: 'member', body: { name: 'Matrix', subdomain: 'matrix-instance', erp_version: '17.0', backend: 'docker' } },
  'GET /api/instances/:id': { access: 'member', resource: 'instance' },
  'GET /api/instances/:id/status': { access: 'member', resource: 'instance' },
  'GET /api/instances/:id/metrics': { access: 'member', resource: 'instance' },
  'GET /api/instances/:id/metrics/history': { access: 'member', resource: 'instance' },
  'POST /api/instances/:id/start': { access: 'member', resource: 'instance' },
  'POST /api/instances/:id/stop': { access: 'member', resource: 'instance' },
  'POST /api/instances/:id/restart': { access: 'member', resource: 'instance' },
  'GET /api/instances/:id/logs': { access: 'member', resource: 'instance' },
  'POST /api/instances/:id/backup': { access: 'member', resource: 'instance' },
  'GET /api/instances/:id/backups': { access: 'member', resource: 'instance' },
  'GET /api/instances/:id/backups/:backup_id': { access: 'member', resource: 'instance', params: { backup_id: '1' } },
  'GET /api/instances/:id/backups/:backup_id/download': { access: 'member', resource: 'instance', params: { backup_id: '1' } },
  'GET /api/instances/:id/backup-schedule': { access: 'member', resource: 'instance' },
  'PUT /api/instances/:id/backup-schedule': { access: 'admin', resource: 'instance', body: { enabled: true, hour_utc: 2, keep_daily: 7, keep_weekly: 4 } },
  'POST /api/instances/:id/backups/:backup_id/download-token': { access: 'member', resource: 'instance', params: { backup_id: '1' } },
  'POST /api/instances/:id/backups/:backup_id/restore': { access: 'admin', resource: 'instance', params: { backup_id: '1' }, body: { mode: 'replace', confirm: 'owned' } },
  'DELETE /api/instances/:id/backups/:backup_id': { access: 'admin', resource: 'instance', params: { backup_id: '1' } },
  'GET /api/instances/:id/users': { access: 'member', resource: 'instance' },
  'POST /api/instances/:id/users/invite': { access: 'admin', resource: 'instance', body: inviteBody },
  'GET /api/instances/:id/modules': { access: 'member', resource: 'instance' },
  'POST /api/instances/:id/modules': { access: 'admin', resource: 'instance', body: { module_id: 1 } },
  'DELETE /api/instances/:id/modules/:module_id': { access: 'admin', resource: 'instance', params: { module_id: '1' } },
  'GET /api/instances/:id/logs/stream-token': { access: 'member', resource: 'instance' },
  'POST /api/oauth/handoff': { access: 'member', body: { oauth_transaction: 'matrix-transaction' } },
  'GET /api/oauth/grants': { access: 'member' },
  'DELETE /api/oauth/grants/:id': { access: 'member', resource: 'grant' },
  'PUT /api/oauth/grants/:id': { access: 'member', resource: 'grant', body: { level: 'read' } },
  'GET /api/oauth/grants/:id/calls': { access: 'member', resource: 'grant' },

  'GET /api/addon-sources': { access: 'member' },
  'GET /api/addon-sources/:id': { access: 'member', resource: 'addon_source' },
  'POST /api/addon-sources': { access: 'admin', body: { repository_url: 'https://git.example.com/acme/addons.git', branch: 'main' } },
  'PUT /api/addon-sources/:id': { access: 'admin', resource: 'addon_source', body: { branch: 'dev' } },
  'DELETE /api/addon-sources/:id': { access: 'admin', resource: 'addon_source' },
  'POST /api/addon-sources/:id/sync': { access: 'admin', resource: 'addon_source' },

  'POST /api/users/create': { access: 'admin', body: { email: 'matrix-created@example.com', name: 'Matrix', password: 'a long enough password' } },
  'DELETE /api/users/:id': { access: 'admin', resource: 'user' },
  'PUT /api/users/:id/role': { access: 'admin', resource: 'user', body: { role: 'admin' } },
  'POST /api/users/invite': { access: 'admin', body: inviteBody },
  'POST /api/users/invitation': { access: 'admin', body: inviteBody },
  'GET /api/users/invitations': { access: 'admin' },
  'POST /api/users/invitation/:id/resend': { access: 'admin', resource: 'invitation' },
  'POST /api/users/invitation/:id/cancel': { access: 'admin', resource: 'invitation' },
  'PUT /api/settings/update': { access: 'admin', body: { company: { phone: '+49 30 1234567' } } },
  'POST /api/subscription/select-plan': { access: 'admin', body: { plan_id: 1, users: 1, storage: 0, workers: 1, instances: 1, billing_cycle: 'monthly' } },
  'POST /api/subscription/subscribe': { access: 'admin', body: { plan_id: 1, billing_cycle: 'monthly' } },
  'POST /api/subscription/confirm': { access: 'admin', body: { plan_id: 1 } },
  'POST /api/subscription/demo': { access: 'admin', body: { plan_id: 1 } },
  'POST /api/payments/sandbox/pay': { access: 'admin', body: { payment_reference: 'ERP-MATRIX' } },
  'DELETE /api/instances/:id': { access: 'admin', resource: 'instance' },

  // Support staff, across tenants by design; guarded by X-Support-Token (test/routes/api/support).
  'GET /api/support/tickets': { access: 'operator' },
  'GET /api/support/tickets/:id': { access: 'operator', resource: 'ticket' },
  'POST /api/support/tickets/:id/reply': { access: 'operator', resource: 'ticket' },
  'POST /api/support/tickets/:id/close': { access: 'operator', resource: 'ticket' }
}
