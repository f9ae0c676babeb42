/**
 * One security scheme per credential. A route names its own through its auth
 * mode (`config.auth`, lib/route-auth.ts securityOf), never by hand.
 */
export function securitySchemes (baseUrl: string, options: { metricsRoute: boolean }) {
  const schemes = {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'Portal token: the `token` of POST /api/login or /api/signup, as `Authorization: Bearer <token>`. It names a server-side session: a logout ends it at once.'
    },
    mcpOAuth: {
      type: 'oauth2',
      description: 'Agent token, for /api/mcp: an access token from this service\'s OAuth 2.1 authorization server (public clients, PKCE S256), as `Authorization: Bearer <token>`',
      flows: {
        authorizationCode: {
          authorizationUrl: `${baseUrl}/oauth/authorize`,
          tokenUrl: `${baseUrl}/oauth/token`,
          refreshUrl: `${baseUrl}/oauth/token`,
          scopes: { mcp: 'Act for the signed-in person in their company through MCP tools' }
        }
      }
    },
    streamToken: {
      type: 'apiKey',
      in: 'query',
      name: 'token',
      description: 'Live log stream token: the `token` of GET /api/instances/{id}/logs/stream-token, good for that instance\'s stream only, for a minute (an EventSource sends no header)'
    },
    downloadToken: {
      type: 'apiKey',
      in: 'query',
      name: 'token',
      description: 'Backup download token: the `token` of POST …/backups/{backup_id}/download-token, good for that backup\'s download only (a browser link sends no header)'
    },
    supportToken: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Support-Token',
      description: 'Support staff: the SUPPORT_API_TOKEN setting, for the /api/support routes only'
    },
    metricsToken: {
      type: 'http',
      scheme: 'bearer',
      description: 'For GET /metrics: the METRICS_TOKEN setting, as `Authorization: Bearer <token>`'
    }
  } as const
  // GET /metrics exists on the main port only with METRICS_TOKEN set and no METRICS_PORT (routes/metrics.ts): no route, no scheme.
  if (options.metricsRoute) return schemes
  const { metricsToken: _unused, ...others } = schemes
  return others
}
