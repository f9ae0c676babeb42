import { Migration } from '@mikro-orm/migrations';

export class Migration20261125174932_backup_tokens_schedules extends Migration {

  override name = 'Migration20261125174932_backup_tokens_schedules';

  override up(): void | Promise<void> {
    this.addSql(`create table "backup_schedules" ("instance_id" bigint not null, "tenant_id" uuid not null, "enabled" boolean not null default true, "hour_utc" int not null, "keep_daily" int not null, "keep_weekly" int not null, "last_run_on" varchar(10) null, "last_run_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("instance_id"));`);
    this.addSql(`create index "backup_schedules_tenant_id_index" on "backup_schedules" ("tenant_id");`);

    this.addSql(`create table "backup_download_tokens" ("id" uuid not null, "tenant_id" uuid not null, "backup_id" bigint not null, "user_id" uuid not null, "token_hash" varchar(64) not null, "expires_at" timestamptz not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "backup_download_tokens_backup_id_index" on "backup_download_tokens" ("backup_id");`);
    this.addSql(`alter table "backup_download_tokens" add constraint "backup_download_tokens_token_hash_unique" unique ("token_hash");`);

    this.addSql(`alter table "backup_schedules" add constraint "backup_schedules_instance_id_foreign" foreign key ("instance_id") references "instances" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "backup_schedules" add constraint "backup_schedules_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);

    this.addSql(`alter table "backup_download_tokens" add constraint "backup_download_tokens_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "backup_download_tokens" add constraint "backup_download_tokens_backup_id_foreign" foreign key ("backup_id") references "backups" ("id") on delete cascade;`);
    this.addSql(`alter table "backup_download_tokens" add constraint "backup_download_tokens_user_id_foreign" foreign key ("user_id") references "users" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "backup_schedules" cascade;`);
    this.addSql(`drop table if exists "backup_download_tokens" cascade;`);
  }

}
