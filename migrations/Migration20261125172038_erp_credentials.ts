import { Migration } from '@mikro-orm/migrations';

export class Migration20261125172038_erp_credentials extends Migration {

  override name = 'Migration20261125172038_erp_credentials';

  override up(): void | Promise<void> {
    this.addSql(`create table "instance_erp_credentials" ("id" bigint generated always as identity not null primary key, "tenant_id" uuid not null, "instance_id" bigint not null, "admin_password_sealed" text not null, "master_password_sealed" text not null, "initialised_at" timestamptz null, "admin_password_set_at" timestamptz null, "created_at" timestamptz not null);`);
    this.addSql(`create index "instance_erp_credentials_tenant_id_index" on "instance_erp_credentials" ("tenant_id");`);
    this.addSql(`alter table "instance_erp_credentials" add constraint "instance_erp_credentials_instance_id_unique" unique ("instance_id");`);

    this.addSql(`alter table "instance_erp_credentials" add constraint "instance_erp_credentials_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "instance_erp_credentials" add constraint "instance_erp_credentials_instance_id_foreign" foreign key ("instance_id") references "instances" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "instance_erp_credentials" cascade;`);
  }

}
