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
