import { defineError } from '../../../lib/errors.ts'

export const InstanceNotFound = defineError('INSTANCE_NOT_FOUND', 'Instance not found', 404)
