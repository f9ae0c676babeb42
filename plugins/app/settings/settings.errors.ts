import { defineError } from '../../../lib/errors.ts'

export const CompanyNotFound = defineError('COMPANY_NOT_FOUND', 'Company not found', 404)

/**
 * A refused value answers 400 VALIDATION_FAILED like any malformed input; each entry of its
 * `details.fields[]` also carries one of these codes, so a client can point at the input.
 */
export const SETTINGS_FIELD_CODES = {
  companyName: 'INVALID_COMPANY_NAME',
  companyAddress: 'INVALID_COMPANY_ADDRESS',
  companyPhone: 'INVALID_COMPANY_PHONE',
  companyEmail: 'INVALID_COMPANY_EMAIL',
  vatId: 'INVALID_VAT_ID',
  country: 'INVALID_COUNTRY',
  currency: 'INVALID_CURRENCY',
  timezone: 'INVALID_TIMEZONE',
  language: 'INVALID_LANGUAGE',
  notificationSetting: 'INVALID_NOTIFICATION_SETTING',
  securitySetting: 'INVALID_SECURITY_SETTING'
} as const
