/**
 * What RBAC permission each request to the Kubernetes API needs, and whether a role's rules grant
 * it: how test/deploy/provisioner-role.test.ts holds the shipped ClusterRole to the calls the
 * Kubernetes backend really makes.
 */
import type { RecordedRequest } from './fake-api-server.ts'

export interface Permission { verb: string, group: string, resource: string }

export interface PolicyRule { apiGroups?: string[], resources?: string[], verbs?: string[], resourceNames?: string[] }

const key = (p: Permission): string => `${p.verb} ${p.group === '' ? 'core' : p.group}/${p.resource}`

/** The verbs the API server authorizes a request as (server-side apply of a missing object also creates it). */
export function permissionsOf (request: Pick<RecordedRequest, 'method' | 'path' | 'query' | 'contentType'>): Permission[] {
  const { group, plural, name, subresource } = resourceOf(request.path)
  const resource = subresource === undefined ? plural : `${plural}/${subresource}`
  const base = { group, resource }
  switch (request.method) {
    case 'GET':
      if (name === undefined) return [{ ...base, verb: request.query.watch === 'true' || request.query.watch === '1' ? 'watch' : 'list' }]
      return [{ ...base, verb: 'get' }]
    case 'POST': return [{ ...base, verb: 'create' }]
    case 'PUT': return [{ ...base, verb: 'update' }]
    case 'PATCH':
      return request.contentType === 'application/apply-patch+yaml' ? [{ ...base, verb: 'patch' }, { ...base, verb: 'create' }] : [{ ...base, verb: 'patch' }]
    case 'DELETE': return [{ ...base, verb: name === undefined ? 'deletecollection' : 'delete' }]
    default: throw new Error(`no RBAC verb for ${request.method} ${request.path}`)
  }
}

/**
 * The RBAC resource of an API path, as the API server's request-info resolver reads it:
 * `/api/v1/namespaces/ns/pods/name/log` → core `pods`, `name`, `log`; any group, known to the fake or not.
 */
function resourceOf (path: string): { group: string, plural: string, name?: string, subresource?: string } {
  const match = /^\/api\/v1(\/.*)?$/.exec(path) ?? /^\/apis\/([^/]+)\/[^/]+(\/.*)?$/.exec(path)
  if (match === null) throw new Error(`not a resource path: ${path}`)
  const group = path.startsWith('/api/') ? '' : match[1] ?? ''
  const segments = ((path.startsWith('/api/') ? match[1] : match[2]) ?? '').split('/').filter((s) => s !== '')
  // namespaces/<ns>/<plural>[/<name>[/<sub>]] is namespaced; namespaces[/<name>] is the Namespace itself.
  const [plural = '', name, subresource] = segments[0] === 'namespaces' && segments.length >= 3 ? segments.slice(2) : segments
  return { group, plural, name, subresource }
}

/** The distinct permissions a list of requests needs, sorted, as `verb group/resource` strings. */
export function neededPermissions (requests: Array<Pick<RecordedRequest, 'method' | 'path' | 'query' | 'contentType'>>): string[] {
  const all = new Map<string, Permission>()
  for (const request of requests) for (const permission of permissionsOf(request)) all.set(key(permission), permission)
  return [...all.keys()].sort()
}

function ruleGrants (rule: PolicyRule, permission: Permission): boolean {
  const has = (list: string[] | undefined, value: string) => list !== undefined && (list.includes('*') || list.includes(value))
  return rule.resourceNames === undefined && has(rule.apiGroups, permission.group) && has(rule.resources, permission.resource) && has(rule.verbs, permission.verb)
}

/** The permissions (as `verb group/resource`) that no rule grants. */
export function missingGrants (rules: PolicyRule[], needed: string[]): string[] {
  return needed.filter((line) => {
    const [verb = '', path = ''] = line.split(' ')
    const slash = path.indexOf('/')
    const group = path.slice(0, slash)
    const permission = { verb, group: group === 'core' ? '' : group, resource: path.slice(slash + 1) }
    return !rules.some((rule) => ruleGrants(rule, permission))
  })
}

/** Every `verb group/resource` the rules grant (no wildcards expected in a least-privilege role). */
export function grantedPermissions (rules: PolicyRule[]): string[] {
  const lines: string[] = []
  for (const rule of rules) {
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        for (const verb of rule.verbs ?? []) lines.push(key({ verb, group, resource }))
      }
    }
  }
  return [...new Set(lines)].sort()
}
