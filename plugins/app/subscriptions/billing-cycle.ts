import type { BillingCycle } from './plan-configuration.entity.ts'

/**
 * The end of a billing period that starts at `start`: one calendar month or
 * year later in UTC, same time of day. A day the target month lacks is clamped
 * to its last day (Jan 31 + 1 month = Feb 28 or 29; Feb 29 + 1 year = Feb 28).
 */
export function addBillingCycle (start: Date, cycle: BillingCycle): Date {
  const months = cycle === 'yearly' ? 12 : 1
  const year = start.getUTCFullYear()
  const month = start.getUTCMonth() + months
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate()
  const end = new Date(start.getTime())
  end.setUTCFullYear(year, month, Math.min(start.getUTCDate(), lastDay))
  return end
}
