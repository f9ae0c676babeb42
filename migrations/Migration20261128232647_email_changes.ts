import { Migration } from '@mikro-orm/migrations';

export class Migration20261128232647_email_changes extends Migration {

  override name = 'Migration20261128232647_email_changes';

  override up(): void | Promise<void> {
    this.addSql(`create table "email_changes" ("id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "new_email" varchar(254) not null, "token_hash" varchar(64) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "consumed_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "email_changes_tenant_id_index" on "email_changes" ("tenant_id");`);
    this.addSql(`create index "email_changes_user_id_index" on "email_changes" ("user_id");`);
    this.addSql(`alter table "email_changes" add constraint "email_changes_token_hash_unique" unique ("token_hash");`);

    this.addSql(`alter table "email_changes" add constraint "email_changes_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "email_changes" add constraint "email_changes_user_id_foreign" foreign key ("user_id") references "users" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "email_changes" cascade;`);
  }

}
