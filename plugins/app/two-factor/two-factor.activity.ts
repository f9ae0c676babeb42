/** The activity types the two-factor room records, each with what it means (docs/company.md lists them all). */
export const TWO_FACTOR_ACTIVITY = {
  'two_factor.enabled': 'A person turned two-factor authentication on',
  'two_factor.disabled': 'A person turned two-factor authentication off',
  'two_factor.recovery_code_used': 'A person signed in (or turned the factor off) with one of their recovery codes'
} as const satisfies Record<`two_factor.${string}`, string>
