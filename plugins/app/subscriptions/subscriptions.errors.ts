import { defineError } from '../../../lib/errors.ts'

export const SubscriptionNotFound = defineError('SUBSCRIPTION_NOT_FOUND', 'This company has no subscription yet', 404)
export const SubscriptionTransitionInvalid = defineError('SUBSCRIPTION_TRANSITION_INVALID', 'This subscription change is not allowed now', 409)
export const SubscriptionPlanMismatch = defineError('SUBSCRIPTION_PLAN_MISMATCH', 'The subscription is for another plan', 409)
export const NothingToConfirm = defineError('NOTHING_TO_CONFIRM', 'No payment is awaited for this subscription', 409)
export const PaymentRequired = defineError('PAYMENT_REQUIRED', 'The payment for this subscription has not been confirmed by the payment provider yet', 402)
export const PlanIsTrial = defineError('PLAN_IS_TRIAL', 'A trial plan cannot be bought; start it with POST /api/subscription/demo', 400)
export const PlanNotTrial = defineError('PLAN_NOT_TRIAL', 'This plan has no free trial', 400)
export const PlanLimitExceeded = defineError('PLAN_LIMIT_EXCEEDED', 'The plan does not allow this many', 400)
export const PlanQuantityInvalid = defineError('PLAN_QUANTITY_INVALID', 'Quantities must be whole numbers within the allowed range', 400)
export const TrialAlreadyUsed = defineError('TRIAL_ALREADY_USED', 'This company has already used its free trial', 409)
