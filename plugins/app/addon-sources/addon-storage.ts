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
  maxBytes: number
  maxFiles: number
  signal: AbortSignal
}

export interface SyncOutcome {
  commit: string
  /** Modules now linked into the tenant's addons folder. */
  modules: FoundModule[]
  /** Modules the tenant already has from elsewhere (another source, or a folder of its own). */
  skipped: string[]
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
        const commit = await fetchBranch({ ...request, gitDir, limits: { maxBytes, maxFiles, signal } })
        const addonsDir = addonsDirOf(request.tenantSubdomain)
        const stage = await stagingFolder(addonsDir, request.sourceId, commit)
        try {
          await checkoutCommit(gitDir, stage, commit, signal)
          const found = await findModules(request.subpath === null ? stage : join(stage, request.subpath))
          const { linked, skipped } = await switchTo(addonsDir, request.sourceId, stage, request.subpath, found.map((m) => m.technicalName))
          return { commit, modules: found.filter((m) => linked.includes(m.technicalName)), skipped }
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
