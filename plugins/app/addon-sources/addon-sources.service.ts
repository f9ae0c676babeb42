import { pageInfo, pageWindow, type PageInfo, type PageRequest } from '../../../lib/pages.ts'
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Actor } from '../../../lib/actor.ts'
import type { OutboundPolicy } from '../../../lib/outbound-url.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import type { Jobs } from '../../external/jobs.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import type { ActivityType } from '../activity/activity-types.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { AddonSource } from './addon-source.entity.ts'
import { checkBranch, checkCredential, checkHostKey, checkRepositoryUrl, checkSubpath, defaultName, type SourceFields } from './addon-source-input.ts'
import { toAddonSourceView, type AddonSourceView } from './addon-source.view.ts'
import { AddonSourceBusy, AddonSourceExists, AddonSourceInvalid, AddonSourceNotFound, AddonSyncUnavailable } from './addon-sources.errors.ts'
import { refuseWhileInstalled } from './source-installs.ts'
import type { CredentialSealer } from './credential-seal.ts'
import { sourceAddress } from './source-address.ts'
import type { AddonStorage } from './addon-storage.ts'
import { ADDON_SYNC_QUEUE, type AddonSyncJobData } from './addon-sync.queue.ts'
import type { CallScope } from '../../../lib/call-scope.ts'

export interface AddonSourcesServiceDeps {
  jobs: Pick<Jobs, 'send' | 'wake'>
  activity: ActivityService
  sealer: CredentialSealer
  policy: OutboundPolicy
  /** Where synced code goes; undefined when no backend here can hold it (sync answers 503). */
  storage: AddonStorage | undefined
  /** A source `syncing` for longer than this lost its job (a crash on the last attempt): it may be synced, changed or deleted again. */
  syncStaleMs: number
}

/** A tenant's Git addon sources. Registering installs nothing; a sync (a job) fetches the code and lists its modules. */
export function createAddonSourcesService (deps: AddonSourcesServiceDeps) {
  const { jobs, activity, sealer, policy, storage } = deps

  function syncing (source: AddonSource): boolean {
    return source.state === 'syncing' && source.updatedAt.getTime() > Date.now() - deps.syncStaleMs
  }

  async function sourceOf (em: EntityManager, id: number, lock = false): Promise<AddonSource> {
    const source = await em.findOne(AddonSource, id, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {})
    if (source === null) throw AddonSourceNotFound()
    return source
  }

  function record (tx: EntityManager, actor: Actor, source: AddonSource, type: ActivityType, title: string): void {
    activity.record(tx, actor, { type, title, targetType: 'addon_source', targetId: String(source.id) })
  }

  async function saved<T> (work: () => Promise<T>, name: string | undefined): Promise<T> {
    try {
      return await work()
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw AddonSourceExists(`An addon source named ${JSON.stringify(name)} already exists`, { field: 'name' })
      throw error
    }
  }

  return {
    async list ({ em }: Pick<CallScope, 'em'>): Promise<AddonSourceView[]> {
      const rows = await em.find(AddonSource, {}, { orderBy: { createdAt: 'asc', id: 'asc' } })
      return rows.map(toAddonSourceView)
    },

    /** One page of the sources (REST), oldest first, counted in the same call. */
    async listPage ({ em }: Pick<CallScope, 'em'>, request: PageRequest): Promise<{ addon_sources: AddonSourceView[], pagination: PageInfo }> {
      const [rows, total] = await em.findAndCount(AddonSource, {}, { orderBy: { createdAt: 'asc', id: 'asc' }, ...pageWindow(request) })
      return { addon_sources: rows.map(toAddonSourceView), pagination: pageInfo(request, total) }
    },

    async get ({ em }: Pick<CallScope, 'em'>, id: number): Promise<AddonSourceView> {
      return toAddonSourceView(await sourceOf(em, id))
    },

    /** Records the source in `pending` (admin). Nothing is fetched or installed until a sync. */
    async create ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, fields: SourceFields & { repository_url: string, branch: string }): Promise<AddonSourceView> {
      requireAdmin(actor, 'register addon sources')
      const credential = checkCredential(fields)
      const url = checkRepositoryUrl(fields.repository_url, credential?.kind ?? null)
      const branch = checkBranch(fields.branch)
      const subpath = checkSubpath(fields.subpath)
      const sshHostKey = checkHostKey(fields.ssh_host_key, url) ?? null
      const name = fields.name?.trim() || defaultName(url)
      await sourceAddress(url, policy)
      const source = await saved(async () => await em.transactional(async (tx) => {
        const created = tx.create(AddonSource, {
          tenant: tx.getReference(Tenant, actor.tenantId),
          name,
          repositoryUrl: url.href,
          branch,
          subpath,
          state: 'pending',
          modules: [],
          credentialKind: credential?.kind ?? null,
          sshHostKey
        })
        await tx.flush()
        if (credential !== null) created.sealedCredential = sealer.seal(credential.secret, created.id)
        record(tx, actor, created, 'addon_source.registered', `Addon source ${name} registered (${url.href}, branch ${branch})`)
        await tx.flush()
        return created
      }), name)
      return toAddonSourceView(source)
    },

    /** Changes what is synced (admin); a changed repository, branch or subpath needs a new sync (`pending`). */
    async update ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, id: number, fields: SourceFields): Promise<AddonSourceView> {
      requireAdmin(actor, 'change addon sources')
      const credential = checkCredential(fields)
      const source = await saved(async () => await em.transactional(async (tx) => {
        const source = await sourceOf(tx, id, true)
        if (syncing(source)) throw AddonSourceBusy('The source is being synced: change it when the sync has finished')
        const url = checkRepositoryUrl(fields.repository_url ?? source.repositoryUrl, credential?.kind ?? source.credentialKind ?? null)
        if (fields.repository_url !== undefined) await sourceAddress(url, policy)
        const branch = fields.branch === undefined ? source.branch : checkBranch(fields.branch)
        const subpath = fields.subpath === undefined ? source.subpath ?? null : checkSubpath(fields.subpath)
        if (fields.name !== undefined && fields.name.trim() === '') throw AddonSourceInvalid('The name must not be blank', { field: 'name' })
        const moved = url.href !== source.repositoryUrl || branch !== source.branch || subpath !== (source.subpath ?? null)
        // Another server (or none over ssh) does not keep the old one's pinned key.
        const otherServer = url.protocol !== 'ssh:' || url.host !== new URL(source.repositoryUrl).host
        const sshHostKey = fields.ssh_host_key === undefined ? (otherServer ? null : source.sshHostKey ?? null) : checkHostKey(fields.ssh_host_key, url)
        Object.assign(source, { repositoryUrl: url.href, branch, subpath, sshHostKey, name: fields.name?.trim() ?? source.name })
        if (credential !== null) Object.assign(source, { credentialKind: credential.kind, sealedCredential: sealer.seal(credential.secret, source.id) })
        if (moved || source.state === 'syncing') Object.assign(source, { state: 'pending', error: null })
        record(tx, actor, source, 'addon_source.updated', `Addon source ${source.name} changed${moved ? ': sync it to fetch the new code' : ''}`)
        await tx.flush()
        return source
      }), fields.name)
      return toAddonSourceView(source)
    },

    /**
     * Removes the source, its catalog entries and its checkout (admin). Refused (409 ADDON_SOURCE_IN_USE,
     * naming the instances) while one of its modules is installed, or being installed, on an instance.
     */
    async remove ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, id: number): Promise<void> {
      requireAdmin(actor, 'delete addon sources')
      const subdomain = await em.transactional(async (tx) => {
        const source = await sourceOf(tx, id, true)
        if (syncing(source)) throw AddonSourceBusy('The source is being synced: delete it when the sync has finished')
        await refuseWhileInstalled(tx, actor.tenantId, source)
        record(tx, actor, source, 'addon_source.deleted', `Addon source ${source.name} deleted`)
        tx.remove(source)
        await tx.flush()
        return (await tx.findOneOrFail(Tenant, actor.tenantId)).subdomain
      })
      // After the commit: a crash in between leaves files without a record, which the next sync of nothing never reads.
      await storage?.remove(subdomain, id)
    },

    /** Queues a sync (admin), answering at once in `syncing`; asking again while one is under way queues nothing more. */
    async sync ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, id: number): Promise<AddonSourceView> {
      requireAdmin(actor, 'sync addon sources')
      const source = await em.transactional(async (tx) => {
        const source = await sourceOf(tx, id, true)
        if (storage === undefined) throw AddonSyncUnavailable('No backend here keeps addon code (neither the Docker nor the Kubernetes backend is enabled)')
        if (syncing(source)) return source
        Object.assign(source, { state: 'syncing', updatedAt: new Date() })
        record(tx, actor, source, 'addon_source.sync_requested', `Sync of addon source ${source.name} requested`)
        await tx.flush()
        await jobs.send(tx, ADDON_SYNC_QUEUE, { sourceId: source.id, tenantId: actor.tenantId } satisfies AddonSyncJobData)
        return source
      })
      jobs.wake(ADDON_SYNC_QUEUE)
      return toAddonSourceView(source)
    }
  }
}

export type AddonSourcesService = ReturnType<typeof createAddonSourcesService>
