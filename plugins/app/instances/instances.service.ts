import { pageInfo, pageWindow, slicePage, type PageInfo, type PageRequest } from '../../../lib/pages.ts'
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import type { Actor } from '../../../lib/actor.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import { ACROSS_TENANTS } from '../../../database/tenancy.ts'
import type { Jobs } from '../../external/jobs.ts'
import type { LimitsService } from '../limits/limits.service.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { SubdomainTaken } from '../tenants/tenants.errors.ts'
import type { BackendRegistry } from './backend-registry.ts'
import type { ErpDatabasesPort } from './erp-databases-port.ts'
import { Instance } from './instance.entity.ts'
import { checkInstanceInput, type NewInstanceInput } from './instance-input.ts'
import { INSTANCE_STATUS, INSTANCES_PAGE, LIST_INSTANCES, type InstancesPageRow, type InstanceStatusRow, type InstanceSummaryRow } from './instance.queries.ts'
import { instanceResources, subscriptionSize } from './instance-resources.ts'
import { ACTIONS, decide, type InstanceAction } from './instance-states.ts'
import type { InstanceTransitions } from './instance-transitions.ts'
import { toInstanceDetail, toInstanceStatus, toInstanceSummary, type InstanceDetailView, type InstanceStatusView, type InstanceSummaryView } from './instance.view.ts'
import { InstanceNotFound, StagingNotNeutralized } from './instances.errors.ts'
import { INSTANCE_QUEUE, type InstanceJobData } from './instance-actions.queue.ts'
import { seesSomeInstances, visibleInstances } from '../../../lib/agent-capabilities.ts'
import type { CallScope } from '../../../lib/call-scope.ts'

export interface InstancesServiceDeps {
  jobs: Pick<Jobs, 'send' | 'wake'>
  limits: LimitsService
  backends: BackendRegistry
  databases: ErpDatabasesPort
  transitions: InstanceTransitions
  erpVersions: readonly string[]
  imageTemplate: string
  instancesDomain: string
  /** Where an instance opens from this machine (a published loopback port), when its backend has such an address. */
  localUrl?: (instance: Instance) => Promise<string | undefined>
  log: Pick<FastifyBaseLogger, 'warn'>
}

export type LifecycleAction = Exclude<InstanceAction, 'provision'>

/** A staging copy being recorded: its production instance and when it expires. */
export interface StagingOf {
  parentId: number
  expiresAt: Date
}

/** A staging copy runs one ERP worker, whatever the subscription bought: it is for trying things, not for load. */
export const STAGING_WORKERS = 1

/** Instances of a tenant: records, lifecycle requests and the jobs that carry them out. */
export function createInstancesService (deps: InstancesServiceDeps) {
  const { jobs, limits, backends, databases, transitions, instancesDomain } = deps

  async function load (em: EntityManager, id: number, lock = false): Promise<Instance> {
    const instance = await em.findOne(Instance, id, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {})
    if (instance === null) throw InstanceNotFound()
    return instance
  }

  async function detail (em: EntityManager, instance: Instance): Promise<InstanceDetailView> {
    const copies = await em.find(Instance, { parent: instance.id, state: { $ne: 'deleted' } }, { fields: ['id'], orderBy: { id: 'asc' } })
    const [sizes, localUrl] = await Promise.all([
      databases.sizes([instance.uid]).catch((error: unknown) => {
        deps.log.warn({ err: error, instance_id: instance.id }, 'Database size unavailable; database_size answered as null')
        return new Map<string, number>()
      }),
      deps.localUrl?.(instance).catch(() => undefined)
    ])
    const { database } = databases.namesFor(instance.uid)
    return toInstanceDetail(instance, {
      domain: instancesDomain,
      databaseName: database,
      databaseLocation: `${databases.host}:${databases.port}/${database}`,
      databaseBytes: sizes.get(instance.uid),
      localUrl,
      stagingIds: copies.map((copy) => copy.id)
    })
  }

  async function queue (tx: EntityManager, instance: Instance, action: InstanceAction): Promise<void> {
    const data: InstanceJobData = { instanceId: instance.id, tenantId: instance.tenant.id, action }
    await jobs.send(tx, INSTANCE_QUEUE, data)
  }

  async function record (em: EntityManager, actor: Actor, input: NewInstanceInput, state: 'provisioning' | 'restoring', enqueue: (tx: EntityManager, created: Instance) => Promise<void>, staging?: StagingOf): Promise<Instance> {
    const checked = checkInstanceInput(input, deps.erpVersions)
    await backends.requireServing(checked.backend, checked.erpVersion)
    try {
      return await em.transactional(async (tx) => {
        await limits.assertInstanceSlot(tx, actor.tenantId, { staging: staging !== undefined })
        const taken = await tx.count(Instance, { subdomain: checked.subdomain }, ACROSS_TENANTS)
        if (taken > 0) throw SubdomainTaken(`The subdomain "${checked.subdomain}" is already taken`, { field: 'subdomain' })
        const resources = instanceResources(await subscriptionSize(tx, actor.tenantId))
        const created = tx.create(Instance, {
          tenant: tx.getReference(Tenant, actor.tenantId),
          name: checked.name,
          subdomain: checked.subdomain,
          erpVersion: checked.erpVersion,
          backend: checked.backend,
          state,
          status: state,
          image: deps.imageTemplate.replaceAll('{version}', checked.erpVersion),
          memoryMb: resources.memoryMb,
          cpuMillicores: resources.cpuMillicores,
          storageGb: resources.storageGb,
          workers: staging === undefined ? resources.workers : STAGING_WORKERS,
          ...(staging === undefined ? {} : { kind: 'staging' as const, parent: tx.getReference(Instance, staging.parentId), expiresAt: staging.expiresAt })
        })
        await tx.flush()
        transitions.created(tx, actor, created)
        await tx.flush()
        await enqueue(tx, created)
        return created
      })
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) {
        throw SubdomainTaken(`The subdomain "${checked.subdomain}" is already taken`, { field: 'subdomain' })
      }
      throw error
    }
  }

  return {
    /** `read` is `auth.sessionSql` for a request (the token checked in the same statement) or `callerSql` for an actor. */
    async list ({ read }: Pick<CallScope, 'read'>): Promise<InstanceSummaryView[]> {
      const { actor, rows } = await read<InstanceSummaryRow>(LIST_INSTANCES)
      // An agent bound to some instances sees those alone (lib/agent-capabilities.ts).
      return visibleInstances(actor, rows, (row) => row.id).map((row) => toInstanceSummary(row, instancesDomain))
    },

    /**
     * One page of the list (REST), paged by the database with the token check in the
     * same statement. An agent bound to some instances pages what it may see: that
     * filter is not SQL, so it reads the whole list (a company's instances are few:
     * the plan caps them) and pages it in code.
     */
    async listPage (scope: Pick<CallScope, 'read'>, request: PageRequest): Promise<{ instances: InstanceSummaryView[], pagination: PageInfo }> {
      const { limit, offset } = pageWindow(request)
      const { actor, rows: [page] } = await scope.read<InstancesPageRow>(INSTANCES_PAGE, [limit, offset])
      if (seesSomeInstances(actor)) {
        const all = await this.list(scope)
        return { instances: slicePage(all, request), pagination: pageInfo(request, all.length) }
      }
      return { instances: page!.instances.map((row) => toInstanceSummary(row, instancesDomain)), pagination: pageInfo(request, page!.total) }
    },

    async get ({ em }: Pick<CallScope, 'em'>, id: number): Promise<InstanceDetailView> {
      return detail(em, await load(em, id))
    },

    /**
     * The state alone, no backend call: for polling (`read` checks the token in
     * the same statement, one round trip) and the MCP status tool.
     */
    async status ({ read }: Pick<CallScope, 'read'>, id: number): Promise<InstanceStatusView> {
      const { rows: [row] } = await read<InstanceStatusRow>(INSTANCE_STATUS, [id])
      if (row === undefined) throw InstanceNotFound()
      return toInstanceStatus(row)
    },

    /** Records the instance in `provisioning` and queues its provisioning job in the same transaction. */
    async create ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, input: NewInstanceInput): Promise<InstanceDetailView> {
      const instance = await record(em, actor, input, 'provisioning', (tx, created) => queue(tx, created, 'provision'))
      jobs.wake(INSTANCE_QUEUE)
      return detail(em, instance)
    },

    /**
     * Records an instance that another job brings to life (restored from a backup): in `state`,
     * counted against the plan's slots like any other, with `enqueue` run in the same transaction.
     */
    async createFor ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, input: NewInstanceInput, state: 'restoring', enqueue: (tx: EntityManager, created: Instance) => Promise<void>, staging?: StagingOf): Promise<InstanceDetailView> {
      return detail(em, await record(em, actor, input, state, enqueue, staging))
    },

    /**
     * Start, stop, restart or delete: `queued` when a job will do it; not queued
     * when the instance is already there (or on its way). 409 during another transition.
     * `alongside` adds to the same transaction when the action is queued (a caller's own record of why).
     */
    async request ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, id: number, action: LifecycleAction, alongside?: (tx: EntityManager, instance: Instance) => void): Promise<{ queued: boolean, instance: InstanceDetailView }> {
      if (action === 'delete') requireAdmin(actor, 'delete instances')
      // The backend check can take seconds (a network call), so it is made before
      // the row lock, which the instance's job needs for its own state moves. An
      // instance never changes backend; if a concurrent move turns a no-op into
      // work in between, the job reports a backend that does not answer.
      const seen = await load(em, id)
      // A staging copy runs only on neutralized data (docs/staging.md): one whose neutralization failed is refreshed, not started.
      if (seen.kind === 'staging' && seen.neutralizedAt == null && action !== 'delete' && action !== 'stop') {
        throw StagingNotNeutralized(`${seen.name} is a staging copy whose data was not neutralized (its neutralization failed or did not run): refresh it from its production instance instead of starting it`)
      }
      if (decide(seen.state, action) === 'queue') await backends.require(seen.backend)
      const outcome = await em.transactional(async (tx) => {
        const instance = await load(tx, id, true)
        if (decide(instance.state, action) === 'noop') return { queued: false, instance }
        transitions.apply(tx, actor, instance, { to: ACTIONS[action].during })
        alongside?.(tx, instance)
        await tx.flush()
        await queue(tx, instance, action)
        return { queued: true, instance }
      })
      if (outcome.queued) jobs.wake(INSTANCE_QUEUE)
      return { queued: outcome.queued, instance: await detail(em, outcome.instance) }
    }
  }
}

export type InstancesService = ReturnType<typeof createInstancesService>
