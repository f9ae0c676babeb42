import { defineEntity, p } from '@mikro-orm/core'
import { updatedAt } from '../../../database/columns.ts'
import { AGENT_LEVELS } from '../../../lib/agent-access.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { User } from '../users/user.entity.ts'

/**
 * What a person lets one connected agent do (lib/agent-access.ts): the level
 * and, optionally, the only instances it may see. One row per OAuth grant
 * (`grant_id` is the Grant's id in oidc_payloads), written at consent and by
 * `PUT /api/oauth/grants/:id`; read by /api/mcp on every request in the
 * statement that checks the grant. A grant without a row is read only.
 */
const GrantAccessSchema = defineEntity({
  name: 'GrantAccess',
  tableName: 'oauth_grant_access',
  properties: {
    grantId: p.string().length(255).primary(),
    tenant: () => p.manyToOne(Tenant),
    user: () => p.manyToOne(User),
    level: p.enum(() => [...AGENT_LEVELS]),
    /** Instance ids; null means every instance of the company. */
    instanceIds: p.json<number[]>().nullable(),
    updatedAt: updatedAt()
  }
})

export class GrantAccess extends GrantAccessSchema.class {}
GrantAccessSchema.setClass(GrantAccess)
