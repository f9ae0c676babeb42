import { Type } from 'typebox'
import { PRINTABLE_PATTERN } from '../lib/storable-text.ts'
import { Id, ref, Success } from './common.ts'

/**
 * An authorization transaction, as the handoff and the login page take it: no control characters (NUL
 * included) and no lone surrogates, since it goes into a URL (encodeURIComponent throws on a lone
 * surrogate), into a page and into PostgreSQL. Empty on the login page means "only sign in".
 */
const TransactionText = (minLength: number, description: string) =>
  Type.String({ minLength, maxLength: 255, pattern: PRINTABLE_PATTERN, description })

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

export const Grant = Type.Object({
  id: Type.String({ description: 'Grant id (from the authorization server)' }),
  client_id: Type.String(),
  client_name: Type.String({ description: 'The name the agent registered with (its client id if it gave none)' }),
  created_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When its newest token was issued; null if none is left' })
}, { $id: 'Grant' })

export const GrantListResponse = Success({ grants: Type.Array(ref(Grant)) }, { $id: 'GrantListResponse' })

export const GrantIdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9_-]+$', description: 'Grant id' })
})

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

export const HtmlPage = Type.String({ description: 'An HTML page' })
