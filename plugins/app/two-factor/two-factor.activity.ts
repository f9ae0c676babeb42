/** The activity types the two-factor room records, each with what it means (docs/company.md lists them all). */
export const TWO_FACTOR_ACTIVITY = {
  'two_factor.enabled': 'A person turned two-factor authentication on',
  'two_factor.disabled': 'A person turned two-factor authentication off',
  'two_factor.recovery_code_used': 'A person signed in (or turned the factor off) with one of their recovery codes',
  'two_factor.recovery_codes_regenerated': 'A person made ten new recovery codes; their old ones stopped working',
  'two_factor.reset': 'An administrator removed the second factor of a member (the target), who had lost it; the member\'s sessions and agents ended'
} as const satisfies Record<`two_factor.${string}`, string>
