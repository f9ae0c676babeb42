import { defineError } from '../../../lib/errors.ts'

export const SubdomainTaken = defineError('SUBDOMAIN_TAKEN', 'This subdomain is already taken', 409)
export const SubdomainReserved = defineError('SUBDOMAIN_RESERVED', 'This subdomain is reserved', 409)
export const EmailTaken = defineError('EMAIL_TAKEN', 'An account with this e-mail already exists', 409)
