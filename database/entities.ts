import { PortalSession } from '../plugins/app/auth/session.entity.ts'
import { RateLimitCounter } from '../lib/rate-limit/counter.entity.ts'
import { Tenant } from '../plugins/app/tenants/tenant.entity.ts'
import { User } from '../plugins/app/users/user.entity.ts'

/** Every entity the ORM knows. A new entity is added here and gets a migration. */
export const entities = [Tenant, User, PortalSession, RateLimitCounter]
