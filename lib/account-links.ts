/**
 * Every link the service sends a person (in an e-mail, or on a page) that
 * leads to an account page: accept an invitation, reset a password, ask for a
 * reset, confirm a new e-mail address. They open on PORTAL_APP_URL (the front end) when it is set, else on
 * BASE_URL, where the service serves pages of its own at the same paths
 * (routes/invitation/, routes/password/, routes/email/).
 */
export const ACCOUNT_PAGES = {
  acceptInvitation: '/invitation/accept',
  resetPassword: '/password/reset',
  forgotPassword: '/password/forgot',
  confirmEmail: '/email/confirm'
} as const

export interface AccountLinks {
  acceptInvitation: (token: string) => string
  resetPassword: (token: string) => string
  forgotPassword: () => string
  confirmEmail: (token: string) => string
  /** Where a person signs in after accepting or resetting: the front end, or the built-in login page. */
  signIn: () => string
}

export function accountLinks (config: { BASE_URL: string, PORTAL_APP_URL?: string | undefined }): AccountLinks {
  const base = config.PORTAL_APP_URL ?? config.BASE_URL
  const withToken = (path: string, token: string) => `${base}${path}?token=${encodeURIComponent(token)}`
  return {
    acceptInvitation: (token) => withToken(ACCOUNT_PAGES.acceptInvitation, token),
    resetPassword: (token) => withToken(ACCOUNT_PAGES.resetPassword, token),
    forgotPassword: () => `${base}${ACCOUNT_PAGES.forgotPassword}`,
    confirmEmail: (token) => withToken(ACCOUNT_PAGES.confirmEmail, token),
    signIn: () => config.PORTAL_APP_URL ?? `${config.BASE_URL}/login`
  }
}
