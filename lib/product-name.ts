/** The display name of MAIL_FROM (`ERP Portal <no-reply@…>` → `ERP Portal`): PRODUCT_NAME's default. */
export function productName (mailFrom: string, fallback = 'ERP Portal'): string {
  const match = /^\s*"?([^"<]*?)"?\s*</.exec(mailFrom)
  const name = match?.[1]?.trim()
  return name === undefined || name === '' ? fallback : name
}
