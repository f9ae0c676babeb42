import { randomUUID } from 'node:crypto'
import { p } from '@mikro-orm/core'

/** Column builders every entity shares, so they are spelled (and typed) the same everywhere. */
export const uuidPrimaryKey = () => p.uuid().primary().onCreate(() => randomUUID())
export const timestamp = () => p.datetime().columnType('timestamptz')
export const createdAt = () => timestamp().onCreate(() => new Date())
export const updatedAt = () => timestamp().onCreate(() => new Date()).onUpdate(() => new Date())
