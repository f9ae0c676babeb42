import { readdir } from 'node:fs/promises'

const SCHEMAS = new URL('../../schemas/', import.meta.url)
const MODULE = /^[a-z][a-z0-9-]*\.(ts|js)$/

type Component = { $id: string } & Record<string, unknown>

function isComponent (value: unknown): value is Component {
  return typeof value === 'object' && value !== null && typeof (value as { $id?: unknown }).$id === 'string'
}

/**
 * The components: every schema exported from a module of schemas/ with an `$id`.
 * They are found, not listed, so a new one needs nothing but its `$id` (and
 * `ref()` where another schema uses it). Two different schemas with one `$id` fail here.
 */
export async function componentSchemas (): Promise<Component[]> {
  const byId = new Map<string, Component>()
  const names = (await readdir(SCHEMAS)).filter((name) => MODULE.test(name)).sort()
  for (const name of names) {
    const exported = await import(new URL(name, SCHEMAS).href) as Record<string, unknown>
    for (const [exportName, value] of Object.entries(exported)) {
      if (!isComponent(value)) continue
      const seen = byId.get(value.$id)
      if (seen !== undefined && seen !== value) throw new Error(`schemas/${name}: ${exportName} has the $id "${value.$id}" of another schema`)
      byId.set(value.$id, value)
    }
  }
  return [...byId.values()]
}
