import { defineEntity, p } from '@mikro-orm/core'
import { timestamp } from '../database/columns.ts'

/**
 * Everything oidc-provider stores (sessions, interactions, grants, codes,
 * refresh tokens, registered clients), one row per model instance, written by
 * the auth server's PostgreSQL adapter. Defined here for the migrations only:
 * the adapter speaks SQL, not the ORM.
 */
const OidcPayloadSchema = defineEntity({
  name: 'OidcPayload',
  tableName: 'oidc_payloads',
  properties: {
    kind: p.string().length(40).primary(),
    id: p.string().length(255).primary(),
    payload: p.json<Record<string, unknown>>(),
    grantId: p.string().length(255).nullable().index(),
    uid: p.string().length(255).nullable().index(),
    userCode: p.string().length(255).nullable(),
    expiresAt: timestamp().nullable().index(),
    consumedAt: timestamp().nullable()
  }
})

export class OidcPayload extends OidcPayloadSchema.class {}
OidcPayloadSchema.setClass(OidcPayload)
