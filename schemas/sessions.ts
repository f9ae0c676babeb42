import { Type } from 'typebox'
import { Id, Int4, PageInfo, Pagination, ref, Success } from './common.ts'

const Time = Type.String({ format: 'date-time' })

export const SessionSchema = Type.Object({
  id: Id,
  user_agent: Type.Union([Type.String(), Type.Null()], { description: 'The User-Agent header of the login' }),
  ip: Type.Union([Type.String(), Type.Null()], { description: 'The client address of the login' }),
  created_at: Time,
  last_used_at: Type.Union([Time, Type.Null()], { description: 'Last request with this session, to the minute' }),
  expires_at: Time,
  current: Type.Boolean({ description: 'The session of the token this request came with' })
}, { $id: 'Session' })

export const SessionListQuery = Pagination
export const SessionListResponse = Success({ sessions: Type.Array(ref(SessionSchema)), pagination: ref(PageInfo) }, { $id: 'SessionListResponse', description: 'Your open sessions, most recently used first' })

export const SessionsRevokedResponse = Success({ revoked: Int4({ description: 'How many sessions ended' }) }, { $id: 'SessionsRevokedResponse' })
