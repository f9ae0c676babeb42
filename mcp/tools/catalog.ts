import { Type } from 'typebox'
import { Int4 } from '../../schemas/common.ts'
import { ModulesQuery } from '../../schemas/modules.ts'
import { defineTool, READ_ONLY } from './tool.ts'

const RecommendationInput = Type.Object({
  users: Type.Optional(Int4({ minimum: 1, maximum: 100_000, description: 'How many people will use the ERP; default 1' })),
  storage: Type.Optional(Int4({ maximum: 100_000, description: 'GB needed beyond the plan\'s included storage; default 0' })),
  billing_cycle: Type.Optional(Type.Union([Type.Literal('monthly'), Type.Literal('yearly')], { description: 'monthly (default) or yearly' }))
}, { additionalProperties: false })

export const catalogTools = [
  defineTool({
    name: 'list_modules',
    title: 'Module catalog',
    description: 'The installable ERP apps (name, technical name, category, description, and `edition`: `enterprise` apps need an ' +
      'installation whose ERP image has the Enterprise addons), with the modules the company\'s synced addon sources provide ' +
      '(`addon_source_id` set). Filter by `category` or search with `q` to answer "is there a module for …".',
    input: ModulesQuery,
    annotations: READ_ONLY,
    run: async ({ app, scope }, query) => ({ modules: await app.modules.list(scope.em, query, scope.actor.tenantId) })
  }),

  defineTool({
    name: 'list_plans',
    title: 'Plans and prices',
    description: 'Every plan on sale with its limits (instances, users, storage, workers) and monthly and yearly prices.',
    input: Type.Object({}, { additionalProperties: false }),
    annotations: READ_ONLY,
    run: async ({ app }) => ({ plans: await app.plans.catalog() })
  }),

  defineTool({
    name: 'get_subscription',
    title: 'Current subscription',
    description: 'The company\'s subscription: plan, status (trialing, pending_payment, active, past_due, expired, ' +
      'cancelled), billing cycle, period and trial end dates, and the limits it grants.',
    input: Type.Object({}, { additionalProperties: false }),
    annotations: READ_ONLY,
    run: async ({ app, scope }) => ({ subscription: await app.subscriptions.current(scope) })
  }),

  defineTool({
    name: 'get_plan_recommendation',
    title: 'Recommend a plan',
    description: 'The cheapest plan that fits `users` and extra `storage`, priced for the billing cycle, with trial ' +
      'and demo availability. Use it when someone asks which plan to buy or what it would cost.',
    input: RecommendationInput,
    annotations: READ_ONLY,
    run: async ({ app, scope }, { users, storage, billing_cycle: cycle }) => ({
      ...await app.plans.recommend(scope, {
        ...(users === undefined ? {} : { users: String(users) }),
        ...(storage === undefined ? {} : { storage: String(storage) }),
        ...(cycle === undefined ? {} : { billing_cycle: cycle })
      })
    })
  })
]
