import { createHmac } from 'node:crypto'
import { isUuid } from '../lib/uuid.ts'

export interface ErpDatabaseNames {
  database: string
  role: string
}

/**
 * Names and passwords derive from the instance's uid (a uuid that never
 * changes), not from its integer API id, so they stay the same for an
 * instance's whole life. The lowercase hyphenated form, so that `ABC…` and
 * `abc…` name the same database and get the same password.
 */
export function canonicalInstanceId (instanceUid: string): string {
  if (!isUuid(instanceUid)) throw new TypeError(`instance uid must be a uuid, got ${JSON.stringify(instanceUid)}`)
  return instanceUid.toLowerCase()
}

/** `erp_` + the uuid's 32 hex digits: a plain lowercase identifier (36 chars, PostgreSQL allows 63). */
export function erpDatabaseNames (instanceUid: string): ErpDatabaseNames {
  const name = `erp_${canonicalInstanceId(instanceUid).replaceAll('-', '')}`
  return { database: name, role: name }
}

/** HMAC-SHA256(key, instance uid), base64url: a retried job derives the same password, and none is stored. */
export function erpDatabasePassword (passwordKey: Buffer, instanceUid: string): string {
  return createHmac('sha256', passwordKey).update(canonicalInstanceId(instanceUid)).digest('base64url')
}
