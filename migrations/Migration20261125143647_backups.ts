import { Migration } from '@mikro-orm/migrations';

export class Migration20261125143647_backups extends Migration {

  override name = 'Migration20261125143647_backups';

  override up(): void | Promise<void> {
    this.addSql(`create table "backups" ("id" bigint generated always as identity not null primary key, "tenant_id" uuid not null, "instance_id" bigint not null, "state" text not null default 'queued', "kind" text not null default 'manual', "step" varchar(100) null, "size_bytes" bigint null, "error" varchar(1000) null, "erp_version" varchar(20) not null, "pg_major" int null, "archive_key" varchar(500) null, "archive_sha256" varchar(64) null, "created_at" timestamptz not null, "started_at" timestamptz null, "completed_at" timestamptz null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "backups_tenant_id_index" on "backups" ("tenant_id");`);
    this.addSql(`create index "backups_instance_id_index" on "backups" ("instance_id");`);
    this.addSql(`create unique index "backups_one_active_per_instance" on "backups" ("instance_id") where "state" in ('queued', 'running');`);

    this.addSql(`alter table "instances" drop constraint "instances_state_check";`);
    this.addSql(`alter table "instances" drop constraint "instances_status_check";`);
    this.addSql(`alter table "instances" add constraint "instances_state_check" check ("state" in ('provisioning', 'running', 'starting', 'stopping', 'stopped', 'restarting', 'error', 'deleting', 'deleted', 'restoring'));`);
    this.addSql(`alter table "instances" add constraint "instances_status_check" check ("status" in ('provisioning', 'running', 'starting', 'stopping', 'stopped', 'restarting', 'error', 'deleting', 'deleted', 'restoring'));`);

    this.addSql(`alter table "backups" add constraint "backups_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "backups" add constraint "backups_instance_id_foreign" foreign key ("instance_id") references "instances" ("id");`);
    this.addSql(`alter table "backups" add constraint "backups_state_check" check ("state" in ('queued', 'running', 'completed', 'failed'));`);
    this.addSql(`alter table "backups" add constraint "backups_kind_check" check ("kind" in ('manual', 'scheduled'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "backups" cascade;`);

    this.addSql(`alter table "instances" drop constraint "instances_state_check";`);
    this.addSql(`alter table "instances" drop constraint "instances_status_check";`);
    this.addSql(`alter table "instances" add constraint "instances_state_check" check ("state" in ('provisioning', 'running', 'starting', 'stopping', 'stopped', 'restarting', 'error', 'deleting', 'deleted'));`);
    this.addSql(`alter table "instances" add constraint "instances_status_check" check ("status" in ('provisioning', 'running', 'starting', 'stopping', 'stopped', 'restarting', 'error', 'deleting', 'deleted'));`);
  }

}
