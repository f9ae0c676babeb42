import t from 'tap'
import { MikroORM } from '@mikro-orm/postgresql'
import { runMigrations } from '../../database/migrate.ts'
import { createOrmConfig } from '../../mikro-orm.config.ts'
import { migrationsList } from '../../migrations/index.ts'
import { createTestDatabase } from '../support/database.ts'

t.test('replicas migrating an empty database at once apply each migration exactly once', async (t) => {
  const databaseUrl = await createTestDatabase(t, { empty: true })
  const orms = await Promise.all([1, 2, 3].map(() => MikroORM.init(createOrmConfig({ databaseUrl, poolMax: 2 }))))
  t.teardown(() => Promise.all(orms.map((orm) => orm.close())))

  const applied = await Promise.all(orms.map((orm) => runMigrations(orm, databaseUrl)))
  t.same(applied.flat().sort(), migrationsList.map((m) => m.name).sort(), 'together they applied every migration once')
  t.equal(applied.filter((names) => names.length > 0).length, 1, 'one replica did the work, the others found nothing pending')

  const [row] = await orms[0]!.em.getConnection().execute('SELECT count(*)::int AS n FROM mikro_orm_migrations')
  t.equal(row?.n, migrationsList.length)
  t.same(await runMigrations(orms[1]!, databaseUrl), [], 'running again is a no-op')
})

t.test('the committed migrations match the entities (no schema drift)', async (t) => {
  const databaseUrl = await createTestDatabase(t)
  const orm = await MikroORM.init(createOrmConfig({ databaseUrl, poolMax: 2 }))
  t.teardown(() => orm.close())
  const diff = await orm.schema.getUpdateSchemaSQL({ wrap: false })
  t.equal(diff.trim(), '', 'a change to an entity needs `npm run db:migration:create`')
})
