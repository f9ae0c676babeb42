import { defineEntity, p } from '@mikro-orm/core'
import { timestamp } from '../database/columns.ts'

/**
 * The authorization server's RS256 signing keys, sealed (keys-seal.ts), in one row that every
 * replica reads. Defined here for the migrations only: keys-row.ts speaks SQL, not the ORM.
 */
const SigningKeySetSchema = defineEntity({
  name: 'SigningKeySet',
  tableName: 'oidc_signing_keys',
  properties: {
    name: p.string().length(40).primary(),
    sealed: p.text(),
    updatedAt: timestamp()
  }
})

export class SigningKeySet extends SigningKeySetSchema.class {}
SigningKeySetSchema.setClass(SigningKeySet)
