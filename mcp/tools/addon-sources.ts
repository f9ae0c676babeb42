import { Type } from 'typebox'
import { BigInt53 } from '../../schemas/common.ts'
import { watchOf } from './job-watches.ts'
import { defineTool, READ_ONLY } from './tool.ts'

export const addonSourceTools = [
  defineTool({
    name: 'list_addon_sources',
    title: 'List Git addon sources',
    description: 'The company\'s Git repositories of custom ERP addons: URL, branch, subpath, sync state (pending, syncing, synced, failed), ' +
      'last commit, the modules found and, after a failure, `error`. Credentials are never shown.',
    input: Type.Object({}, { additionalProperties: false }),
    annotations: READ_ONLY,
    run: async ({ app, scope }) => ({ addon_sources: await app.addonSources.list(scope) })
  }),

  defineTool({
    name: 'add_addon_source',
    title: 'Register a Git addon source',
    description: 'Admin only. Registers a Git repository of ERP addon modules in state `pending`; it fetches and installs nothing (call sync_addon_source next). ' +
      'The URL must be https:// (or ssh:// with a `deploy_key`) whose host resolves to public addresses (ADDON_SOURCE_ADDRESS_REFUSED otherwise); ' +
      'branch and subpath must be plain (no "..", no leading "-", not absolute: ADDON_SOURCE_INVALID). A private https repository takes a `token`; ' +
      'an ssh:// one a `deploy_key`, and the server\'s key is pinned at the first sync unless `ssh_host_key` names it.',
    input: Type.Object({
      repository_url: Type.String({ minLength: 1, maxLength: 500, description: 'https:// URL of the Git repository, e.g. https://github.com/acme/odoo-addons.git' }),
      branch: Type.String({ minLength: 1, maxLength: 200, description: 'The branch to sync, e.g. 17.0 or main' }),
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 120, description: 'A name unique within the company; default: the repository\'s name' })),
      subpath: Type.Optional(Type.String({ maxLength: 500, description: 'Folder inside the repository that holds the modules; omit for its root' })),
      token: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'Access token of a private https repository; stored encrypted and never shown again' })),
      deploy_key: Type.Optional(Type.String({ minLength: 1, maxLength: 16_384, description: 'OpenSSH private deploy key (no passphrase) of an ssh:// repository; stored encrypted and never shown again' })),
      ssh_host_key: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'The ssh:// server\'s public key to require, as a known_hosts or ssh-keyscan line; omit it to pin the key the server shows at the first sync' }))
    }, { additionalProperties: false }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: async ({ app, scope }, input) => ({ addon_source: await app.addonSources.create(scope, input) })
  }),

  defineTool({
    name: 'sync_addon_source',
    title: 'Sync a Git addon source',
    description: 'Admin only. Queues a shallow fetch of the source\'s branch into the company\'s addons storage and answers at once in state `syncing`; ' +
      'instances see each module folder switch from old to new atomically. Poll list_addon_sources until `synced` (with `last_commit` and `modules`, ' +
      'now installable from the catalog) or `failed` (with `error`). Calling it again while a sync runs queues nothing more.',
    input: Type.Object({ addon_source_id: BigInt53({ minimum: 1, description: 'The addon source id, an integer (from list_addon_sources)' }) }, { additionalProperties: false }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    run: async ({ app, scope }, { addon_source_id: id }) => ({ addon_source: await app.addonSources.sync(scope, id) }),
    follow: ({ addon_source_id: id }) => watchOf({ kind: 'addon_source', sourceId: id }, {})
  })
]
