import { defineError } from '../../../lib/errors.ts'

export const MetricsUnavailable = defineError('METRICS_UNAVAILABLE', 'The instance\'s usage cannot be read now, and no earlier sample is kept', 503)
export const MetricsRangeInvalid = defineError('METRICS_RANGE_INVALID', 'The history range is invalid', 400)
export const MetricsTooManyPoints = defineError('METRICS_TOO_MANY_POINTS', 'The range at this step has too many points', 400)
