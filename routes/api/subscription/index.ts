import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AUTHENTICATED, responses } from '../../../schemas/common.ts'
import {
  PlanIdBody, SelectPlanBody, SelectPlanResponse, SubscribeBody, SubscribeResponse, SubscriptionResponse
} from '../../../schemas/subscriptions.ts'
import recommendation from './recommendation.ts'
import { Forbidden } from '../../../lib/errors.ts'
import { PlanNotFound } from '../../../plugins/app/plans/plans.errors.ts'
import { NothingToConfirm, PaymentRequired, SubscriptionNotFound, SubscriptionPlanMismatch, SubscriptionTransitionInvalid, TrialAlreadyUsed } from '../../../plugins/app/subscriptions/subscriptions.errors.ts'

const tags = ['subscription']
const ADMIN = 'Administrators only (403 FORBIDDEN for a `user`).'
/** Errors of a JSON-body admin route, besides its own. */
const bodyErrors = [...AUTHENTICATED, Forbidden, 413, 415]

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { subscriptions } = fastify

  fastify.get('/current', {
    schema: {
      tags,
      operationId: 'getSubscription',
      summary: 'The company\'s subscription',
      description: 'Plan, status, quantities, money (major units) and dates; `renewal_date` is the end of the current period. 404 SUBSCRIPTION_NOT_FOUND before the first subscription or trial.',
      response: responses({ 200: SubscriptionResponse }, [...AUTHENTICATED, SubscriptionNotFound])
    }
  }, async (request) => ({ success: true as const, subscription: await subscriptions.current(request.scope) }))

  fastify.post('/select-plan', {
    schema: {
      tags,
      operationId: 'selectPlan',
      summary: 'Choose a plan and quantities ahead of checkout (admin)',
      description: `Stores the company's plan configuration (choosing again replaces it) and answers it with its price. Limits: users <= max_users, instances <= max_instances, workers <= max_workers (400 PLAN_LIMIT_EXCEEDED naming the field and the maximum). Unknown or inactive plan: 404 PLAN_NOT_FOUND; a trial plan: 400 PLAN_IS_TRIAL. ${ADMIN}`,
      body: SelectPlanBody,
      response: responses({ 200: SelectPlanResponse }, [...bodyErrors, PlanNotFound])
    }
  }, async (request) => {
    const { plan_id: planId, billing_cycle: billingCycle, users, storage, workers, instances } = request.body
    return { success: true as const, ...await subscriptions.selectPlan(request.scope, { planId, billingCycle, users, storage, workers, instances }) }
  })

  fastify.post('/subscribe', {
    schema: {
      tags,
      operationId: 'subscribePlan',
      summary: 'Subscribe to a plan (admin)',
      description: `Prices the stored configuration when it is for this plan (otherwise the plan's included users, no extra storage, 1 instance, 1 worker) for the billing cycle. The subscription becomes \`pending_payment\` with \`amount_due\` and a new \`payment_reference\`, or \`active\` at once when the price is zero. Repeating it unchanged keeps the pending reference. A change the state machine forbids: 409 SUBSCRIPTION_TRANSITION_INVALID. ${ADMIN}`,
      body: SubscribeBody,
      response: responses({ 200: SubscribeResponse }, [...bodyErrors, PlanNotFound, SubscriptionTransitionInvalid])
    }
  }, async (request) => ({ success: true as const, ...await subscriptions.subscribe(request.scope, { planId: request.body.plan_id, billingCycle: request.body.billing_cycle }) }))

  fastify.post('/confirm', {
    schema: {
      tags,
      operationId: 'confirmSubscription',
      summary: 'Confirm the paid subscription (admin)',
      description: `Activates a \`pending_payment\` subscription once the payment provider has confirmed a payment of exactly \`amount_due\` under its \`payment_reference\` (otherwise 402 PAYMENT_REQUIRED, saying whether a payment was refused). The period starts now and renews one calendar month or year later. Already active (the payment webhook activates too): answers the subscription unchanged. Nothing awaited (e.g. trialing): 409 NOTHING_TO_CONFIRM; another plan_id: 409 SUBSCRIPTION_PLAN_MISMATCH. ${ADMIN}`,
      body: PlanIdBody,
      response: responses({ 200: SubscriptionResponse }, [...bodyErrors, PaymentRequired, SubscriptionNotFound, NothingToConfirm, SubscriptionPlanMismatch])
    }
  }, async (request) => ({ success: true as const, subscription: await subscriptions.confirm(request.scope, { planId: request.body.plan_id }) }))

  fastify.post('/demo', {
    schema: {
      tags,
      operationId: 'startTrial',
      summary: 'Start the free trial (admin)',
      description: `Starts the company's one trial on a trial plan: status \`trialing\` until now + the plan's trial_days, then \`expired\` (a background job). A second trial, even after the first ended: 409 TRIAL_ALREADY_USED; a plan without a trial: 400 PLAN_NOT_TRIAL; a company that already subscribed: 409 SUBSCRIPTION_TRANSITION_INVALID. ${ADMIN}`,
      body: PlanIdBody,
      response: responses({ 200: SubscriptionResponse }, [...bodyErrors, PlanNotFound, TrialAlreadyUsed])
    }
  }, async (request) => ({ success: true as const, subscription: await subscriptions.startTrial(request.scope, { planId: request.body.plan_id }) }))

  await fastify.register(recommendation)
}

export default routes
