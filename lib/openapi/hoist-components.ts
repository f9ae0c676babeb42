import { COMPONENT_MARK } from '../../schemas/common.ts'

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null

/**
 * Turns every inline copy of a component (marked by ref(), schemas/common.ts) in an
 * OpenAPI document into `{ $ref: '#/components/schemas/<name>' }`, and puts the
 * component itself, once, under `components.schemas`. The published component is the
 * one declared in schemas/ (`declared`, by `$id`), so two routes that use one
 * component cannot publish two versions of it; a description written beside a use
 * stays beside its `$ref`. Components that no route uses are not published.
 */
export function hoistComponents (document: Json, declared: Map<string, Json>): void {
  const components = (document.components ??= {}) as Json
  const schemas = (components.schemas ??= {}) as Json
  const publishing = new Set<string>()

  const publish = (name: string): void => {
    if (name in schemas || publishing.has(name)) return
    const component = declared.get(name)
    if (component === undefined) throw new Error(`ref() names the component "${name}", which no schema of schemas/ declares`)
    publishing.add(name)
    const { $id: _id, ...body } = component
    schemas[name] = replaceMarked(structuredClone(body))
  }

  const replaceMarked = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(replaceMarked)
    if (!isObject(value)) return value
    const name = value[COMPONENT_MARK]
    if (typeof name === 'string') {
      publish(name)
      const reference: Json = { $ref: `#/components/schemas/${name}` }
      const declaredDescription = declared.get(name)?.description
      if (typeof value.description === 'string' && value.description !== declaredDescription) reference.description = value.description
      return reference
    }
    for (const [key, child] of Object.entries(value)) value[key] = replaceMarked(child)
    return value
  }

  for (const key of Object.keys(document)) {
    if (key !== 'components') document[key] = replaceMarked(document[key])
  }
  for (const [name, schema] of Object.entries(schemas)) schemas[name] = replaceMarked(schema)
}
