/** The token of an `Authorization: Bearer <token>` header, or undefined for anything else. */
export function bearerTokenIn (header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  return /^Bearer ([A-Za-z0-9\-_.]+)$/i.exec(header.trim())?.[1]
}
