/** The kinds of value the environment variables take, with the words the docs and messages use. */
import { Type } from 'typebox'

export const port = (fallback: number, description: string) => Type.Integer({ minimum: 1, maximum: 65535, default: fallback, description, examples: [fallback] })
/** The auth server's port when AUTH_PORT is unset and it runs on its own (`npm run auth`, AUTH_SERVER_PROCESS=false). */
export const STANDALONE_AUTH_PORT = 3001
/** A port with no fixed default: unset, the service picks a free one (see the description). */
export const optionalPort = (example: number, description: string) => Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description, examples: [example] }))
export const seconds = (minimum: number, maximum: number, fallback: number, description: string) =>
  Type.Integer({ minimum, maximum, default: fallback, description })
export const atLeastOne = (fallback: number, description: string) => Type.Integer({ minimum: 1, default: fallback, description })
export const httpUrl = (description: string, example: string) => Type.Optional(Type.String({
  format: 'uri', pattern: '^https?://', allowed: 'an http:// or https:// URL', description, examples: [example]
}))
export const postgresUrl = (description: string, example: string) => Type.Optional(Type.String({
  pattern: '^postgres(ql)?://', allowed: 'a postgres:// or postgresql:// connection URL', description, examples: [example]
}))
export const secret = (description: string) => Type.Optional(Type.String({
  minLength: 32, secret: true, allowed: 'at least 32 characters (e.g. `openssl rand -base64 32`)', description, examples: ['$(openssl rand -base64 32)']
}))
export const absolutePath = (fallback: string, description: string) => Type.String({ pattern: '^/', allowed: 'an absolute path (starting with /)', default: fallback, description })
/** A `*_ALLOWED_HOSTS` setting of the outbound guard (lib/outbound-url.ts). */
export const allowedHosts = (description: string, example: string) => Type.String({
  default: '', pattern: '^[A-Za-z0-9.:\\[\\], -]*$', allowed: 'host names, comma-separated', description, examples: [example]
})
/** A Kubernetes object name (DNS-1123 subdomain). */
export const kubeName = (description: string, example: string) => ({
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
  maxLength: 253,
  allowed: 'a Kubernetes object name: lowercase letters, digits, - and .',
  description,
  examples: [example]
})
