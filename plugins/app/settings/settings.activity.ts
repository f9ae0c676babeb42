/** The activity types the settings room records, each with what it means (docs/company.md lists them all). */
export const SETTINGS_ACTIVITY = {
  'settings.updated': 'The company settings changed; the title lists what changed'
} as const satisfies Record<`settings.${string}`, string>

/** What the room's records point at (`target_type`), with what `target_id` holds. */
export const SETTINGS_ACTIVITY_TARGETS = {
  settings: 'The company settings; `target_id` is the company id'
} as const
