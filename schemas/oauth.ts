import { Type } from 'typebox'
import { PRINTABLE_PATTERN } from '../lib/storable-text.ts'
import { BigInt53, Id, Int4, PageInfo, Pagination, ref, Success } from './common.ts'

/**
 * An authorization transaction, as the handoff and the login page take it: no control characters (NUL
 * included) and no lone surrogates, since it goes into a URL (encodeURIComponent throws on a lone
 * surrogate), into a page and into PostgreSQL. Empty on the login page means "only sign in".
 */
const TransactionText = (minLength: number, description: string) =>
  Type.String({ minLength, maxLength: 255, pattern: PRINTABLE_PATTERN, 'x-pattern-message': 'must not contain control characters or lone surrogates', description })

const Transaction = TransactionText(1, 'The authorization transaction (interaction id) the auth server sent the person to the login page with')
const PageTransaction = TransactionText(0, 'Set by the auth server; without it the page only signs in. No control characters, no lone surrogates.')
const HandoffCode = Type.String({ minLength: 1, maxLength: 128, description: 'A one-time handoff code (43 characters, base64url)' })

export const HandoffBody = Type.Object({ oauth_transaction: Transaction }, { additionalProperties: false })

export const HandoffResponse = Success({
  handoff_code: Type.String({ description: 'Single use, valid for HANDOFF_TTL_SECONDS (60 s by default)' }),
  redirect_url: Type.String({ description: '`{BASE_URL}/oauth/handoff?oauth_transaction=…&handoff_code=…`: send the browser there' })
})

export const HandoffConsumeHeaders = Type.Object({
  'x-oauth-handoff-secret': Type.Optional(Type.String({ description: 'HANDOFF_SECRET (or the key derived from JWT_SECRET when unset)' }))
})

export const HandoffConsumeBody = Type.Object({ code: HandoffCode }, { additionalProperties: false })

export const HandoffIdentityResponse = Success({
  user: Type.Object({
    id: Id,
    email: Type.String(),
    name: Type.String(),
    tenant_id: Id,
    tenant_name: Type.String(),
    role: Type.Union([Type.Literal('admin'), Type.Literal('user')])
  }),
  oauth_transaction: Type.String({ description: 'The transaction the code was minted for; the auth server checks it matches' })
})

const AgentLevelSchema = Type.Union([Type.Literal('read'), Type.Literal('operate'), Type.Literal('administer')], {
  description: 'What the agent may do: `read` (read only), `operate` (read, plus start/stop/restart, backups, tickets, module installs, addon syncs), `administer` (everything the person may do)'
})

const InstanceIds = Type.Union([
  Type.Array(BigInt53({ minimum: 1 }), { maxItems: 1000, description: 'The only instances the agent may see' }),
  Type.Null({ description: 'Every instance of the company' })
])

export const Grant = Type.Object({
  id: Type.String({ description: 'Grant id (from the authorization server)' }),
  client_id: Type.String(),
  client_name: Type.String({ description: 'The name the agent registered with (its client id if it gave none)' }),
  created_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it last called a tool; null if it never did' }),
  last_token_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When its newest token was issued; null if none is left' }),
  level: AgentLevelSchema,
  instance_ids: InstanceIds
}, { $id: 'Grant' })

export const GrantListQuery = Pagination
export const GrantListResponse = Success({ grants: Type.Array(ref(Grant), { description: 'Newest first' }), pagination: ref(PageInfo) }, { $id: 'GrantListResponse' })

export const GrantIdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9_-]+$', 'x-pattern-message': 'must contain only letters, digits, hyphens and underscores', description: 'Grant id' })
})

export const GrantAccessBody = Type.Object({
  level: AgentLevelSchema,
  instance_ids: Type.Optional(InstanceIds)
}, { additionalProperties: false })

export const GrantResponse = Success({ grant: ref(Grant) }, { $id: 'GrantResponse' })

export const GrantCallsQuery = Pagination

export const AgentCall = Type.Object({
  id: BigInt53({ minimum: 1 }),
  tool: Type.String({ description: 'The MCP tool called' }),
  arguments: Type.Record(Type.String(), Type.Unknown(), { description: 'A summary of the arguments; passwords, tokens and keys are replaced by "[redacted]"' }),
  outcome: Type.String({ description: '`ok`, or the error code the agent got (e.g. AGENT_LEVEL_TOO_LOW, INSTANCE_NOT_FOUND)' }),
  duration_ms: Int4({ minimum: 0, description: 'How long the call took, in milliseconds' }),
  client_id: Type.String(),
  client_name: Type.String(),
  created_at: Type.String({ format: 'date-time' })
}, { $id: 'AgentCall' })

export const GrantCallsResponse = Success({ calls: Type.Array(ref(AgentCall)), total: Int4({ minimum: 0, description: 'Calls recorded for this grant (all pages); the same as `pagination.total` (kept from before `pagination`)' }), pagination: ref(PageInfo) }, { $id: 'GrantCallsResponse' })

export const ProtectedResourceMetadata = Type.Object({
  resource: Type.String(),
  authorization_servers: Type.Array(Type.String()),
  scopes_supported: Type.Array(Type.String()),
  bearer_methods_supported: Type.Array(Type.String())
}, { description: 'RFC 9728 protected resource metadata for the MCP endpoint' })

/** The login form (application/x-www-form-urlencoded); the page explains what is missing. */
export const LoginPageQuery = Type.Object({
  oauth_transaction: Type.Optional(PageTransaction)
})

export const LoginForm = Type.Object({
  email: Type.Optional(Type.String({ maxLength: 254 })),
  password: Type.Optional(Type.String({ maxLength: 256 })),
  csrf: Type.Optional(Type.String({ maxLength: 128, description: 'The hidden field the page sets' })),
  oauth_transaction: Type.Optional(PageTransaction)
})

/** The login page's second step, for a person with a second factor: `code` holds a TOTP code or a recovery code. */
export const LoginSecondStepForm = Type.Object({
  challenge: Type.Optional(Type.String({ maxLength: 64, description: 'The hidden field the page sets: the login challenge' })),
  code: Type.Optional(Type.String({ maxLength: 64, description: 'A 6-digit code of the authenticator app, or a recovery code' })),
  csrf: Type.Optional(Type.String({ maxLength: 128, description: 'The hidden field the page sets' })),
  oauth_transaction: Type.Optional(PageTransaction)
})

export const HtmlPage = Type.String({ description: 'An HTML page' })
