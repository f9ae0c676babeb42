import type { AddonSource, AddonSourceState, CredentialKind } from './addon-source.entity.ts'

export interface AddonSourceView {
  id: number
  name: string
  repository_url: string
  branch: string
  subpath: string | null
  state: AddonSourceState
  last_synced_at: string | null
  last_commit: string | null
  error: string | null
  modules: string[]
  /** Which kind of credential is stored; the credential itself is never returned. */
  credential: CredentialKind | null
  /** The ssh server's pinned public key; null until the first sync of an ssh source. */
  ssh_host_key: string | null
  created_at: string
  updated_at: string
}

export function toAddonSourceView (source: AddonSource): AddonSourceView {
  return {
    id: source.id,
    name: source.name,
    repository_url: source.repositoryUrl,
    branch: source.branch,
    subpath: source.subpath ?? null,
    state: source.state,
    last_synced_at: source.lastSyncedAt?.toISOString() ?? null,
    last_commit: source.lastCommit ?? null,
    error: source.error ?? null,
    modules: [...source.modules],
    credential: source.credentialKind ?? null,
    ssh_host_key: source.sshHostKey ?? null,
    created_at: source.createdAt.toISOString(),
    updated_at: source.updatedAt.toISOString()
  }
}
