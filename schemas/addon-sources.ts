import { Type } from 'typebox'
import { ADDON_SOURCE_STATES, CREDENTIAL_KINDS } from '../plugins/app/addon-sources/addon-source.entity.ts'
import { BigInt53, PageInfo, Pagination, ref, Success } from './common.ts'

const Nullable = <T extends ReturnType<typeof Type.String>> (schema: T) => Type.Union([schema, Type.Null()])
const Stamp = Type.String({ format: 'date-time' })

export const AddonSourceId = BigInt53({ minimum: 1, description: 'Addon source id (a positive integer)', examples: [3] })
export const AddonSourceParams = Type.Object({ id: AddonSourceId })

export const AddonSource = Type.Object({
  id: AddonSourceId,
  name: Type.String({ description: 'Unique within the company', examples: ['acme-addons'] }),
  repository_url: Type.String({ description: 'https:// (or ssh:// with a deploy key) URL of the Git repository', examples: ['https://github.com/acme/odoo-addons.git'] }),
  branch: Type.String({ examples: ['17.0'] }),
  subpath: Nullable(Type.String({ description: 'Folder of the repository that holds the modules; null: its root' })),
  state: Type.Enum(ADDON_SOURCE_STATES, { description: '`pending` (never synced, or changed since), `syncing`, `synced` or `failed` (see `error`)' }),
  last_synced_at: Nullable(Stamp),
  last_commit: Nullable(Type.String({ description: 'The commit the last sync checked out (hex)' })),
  error: Nullable(Type.String({ description: 'Why the last sync failed, or which modules it could not link' })),
  modules: Type.Array(Type.String(), { description: 'Technical names of the modules the last sync found (folders with a __manifest__.py); each is in the catalog as installable' }),
  credential: Type.Union([Type.Enum(CREDENTIAL_KINDS), Type.Null()], { description: 'Which credential is stored (`token` or `deploy_key`); the credential itself is never returned' }),
  ssh_host_key: Nullable(Type.String({
    description: 'An ssh:// source\'s server key (`<type> <base64>`), pinned by its first sync (or given at registration); every later sync requires it. null: none pinned yet',
    examples: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl']
  })),
  created_at: Stamp,
  updated_at: Stamp
}, { $id: 'AddonSource', description: 'A Git repository of ERP addon modules, synced into the company\'s addons storage' })

const fields = {
  name: Type.String({ minLength: 1, maxLength: 120, description: 'A name for the source, unique within the company; default: the repository\'s name' }),
  repository_url: Type.String({ minLength: 1, maxLength: 500, description: 'https:// URL of the Git repository (ssh:// only with `deploy_key`). Its host must resolve to public addresses' }),
  branch: Type.String({ minLength: 1, maxLength: 200, description: 'The branch to sync (a plain branch name: no "..", no leading "-")' }),
  subpath: Type.Union([Type.String({ maxLength: 500 }), Type.Null()], { description: 'Folder inside the repository holding the modules (relative, no ".."); omit or null for the root' }),
  token: Type.String({ minLength: 1, maxLength: 1000, description: 'Access token of a private https repository; stored encrypted, never returned' }),
  deploy_key: Type.String({ minLength: 1, maxLength: 16_384, description: 'OpenSSH private deploy key (no passphrase) of an ssh:// repository; stored encrypted, never returned' }),
  ssh_host_key: Type.String({ minLength: 1, maxLength: 2000, description: 'The ssh:// server\'s public key to require, as a known_hosts or ssh-keyscan line (`ssh-ed25519 AAAA…`); omitted: the first sync pins the key the server shows' })
}

export const CreateAddonSourceBody = Type.Object({
  repository_url: fields.repository_url,
  branch: fields.branch,
  name: Type.Optional(fields.name),
  subpath: Type.Optional(fields.subpath),
  token: Type.Optional(fields.token),
  deploy_key: Type.Optional(fields.deploy_key),
  ssh_host_key: Type.Optional(fields.ssh_host_key)
}, { additionalProperties: false })

export const UpdateAddonSourceBody = Type.Object({
  repository_url: Type.Optional(fields.repository_url),
  branch: Type.Optional(fields.branch),
  name: Type.Optional(fields.name),
  subpath: Type.Optional(fields.subpath),
  token: Type.Optional(fields.token),
  deploy_key: Type.Optional(fields.deploy_key),
  ssh_host_key: Type.Optional(Type.Union([fields.ssh_host_key, Type.Null()], { description: 'A new server key to require; null forgets the pinned one (the next sync pins the key the server shows). A new host in repository_url forgets it too' }))
}, { additionalProperties: false, minProperties: 1 })

export const AddonSourceResponse = Success({ addon_source: ref(AddonSource) }, { $id: 'AddonSourceResponse' })
export const AddonSourceListQuery = Pagination
export const AddonSourceListResponse = Success({ addon_sources: Type.Array(ref(AddonSource), { description: 'Oldest first' }), pagination: ref(PageInfo) }, { $id: 'AddonSourceListResponse' })
