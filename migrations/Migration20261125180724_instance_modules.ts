import { Migration } from '@mikro-orm/migrations';

export class Migration20261125180724_instance_modules extends Migration {

  override name = 'Migration20261125180724_instance_modules';

  override up(): void | Promise<void> {
    this.addSql(`create table "instance_modules" ("id" bigint generated always as identity not null primary key, "tenant_id" uuid not null, "instance_id" bigint not null, "module_id" int not null, "state" text not null default 'queued', "error" varchar(1000) null, "installed_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "instance_modules_tenant_id_index" on "instance_modules" ("tenant_id");`);
    this.addSql(`alter table "instance_modules" add constraint "instance_modules_instance_module_unique" unique ("instance_id", "module_id");`);

    this.addSql(`alter table "instance_modules" add constraint "instance_modules_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "instance_modules" add constraint "instance_modules_instance_id_foreign" foreign key ("instance_id") references "instances" ("id");`);
    this.addSql(`alter table "instance_modules" add constraint "instance_modules_module_id_foreign" foreign key ("module_id") references "erp_modules" ("id");`);
    this.addSql(`alter table "instance_modules" add constraint "instance_modules_state_check" check ("state" in ('queued', 'installing', 'installed', 'failed', 'uninstalled'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "instance_modules" cascade;`);
  }

}
