/**
 * The sync job: check the repository's host again (the address git is pinned
 * to), fetch the branch, switch the tenant's checkout atomically, and record the
 * commit and the modules in the source and the tenant's catalog. Idempotent: it
 * works only while the source is `syncing`, and a retry fetches afresh into a
 * new hidden folder. The last failed attempt records `failed` with the reason.
 */
import { LockMode } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import type { JobWithMetadata } from 'pg-boss'
import type { SystemActor } from '../../../lib/actor.ts'
import type { OutboundPolicy } from '../../../lib/outbound-url.ts'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import type { ActivityType } from '../activity/activity-types.ts'
import { replaceSourceModules } from '../modules/source-modules.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { AddonSource } from './addon-source.entity.ts'
import type { AddonSyncJobData } from './addon-sync.queue.ts'
import { ModuleConflict, ModuleStillInstalled, NoAddonStorage, type AddonStorage, type SyncOutcome } from './addon-storage.ts'
import { forgetInstallsOfDropped, installedModules } from './source-installs.ts'
import { SourceTooLarge } from './git-fetch.ts'
import type { CredentialSealer } from './credential-seal.ts'
import { sourceAddress } from './source-address.ts'

export interface SyncJobDeps {
  em: EntityManager
  activity: ActivityService
  sealer: CredentialSealer
  policy: OutboundPolicy
  storage: AddonStorage
  limits: { maxBytes: number, maxFiles: number, timeoutMs: number }
  log: FastifyBaseLogger
}

export function createSyncJob (deps: SyncJobDeps) {
  const { activity, log } = deps

  async function finish (tenantId: string, sourceId: number, done: (source: AddonSource, tx: EntityManager) => Promise<{ type: ActivityType, title: string }>): Promise<void> {
    const actor: SystemActor = { kind: 'system', tenantId, job: 'addon-source-sync' }
    await scopedEntityManager(deps.em, tenantId).transactional(async (tx) => {
      const source = await tx.findOne(AddonSource, sourceId, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true })
      if (source === null || source.state !== 'syncing') return
      const { type, title } = await done(source, tx)
      activity.record(tx, actor, { type, title, targetType: 'addon_source', targetId: String(source.id) })
      await tx.flush()
    })
  }

  async function run (em: EntityManager, source: AddonSource): Promise<SyncOutcome> {
    const tenant = await em.findOneOrFail(Tenant, source.tenant.id)
    const url = new URL(source.repositoryUrl)
    const address = await sourceAddress(url, deps.policy)
    const credential = source.credentialKind == null || source.sealedCredential == null
      ? undefined
      : { kind: source.credentialKind, secret: deps.sealer.open(source.sealedCredential, source.id) }
    return await deps.storage.sync({
      tenantSubdomain: tenant.subdomain,
      sourceId: source.id,
      url,
      branch: source.branch,
      subpath: source.subpath ?? null,
      address,
      ...(credential === undefined ? {} : { credential }),
      hostKey: source.sshHostKey ?? null,
      taken: await modulesOfOtherSources(em, source),
      installed: await installedModules(em, source.tenant.id, source),
      maxBytes: deps.limits.maxBytes,
      maxFiles: deps.limits.maxFiles,
      signal: AbortSignal.timeout(deps.limits.timeoutMs)
    })
  }

  return async function syncJob (job: JobWithMetadata<AddonSyncJobData>): Promise<void> {
    const { sourceId, tenantId } = job.data
    const em = scopedEntityManager(deps.em, tenantId)
    const source = await em.findOne(AddonSource, sourceId, { populate: ['sealedCredential'] })
    if (source === null || source.state !== 'syncing') return
    try {
      const outcome = await run(em, source)
      await finish(tenantId, sourceId, async (done, tx) => {
        const names = outcome.modules.map((m) => m.technicalName)
        await forgetInstallsOfDropped(tx, tenantId, done.id, names)
        await replaceSourceModules(tx, tenantId, done.id, outcome.modules)
        const note = outcome.skipped.length === 0 ? null : `Not linked, already provided by another source or folder: ${outcome.skipped.join(', ')}`
        if (done.sshHostKey == null && outcome.hostKey !== null && url(done).protocol === 'ssh:') done.sshHostKey = outcome.hostKey
        Object.assign(done, { state: 'synced', lastCommit: outcome.commit, lastSyncedAt: new Date(), modules: names, error: note?.slice(0, 1000) ?? null })
        return { type: 'addon_source.synced', title: `Addon source ${done.name} synced at ${outcome.commit.slice(0, 12)}: ${names.length} module(s)` }
      })
    } catch (error) {
      const message = describe(error, deps.limits.timeoutMs)
      const last = job.retryCount >= job.retryLimit || deterministic(error, message)
      log.warn({ err: error, sourceId, attempt: job.retryCount + 1, last }, 'Addon source sync attempt failed')
      if (!last) throw error
      await finish(tenantId, sourceId, async (done) => {
        Object.assign(done, { state: 'failed', error: message.slice(0, 1000) })
        return { type: 'addon_source.sync_failed', title: `Sync of addon source ${done.name} failed: ${message}` }
      })
    }
  }
}

/** The modules the tenant's other sources provide: a second source of the same module is refused. */
async function modulesOfOtherSources (em: EntityManager, source: AddonSource): Promise<Record<string, string>> {
  const rows = await em.execute<Array<{ technical_name: string, source_name: string }>>(
    `SELECT m.technical_name, s.name AS source_name FROM erp_modules m JOIN addon_sources s ON s.id = m.addon_source_id
      WHERE m.tenant_id = ? AND s.tenant_id = ? AND m.addon_source_id <> ?`, [source.tenant.id, source.tenant.id, source.id])
  return Object.fromEntries(rows.map((row) => [row.technical_name, row.source_name]))
}

const url = (source: AddonSource) => new URL(source.repositoryUrl)

/**
 * Failures another attempt would only repeat: the repository's content or the source's settings,
 * not the network (the Kubernetes Job reports them as text, hence the messages).
 */
const FINAL = /does not exist in the repository|is no longer in the repository but is installed on|refused the deploy key|is not the one pinned|is already provided by the addon source|has more than \d+ files|larger than the \d+-byte limit|needs a deploy key/

function deterministic (error: unknown, message: string): boolean {
  if (error instanceof ModuleConflict || error instanceof ModuleStillInstalled || error instanceof SourceTooLarge || error instanceof NoAddonStorage) return true
  // The guard refused the host's address; a name that does not resolve (ADDON_SOURCE_INVALID) may resolve later.
  if ((error as { code?: string }).code === 'ADDON_SOURCE_ADDRESS_REFUSED') return true
  return FINAL.test(message)
}

function describe (error: unknown, timeoutMs: number): string {
  const message = error instanceof Error ? error.message : String(error)
  if (message === 'timed out') return `The sync took longer than ${timeoutMs / 1000} s`
  return message
}
