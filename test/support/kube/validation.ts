/**
 * Validation of a write: the OpenAPI schema (via kubernetes-models), object metadata
 * (name formats, label syntax) and the per-kind rules of validation-rules.ts.
 * Type errors are a 400, as the real server fails to decode them; the rest a 422 Invalid.
 */
import { isObject, type JsonObject } from './merge.ts'
import { groupVersion, type KubeObject, type ResourceType } from './resources.ts'
import { isValidLabelKey } from './selectors.ts'
import { badRequest, invalid, type StatusCause } from './status.ts'
import { dns1035Label, dns1123Label, dns1123Subdomain, invalidValue, labelCauses, required } from './field-causes.ts'
import { KIND_RULES, UPDATE_RULES } from './validation-rules.ts'

function metadataCauses (type: ResourceType, object: JsonObject): StatusCause[] {
  const meta = isObject(object.metadata) ? object.metadata : {}
  if (meta.name === undefined || meta.name === '') return [required('metadata.name', 'name or generateName is required')]
  const nameRule = type.kind === 'Namespace' ? dns1123Label : type.kind === 'Service' ? dns1035Label : dns1123Subdomain
  const causes = [...nameRule('metadata.name', meta.name), ...labelCauses('metadata.labels', meta.labels)]
  if (isObject(meta.annotations)) {
    for (const key of Object.keys(meta.annotations)) if (!isValidLabelKey(key)) causes.push(invalidValue('metadata.annotations', key, 'name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\''))
  }
  return causes
}

/** `/spec/template/spec/containers/0/image` → `spec.template.spec.containers[0].image` */
function fieldOf (instancePath: string, child?: string): string {
  const parts = instancePath.split('/').filter((p) => p !== '')
  if (child !== undefined) parts.push(child)
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('')
}

interface AjvError { instancePath: string, keyword: string, params: Record<string, unknown>, message?: string }

function schemaCauses (type: ResourceType, object: JsonObject): StatusCause[] {
  try {
    type.validateSchema(object as KubeObject)
    return []
  } catch (error) {
    const errors = ((error as { errors?: AjvError[] }).errors ?? [])
    const decode = errors.find((e) => e.keyword === 'type' || (e.keyword === 'format' && e.params.format === 'byte'))
    if (decode !== undefined) {
      const why = decode.keyword === 'type' ? `cannot unmarshal into Go struct field ${fieldOf(decode.instancePath)} of type ${String(decode.params.type)}` : `illegal base64 data in ${fieldOf(decode.instancePath)}`
      throw badRequest(`${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: ${why}`)
    }
    if (errors.length === 0) return [{ reason: 'FieldValueInvalid', message: (error as Error).message }]
    return errors.map((e) => e.keyword === 'required'
      ? required(fieldOf(e.instancePath, String(e.params.missingProperty)))
      : { reason: 'FieldValueInvalid', field: fieldOf(e.instancePath), message: `Invalid value: ${e.message ?? e.keyword}` })
  }
}

/** Throws a 400 (undecodable) or 422 Invalid Status. `before` is the stored object on updates. */
export function validate (type: ResourceType, object: JsonObject, before?: JsonObject): void {
  if (object.apiVersion !== groupVersion(type) || object.kind !== type.kind) {
    throw badRequest(`the API version in the data (${String(object.apiVersion)}) and kind (${String(object.kind)}) do not match the expected ${groupVersion(type)} ${type.kind}`)
  }
  const name = isObject(object.metadata) ? String(object.metadata.name ?? '') : ''
  const causes = [...schemaCauses(type, object), ...metadataCauses(type, object)]
  if (causes.length === 0) causes.push(...(KIND_RULES[type.kind]?.(object) ?? []))
  if (causes.length === 0 && before !== undefined) causes.push(...(UPDATE_RULES[type.kind]?.(object, before) ?? []))
  if (causes.length > 0) throw invalid(type, name, causes)
}
