/**
 * Where a tenant's synced addon code lives. On the Docker backend it is the
 * tenant's addons folder on the host (the one its containers mount read-only),
 * written by this service's own process: git runs here with this process's
 * environment. A Kubernetes implementation runs the same steps as a Job that
 * mounts the tenant's addons claim (the portal never mounts tenant volumes).
 */
import type { LookupAddress } from 'node:dns'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { discard, findModules, removeSource, stagingFolder, switchTo, type FoundModule } from './addon-checkout.ts'
import { checkoutCommit, fetchBranch, type Credential } from './git-fetch.ts'

export interface SyncRequest {
  tenantSubdomain: string
  sourceId: number
  url: URL
  branch: string
  subpath: string | null
  address: LookupAddress
  credential?: Credential
  /** ssh: the server key pinned for the source; null: the first sync pins the one it sees. */
  hostKey?: string | null
  maxBytes: number
  maxFiles: number
  signal: AbortSignal
  /** Modules the tenant's other sources provide (technical name -> that source's name): finding one fails the sync. */
  taken?: Record<string, string>
  /** This source's modules installed on instances (technical name -> the instances' names): missing one fails the sync. */
  installed?: Record<string, string>
}

export class ModuleConflict extends Error {
  override name = 'ModuleConflict'
}

/** Refuses a checkout that provides a module another source of the tenant provides already. */
export function checkConflicts (found: string[], taken: Record<string, string> | undefined): void {
  const clash = found.find((name) => taken !== undefined && Object.hasOwn(taken, name))
  if (clash !== undefined) throw new ModuleConflict(`the module ${clash} is already provided by the addon source ${taken?.[clash] ?? ''}`)
}

/** Refuses a checkout that no longer provides a module installed on an instance: its code would vanish under it. */
export function checkInstalledKept (found: string[], installed: Record<string, string> | undefined): void {
  const missing = Object.keys(installed ?? {}).sort().find((name) => !found.includes(name))
  if (missing !== undefined) throw new ModuleStillInstalled(`the module ${missing} is no longer in the repository but is installed on ${installed?.[missing] ?? ''}`)
}

export class ModuleStillInstalled extends Error {
  override name = 'ModuleStillInstalled'
}

export interface SyncOutcome {
  commit: string
  /** Modules now linked into the tenant's addons folder. */
  modules: FoundModule[]
  /** Modules the tenant already has from elsewhere (another source, or a folder of its own). */
  skipped: string[]
  /** ssh: the server key the fetch trusted, to be pinned. */
  hostKey: string | null
}

export interface AddonStorage {
  sync: (request: SyncRequest) => Promise<SyncOutcome>
  remove: (tenantSubdomain: string, sourceId: number) => Promise<void>
}

/** `addonsDirOf` gives the tenant's addons folder (provisioning/docker's addonsHostPath). */
export function createLocalAddonStorage (addonsDirOf: (tenantSubdomain: string) => string): AddonStorage {
  return {
    async sync (request) {
      const gitDir = await mkdtemp(join(tmpdir(), 'addon-source-git-'))
      try {
        const { maxBytes, maxFiles, signal } = request
        const { commit, hostKey } = await fetchBranch({ ...request, gitDir, limits: { maxBytes, maxFiles, signal } })
        const addonsDir = addonsDirOf(request.tenantSubdomain)
        const stage = await stagingFolder(addonsDir, request.sourceId, commit)
        try {
          await checkoutCommit(gitDir, stage, commit, signal)
          const found = await findModules(request.subpath === null ? stage : join(stage, request.subpath))
          checkConflicts(found.map((m) => m.technicalName), request.taken)
          checkInstalledKept(found.map((m) => m.technicalName), request.installed)
          const { linked, skipped } = await switchTo(addonsDir, request.sourceId, stage, request.subpath, found.map((m) => m.technicalName))
          return { commit, modules: found.filter((m) => linked.includes(m.technicalName)), skipped, hostKey }
        } catch (error) {
          await discard(stage)
          throw error
        }
      } finally {
        await rm(gitDir, { recursive: true, force: true })
      }
    },

    async remove (tenantSubdomain, sourceId) {
      await removeSource(addonsDirOf(tenantSubdomain), sourceId)
    }
  }
}

/** One backend's storage, and whether that backend is configured here now. */
export interface BackendStorage {
  backend: string
  storage: AddonStorage
  configured: () => boolean
}

/**
 * The storage of every backend where the company has or may have instances (each enabled one), in
 * turn: an installation offering both keeps a tenant's code in both. An enabled backend that is not
 * configured here (no kubeconfig) can hold no instance: it is skipped with a log line, never failing
 * the sync. The first one's outcome is reported; another that fetched a different commit (a push in
 * between) fails the sync, to be run again.
 */
export function combinedStorage (entries: BackendStorage[], log: { info: (fields: object, message: string) => void }): AddonStorage {
  if (entries.length === 0) throw new Error('combinedStorage needs a storage')
  function usable (request: { tenantSubdomain: string, sourceId: number }): AddonStorage[] {
    const skipped = entries.filter((entry) => !entry.configured()).map((entry) => entry.backend)
    if (skipped.length > 0) log.info({ backends: skipped, addon_source_id: request.sourceId }, 'Addon source sync skips backends that are not configured here')
    return entries.filter((entry) => entry.configured()).map((entry) => entry.storage)
  }
  return {
    async sync (request) {
      const [first, ...rest] = usable(request)
      if (first === undefined) throw new NoAddonStorage('no backend of this installation can keep addon code now')
      const outcome = await first.sync(request)
      for (const storage of rest) {
        // The key the first one pinned binds the others: both fetch from the same server.
        const other = await storage.sync({ ...request, hostKey: request.hostKey ?? outcome.hostKey })
        if (other.commit !== outcome.commit) throw new Error(`the branch moved during the sync (${outcome.commit.slice(0, 12)}, then ${other.commit.slice(0, 12)}): sync again`)
      }
      return outcome
    },
    async remove (tenantSubdomain, sourceId) {
      for (const storage of usable({ tenantSubdomain, sourceId })) await storage.remove(tenantSubdomain, sourceId)
    }
  }
}

export class NoAddonStorage extends Error {
  override name = 'NoAddonStorage'
}
