import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'

export interface SignedUp {
  token: string
  user: { id: string, tenant_id: string, email: string, role: string }
  password: string
  email: string
  subdomain: string
}

let counter = 0

/** Signs a fresh company up through the real route and returns its admin session. */
export async function signup (app: FastifyInstance, overrides: Record<string, string> = {}): Promise<SignedUp> {
  const suffix = `${process.pid}-${++counter}-${randomBytes(3).toString('hex')}`
  const body = {
    company: `Company ${suffix}`,
    subdomain: `co-${suffix}`.toLowerCase().slice(0, 40),
    name: `Admin ${suffix}`,
    email: `admin-${suffix}@example.com`,
    password: 'correct horse battery staple',
    ...overrides
  }
  const response = await app.inject({ method: 'POST', url: '/api/signup', payload: body, remoteAddress: `10.9.${counter % 250}.${(counter * 7) % 250}` })
  if (response.statusCode !== 201) throw new Error(`signup failed: ${response.statusCode} ${response.body}`)
  const json = response.json()
  return { token: json.token, user: json.user, password: body.password, email: body.email, subdomain: body.subdomain }
}

export function bearer (token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` }
}

/**
 * Adds a member to an existing tenant straight through the ORM (not through
 * the users routes under test) and logs them in through the real login route.
 */
export async function addMember (
  app: FastifyInstance,
  tenantId: string,
  options: { role?: 'admin' | 'user', name?: string } = {}
): Promise<SignedUp> {
  const { hashPassword } = await import('../../plugins/app/auth/password.ts')
  const { User } = await import('../../plugins/app/users/user.entity.ts')
  const { Tenant } = await import('../../plugins/app/tenants/tenant.entity.ts')
  const suffix = `${process.pid}-${++counter}-${randomBytes(3).toString('hex')}`
  const email = `member-${suffix}@example.com`
  const password = 'member password 1234'
  const em = app.orm.em.fork()
  em.create(User, {
    tenant: em.getReference(Tenant, tenantId),
    email,
    name: options.name ?? `Member ${suffix}`,
    role: options.role ?? 'user',
    active: true,
    passwordHash: await hashPassword(password),
    lastLoginAt: null
  })
  await em.flush()
  const response = await app.inject({ method: 'POST', url: '/api/login', payload: { login: email, password }, remoteAddress: `10.8.${counter % 250}.1` })
  if (response.statusCode !== 200) throw new Error(`member login failed: ${response.body}`)
  const json = response.json()
  return { token: json.token, user: json.user, password, email, subdomain: '' }
}
