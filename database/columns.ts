import { randomUUID } from 'node:crypto'
import { p } from '@mikro-orm/core'

/** Column builders every entity shares, so they are spelled (and typed) the same everywhere. */
export const uuidPrimaryKey = () => p.uuid().primary().onCreate(() => randomUUID())
/**
 * A bigint the database numbers (`generated always as identity`), read as a JS
 * number: exact up to 2^53 - 1 (Number.MAX_SAFE_INTEGER), which a sequence
 * counting one by one never reaches.
 */
export const identityPrimaryKey = () => p.bigint('number').primary().autoincrement().generated('identity')
export const timestamp = () => p.datetime().columnType('timestamptz')
export const createdAt = () => timestamp().onCreate(() => new Date())
export const updatedAt = () => timestamp().onCreate(() => new Date()).onUpdate(() => new Date())
