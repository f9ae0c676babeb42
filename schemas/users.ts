import { Type } from 'typebox'
import { Id, PageInfo, Pagination, ref, Success } from './common.ts'
import { USER_ROLES } from '../plugins/app/users/user.entity.ts'

export const Role = Type.Unsafe<'admin' | 'user'>({ type: 'string', enum: [...USER_ROLES], description: 'admin or user' })

export const UserItem = Type.Object({
  id: Id,
  name: Type.String(),
  email: Type.String(),
  login: Type.String({ description: 'Same as email' }),
  role: Role,
  active: Type.Boolean({ description: 'false once deactivated; the record stays' }),
  created_at: Type.String({ format: 'date-time' }),
  last_login: Type.Union([Type.String({ format: 'date-time' }), Type.Null()])
}, { $id: 'User' })

export const UserListQuery = Pagination
export const UserListResponse = Success({ users: Type.Array(ref(UserItem), { description: 'Active users first, then by name' }), pagination: ref(PageInfo) }, { $id: 'UserListResponse' })
export const UserResponse = Success({ user: ref(UserItem) }, { $id: 'UserResponse' })

export const CreateUserBody = Type.Object({
  email: Type.String({ format: 'email', maxLength: 254 }),
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', 'x-pattern-message': 'must not be blank', description: 'Not blank' }),
  password: Type.String({ minLength: 10, maxLength: 256, description: 'At least 10 characters, not the e-mail address' })
}, { additionalProperties: false })

export const SetRoleBody = Type.Object({ role: Role }, { additionalProperties: false })
