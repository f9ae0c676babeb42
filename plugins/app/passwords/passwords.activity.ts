/** The activity types the passwords room records, each with what it means (docs/company.md lists them all). */
export const PASSWORDS_ACTIVITY = {
  'password.changed': 'A person changed their own password; their other sessions ended',
  'password.reset_requested': 'A password reset link was e-mailed to a person (the target), at their request',
  'password.reset': 'A person set a new password with a reset link; all their sessions and connected agents ended',
  'password.reset_forced': 'An operator forced a password reset: the old password stopped working, sessions and agents ended, a link was issued'
} as const satisfies Record<`password.${string}`, string>
