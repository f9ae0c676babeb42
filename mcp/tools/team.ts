import { Type } from 'typebox'
import { InviteBody } from '../../schemas/invitations.ts'
import { defineTool, READ_ONLY } from './tool.ts'

export const teamTools = [
  defineTool({
    name: 'list_users',
    title: 'List the team (admin)',
    description: 'Every member of the company with role and status, active ones first. Only for admins: for others ' +
      'it answers FORBIDDEN (check the role with whoami).',
    input: Type.Object({}, { additionalProperties: false }),
    annotations: READ_ONLY,
    run: async ({ app, scope }) => ({ users: await app.users.listAsAdmin(scope) })
  }),

  defineTool({
    name: 'invite_user',
    title: 'Invite someone to the company (admin)',
    description: 'E-mails an invitation link (valid for days) to join the company with the given role. Only for ' +
      'admins. INVITATION_PENDING when that address already has a pending invitation, EMAIL_TAKEN when it already ' +
      'has an account.',
    input: InviteBody,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: async ({ app, scope }, input) => ({ invitation: await app.invitations.invite(scope, input) })
  })
]
