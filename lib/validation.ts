import { Ajv, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifySchema, FastifySchemaCompiler } from 'fastify'

function newAjv (coerceTypes: boolean | 'array') {
  // JSON (bodies, tool arguments): strictNumbers makes `number` and `integer` refuse NaN and Infinity
  // (1e309), which Ajv otherwise accepts. Not when coercing query text: there "1e400" becomes Infinity
  // after the type check, and strictNumbers would then skip the bounds that refuse it (every integer
  // has them: schemas/common.ts); plugins/app/http refuses what is still not finite after validation.
  // verbose: each error carries its failing schema, which the messages for people read
  // (plugins/app/http/validation-messages.ts: bounds, allowed values, `x-pattern-message`).
  const ajv = new Ajv({ allErrors: true, verbose: true, removeAdditional: false, useDefaults: true, coerceTypes, strict: false, strictNumbers: coerceTypes === false })
  addFormats.default(ajv)
  return ajv
}

/**
 * Request validation. Query strings, params and headers arrive as text, so
 * they are coerced ("25" -> 25); JSON bodies are not: `{"login": 1}` is a 400,
 * not the string "1". Unknown body fields are rejected, never silently dropped.
 */
export function createValidatorCompiler (sharedSchemas: () => Record<string, unknown>): FastifySchemaCompiler<FastifySchema> {
  const strict = newAjv(false)
  const coercing = newAjv('array')
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing
    for (const [id, shared] of Object.entries(sharedSchemas())) {
      if (ajv.getSchema(id) === undefined) ajv.addSchema(shared as object, id)
    }
    const validate: ValidateFunction = ajv.compile(schema as object)
    return validate as ReturnType<FastifySchemaCompiler<FastifySchema>>
  }
}

let typedJson: Ajv | undefined

/** A validator for JSON that arrived typed (MCP tool arguments): the same rules as request bodies. */
export function compileJsonValidator (schema: object): ValidateFunction {
  typedJson ??= newAjv(false)
  return typedJson.compile(schema)
}
