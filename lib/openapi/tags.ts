/**
 * The OpenAPI document's tags, in the order a front-end developer reads them:
 * Swagger UI lists operations by this order, Redoc by the groups. Every route's
 * tag must be one of these (test/openapi/openapi.test.ts): a new tag goes here,
 * with its description, in its group.
 */
export const TAG_GROUPS = [
  {
    name: 'Account',
    tags: {
      auth: 'Sign up, log in and out, and who is signed in. `POST /api/login` (or `/api/signup`) answers the bearer token every portal route takes.',
      dashboard: 'Everything the portal\'s home page shows, in one call.',
      activity: 'The company\'s activity feed: every change, with who made it (a person, an agent or the system).',
      settings: 'Company details and notification preferences.'
    }
  },
  {
    name: 'Instances',
    tags: {
      instances: 'ERP instances: create, list, start, stop, restart and delete them; poll their status; read their logs (and follow the live log stream) and metrics.',
      backups: 'Backups of an instance: take, list, download (a tar archive, resumable with `Range`), restore, and the daily schedule with its retention.',
      'instance modules': 'ERP modules assigned to an instance, and installing them.',
      'instance users': 'The users inside an instance\'s ERP, and inviting people to it.'
    }
  },
  {
    name: 'Billing',
    tags: {
      plans: 'The plan catalog (public), the trial plan and the plan recommendation with its price quote.',
      subscription: 'Choosing a plan, subscribing, confirming a payment and the current subscription.',
      payments: 'Payment confirmations: the providers\' webhooks and the sandbox\'s pay button.'
    }
  },
  {
    name: 'Team',
    tags: {
      users: 'The company\'s portal users and their roles (admin or user).',
      invitations: 'Inviting people to the company: send, resend, cancel, and the public look-up and accept of an invitation link.'
    }
  },
  {
    name: 'Support',
    tags: {
      tickets: 'The company\'s support tickets and their threads.',
      support: 'Support staff\'s routes, across companies: they take the `X-Support-Token` credential, not a portal token.'
    }
  },
  {
    name: 'Catalog',
    tags: {
      modules: 'The catalog of installable ERP modules (public), with the company\'s own synced modules on request.',
      'addon-sources': 'Git repositories of the company\'s own ERP addon modules, synced into its addons storage.'
    }
  },
  {
    name: 'Integrations',
    tags: {
      webhooks: 'Signed HTTPS callbacks to the company\'s own systems when instances, backups, restores, modules, addon sources, invitations, subscriptions or tickets change; delivery log, redelivery and a test ping.'
    }
  },
  {
    name: 'Agents',
    tags: {
      agents: 'The AI agents a person has allowed to act for them (OAuth grants): list them, change what each may do (level and instances), read what each did (its tool calls), revoke.',
      mcp: 'The MCP endpoint agents call (OAuth access token with scope `mcp`); not for a portal front end.'
    }
  },
  {
    name: 'Plumbing',
    tags: {
      oauth: 'The OAuth 2.1 authorization server, its metadata and the sign-in and consent pages: called by agents\' OAuth clients and browsers, not by a portal front end. ' +
        'Their CORS preflights (OPTIONS) are not listed.',
      health: 'Liveness, readiness and the service\'s own Prometheus metrics, for the platform that runs the service.'
    }
  }
] as const satisfies ReadonlyArray<{ name: string, tags: Record<string, string> }>

/** The `tags` of the document: every tag with its description, in reading order. */
export const TAGS = TAG_GROUPS.flatMap((group) => Object.entries(group.tags).map(([name, description]) => ({ name, description })))

/** Redoc's (and Redocly's) grouping of the tags: `x-tagGroups`. */
export const X_TAG_GROUPS = TAG_GROUPS.map((group) => ({ name: group.name, tags: Object.keys(group.tags) }))
