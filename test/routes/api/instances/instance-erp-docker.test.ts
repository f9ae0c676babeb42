/**
 * Inside an instance on the real engine, with the contract double of Odoo as the image: admin/admin
 * is replaced and web.base.url set before the instance is reported running, the users are read
 * live, an invitation tied to the instance becomes an ERP user (a job) once accepted, made from the
 * ERP's default user template, and a re-invite changes only the role's groups; catalog modules are
 * installed through the ERP (a job) although installs outlast a call's bound and the ERP answers
 * nothing while it reloads, and the reconciler leaves the instance running meanwhile; the ERP's
 * failures are 503 / 502, never 500.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { execIn, requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { startSmtpServer } from '../../../support/mail-smtp.ts'
import { accept, tokenFromText, waitFor } from '../../../support/invitations-flow.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { cleanupInstances, dockerInstanceEnv, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { contract, erpDoubleImage, faultMessage } from '../../../support/erp-double/image.ts'
import { callOdoo } from '../../../../provisioning/erp/odoo-rpc.ts'
import { erpDatabaseNames } from '../../../../provisioning/erp-database.ts'
import { ERP_USER_QUEUE } from '../../../../plugins/app/erp/erp-user.queue.ts'
import { ERP_MODULE_QUEUE } from '../../../../plugins/app/erp/erp-module.queue.ts'

const docker = await requireDockerOrSkipLoudly(t)

docker.test('users of a running instance, an invitation into it, module installs, and the ERP\'s failures', async (t) => {
  const image = await erpDoubleImage()
  const smtp = await startSmtpServer(t)
  const env = dockerInstanceEnv(t, {
    ERP_IMAGE: image.replace(/:[^:]+$/, ':{version}'),
    // One second per check: an ERP that answers nothing is unhealthy within seconds, as a real one is within its reload.
    ERP_HEALTHCHECK: 'timeout 1 wget -q -O /dev/null http://127.0.0.1:8069/web/health || exit 1',
    // Shorter than the double's installs (contract.timing): an install outlasts a call's bound, as a real one does.
    ERP_CALL_TIMEOUT_SECONDS: 2,
    ERP_INSTALL_TIMEOUT_SECONDS: 60,
    SMTP_URL: smtp.url
  })
  const { app, databaseUrl } = await build(t, { env })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const subdomain = uniqueSubdomain('users')
  const created = await app.inject({
    method: 'POST', url: '/api/instances/create', headers: bearer(admin.token),
    payload: { name: 'Production', subdomain, erp_version: contract.response.version.server_version, backend: 'docker' }
  })
  t.equal(created.statusCode, 202, created.body)
  const { id } = created.json().instance
  const reached = await waitForState(app, admin.token, id, ['running', 'error'])
  t.equal(reached.state, 'running', 'the first start initialised the database and the server runs')
  const database = erpDatabaseNames(await instanceUid(app, id)).database
  const info = await docker.docker.getContainer(`erp-${subdomain}`).inspect()
  const endpoint = `http://${info.NetworkSettings.Networks.bridge?.IPAddress ?? ''}:8069`
  // Before any request and without waiting: reported running means the default is gone already.
  t.equal(await callOdoo({ endpoint, timeoutMs: 5000 }, 'common', 'authenticate', [database, 'admin', 'admin', {}]), false, 'admin/admin is refused as soon as the instance is running')
  const secrets = await app.instances.erpCredentials.read(app.orm.em.fork(), { id, uid: await instanceUid(app, id) })
  t.equal(secrets?.adminPasswordSet, true, 'recorded: the generated password is set')
  t.equal(await callOdoo({ endpoint, timeoutMs: 5000 }, 'common', 'authenticate', [database, 'admin', secrets?.adminPassword, {}]), 2, 'the generated password works')
  t.equal(await callOdoo({ endpoint, timeoutMs: 5000 }, 'object', 'execute_kw', [database, 2, secrets?.adminPassword, 'ir.config_parameter', 'get_param', ['web.base.url']]),
    created.json().instance.url, 'web.base.url is the instance\'s address, not Odoo\'s http://localhost:8069')
  const get = (token = admin.token) => app.inject({ method: 'GET', url: `/api/instances/${id}/users`, headers: bearer(token) })
  const first = await get()
  t.equal(first.statusCode, 200, first.body)
  t.same(first.json().users, [{ id: 2, login: 'admin', name: 'Administrator', email: 'admin@example.com', active: true, role: 'admin' }])
  t.notMatch(first.body, /password/i, 'no password in the answer')

  // A restart checks the generated password once and changes nothing.
  t.equal((await app.inject({ method: 'POST', url: `/api/instances/${id}/restart`, headers: bearer(admin.token) })).statusCode, 202)
  t.equal((await waitForState(app, admin.token, id, ['running', 'error'])).state, 'running', 'running again after the restart')
  const restarted = `http://${(await docker.docker.getContainer(`erp-${subdomain}`).inspect()).NetworkSettings.Networks.bridge?.IPAddress ?? ''}:8069`
  t.equal(await callOdoo({ endpoint: restarted, timeoutMs: 5000 }, 'common', 'authenticate', [database, 'admin', secrets?.adminPassword, {}]), 2, 'the generated password still works')

  const other = await signup(app)
  t.equal((await get(other.token)).statusCode, 404, 'another company\'s instance is not found')
  const member = await addMember(app, admin.user.tenant_id, { role: 'user' })
  const invitePath = `/api/instances/${id}/users/invite`
  const forbidden = await app.inject({ method: 'POST', url: invitePath, headers: bearer(member.token), payload: { email: 'x@example.com', name: 'X', role: 'user' } })
  t.equal(forbidden.statusCode, 403, 'only administrators invite')

  const email = `erp-invitee-${process.pid}@example.com`
  const invited = await app.inject({ method: 'POST', url: invitePath, headers: bearer(admin.token), payload: { email, name: 'Erin Invitee', role: 'user' } })
  t.equal(invited.statusCode, 202, invited.body)
  t.match(invited.json(), { erp_user: 'pending_acceptance', invitation: { email, instance_id: id, role: 'user', status: 'pending' } })
  const mail = await smtp.nextMail({ to: email })
  const accepted = await accept(app, tokenFromText(mail.text))
  t.equal(accepted.statusCode, 200, 'the acceptance answers without waiting for the ERP')
  const erin = await waitFor(async () => {
    await app.jobs.drain(ERP_USER_QUEUE)
    const users = (await get()).json().users as Array<{ login: string, role: string, name: string }>
    return users.find((u) => u.login === email)
  }, 30_000, 'the ERP user of the accepted invitation')
  t.match(erin, { login: email, name: 'Erin Invitee', role: 'user', email })
  const readGroups = async (login: string): Promise<number[]> => {
    const [row] = await callOdoo({ endpoint: restarted, timeoutMs: 5000 }, 'object', 'execute_kw', [database, 2, secrets?.adminPassword, 'res.users', 'search_read', [[['login', '=', login]]], { fields: ['groups_id'] }]) as Array<{ groups_id: number[] }>
    return row?.groups_id ?? []
  }
  const template = contract.initialDatabase.users.find((u) => u.xml_id === contract.initialDatabase.defaultUserXmlId)?.groups_id ?? []
  t.same((await readGroups(email)).toSorted((a, b) => a - b), template.toSorted((a, b) => a - b), 'created from the ERP\'s default user template (Contact Creation, Access to export), as a user made in the ERP')

  // A member of the company: no invitation, the ERP user at once (a job), with the admin role's groups.
  const direct = await app.inject({ method: 'POST', url: invitePath, headers: bearer(admin.token), payload: { email: member.email, name: 'Ignored', role: 'admin' } })
  t.same(direct.json(), { success: true, invitation: null, erp_user: 'queued' })
  const promoted = await waitFor(async () => {
    await app.jobs.drain(ERP_USER_QUEUE)
    const users = (await get()).json().users as Array<{ login: string, role: string }>
    return users.find((u) => u.login === member.email)
  }, 30_000, 'the member\'s ERP user')
  t.equal(promoted.role, 'admin')
  // The job writes its activity after the ERP has the user: wait for the record, not just the user.
  const activity = await waitFor(async () => {
    const rows = await app.sql<{ type: string, actor_kind: string }>({ text: "SELECT type, actor_kind FROM activities WHERE type LIKE 'instance_user.%' ORDER BY created_at", values: [] })
    return rows.length >= 3 ? rows : undefined
  }, 30_000, 'the third instance_user activity')
  t.same(activity.map((a) => [a.type, a.actor_kind]), [['instance_user.created', 'system'], ['instance_user.invited', 'user'], ['instance_user.created', 'system']])

  // Modules: one the ERP lacks a dependency of fails with its message; one from the tenant's addons is found by update_list and installed.
  const catalog = (await app.inject({ method: 'GET', url: '/api/modules' })).json().modules as Array<{ id: number, technical_name: string }>
  const idOf = (name: string): number => catalog.find((m) => m.technical_name === name)?.id ?? 0
  await mkdir(join(String(env.ADDONS_ROOT), admin.subdomain, 'addons', 'crm'), { recursive: true })
  await writeFile(join(String(env.ADDONS_ROOT), admin.subdomain, 'addons', 'crm', '__manifest__.py'), "{'name': 'CRM', 'depends': ['base', 'mail']}\n")
  const modulesPath = `/api/instances/${id}/modules`
  const assign = (moduleId: number, token = admin.token) => app.inject({ method: 'POST', url: modulesPath, headers: bearer(token), payload: { module_id: moduleId } })
  t.equal((await assign(idOf('crm'), member.token)).statusCode, 403, 'only administrators install')
  t.equal((await assign(999_999)).json().error.code, 'MODULE_NOT_FOUND')
  const crm = await assign(idOf('crm'))
  t.equal(crm.statusCode, 202, crm.body)
  t.match(crm.json().module, { technical_name: 'crm', state: 'queued', installed_at: null, error: null })
  t.equal((await assign(idOf('crm'))).statusCode, 200, 'assigning twice is a no-op')
  t.equal((await assign(idOf('sale_management'))).statusCode, 202)
  const settled = await waitFor(async () => {
    await app.jobs.drain(ERP_MODULE_QUEUE)
    const modules = (await app.inject({ method: 'GET', url: modulesPath, headers: bearer(member.token) })).json().modules as Array<{ technical_name: string, state: string, error: string | null, installed_at: string | null }>
    return modules.every((m) => m.state === 'installed' || m.state === 'failed') ? modules : undefined
  }, 30_000, 'both installs to settle')
  t.match(settled, [
    { technical_name: 'crm', state: 'installed', installed_at: String, error: null },
    { technical_name: 'sale_management', state: 'failed', installed_at: null, error: faultMessage('missingDependency', { module: 'sale_management', dependency: 'sale' }) }
  ])
  const installed = await callOdoo({ endpoint: restarted, timeoutMs: 5000 }, 'object', 'execute_kw', [database, 2, secrets?.adminPassword, 'ir.module.module', 'search_read', [[['state', '=', 'installed']]], { fields: ['name'] }]) as Array<{ name: string }>
  t.ok(installed.some((m) => m.name === 'crm') && installed.some((m) => m.name === 'mail'), 'installed in the ERP, with its dependency')

  // A database emptied behind the ERP's back answers HTML 500 pages: said as such, not as "does not answer"; a stopped instance is a 503.
  await execIn(docker.docker.getContainer(`erp-${subdomain}`), ['sh', '-c', `mv /var/lib/odoo/erp-double/${database}.json /tmp/`])
  const fault = await get()
  t.equal(fault.statusCode, 503)
  t.match(fault.json().error, { code: 'ERP_DATABASE_NOT_INITIALISED', message: /database is not initialised/ })
  await execIn(docker.docker.getContainer(`erp-${subdomain}`), ['sh', '-c', `mv /tmp/${database}.json /var/lib/odoo/erp-double/`])
  t.equal((await app.inject({ method: 'POST', url: `/api/instances/${id}/stop`, headers: bearer(admin.token) })).statusCode, 202)
  await waitForState(app, admin.token, id, ['stopped'])
  const stopped = await get()
  t.equal(stopped.statusCode, 503)
  t.match(stopped.json().error, { code: 'ERP_UNAVAILABLE', message: /stopped/ })
})
