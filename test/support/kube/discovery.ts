/**
 * Discovery documents (legacy, non-aggregated): /api, /apis, /apis/<group>,
 * /api/v1 and /apis/<group>/<version> resource lists (what KubernetesObjectApi reads
 * to map a kind to its path), and /version.
 */
import type { JsonObject } from './merge.ts'
import { groupVersion, groupVersions, RESOURCE_TYPES, verbsOf } from './resources.ts'

export const KUBERNETES_VERSION = { major: '1', minor: '33', gitVersion: 'v1.33.0+fake', platform: 'linux/amd64' }

const SUBRESOURCE_VERBS: Record<string, string[]> = { status: ['get'], scale: ['get', 'patch', 'update'], log: ['get'] }

function groupEntry (group: string): JsonObject {
  const versions = groupVersions().filter((gv) => gv.group === group).map((gv) => ({ groupVersion: `${group}/${gv.version}`, version: gv.version }))
  return { name: group, versions, preferredVersion: versions[0] ?? null }
}

/** The document for a discovery path, or undefined when the path is not a discovery path. */
export function discoveryDocument (path: string, serverAddress: string): JsonObject | undefined {
  if (path === '/version') return { ...KUBERNETES_VERSION, goVersion: 'go1.24', compiler: 'gc', gitCommit: '', gitTreeState: 'clean', buildDate: '2025-01-01T00:00:00Z' }
  if (path === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] }
  if (path === '/apis') {
    const groups = [...new Set(groupVersions().map((gv) => gv.group).filter((g) => g !== ''))]
    return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(groupEntry) }
  }
  const groupMatch = /^\/apis\/([^/]+)$/.exec(path)
  if (groupMatch !== null && groupVersions().some((gv) => gv.group === groupMatch[1])) return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(groupMatch[1] ?? '') }
  const versionMatch = /^\/api\/(v1)$/.exec(path) ?? /^\/apis\/([^/]+\/[^/]+)$/.exec(path)
  if (versionMatch === null) return undefined
  const types = RESOURCE_TYPES.filter((t) => groupVersion(t) === versionMatch[1])
  if (types.length === 0) return undefined
  const resources = types.flatMap((t) => [
    { name: t.plural, singularName: t.singular, namespaced: t.namespaced, kind: t.kind, verbs: verbsOf(t), ...(t.shortNames.length > 0 ? { shortNames: t.shortNames } : {}) },
    ...t.subresources.map((sub) => ({
      name: `${t.plural}/${sub}`,
      singularName: '',
      namespaced: t.namespaced,
      ...(sub === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : { kind: t.kind }),
      verbs: SUBRESOURCE_VERBS[sub] ?? ['get']
    }))
  ])
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: versionMatch[1] ?? '', resources }
}
