import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Forbidden } from '../../../lib/errors.ts'
import { Type } from 'typebox'
import { AUTHENTICATED, InstanceIdParams, pageOf, responses } from '../../../schemas/common.ts'
import { CreateInstanceBody, InstanceActionResponse, InstanceListQuery, InstanceListResponse, InstanceResponse, InstanceStatusResponse } from '../../../schemas/instances.ts'
import type { LifecycleAction } from '../../../plugins/app/instances/instances.service.ts'
import logs from './logs.ts'
import metrics from './metrics.ts'
import backups from './backups.ts'
import users from './users.ts'
import modules from './modules.ts'
import staging from './staging.ts'
import upgrades from './upgrades.ts'
import { BackendNotReady, BackendUnavailable, InstanceBusy, InstanceDeleted, InstanceNotFound, StagingNotNeutralized } from '../../../plugins/app/instances/instances.errors.ts'
import { InstanceLimitReached } from '../../../plugins/app/limits/limits.service.ts'
import { SubdomainReserved, SubdomainTaken } from '../../../plugins/app/tenants/tenants.errors.ts'

const ACTION_ERRORS = [...AUTHENTICATED, InstanceNotFound, InstanceBusy, InstanceDeleted, StagingNotNeutralized, BackendUnavailable, BackendNotReady]
const ACTION_TEXT: Record<Exclude<LifecycleAction, 'delete'>, string> = {
  start: 'Starts a stopped (or failed) instance',
  stop: 'Stops a running instance; its data stays',
  restart: 'Restarts the instance (a stopped one is started)'
}

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('', {
    config: { auth: 'portal-inline' },
    schema: {
      tags: ['instances'],
      operationId: 'listInstances',
      summary: 'The company\'s instances',
      description: 'Every instance but deleted ones, newest first. For details (resources, database) ask for one instance. Paged: `page`, `per_page` (docs/api.md, "Lists and pages").',
      querystring: InstanceListQuery,
      response: responses({ 200: InstanceListResponse }, AUTHENTICATED)
    }
  }, async (request) => ({ success: true as const, ...await fastify.instances.listPage(request.scope, pageOf(request.query)) }))

  fastify.post('/create', {
    schema: {
      tags: ['instances'],
      operationId: 'createInstance',
      summary: 'Create an instance',
      description: 'Records the instance in state `provisioning` and queues its provisioning; answers 202 at once. Poll `/api/instances/{id}/status` until `running` (or `error`, with `status_message`). 402 when the plan\'s instances are all in use; 409 when the subdomain is taken or reserved; 503 when the backend is not configured or does not answer.',
      body: CreateInstanceBody,
      response: responses({ 202: InstanceResponse }, [...AUTHENTICATED, InstanceLimitReached, SubdomainTaken, SubdomainReserved, 413, 415, BackendUnavailable, BackendNotReady])
    }
  }, async (request, reply) => {
    const instance = await fastify.instances.create(request.scope, request.body)
    return reply.code(202).send({ success: true as const, instance })
  })

  fastify.get('/:id', {
    schema: {
      tags: ['instances'],
      operationId: 'getInstance',
      summary: 'An instance in full',
      description: 'Units: memory MB, storage GB, cpu cores, database_size MB. Another company\'s instance answers 404.',
      params: InstanceIdParams,
      response: responses({ 200: InstanceResponse }, [...AUTHENTICATED, 404, InstanceNotFound])
    }
  }, async (request) => ({ success: true as const, instance: await fastify.instances.get(request.scope, request.params.id) }))

  fastify.get('/:id/status', {
    config: { auth: 'portal-inline' },
    schema: {
      tags: ['instances'],
      operationId: 'getInstanceStatus',
      summary: 'An instance\'s state, for polling',
      description: 'One statement (the token check included) and no backend call. Send the `ETag` back in `If-None-Match`: 304 while nothing changed.',
      params: InstanceIdParams,
      headers: Type.Object({ 'if-none-match': Type.Optional(Type.String()) }),
      response: responses({ 200: InstanceStatusResponse, 304: Type.Null({ description: 'Not modified' }) }, [...AUTHENTICATED, 404, InstanceNotFound])
    }
  }, async (request, reply) => {
    const status = await fastify.instances.status(request.scope, request.params.id)
    const etag = `"${status.updated_at}-${status.state}-${status.status}"`
    reply.header('etag', etag).header('cache-control', 'private, no-cache')
    if (request.headers['if-none-match'] === etag) return reply.code(304).send(null)
    return { success: true as const, ...status }
  })

  for (const action of ['start', 'stop', 'restart'] as const) {
    fastify.post(`/:id/${action}`, {
      schema: {
        tags: ['instances'],
        operationId: `${action}Instance`,
        summary: `${action[0]?.toUpperCase()}${action.slice(1)} an instance`,
        description: `${ACTION_TEXT[action]}. 202: queued; 200: nothing to do (already there or on its way); 409 INSTANCE_BUSY during another transition. No body.`,
        params: InstanceIdParams,
        response: responses({ 200: InstanceActionResponse, 202: InstanceActionResponse }, ACTION_ERRORS)
      }
    }, async (request, reply) => {
      const outcome = await fastify.instances.request(request.scope, request.params.id, action)
      return reply.code(outcome.queued ? 202 : 200).send({ success: true as const, ...outcome })
    })
  }

  fastify.delete('/:id', {
    schema: {
      tags: ['instances'],
      operationId: 'deleteInstance',
      summary: 'Delete an instance (admin)',
      description: 'Removes its backend resources and its database, and keeps the record in state `deleted` (its subdomain stays taken). Works from every state, a transitional one included (a job still at work stops and cleans up after itself). 202: queued; 200: already deleted or being deleted.',
      params: InstanceIdParams,
      response: responses({ 200: InstanceActionResponse, 202: InstanceActionResponse }, [...ACTION_ERRORS, Forbidden])
    }
  }, async (request, reply) => {
    const outcome = await fastify.instances.request(request.scope, request.params.id, 'delete')
    return reply.code(outcome.queued ? 202 : 200).send({ success: true as const, ...outcome })
  })

  await fastify.register(logs)
  await fastify.register(metrics)
  await fastify.register(backups)
  await fastify.register(users)
  await fastify.register(modules)
  await fastify.register(staging)
  await fastify.register(upgrades)
}

export default routes
