import { Type } from 'typebox'
import { ActivityQuery } from '../../schemas/activity.ts'
import { defineTool, READ_ONLY } from './tool.ts'

const NoInput = Type.Object({}, { additionalProperties: false })

export const accountTools = [
  defineTool({
    name: 'whoami',
    title: 'Who am I',
    description: 'The person this agent acts for: their id, name, e-mail, role (admin or user) and company id. ' +
      'Call it first to learn whether team tools (admin only) are available.',
    input: NoInput,
    annotations: READ_ONLY,
    run: async ({ app, scope }) => ({ user: app.auth.me(scope), agent: { client_name: scope.actor.clientName ?? null } })
  }),

  defineTool({
    name: 'get_dashboard',
    title: 'Company dashboard',
    description: 'An overview of the company account: instance counts by state, users, open tickets, the subscription ' +
      'and its usage. Use it for "how is my account doing" questions before drilling into one area.',
    input: NoInput,
    annotations: READ_ONLY,
    run: async ({ app, scope }) => ({ dashboard: await app.dashboard.get(scope) })
  }),

  defineTool({
    name: 'list_activity',
    title: 'Activity feed',
    description: 'Recent changes in the company (by people, agents and background jobs), newest first. Filter by ' +
      '`type` (e.g. instance.running) or `instance_id`; page with `before` = the previous answer\'s `next_cursor`.',
    input: ActivityQuery,
    annotations: READ_ONLY,
    run: async ({ app, scope }, { limit, before, type, instance_id: instanceId }) => app.activity.list(scope, {
      limit,
      ...(before === undefined ? {} : { before }),
      ...(type === undefined ? {} : { type }),
      ...(instanceId === undefined ? {} : { instanceId })
    })
  })
]
