import { createHmac } from 'node:crypto'
import { isUuid } from '../lib/uuid.ts'

export interface ErpDatabaseNames {
  database: string
  role: string
}

/** The lowercase hyphenated form, so that `ABC…` and `abc…` name the same database and get the same password. */
export function canonicalInstanceId (instanceId: string): string {
  if (!isUuid(instanceId)) throw new TypeError(`instance id must be a uuid, got ${JSON.stringify(instanceId)}`)
  return instanceId.toLowerCase()
}

/** `erp_` + the uuid's 32 hex digits: a plain lowercase identifier (36 chars, PostgreSQL allows 63). */
export function erpDatabaseNames (instanceId: string): ErpDatabaseNames {
  const name = `erp_${canonicalInstanceId(instanceId).replaceAll('-', '')}`
  return { database: name, role: name }
}

/** HMAC-SHA256(key, instance id), base64url: a retried job derives the same password, and none is stored. */
export function erpDatabasePassword (passwordKey: Buffer, instanceId: string): string {
  return createHmac('sha256', passwordKey).update(canonicalInstanceId(instanceId)).digest('base64url')
}

