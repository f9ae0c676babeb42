import t from 'tap'
import { addMember, signup } from '../support/accounts.ts'
import { rpc, startMcpFixture } from '../support/mcp.ts'
import { capabilityLevel } from '../../lib/agent-capabilities.ts'

const READ_TOOLS = [
  'whoami', 'get_dashboard', 'list_activity', 'list_instances', 'get_instance', 'get_instance_status', 'get_instance_logs', 'get_instance_metrics',
  'list_modules', 'list_plans', 'get_subscription', 'get_plan_recommendation', 'list_tickets', 'get_ticket', 'list_users', 'list_backups', 'get_backup', 'get_backup_schedule', 'list_instance_users', 'list_instance_modules', 'list_addon_sources', 'list_upgrades', 'get_upgrade'
]
const WRITE_TOOLS = ['create_instance', 'start_instance', 'stop_instance', 'restart_instance', 'delete_instance', 'create_ticket', 'reply_to_ticket', 'invite_user', 'create_backup', 'restore_backup', 'restore_backup_as_new_instance', 'delete_backup', 'set_backup_schedule', 'invite_instance_user', 'install_module', 'uninstall_module', 'add_addon_source', 'sync_addon_source', 'create_staging_copy', 'refresh_staging_copy', 'upgrade_instance']

interface JsonSchema {
  type?: string
  description?: string
  properties?: Record<string, JsonSchema>
  items?: JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
}

/** Paths of properties without a description, into nested objects, array items and union branches. */
function undescribed (schema: JsonSchema, path: string): string[] {
  const missing: string[] = []
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const here = `${path}.${name}`
    if (typeof property.description !== 'string' || property.description.trim() === '') missing.push(here)
    missing.push(...nested(property, here))
  }
  return missing
}

function nested (schema: JsonSchema, path: string): string[] {
  return [
    ...undescribed(schema, path),
    ...(schema.items === undefined ? [] : undescribed(schema.items, `${path}[]`)),
    ...[...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap((branch) => nested(branch, path))
  ]
}

const { app, connectAgent } = await startMcpFixture(t)
const admin = await signup(app)
const agent = await connectAgent(admin)
const listed = await rpc(app, agent.accessToken, 'tools/list')
const tools = listed.json().result.tools as Array<Record<string, any>>
const byName = new Map(tools.map((tool) => [tool.name as string, tool]))

t.test('tools/list offers exactly the listed tools, once each', async (t) => {
  t.equal(listed.statusCode, 200)
  t.same([...byName.keys()].sort(), [...READ_TOOLS, ...WRITE_TOOLS].sort())
  t.equal(tools.length, byName.size, 'no name listed twice')
  t.equal(listed.json().result.nextCursor, undefined, 'one page')
})

t.test('every tool is named, titled and described for an agent', async (t) => {
  for (const tool of tools) {
    t.match(tool.name, /^[a-z]+(_[a-z]+)*$/, `${tool.name}: snake_case`)
    t.ok(typeof tool.title === 'string' && tool.title.trim().length >= 3, `${tool.name}: a title`)
    t.ok(typeof tool.description === 'string' && tool.description.length >= 40, `${tool.name}: a description that says when to use it`)
    t.equal(tool.annotations?.title, tool.title, `${tool.name}: the annotations repeat the title`)
  }
  t.equal(new Set(tools.map((tool) => tool.title)).size, tools.length, 'titles tell the tools apart')
})

t.test('the description check finds gaps in nested objects, array items and union branches', async (t) => {
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      filter: { type: 'object', description: 'described', properties: { deep: { type: 'string' } } },
      tags: { type: 'array', description: 'described', items: { type: 'object', properties: { tag: { type: 'string' } } } },
      either: { description: 'described', anyOf: [{ type: 'object', properties: { branch: { type: 'string' } } }, { type: 'null' }] },
      bare: { type: 'string', description: ' ' }
    }
  }
  t.same(undescribed(schema, 'x'), ['x.filter.deep', 'x.tags[].tag', 'x.either.branch', 'x.bare'])
})

t.test('every input schema is an object whose every property is described, nested ones included', async (t) => {
  for (const tool of tools) {
    const schema = tool.inputSchema as JsonSchema & { required?: string[] }
    t.equal(schema.type, 'object', `${tool.name}: an object schema`)
    t.type(schema.properties, 'object', `${tool.name}: properties listed`)
    t.same(undescribed(schema, tool.name), [], `${tool.name}: no property without a description`)
    for (const name of schema.required ?? []) {
      t.ok(schema.properties?.[name], `${tool.name}: required ${name} is a property`)
      // A default means the agent may leave it out; listing it as required says otherwise.
      t.notOk(schema.properties?.[name] && 'default' in schema.properties[name], `${tool.name}: required ${name} has no default`)
    }
    t.notMatch(JSON.stringify(schema), /"\$id"|"\$ref"|Symbol/, `${tool.name}: self-contained plain JSON Schema`)
  }
  t.same(byName.get('get_instance')?.inputSchema.required, ['instance_id'])
  t.same(byName.get('create_instance')?.inputSchema.required, ['name', 'subdomain', 'erp_version', 'backend'])
  t.same(byName.get('reply_to_ticket')?.inputSchema.required, ['ticket_id', 'message'])
  t.same(byName.get('invite_user')?.inputSchema.required, ['email', 'name', 'role'])
})

t.test('annotations carry the four hints as booleans', async (t) => {
  for (const tool of tools) {
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
      t.type(tool.annotations?.[hint], 'boolean', `${tool.name}: ${hint}`)
    }
  }
})

t.test('read tools are read-only; create, lifecycle, ticket and invite tools are not', async (t) => {
  for (const name of READ_TOOLS) {
    t.match(byName.get(name)?.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true }, name)
  }
  for (const name of WRITE_TOOLS) t.equal(byName.get(name)?.annotations.readOnlyHint, false, `${name} writes`)
  t.equal(byName.get('stop_instance')?.annotations.destructiveHint, true, 'stopping takes an instance away from its users')
  t.equal(byName.get('restore_backup')?.annotations.destructiveHint, true, 'a restore replaces the instance\'s data')
  t.equal(byName.get('delete_backup')?.annotations.destructiveHint, true, 'a deleted backup is gone for good')
  t.equal(byName.get('delete_instance')?.annotations.destructiveHint, true, 'a deleted instance is gone for good')
  t.equal(byName.get('uninstall_module')?.annotations.destructiveHint, true, 'an uninstall deletes the module\'s data in the ERP')
  t.equal(byName.get('set_backup_schedule')?.annotations.destructiveHint, true, 'lower retention deletes older scheduled backups')
  for (const name of ['create_instance', 'start_instance', 'restart_instance', 'create_ticket', 'reply_to_ticket', 'invite_user', 'create_backup', 'restore_backup_as_new_instance']) {
    t.equal(byName.get(name)?.annotations.destructiveHint, false, `${name} only adds or resumes`)
  }
  for (const name of ['start_instance', 'stop_instance', 'restart_instance', 'delete_instance', 'delete_backup', 'set_backup_schedule', 'uninstall_module']) {
    t.equal(byName.get(name)?.annotations.idempotentHint, true, `${name}: asking twice changes nothing more`)
  }
  for (const name of ['create_instance', 'create_ticket', 'reply_to_ticket', 'invite_user', 'create_backup', 'restore_backup', 'restore_backup_as_new_instance']) {
    t.equal(byName.get(name)?.annotations.idempotentHint, false, `${name}: each call adds something`)
  }
})

t.test('the admin-only tools say so, and a member\'s agent is not listed them', async (t) => {
  for (const name of ['list_users', 'invite_user', 'invite_instance_user', 'install_module', 'uninstall_module', 'add_addon_source', 'sync_addon_source', 'restore_backup', 'restore_backup_as_new_instance', 'delete_instance', 'delete_backup', 'set_backup_schedule']) t.match(byName.get(name)?.description, /admin/i, name)
  const member = await addMember(app, admin.user.tenant_id)
  const memberAgent = await connectAgent(member)
  const memberTools = (await rpc(app, memberAgent.accessToken, 'tools/list')).json().result.tools
  t.same(memberTools, tools.filter((tool) => capabilityLevel(String(tool.name)) !== 'administer'),
    'a member\'s agent is listed every tool but those that administer, which its person\'s role does not allow')
})
