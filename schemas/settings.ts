import { Type, type TSchema } from 'typebox'
import { ref, Success } from './common.ts'

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

const descriptions = {
  name: 'Company name (the tenant\'s name), 1-200 characters',
  address: 'Postal address, up to 500 characters',
  phone: 'Phone number: 5-20 digits with an optional leading +, spaces and ( ) . / -',
  email: 'Contact e-mail address (stored lower-cased)',
  vat_id: 'VAT or tax id, 4-40 letters, digits, spaces, dots, slashes or hyphens (stored upper-cased)',
  country: 'ISO 3166-1 alpha-2 country code, e.g. "DE" (any case in, upper case out)',
  currency: 'ISO 4217 currency code, e.g. "EUR" (any case in, upper case out)',
  timezone: 'IANA time zone, e.g. "Europe/Paris" or "UTC"; aliases resolve to the canonical name',
  language: 'BCP 47 language tag, e.g. "en" or "fr-BE" (canonicalised; at most 16 characters)'
}

export const CompanySettings = Type.Object({
  name: Type.String({ description: descriptions.name }),
  address: Nullable(Type.String({ description: descriptions.address })),
  phone: Nullable(Type.String({ description: descriptions.phone })),
  email: Nullable(Type.String({ description: descriptions.email })),
  vat_id: Nullable(Type.String({ description: descriptions.vat_id })),
  country: Nullable(Type.String({ description: descriptions.country })),
  currency: Type.String({ description: descriptions.currency }),
  timezone: Type.String({ description: descriptions.timezone }),
  language: Type.String({ description: descriptions.language })
}, { $id: 'CompanySettings' })

export const NotificationSettings = Type.Object({
  instance_events: Type.Boolean({ description: 'E-mail when an instance starts, stops or fails' }),
  billing: Type.Boolean({ description: 'E-mail about invoices and payments' }),
  tickets: Type.Boolean({ description: 'E-mail when a support ticket is answered' }),
  weekly_report: Type.Boolean({ description: 'A weekly summary e-mail' })
}, { $id: 'NotificationSettings' })

export const SecuritySettings = Type.Object({
  require_two_factor: Type.Boolean({ description: 'Every member must sign in with a second factor; members without one set it up at their next login' })
}, { $id: 'SecuritySettings' })

export const SettingsResponse = Success({
  settings: Type.Object({ company: ref(CompanySettings), notifications: ref(NotificationSettings), security: ref(SecuritySettings) })
}, { $id: 'SettingsResponse', description: 'The company settings; defaults until an administrator saves them' })

// Structure and size only: what a value means (a real country, currency…) is the service's check, with its own error code.
export const SettingsUpdateBody = Type.Object({
  company: Type.Optional(Type.Object({
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: descriptions.name })),
    address: Type.Optional(Nullable(Type.String({ maxLength: 500, description: `${descriptions.address}; null or blank clears it` }))),
    phone: Type.Optional(Nullable(Type.String({ maxLength: 40, description: `${descriptions.phone}; null or blank clears it` }))),
    email: Type.Optional(Nullable(Type.String({ maxLength: 254, description: `${descriptions.email}; null or blank clears it` }))),
    vat_id: Type.Optional(Nullable(Type.String({ maxLength: 40, description: `${descriptions.vat_id}; null or blank clears it` }))),
    country: Type.Optional(Nullable(Type.String({ maxLength: 64, description: `${descriptions.country}; null or blank clears it` }))),
    currency: Type.Optional(Type.String({ maxLength: 64, description: descriptions.currency })),
    timezone: Type.Optional(Type.String({ maxLength: 64, description: descriptions.timezone })),
    language: Type.Optional(Type.String({ maxLength: 64, description: descriptions.language }))
  }, { additionalProperties: false })),
  notifications: Type.Optional(Type.Object({
    instance_events: Type.Optional(Type.Boolean()),
    billing: Type.Optional(Type.Boolean()),
    tickets: Type.Optional(Type.Boolean()),
    weekly_report: Type.Optional(Type.Boolean())
  }, { additionalProperties: false })),
  security: Type.Optional(Type.Object({
    require_two_factor: Type.Optional(Type.Boolean({ description: 'Require a second factor of every member' }))
  }, { additionalProperties: false }))
}, { additionalProperties: false, description: 'Any subset of the settings; fields left out keep their value' })
