/** A parsed API request and the answer a handler gives. */
import type { ResourceType } from './resources.ts'

export interface ApiRequest {
  method: string
  type: ResourceType
  /** The namespace in the path (namespaced resources). */
  namespace?: string
  /** The object name in the path; undefined for a collection. */
  name?: string
  /** `status`, `scale`, `log` … */
  subresource?: string
  query: URLSearchParams
  /** The decoded body (JSON, or YAML for apply patches); undefined when there is none. */
  body: unknown
  contentType: string
  userAgent: string | undefined
}

export interface ApiResponse {
  code: number
  body: unknown
  /** Defaults to application/json. */
  contentType?: string
  /**
   * A streaming answer (pod logs with follow=true): the body is written first, then whatever
   * `write` is given, until the client goes; the function answered is called then.
   */
  follow?: (write: (text: string) => void) => () => void
}

export function isDryRun (query: URLSearchParams): boolean {
  return query.getAll('dryRun').includes('All')
}
