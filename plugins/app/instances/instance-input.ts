import { isReservedSubdomain, isSubdomain, SUBDOMAIN_RULE } from '../../../lib/subdomains.ts'
import type { BackendName } from '../../../provisioning/backend.ts'
import { SubdomainReserved } from '../tenants/tenants.errors.ts'
import { INSTANCE_BACKENDS } from './instance.entity.ts'
import { InstanceInputInvalid } from './instances.errors.ts'

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

function invalid (field: string, message: string, allowed?: readonly string[]): never {
  throw InstanceInputInvalid(`${field} ${message}`, {
    fields: [{ field, in: 'body', message, ...(allowed === undefined ? {} : { allowed: [...allowed] }) }]
  })
}

/**
 * The service's own checks, shared by REST (after its schema) and MCP: the
 * configured ERP versions, the known backends, the subdomain's form and the
 * reserved names. Uniqueness is the database's to say.
 */
export function checkInstanceInput (input: NewInstanceInput, erpVersions: readonly string[]): CheckedInstanceInput {
  const name = input.name.trim()
  if (name.length < 1 || name.length > 100) invalid('name', 'must be 1 to 100 characters')
  const subdomain = input.subdomain
  if (!isSubdomain(subdomain)) {
    invalid('subdomain', `must be a DNS label: ${SUBDOMAIN_RULE}`)
  }
  if (isReservedSubdomain(subdomain)) throw SubdomainReserved(`The subdomain "${subdomain}" is reserved`, { field: 'subdomain' })
  if (!erpVersions.includes(input.erp_version)) invalid('erp_version', 'must be equal to one of the allowed values', erpVersions)
  if (!(INSTANCE_BACKENDS as readonly string[]).includes(input.backend)) invalid('backend', 'must be equal to one of the allowed values', INSTANCE_BACKENDS)
  return { name, subdomain, erpVersion: input.erp_version, backend: input.backend as BackendName }
}
