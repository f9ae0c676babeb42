import t from 'tap'
import { readdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { BIGINT_MAX } from '../../schemas/common.ts'
import { ALL_TOOLS } from '../../mcp/tools/index.ts'

/**
 * The rule behind "no number reaches a 500": every integer and number in a
 * schema has both bounds, within what a bigint column and a JavaScript number
 * hold exactly (2^53 - 1), so 2^63 from a query string or 1e309 from JSON is
 * a 400. A new schema that forgets a bound fails here, before any probe.
 */
const SCHEMAS = fileURLToPath(new URL('../../schemas/', import.meta.url))

function unbounded (schema: unknown, path: string, found: string[], seen = new Set<unknown>()): string[] {
  if (schema === null || typeof schema !== 'object' || seen.has(schema)) return found
  seen.add(schema)
  const node = schema as Record<string, unknown>
  const types = [node.type].flat()
  if (types.includes('integer') || types.includes('number')) {
    const { minimum, maximum } = node as { minimum?: unknown, maximum?: unknown }
    const limit = types.includes('integer') ? BIGINT_MAX : Number.MAX_VALUE
    if (typeof minimum !== 'number' || typeof maximum !== 'number' || minimum < -limit || maximum > limit) {
      found.push(`${path}: ${types.join('|')} with minimum ${String(minimum)}, maximum ${String(maximum)}`)
    }
  }
  for (const [key, child] of Object.entries(node)) unbounded(child, `${path}.${key}`, found, seen)
  return found
}

t.test('every integer and number in schemas/ has finite bounds', async (t) => {
  const files = (await readdir(SCHEMAS)).filter((name) => name.endsWith('.ts'))
  t.ok(files.length > 10, `${files.length} schema files`)
  for (const file of files) {
    const module = await import(`${SCHEMAS}${file}`) as Record<string, unknown>
    for (const [name, value] of Object.entries(module)) {
      t.same(unbounded(value, `${file}:${name}`, []), [], `${file}: ${name}`)
    }
  }
})

t.test('every MCP tool input has finite bounds on its numbers', async (t) => {
  for (const tool of ALL_TOOLS) t.same(unbounded(tool.input, tool.name, []), [], tool.name)
})

t.test('the check finds a missing bound', async (t) => {
  t.equal(unbounded({ type: 'object', properties: { n: { type: 'integer', minimum: 1 } } }, 'x', []).length, 1)
  t.equal(unbounded({ anyOf: [{ type: 'number', minimum: 0, maximum: Infinity }] }, 'x', []).length, 1)
  t.equal(unbounded({ type: 'integer', minimum: 0, maximum: 2 ** 63 }, 'x', []).length, 1)
  t.equal(unbounded({ type: 'integer', minimum: 0, maximum: 10 }, 'x', []).length, 0)
})
