import { Migration } from '@mikro-orm/migrations';

/** Instance usage samples (raw, kept days) and their hourly roll-ups (kept months). */
export class Migration20261125143239_instance_metrics extends Migration {

  override name = 'Migration20261125143239_instance_metrics';

  override up(): void | Promise<void> {
    this.addSql(`create table "metric_samples" ("id" bigint generated always as identity not null primary key, "tenant_id" uuid not null, "instance_id" bigint not null, "sampled_at" timestamptz not null, "cpu_cores" double precision not null, "memory_mb" double precision not null, "database_mb" double precision null, "volume_mb" double precision null, "volume_capacity_mb" double precision null);`);
    this.addSql(`create index "metric_samples_instance_id_sampled_at_index" on "metric_samples" ("instance_id", "sampled_at");`);

    this.addSql(`create table "metric_hours" ("instance_id" bigint not null, "hour" timestamptz not null, "tenant_id" uuid not null, "samples" int not null, "cpu_avg" double precision not null, "cpu_max" double precision not null, "memory_avg" double precision not null, "memory_max" double precision not null, "database_avg" double precision null, "database_max" double precision null, "volume_avg" double precision null, "volume_max" double precision null, primary key ("instance_id", "hour"));`);

    this.addSql(`alter table "metric_samples" add constraint "metric_samples_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id") on delete cascade;`);
    this.addSql(`alter table "metric_samples" add constraint "metric_samples_instance_id_foreign" foreign key ("instance_id") references "instances" ("id") on delete cascade;`);

    this.addSql(`alter table "metric_hours" add constraint "metric_hours_instance_id_foreign" foreign key ("instance_id") references "instances" ("id") on delete cascade;`);
    this.addSql(`alter table "metric_hours" add constraint "metric_hours_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id") on delete cascade;`);
    this.addSql(`alter table "metric_hours" add constraint "metric_hours_samples_check" check (samples > 0);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "metric_samples" cascade;`);
    this.addSql(`drop table if exists "metric_hours" cascade;`);
  }

}
