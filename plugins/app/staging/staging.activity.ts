/** The activity types the staging room records, each with what it means (docs/company.md lists them all). */
export const STAGING_ACTIVITY = {
  'instance.staging_created': 'A staging copy of an instance was requested (a neutralized copy of its data)',
  'instance.staging_refreshed': 'A staging copy was asked to take a fresh copy of its production instance\'s data',
  'instance.staging_expiring': 'The company\'s administrators were e-mailed that a staging copy expires soon',
  'instance.staging_expired': 'A staging copy reached its expiry and is being deleted'
} as const satisfies Record<`instance.${string}`, string>
