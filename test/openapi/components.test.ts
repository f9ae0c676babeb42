import t from 'tap'
import { readdir } from 'node:fs/promises'
import { build } from '../support/build.ts'
import { componentSchemas } from '../../lib/openapi/components.ts'

type Json = Record<string, unknown>
type Operation = { responses: Record<string, { content?: Record<string, { schema?: Json }> }> }

const RESOURCES = ['Instance', 'InstanceDetail', 'Ticket', 'TicketDetail', 'TicketMessage', 'Backup', 'AddonSource', 'Plan', 'Pricing', 'User', 'Invitation', 'Module', 'ErrorEnvelope']

interface Document {
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, Json> }
}

// One app for the whole file: building one is the slow part.
const { app } = await build(t)
const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as Document

function * operations (doc: Document) {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) yield { label: `${method.toUpperCase()} ${path}`, path, operation }
  }
}

t.test('resources and answers are named components that the routes reference', async (t) => {
  for (const name of RESOURCES) t.ok(doc.components.schemas[name], `components.schemas.${name}`)
  t.match(doc.components.schemas.InstanceListResponse, { properties: { instances: { items: { $ref: '#/components/schemas/Instance' } } } }, 'a list answer references its item')
  t.match(doc.components.schemas.TicketDetail, { properties: { messages: { items: { $ref: '#/components/schemas/TicketMessage' } } } }, 'components reference components')

  // Every JSON success answer of a portal route is a component, so a generated client names its type.
  const refs = new Set<string>()
  for (const { label, path, operation } of operations(doc)) {
    for (const [status, response] of Object.entries(operation.responses)) {
      const schema = response.content?.['application/json']?.schema
      if (schema === undefined) continue
      if (typeof schema.$ref === 'string') refs.add(schema.$ref.split('/').at(-1) as string)
      if (status.startsWith('2') && path.startsWith('/api/') && !path.startsWith('/api/oauth/') && path !== '/api/mcp') {
        t.type(schema.$ref, 'string', `${label} ${status} answers a named component`)
      }
    }
  }
  t.ok(refs.has('ErrorEnvelope') && refs.has('InstanceResponse'), 'the routes reference components')
  const schemaText = JSON.stringify(doc)
  for (const name of Object.keys(doc.components.schemas)) {
    t.ok(schemaText.includes(`"#/components/schemas/${name}"`), `components.schemas.${name} is referenced`)
  }
})

t.test('every paged list answers the one PageInfo component as `pagination` (docs/api.md, "Lists and pages")', async (t) => {
  const paged = ['UserListResponse', 'InstanceListResponse', 'AddonSourceListResponse', 'WebhookListResponse', 'WebhookDeliveryListResponse', 'GrantListResponse',
    'GrantCallsResponse', 'InvitationListResponse', 'BackupListResponse', 'SessionListResponse', 'TicketListResponse', 'SupportQueueResponse', 'UpgradeListResponse']
  t.match(doc.components.schemas.PageInfo, { type: 'object', required: ['page', 'per_page', 'total'] }, 'PageInfo is published once')
  const withPages = Object.entries(doc.components.schemas).filter(([, schema]) => (schema.properties as Json | undefined)?.pagination !== undefined).map(([name]) => name)
  t.same(withPages.sort(), [...paged].sort(), 'the paged lists')
  for (const name of paged) {
    t.same((doc.components.schemas[name]!.properties as Json).pagination, { $ref: '#/components/schemas/PageInfo' }, `${name}.pagination is a $ref to PageInfo`)
  }
})

t.test('a component is registered once and referenced with ref(), never embedded', async (t) => {
  const components = await componentSchemas()
  t.ok(components.length >= RESOURCES.length, `${components.length} components in schemas/`)
  const ids = components.map((schema) => schema.$id)
  t.same([...new Set(ids)].sort(), [...ids].sort(), 'one schema per $id')
  const embedded: string[] = []
  const walk = (value: unknown, at: string, top: boolean) => {
    if (typeof value !== 'object' || value === null) return
    if (!top && typeof (value as Json).$id === 'string') embedded.push(`${at} embeds ${String((value as Json).$id)}`)
    for (const [key, child] of Object.entries(value)) walk(child, `${at}.${key}`, false)
  }
  const files = (await readdir(new URL('../../schemas/', import.meta.url))).filter((name) => name.endsWith('.ts'))
  for (const file of files) {
    for (const [name, value] of Object.entries(await import(`../../schemas/${file}`) as Json)) walk(value, `schemas/${file} ${name}`, true)
  }
  t.same(embedded, [], 'use ref(Component) inside another schema')
})

t.test('answers that are not JSON are published under their own media type only', async (t) => {
  const media = (path: string, status: string) => doc.paths[path]?.get?.responses[status]?.content ?? {}
  for (const path of ['/api/instances/{id}/backups/{backup_id}/download', '/api/instances/{id}/backups/{backup_id}/download-by-token']) {
    for (const status of ['200', '206']) {
      t.same(Object.keys(media(path, status)), ['application/x-tar'], `${path} ${status}: a tar, and nothing else`)
      t.match(media(path, status)['application/x-tar'], { schema: { type: 'string', format: 'binary' } }, `${path} ${status}: bytes`)
    }
    t.ok((doc.paths[path]?.get?.responses['206'] as { headers?: Json }).headers?.['Content-Range'], `${path}: 206 has Content-Range`)
    t.same(Object.keys(media(path, '404')), ['application/json'], `${path}: its errors are the JSON envelope`)
  }
  t.same(Object.keys(media('/api/instances/{id}/logs/stream', '200')), ['text/event-stream'], 'the live log is an event stream, and nothing else')

  for (const { label, operation } of operations(doc)) {
    for (const [status, response] of Object.entries(operation.responses)) {
      const types = Object.keys(response.content ?? {})
      t.ok(types.length <= 1, `${label} ${status}: one media type (${types.join(', ')})`)
    }
  }
})
