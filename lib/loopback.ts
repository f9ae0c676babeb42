/** Names that always mean "this machine": a page on them is the user's own local tool, never a remote site. */
export const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]'])

/** An http(s) origin on a loopback name (e.g. the MCP Inspector at http://localhost:6274). */
export function isLoopbackOrigin (origin: string): boolean {
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  return LOOPBACK_HOSTNAMES.has(url.hostname) && (url.protocol === 'http:' || url.protocol === 'https:')
}
