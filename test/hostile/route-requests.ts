import type { InjectOptions } from 'fastify'
import { percentEncode, type Hostile } from './hostile-values.ts'
import { sampleOf } from './schema-sample.ts'

type Schema = Record<string, any>

/** One input of an operation: a path parameter, a query parameter, a body field, or the whole body. */
export interface Field {
  in: 'path' | 'query' | 'body'
  name: string
  schema: Schema
  required: boolean
}

export interface Operation {
  method: string
  path: string
  security: string[]
  fields: Field[]
  headers: Field[]
  /** The body's media type, when the operation takes a body. */
  bodyType?: 'application/json' | 'application/x-www-form-urlencoded'
}

/**
 * Parameter names sent to an operation that declares no input: what an OAuth
 * endpoint (whose fields the portal forwards without a schema) or a careless
 * client sends. Undeclared query fields must be as harmless as declared ones.
 */
const PROBES = ['client_id', 'redirect_uri', 'code', 'token', 'state', 'resource']

/** The operations of an OpenAPI 3.1 document, each with its inputs. */
export function operationsOf (doc: Schema): Operation[] {
  const resolve = (schema: Schema | undefined): Schema => {
    const ref = schema?.$ref as string | undefined
    return ref === undefined ? (schema ?? {}) : resolve(doc.components.schemas[ref.split('/').at(-1) as string])
  }
  const operations: Operation[] = []
  for (const [path, methods] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(methods)) {
      const parameters: Schema[] = op.parameters ?? []
      const fields: Field[] = parameters.filter((p) => p.in === 'path' || p.in === 'query').map((p) => ({ in: p.in, name: p.name, schema: resolve(p.schema), required: p.required === true }))
      const headers: Field[] = parameters.filter((p) => p.in === 'header' && p.required === true).map((p) => ({ in: 'query', name: p.name, schema: resolve(p.schema), required: true }))
      const content = op.requestBody?.content ?? {}
      const bodyType = (['application/json', 'application/x-www-form-urlencoded'] as const).find((type) => type in content)
      if (bodyType !== undefined) {
        const body = resolve(content[bodyType].schema)
        const properties = Object.entries<Schema>(body.properties ?? {})
        if (properties.length === 0) fields.push({ in: 'body', name: '(body)', schema: body, required: true })
        for (const [name, schema] of properties) fields.push({ in: 'body', name, schema: resolve(schema), required: (body.required ?? []).includes(name) })
      }
      const security = (op.security ?? []).flatMap((requirement: Schema) => Object.keys(requirement))
      operations.push({ method: method.toUpperCase(), path, security, fields, headers, ...(bodyType === undefined ? {} : { bodyType }) })
    }
  }
  return operations
}

/** An operation with no declared input gets the probe names, in the query (reads) or a body (writes). */
export function withProbes (op: Operation): Operation {
  if (op.fields.length > 0) return op
  const writes = op.method === 'POST' || op.method === 'PUT' || op.method === 'PATCH'
  const bodyType = op.path.startsWith('/api/') ? 'application/json' : 'application/x-www-form-urlencoded'
  return {
    ...op,
    fields: PROBES.map((name) => ({ in: writes ? 'body' : 'query', name, schema: { type: 'string' }, required: false })),
    ...(writes ? { bodyType } : {})
  }
}

const textOf = (value: unknown) => percentEncode(typeof value === 'string' ? value : JSON.stringify(value))
const MARK = '\u0001hostile\u0001'

/** The request: `target` carries the hostile value, every other required input a plausible one. */
export function hostileRequest (op: Operation, target: Field, value: Hostile, headers: Record<string, string>): InjectOptions {
  const wanted = (field: Field) => field === target || field.required
  const asText = (field: Field): string[] => field === target ? [value.text].flat() : [textOf(sampleOf(field.schema, field.name))]

  const path = op.path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const field = op.fields.find((f) => f.in === 'path' && f.name === name)
    return field === undefined ? 'x' : (asText(field)[0] ?? '')
  })
  const query = op.fields.filter((f) => f.in === 'query' && wanted(f))
    .flatMap((f) => asText(f).map((text) => `${encodeURIComponent(f.name)}=${text}`)).join('&')
  const bodyFields = op.fields.filter((f) => f.in === 'body' && wanted(f))
  let payload: string | undefined
  if (op.bodyType === 'application/x-www-form-urlencoded') {
    payload = bodyFields.flatMap((f) => asText(f).map((text) => `${encodeURIComponent(f.name)}=${text}`)).join('&')
  } else if (op.bodyType === 'application/json') {
    if (target.name === '(body)') payload = value.json
    else {
      const sample = Object.fromEntries(bodyFields.map((f) => [f.name, f === target ? MARK : sampleOf(f.schema, f.name)]))
      payload = JSON.stringify(sample).replace(JSON.stringify(MARK), value.json)
    }
  }
  const required = Object.fromEntries(op.headers.map((h) => [h.name, String(sampleOf(h.schema, h.name))]))
  return {
    method: op.method as InjectOptions['method'],
    url: query === '' ? path : `${path}?${query}`,
    headers: { ...required, ...headers, ...(payload === undefined ? {} : { 'content-type': op.bodyType }) },
    ...(payload === undefined ? {} : { payload })
  }
}
