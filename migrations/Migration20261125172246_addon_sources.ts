import { Migration } from '@mikro-orm/migrations';

export class Migration20261125172246_addon_sources extends Migration {

  override name = 'Migration20261125172246_addon_sources';

  override up(): void | Promise<void> {
    this.addSql(`create table "addon_sources" ("id" bigint generated always as identity not null primary key, "tenant_id" uuid not null, "name" varchar(120) not null, "repository_url" varchar(500) not null, "branch" varchar(200) not null, "subpath" varchar(500) null, "state" text not null default 'pending', "last_synced_at" timestamptz null, "last_commit" varchar(64) null, "error" varchar(1000) null, "modules" jsonb not null default '[]', "credential_kind" text null, "sealed_credential" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "addon_sources_tenant_id_index" on "addon_sources" ("tenant_id");`);
    this.addSql(`alter table "addon_sources" add constraint "addon_sources_tenant_name_unique" unique ("tenant_id", "name");`);

    this.addSql(`alter table "erp_modules" drop constraint "erp_modules_technical_name_unique";`);
    this.addSql(`alter table "erp_modules" add "tenant_id" uuid null, add "addon_source_id" bigint null;`);
    this.addSql(`alter table "erp_modules" add constraint "erp_modules_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id") on delete cascade;`);
    this.addSql(`alter table "erp_modules" add constraint "erp_modules_addon_source_id_foreign" foreign key ("addon_source_id") references "addon_sources" ("id") on delete cascade;`);
    this.addSql(`create index "erp_modules_tenant_id_index" on "erp_modules" ("tenant_id");`);
    this.addSql(`create index "erp_modules_addon_source_id_index" on "erp_modules" ("addon_source_id");`);
    this.addSql(`create unique index "erp_modules_tenant_technical_name_unique" on "erp_modules" ("tenant_id", "technical_name") where "tenant_id" is not null;`);
    this.addSql(`create unique index "erp_modules_technical_name_unique" on "erp_modules" ("technical_name") where "tenant_id" is null;`);

    this.addSql(`alter table "addon_sources" add constraint "addon_sources_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "addon_sources" add constraint "addon_sources_state_check" check ("state" in ('pending', 'syncing', 'synced', 'failed'));`);
    this.addSql(`alter table "addon_sources" add constraint "addon_sources_credential_kind_check" check ("credential_kind" in ('token', 'deploy_key'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "erp_modules" drop constraint "erp_modules_addon_source_id_foreign";`);

    this.addSql(`drop table if exists "addon_sources" cascade;`);

    this.addSql(`alter table "erp_modules" drop constraint "erp_modules_tenant_id_foreign";`);

    this.addSql(`drop index "erp_modules_tenant_id_index";`);
    this.addSql(`drop index "erp_modules_addon_source_id_index";`);
    this.addSql(`drop index "erp_modules_technical_name_unique";`);
    this.addSql(`drop index "erp_modules_tenant_technical_name_unique";`);
    this.addSql(`alter table "erp_modules" drop column "tenant_id", drop column "addon_source_id";`);
    this.addSql(`alter table "erp_modules" add constraint "erp_modules_technical_name_unique" unique ("technical_name");`);
  }

}
