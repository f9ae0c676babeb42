import { UniqueConstraintViolationException } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import { ACROSS_TENANTS } from '../../../database/tenancy.ts'
import { isReservedSubdomain } from '../../../lib/subdomains.ts'
import { normalizeEmail } from '../../../lib/email.ts'
import { assertPasswordPolicy, hashPassword } from '../auth/password.ts'
import { User } from '../users/user.entity.ts'
import { Tenant } from './tenant.entity.ts'
import { EmailTaken, SubdomainReserved, SubdomainTaken } from './tenants.errors.ts'

export interface RegisterTenantInput {
  company: string
  subdomain: string
  name: string
  email: string
  password: string
}

export function createTenantsService () {
  /**
   * Creates a tenant and its first administrator in one transaction. Uniqueness
   * is checked up front for a clear answer and enforced by the database for
   * races: two signups for the same subdomain create exactly one tenant.
   */
  async function registerTenant (em: EntityManager, input: RegisterTenantInput): Promise<{ tenant: Tenant, admin: User }> {
    const subdomain = input.subdomain.trim().toLowerCase()
    const email = normalizeEmail(input.email)
    if (isReservedSubdomain(subdomain)) throw SubdomainReserved(`The subdomain "${subdomain}" is reserved`, { field: 'subdomain' })
    assertPasswordPolicy(input.password, email)

    const [subdomainTaken, emailTaken] = await Promise.all([
      em.count(Tenant, { subdomain }, ACROSS_TENANTS),
      em.count(User, { email }, ACROSS_TENANTS)
    ])
    if (subdomainTaken > 0) throw SubdomainTaken(`The subdomain "${subdomain}" is already taken`, { field: 'subdomain' })
    if (emailTaken > 0) throw EmailTaken(undefined, { field: 'email' })

    const passwordHash = await hashPassword(input.password)
    try {
      return await em.transactional(async (tx) => {
        const tenant = tx.create(Tenant, { name: input.company.trim(), subdomain, status: 'active' })
        const admin = tx.create(User, {
          tenant,
          email,
          name: input.name.trim(),
          role: 'admin',
          active: true,
          passwordHash,
          lastLoginAt: null
        })
        return { tenant, admin }
      })
    } catch (error) {
      throw mapUniqueViolation(error)
    }
  }

  return { registerTenant }
}

function mapUniqueViolation (error: unknown): unknown {
  if (!(error instanceof UniqueConstraintViolationException)) return error
  const constraint = String((error as { constraint?: string }).constraint ?? error.message)
  if (constraint.includes('tenants_subdomain')) return SubdomainTaken(undefined, { field: 'subdomain' })
  if (constraint.includes('users_email')) return EmailTaken(undefined, { field: 'email' })
  return error
}

export type TenantsService = ReturnType<typeof createTenantsService>
