import { defineEntity, p } from '@mikro-orm/core'
import { timestamp } from '../../../database/columns.ts'

/**
 * Revoked JWT access tokens, by `jti`, kept until they would have expired
 * anyway: a JWT cannot be recalled, so /api/mcp refuses the ones listed here.
 */
const RevokedTokenSchema = defineEntity({
  name: 'RevokedToken',
  tableName: 'oauth_revoked_tokens',
  properties: {
    jti: p.string().length(255).primary(),
    expiresAt: timestamp().index()
  }
})

export class RevokedToken extends RevokedTokenSchema.class {}
RevokedTokenSchema.setClass(RevokedToken)
