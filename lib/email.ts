/** E-mail is the login: compared and stored trimmed and lower-cased everywhere. */
export function normalizeEmail (email: string): string {
  return email.trim().toLowerCase()
}
