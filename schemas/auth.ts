import { Type } from 'typebox'
import { SUBDOMAIN_PATTERN, SUBDOMAIN_RULE } from '../lib/subdomains.ts'
import { Id, Int4, ref, Success } from './common.ts'

const Email = Type.String({ format: 'email', maxLength: 254, description: 'E-mail address; it is also the login' })
/**
 * The password rules, stated once: sign-up, invitations, changes and resets all
 * take this, and the services check the same rules (assertPasswordPolicy).
 */
export const PASSWORD_RULE = 'At least 10 characters (at most 256), not the e-mail address nor its part before the @'
export const Password = Type.String({ minLength: 10, maxLength: 256, description: PASSWORD_RULE })

/** The tenant's subdomain: the same DNS-label rule as an instance's (lib/subdomains.ts). */
export const Subdomain = Type.String({
  minLength: 3,
  maxLength: 40,
  pattern: SUBDOMAIN_PATTERN,
  'x-pattern-message': `must be ${SUBDOMAIN_RULE}`,
  description: `DNS label: ${SUBDOMAIN_RULE}; not reserved (www, api, admin, portal, mail, …)`
})

export const SignupBody = Type.Object({
  company: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', 'x-pattern-message': 'must not be blank', description: 'Company (tenant) name' }),
  subdomain: Subdomain,
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', 'x-pattern-message': 'must not be blank', description: 'Full name of the first administrator' }),
  email: Email,
  password: Password
}, { additionalProperties: false })

export const LoginBody = Type.Object({
  login: Type.String({ minLength: 1, maxLength: 254, description: 'The e-mail address the account was created with' }),
  password: Type.String({ minLength: 1, maxLength: 256 })
}, { additionalProperties: false })

export const PortalUser = Type.Object({
  id: Id,
  name: Type.String(),
  login: Type.String({ description: 'Same as email' }),
  email: Type.String(),
  is_admin: Type.Boolean(),
  role: Type.Union([Type.Literal('admin'), Type.Literal('user')]),
  tenant_id: Id
}, { $id: 'PortalUser', description: 'The signed-in portal user' })

export const LoginResponse = Success({
  token: Type.String({ description: 'Bearer token for the Authorization header' }),
  token_type: Type.Literal('Bearer'),
  expires_in: Int4({ description: 'Seconds until the token expires' }),
  user: ref(PortalUser)
}, { $id: 'LoginResponse', description: 'A new portal session' })

export const MeResponse = Success({ user: ref(PortalUser) }, { $id: 'MeResponse' })
