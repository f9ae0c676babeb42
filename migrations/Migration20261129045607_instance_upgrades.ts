import { Migration } from '@mikro-orm/migrations';

export class Migration20261129045607_instance_upgrades extends Migration {

  override name = 'Migration20261129045607_instance_upgrades';

  override up(): void | Promise<void> {
    this.addSql(`create table "instance_upgrades" ("id" bigint generated always as identity not null primary key, "tenant_id" uuid not null, "instance_id" bigint not null, "from_version" varchar(20) not null, "target_version" varchar(20) not null, "mode" text not null, "state" text not null default 'queued', "step" text not null default 'backup', "staging_instance_id" bigint null, "rollback_backup_id" bigint null, "started_at" timestamptz null, "finished_at" timestamptz null, "duration" int null, "log_tail" text null, "failed_modules" jsonb not null default '[]', "incompatible_addons" jsonb not null default '[]', "error" varchar(1000) null, "created_by_id" uuid null, "created_by_client" varchar(200) null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "instance_upgrades_tenant_id_index" on "instance_upgrades" ("tenant_id");`);
    this.addSql(`create index "instance_upgrades_instance_id_index" on "instance_upgrades" ("instance_id");`);
    this.addSql(`create index "instance_upgrades_staging_instance_id_index" on "instance_upgrades" ("staging_instance_id");`);
    this.addSql(`create unique index "instance_upgrades_one_active_per_instance" on "instance_upgrades" ("instance_id") where "state" in ('queued', 'running');`);

    this.addSql(`alter table "instances" drop constraint "instances_state_check";`);
    this.addSql(`alter table "instances" drop constraint "instances_status_check";`);
    this.addSql(`alter table "instances" add constraint "instances_state_check" check ("state" in ('provisioning', 'running', 'starting', 'stopping', 'stopped', 'restarting', 'error', 'deleting', 'deleted', 'restoring', 'upgrading'));`);
    this.addSql(`alter table "instances" add constraint "instances_status_check" check ("status" in ('provisioning', 'running', 'starting', 'stopping', 'stopped', 'restarting', 'error', 'deleting', 'deleted', 'restoring', 'upgrading'));`);

    this.addSql(`alter table "instance_upgrades" add constraint "instance_upgrades_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "instance_upgrades" add constraint "instance_upgrades_instance_id_foreign" foreign key ("instance_id") references "instances" ("id");`);
    this.addSql(`alter table "instance_upgrades" add constraint "instance_upgrades_staging_instance_id_foreign" foreign key ("staging_instance_id") references "instances" ("id") on delete set null;`);
    this.addSql(`alter table "instance_upgrades" add constraint "instance_upgrades_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on delete set null;`);
    this.addSql(`alter table "instance_upgrades" add constraint "instance_upgrades_mode_check" check ("mode" in ('test', 'apply'));`);
    this.addSql(`alter table "instance_upgrades" add constraint "instance_upgrades_state_check" check ("state" in ('queued', 'running', 'succeeded', 'failed', 'rolled_back'));`);
    this.addSql(`alter table "instance_upgrades" add constraint "instance_upgrades_step_check" check ("step" in ('backup', 'staging', 'upgrade', 'rollback', 'done'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "instance_upgrades" cascade;`);

    this.addSql(`alter table "instances" drop constraint "instances_state_check";`);
    this.addSql(`alter table "instances" drop constraint "instances_status_check";`);
    this.addSql(`alter table "instances" add constraint "instances_state_check" check ("state" in ('provisioning', 'running', 'starting', 'stopping', 'stopped', 'restarting', 'error', 'deleting', 'deleted', 'restoring'));`);
    this.addSql(`alter table "instances" add constraint "instances_status_check" check ("status" in ('provisioning', 'running', 'starting', 'stopping', 'stopped', 'restarting', 'error', 'deleting', 'deleted', 'restoring'));`);
  }

}
