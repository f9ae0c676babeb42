import { defineError } from '../../../lib/errors.ts'

export const PlanNotFound = defineError('PLAN_NOT_FOUND', 'No such plan', 404)
