/** The activity types the subscriptions room records, each with what it means (docs/company.md lists them all). */
export const SUBSCRIPTIONS_ACTIVITY = {
  'subscription.plan_selected': 'A plan configuration (plan, cycle, quantities and price) was chosen for checkout',
  'subscription.payment_requested': 'A subscription to a paid plan awaits its payment, under a payment reference',
  'subscription.activated': 'A subscription became active for a new period',
  'subscription.renewed': 'A subscription that had a paid period was paid for another one',
  'subscription.trial_started': 'The company\'s free trial started',
  'subscription.trial_expired': 'The free trial ended'
} as const satisfies Record<`subscription.${string}`, string>

/** What the room's records point at (`target_type`), with what `target_id` holds. */
export const SUBSCRIPTIONS_ACTIVITY_TARGETS = {
  subscription: 'The company\'s subscription; `target_id` is its uuid',
  plan_configuration: 'A plan configuration chosen for checkout; `target_id` is its integer id'
} as const
