import { isReservedSubdomain, isSubdomain, SUBDOMAIN_RULE } from '../../../lib/subdomains.ts'
import type { BackendName } from '../../../provisioning/backend.ts'
import { SubdomainReserved } from '../tenants/tenants.errors.ts'
import { INSTANCE_BACKENDS } from './instance.entity.ts'
import { invalidField } from '../../../lib/errors.ts'

export interface NewInstanceInput {
  name: string
  subdomain: string
  erp_version: string
  backend: string
}

export interface CheckedInstanceInput {
  name: string
  subdomain: string
  erpVersion: string
  backend: BackendName
}

/** Refused for its form: the same 400 VALIDATION_FAILED, naming the field, as a schema failure. */
function invalid (field: string, message: string): never {
  throw invalidField(field, message)
}

function notOneOf (field: string, allowed: readonly string[]): never {
  throw invalidField(field, `must be one of: ${allowed.join(', ')}`, { allowed })
}

/**
 * The service's own checks, shared by REST (after its schema) and MCP: the
 * configured ERP versions, the known backends, the subdomain's form and the
 * reserved names. Uniqueness is the database's to say.
 */
export function checkInstanceInput (input: NewInstanceInput, erpVersions: readonly string[]): CheckedInstanceInput {
  const name = input.name.trim()
  if (name.length < 1 || name.length > 100) invalid('name', 'must be between 1 and 100 characters')
  const subdomain = input.subdomain
  if (!isSubdomain(subdomain)) {
    invalid('subdomain', `must be a DNS label: ${SUBDOMAIN_RULE}`)
  }
  if (isReservedSubdomain(subdomain)) throw SubdomainReserved(`The subdomain "${subdomain}" is reserved`, { field: 'subdomain' })
  if (!erpVersions.includes(input.erp_version)) notOneOf('erp_version', erpVersions)
  if (!(INSTANCE_BACKENDS as readonly string[]).includes(input.backend)) notOneOf('backend', INSTANCE_BACKENDS)
  return { name, subdomain, erpVersion: input.erp_version, backend: input.backend as BackendName }
}
