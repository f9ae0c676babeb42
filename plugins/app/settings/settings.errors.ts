import { defineError } from '../../../lib/errors.ts'

export const CompanyNotFound = defineError('COMPANY_NOT_FOUND', 'Company not found', 404)

// One code per field, so a client can point at the input; `details.fields[]` names every failing field.
export const InvalidCompanyName = defineError('INVALID_COMPANY_NAME', 'Invalid company name', 400)
export const InvalidCompanyAddress = defineError('INVALID_COMPANY_ADDRESS', 'Invalid address', 400)
export const InvalidCompanyPhone = defineError('INVALID_COMPANY_PHONE', 'Invalid phone number', 400)
export const InvalidCompanyEmail = defineError('INVALID_COMPANY_EMAIL', 'Invalid e-mail address', 400)
export const InvalidVatId = defineError('INVALID_VAT_ID', 'Invalid VAT id', 400)
export const InvalidCountry = defineError('INVALID_COUNTRY', 'Invalid country', 400)
export const InvalidCurrency = defineError('INVALID_CURRENCY', 'Invalid currency', 400)
export const InvalidTimezone = defineError('INVALID_TIMEZONE', 'Invalid time zone', 400)
export const InvalidLanguage = defineError('INVALID_LANGUAGE', 'Invalid language', 400)
export const InvalidNotificationSetting = defineError('INVALID_NOTIFICATION_SETTING', 'Invalid notification setting', 400)
export const InvalidSecuritySetting = defineError('INVALID_SECURITY_SETTING', 'Invalid security setting', 400)
