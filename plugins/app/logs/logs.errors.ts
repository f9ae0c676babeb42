import { defineError } from '../../../lib/errors.ts'

export const LogStreamTokenInvalid = defineError('LOG_STREAM_TOKEN_INVALID', 'The stream token is missing, expired, or not for this instance: ask GET /api/instances/{id}/logs/stream-token for a new one', 401)
