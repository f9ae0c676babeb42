import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Forbidden } from '../../../lib/errors.ts'
import { AUTHENTICATED, pageOf, responses, SuccessOnly } from '../../../schemas/common.ts'
import { AddonSourceListQuery, AddonSourceListResponse, AddonSourceParams, AddonSourceResponse, CreateAddonSourceBody, UpdateAddonSourceBody } from '../../../schemas/addon-sources.ts'
import { AddonSourceAddressRefused, AddonSourceBusy, AddonSourceExists, AddonSourceInUse, AddonSourceInvalid, AddonSourceNotFound, AddonSyncUnavailable } from '../../../plugins/app/addon-sources/addon-sources.errors.ts'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { addonSources } = fastify

  fastify.get('', {
    schema: {
      tags: ['addon-sources'],
      operationId: 'listAddonSources',
      summary: 'The company\'s Git addon sources',
      description: 'Oldest first, each with its sync state, last commit and the modules found. Credentials are never returned. Paged: `page`, `per_page` (docs/api.md, "Lists and pages").',
      querystring: AddonSourceListQuery,
      response: responses({ 200: AddonSourceListResponse }, AUTHENTICATED)
    }
  }, async (request) => ({ success: true as const, ...await addonSources.listPage(request.scope, pageOf(request.query)) }))

  fastify.post('', {
    schema: {
      tags: ['addon-sources'],
      operationId: 'createAddonSource',
      summary: 'Register a Git addon source (admin)',
      description: 'Records the source in state `pending`; it installs nothing and fetches nothing until a sync. `repository_url` must be https:// (or ssh:// with a `deploy_key`) ' +
        'and its host must resolve only to public addresses (400 `ADDON_SOURCE_ADDRESS_REFUSED` for loopback, private, link-local or metadata addresses). ' +
        'A branch or subpath with "..", a leading "-" or an absolute path is refused (400 `ADDON_SOURCE_INVALID`, `details.field` names it). 409 `ADDON_SOURCE_EXISTS` for a name in use.',
      body: CreateAddonSourceBody,
      response: responses({ 201: AddonSourceResponse }, [...AUTHENTICATED, Forbidden, 409, 413, 415, AddonSourceAddressRefused, AddonSourceInvalid, AddonSourceExists])
    }
  }, async (request, reply) => reply.code(201).send({ success: true as const, addon_source: await addonSources.create(request.scope, request.body) }))

  fastify.get('/:id', {
    schema: {
      tags: ['addon-sources'],
      operationId: 'getAddonSource',
      summary: 'One addon source',
      params: AddonSourceParams,
      response: responses({ 200: AddonSourceResponse }, [...AUTHENTICATED, 404, AddonSourceNotFound])
    }
  }, async (request) => ({ success: true as const, addon_source: await addonSources.get(request.scope, request.params.id) }))

  fastify.put('/:id', {
    schema: {
      tags: ['addon-sources'],
      operationId: 'updateAddonSource',
      summary: 'Change an addon source (admin)',
      description: 'Any of the registration fields; the same rules apply. A new repository, branch or subpath puts the source back in `pending` until the next sync; ' +
        'a new `token` or `deploy_key` replaces the stored one. 409 `ADDON_SOURCE_BUSY` while it syncs.',
      params: AddonSourceParams,
      body: UpdateAddonSourceBody,
      response: responses({ 200: AddonSourceResponse }, [...AUTHENTICATED, Forbidden, 404, 409, 413, 415, AddonSourceBusy, AddonSourceNotFound])
    }
  }, async (request) => ({ success: true as const, addon_source: await addonSources.update(request.scope, request.params.id, request.body) }))

  fastify.delete('/:id', {
    schema: {
      tags: ['addon-sources'],
      operationId: 'deleteAddonSource',
      summary: 'Delete an addon source (admin)',
      description: 'Removes the source, its modules from the catalog and its checkout from the company\'s addons storage. 409 `ADDON_SOURCE_BUSY` while it syncs; ' +
        '409 `ADDON_SOURCE_IN_USE` while one of its modules is installed (or being installed) on an instance, with `details.instances` ' +
        '(`id`, `name`, `modules`) naming them: nothing is changed.',
      params: AddonSourceParams,
      response: responses({ 200: SuccessOnly }, [...AUTHENTICATED, Forbidden, 404, 409, AddonSourceBusy, AddonSourceInUse, AddonSourceNotFound])
    }
  }, async (request) => {
    await addonSources.remove(request.scope, request.params.id)
    return { success: true as const }
  })

  fastify.post('/:id/sync', {
    schema: {
      tags: ['addon-sources'],
      operationId: 'syncAddonSource',
      summary: 'Sync an addon source (admin)',
      description: 'Queues the sync and answers 202 in state `syncing`: a shallow fetch of the branch into the company\'s addons storage, switched atomically (an instance sees each module ' +
        'folder old or new, never half-written), `last_commit` recorded, and the modules found (folders with a __manifest__.py) added to the catalog as installable. ' +
        'Poll `GET /api/addon-sources/{id}` until `synced` or `failed` (`error` says why: a repository over the size or file cap, a timeout, a refused address). ' +
        'Asking again while a sync is under way queues nothing more. 503 `ADDON_SYNC_UNAVAILABLE` when no backend here keeps addon code. No body.',
      params: AddonSourceParams,
      response: responses({ 202: AddonSourceResponse }, [...AUTHENTICATED, Forbidden, 404, 503, AddonSyncUnavailable, AddonSourceNotFound])
    }
  }, async (request, reply) => reply.code(202).send({ success: true as const, addon_source: await addonSources.sync(request.scope, request.params.id) }))
}

export default routes
