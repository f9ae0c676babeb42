/** The longest subdomain (lib/subdomains.ts). */
const SUBDOMAIN_MAX = 40
const SUFFIX = '-staging'

/**
 * The `n`th default subdomain of a staging copy of `parent` (a valid subdomain): `<parent>-staging`,
 * then `<parent>-staging-2`, `-3` …; the parent's part is cut (and loses a trailing hyphen) so that
 * the whole stays a valid subdomain of at most 40 characters.
 */
export function stagingSubdomain (parent: string, n: number): string {
  const suffix = n <= 1 ? SUFFIX : `${SUFFIX}-${n}`
  return `${parent.slice(0, SUBDOMAIN_MAX - suffix.length).replace(/-+$/, '')}${suffix}`
}
