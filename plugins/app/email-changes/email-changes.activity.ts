/** The activity types the e-mail change room records, each with what it means (docs/company.md lists them all). */
export const EMAIL_CHANGES_ACTIVITY = {
  'account.email_change_requested': 'A person asked to change their e-mail address: a confirmation link went to the new one, a notice to the old one',
  'account.email_changed': 'A person confirmed a new e-mail address: it is their login from now on; the old address was told'
} as const satisfies Record<`account.${string}`, string>
