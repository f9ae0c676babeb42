import { Type } from 'typebox'

/** What the authorization server answers on failure (RFC 6749 5.2), not the portal's envelope. */
export const OAuthError = Type.Object({
  error: Type.String({ description: 'e.g. invalid_request, invalid_grant, invalid_client_metadata, invalid_redirect_uri' }),
  error_description: Type.Optional(Type.String())
}, { description: 'OAuth error' })

/** A JSON document of the authorization server (metadata, JWKS, client, tokens). */
export const OAuthDocument = Type.Object({}, { additionalProperties: true, description: 'As RFC 8414 / 7517 / 7591 / 6749 define it' })

export const Redirect = Type.Null({ description: 'A redirect (Location header) or an HTML page' })
