import { Migration } from '@mikro-orm/migrations';

export class Migration20261128221051_password_resets extends Migration {

  override name = 'Migration20261128221051_password_resets';

  override up(): void | Promise<void> {
    this.addSql(`create table "password_resets" ("id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "token_hash" varchar(64) not null, "origin" varchar(16) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "consumed_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "password_resets_tenant_id_index" on "password_resets" ("tenant_id");`);
    this.addSql(`create index "password_resets_user_id_index" on "password_resets" ("user_id");`);
    this.addSql(`alter table "password_resets" add constraint "password_resets_token_hash_unique" unique ("token_hash");`);

    this.addSql(`alter table "password_resets" add constraint "password_resets_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "password_resets" add constraint "password_resets_user_id_foreign" foreign key ("user_id") references "users" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "password_resets" cascade;`);
  }

}
