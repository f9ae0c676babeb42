/** The activity types the addon sources room records, each with what it means (docs/company.md lists them all). */
export const ADDON_SOURCES_ACTIVITY = {
  'addon_source.registered': 'An addon source (a Git repository of ERP modules) was added',
  'addon_source.updated': 'An addon source was changed (name, address, branch, path or credentials)',
  'addon_source.deleted': 'An addon source was deleted',
  'addon_source.sync_requested': 'A sync of an addon source was requested',
  'addon_source.synced': 'An addon source was fetched: its commit and modules are known',
  'addon_source.sync_failed': 'A sync of an addon source failed'
} as const satisfies Record<`addon_source.${string}`, string>

/** What the room's records point at (`target_type`), with what `target_id` holds. */
export const ADDON_SOURCES_ACTIVITY_TARGETS = {
  addon_source: 'An addon source; `target_id` is its integer id'
} as const
