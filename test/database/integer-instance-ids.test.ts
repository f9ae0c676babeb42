import t from 'tap'
import { MikroORM } from '@mikro-orm/postgresql'
import { PgBoss } from 'pg-boss'
import pg from 'pg'
import { createOrmConfig } from '../../mikro-orm.config.ts'
import { migrationsList } from '../../migrations/index.ts'
import { erpDatabaseNames } from '../../provisioning/erp-database-names.ts'
import { INSTANCE_QUEUE } from '../../plugins/app/instances/instance-actions.queue.ts'
import { scopedEntityManager } from '../../database/tenancy.ts'
import { build } from '../support/build.ts'
import { createTestDatabase } from '../support/database.ts'

const MIGRATION = 'Migration20261125114431_integer_instance_ids'
const BEFORE = migrationsList[migrationsList.findIndex((m) => m.name === MIGRATION) - 1]!.name

const TENANT = '11111111-1111-4111-8111-111111111111'
const OLDER = 'aaaaaaaa-0000-4000-8000-00000000000b'
const NEWER = 'aaaaaaaa-0000-4000-8000-00000000000a'
const VANISHED = 'bbbbbbbb-0000-4000-8000-000000000000'

t.test('existing instances get integer ids; every reference follows, and backend names stay', async (t) => {
  const databaseUrl = await createTestDatabase(t, { empty: true })
  const orm = await MikroORM.init(createOrmConfig({ databaseUrl, poolMax: 2 }))
  t.teardown(() => orm.close())
  await orm.migrator.up({ to: BEFORE })

  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  t.teardown(() => client.end())
  const sql = async <Row extends pg.QueryResultRow = Record<string, unknown>> (text: string, values: unknown[] = []) => (await client.query<Row>(text, values)).rows

  // Rows as the uuid schema held them: two instances (the older one created first), references to both.
  await sql("INSERT INTO tenants (id, name, subdomain, status, created_at, updated_at) VALUES ($1, 'Old Co', 'old-co', 'active', now(), now())", [TENANT])
  for (const [uuid, subdomain, age] of [[OLDER, 'older', '2 days'], [NEWER, 'newer', '1 day']]) {
    await sql(`INSERT INTO instances (id, tenant_id, name, subdomain, erp_version, backend, state, image, memory_mb, cpu_millicores, storage_gb, created_at, updated_at)
      VALUES ($1, $2, $3, $3, '17.0', 'docker', 'running', 'odoo:17.0', 1024, 1000, 10, now() - $4::interval, now())`, [uuid, TENANT, subdomain, age])
  }
  await sql(`INSERT INTO invitations (id, tenant_id, email, name, role, instance_id, token_hash, status, expires_at, send_count, created_at, updated_at)
    VALUES (gen_random_uuid(), $1, 'ada@example.com', 'Ada', 'user', $2, repeat('a', 64), 'pending', now() + interval '7 days', 1, now(), now())`, [TENANT, NEWER])
  const activity = (type: string, targetType: string | null, targetId: string | null, instanceId: string | null) => sql(
    `INSERT INTO activities (tenant_id, type, title, actor_kind, actor_id, actor_name, target_type, target_id, instance_id, created_at)
     VALUES ($1, $2, $2, 'system', 'test', 'System (test)', $3, $4, $5, now())`, [TENANT, type, targetType, targetId, instanceId])
  await activity('instance.created', 'instance', OLDER, OLDER)
  await activity('instance.running', 'instance', NEWER, NEWER)
  await activity('instance.gone', 'instance', VANISHED, VANISHED)
  await activity('user.created', 'user', NEWER, null)

  // A stop still queued when the migration runs.
  const boss = new PgBoss({ connectionString: databaseUrl, supervise: false, schedule: false, max: 1 })
  await boss.start()
  await boss.createQueue(INSTANCE_QUEUE.name)
  await boss.send(INSTANCE_QUEUE.name, { instanceId: NEWER, tenantId: TENANT, action: 'stop' })
  await boss.stop({ graceful: false, close: true })

  const applied = await orm.migrator.up()
  t.ok(applied.some((m) => m.name === MIGRATION), 'the migration ran over the rows')

  const instances = await sql<{ id: string, uid: string }>('SELECT id, uid FROM instances ORDER BY id')
  t.same(instances, [{ id: '1', uid: OLDER }, { id: '2', uid: NEWER }], 'numbered in creation order; the uuid kept as uid')
  t.same(await sql('SELECT instance_id FROM invitations'), [{ instance_id: '2' }], 'invitations point at the integer id')
  t.same(await sql('SELECT type, target_id, instance_id FROM activities ORDER BY id'), [
    { type: 'instance.created', target_id: '1', instance_id: '1' },
    { type: 'instance.running', target_id: '2', instance_id: '2' },
    { type: 'instance.gone', target_id: VANISHED, instance_id: null },
    { type: 'user.created', target_id: NEWER, instance_id: null }
  ], 'instance targets and filters follow; other targets are untouched; an unknown instance is dropped from instance_id')
  t.same((await sql<{ data: unknown }>('SELECT data FROM pgboss.job WHERE name = $1', [INSTANCE_QUEUE.name])).map((row) => row.data),
    [{ instanceId: 2, tenantId: TENANT, action: 'stop' }], 'the queued job names the integer id')

  const [next] = await sql<{ id: string }>(`INSERT INTO instances (tenant_id, name, subdomain, erp_version, backend, state, image, memory_mb, cpu_millicores, storage_gb, created_at, updated_at)
    VALUES ($1, 'New', 'brand-new', '17.0', 'docker', 'running', 'odoo:17.0', 1024, 1000, 10, now(), now()) RETURNING id`, [TENANT])
  t.equal(next!.id, '3', 'the identity continues after the migrated rows')
  await t.rejects(sql(`INSERT INTO instances (id, tenant_id, name, subdomain, erp_version, backend, state, image, memory_mb, cpu_millicores, storage_gb, created_at, updated_at)
    VALUES (99, $1, 'Forced', 'forced', '17.0', 'docker', 'running', 'odoo:17.0', 1024, 1000, 10, now(), now())`, [TENANT]), { code: '428C9' }, 'ids come only from the identity')

  // The app reads the migrated rows; the database name is still the one derived from the old uuid.
  const { app } = await build(t, { databaseUrl })
  const em = scopedEntityManager(app.orm.em, TENANT)
  const detail = await app.instances.get({ em }, 2)
  t.match(detail, { id: 2, name: 'newer', database_name: erpDatabaseNames(NEWER).database })
})
