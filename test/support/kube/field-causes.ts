/** Field errors (`causes` of an Invalid Status) and the name/label format checks, worded as apimachinery words them. */
import { isObject } from './merge.ts'
import { isValidLabelKey, isValidLabelValue } from './selectors.ts'
import type { StatusCause } from './status.ts'

export const required = (field: string, detail?: string): StatusCause =>
  ({ reason: 'FieldValueRequired', field, message: detail === undefined ? 'Required value' : `Required value: ${detail}` })
export const invalidValue = (field: string, value: unknown, detail: string): StatusCause =>
  ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(value)}: ${detail}` })
export const forbiddenField = (field: string, detail: string): StatusCause =>
  ({ reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` })
export const notFoundField = (field: string, value: unknown): StatusCause =>
  ({ reason: 'FieldValueNotFound', field, message: `Not found: ${JSON.stringify(value)}` })
export const duplicate = (field: string, value: unknown): StatusCause =>
  ({ reason: 'FieldValueDuplicate', field, message: `Duplicate value: ${JSON.stringify(value)}` })

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/

export function dns1123Label (field: string, value: unknown): StatusCause[] {
  return typeof value === 'string' && value.length <= 63 && DNS1123_LABEL.test(value)
    ? []
    : [invalidValue(field, value, 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character')]
}

export function dns1123Subdomain (field: string, value: unknown): StatusCause[] {
  return typeof value === 'string' && value.length <= 253 && DNS1123_SUBDOMAIN.test(value)
    ? []
    : [invalidValue(field, value, 'a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character')]
}

export function dns1035Label (field: string, value: unknown): StatusCause[] {
  return typeof value === 'string' && value.length <= 63 && DNS1035_LABEL.test(value)
    ? []
    : [invalidValue(field, value, 'a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character')]
}

export function labelCauses (field: string, labels: unknown): StatusCause[] {
  if (!isObject(labels)) return []
  const causes: StatusCause[] = []
  for (const [key, value] of Object.entries(labels)) {
    if (!isValidLabelKey(key)) causes.push(invalidValue(field, key, 'name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character'))
    if (typeof value !== 'string' || !isValidLabelValue(value)) causes.push(invalidValue(`${field}`, value, 'a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character'))
  }
  return causes
}
