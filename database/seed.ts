import { randomBytes } from 'node:crypto'
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql'
import type { AppConfig } from '../config/env.ts'
import { ACROSS_TENANTS } from './tenancy.ts'
import { seedModuleCatalog } from '../plugins/app/modules/catalog.ts'
import { seedPlans } from '../plugins/app/plans/catalog.ts'
import { Tenant } from '../plugins/app/tenants/tenant.entity.ts'
import { createTenantsService } from '../plugins/app/tenants/tenants.service.ts'
import { EmailTaken, SubdomainTaken } from '../plugins/app/tenants/tenants.errors.ts'

export interface SeedResult {
  /** Set only when this run created the demo tenant: the one time its password can be shown. */
  demoAdmin?: { email: string, password: string, generated: boolean }
}

/**
 * Reference data (the module catalog) on every start, and the demo company on
 * the first. Idempotent: safe on every start and on several replicas at
 * once (the unique constraints decide who creates what).
 */
/** The catalogs every database has, whatever else is configured: modules and plans. */
export async function seedCatalogs (em: EntityManager): Promise<void> {
  await seedModuleCatalog(em.fork())
  await seedPlans(em.fork())
}

export async function seedReferenceData (orm: MikroORM, config: AppConfig): Promise<SeedResult> {
  await seedCatalogs(orm.em)
  if (!config.SEED_DEMO) return {}
  const em = orm.em.fork()
  const existing = await em.count(Tenant, { subdomain: config.DEMO_SUBDOMAIN }, ACROSS_TENANTS)
  if (existing > 0) return {}

  const generated = config.DEMO_ADMIN_PASSWORD === undefined
  const password = config.DEMO_ADMIN_PASSWORD ?? randomBytes(12).toString('base64url')
  try {
    await createTenantsService().registerTenant(em, {
      company: config.DEMO_COMPANY,
      subdomain: config.DEMO_SUBDOMAIN,
      name: 'Demo Administrator',
      email: config.DEMO_ADMIN_EMAIL,
      password
    })
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code === SubdomainTaken.code || code === EmailTaken.code) return {}
    throw error
  }
  return { demoAdmin: { email: config.DEMO_ADMIN_EMAIL, password, generated } }
}
