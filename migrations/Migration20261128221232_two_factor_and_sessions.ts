import { Migration } from '@mikro-orm/migrations';

export class Migration20261128221232_two_factor_and_sessions extends Migration {

  override name = 'Migration20261128221232_two_factor_and_sessions';

  override up(): void | Promise<void> {
    this.addSql(`create table "two_factor_recovery_codes" ("id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "code_hash" varchar(64) not null, "used_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "two_factor_recovery_codes_user_id_index" on "two_factor_recovery_codes" ("user_id");`);

    this.addSql(`create table "login_challenges" ("id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "token_hash" varchar(64) not null, "purpose" text not null, "failed_attempts" int not null default 0, "ip" varchar(64) null, "user_agent" varchar(512) null, "expires_at" timestamptz not null, "consumed_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "login_challenges_user_id_index" on "login_challenges" ("user_id");`);
    this.addSql(`alter table "login_challenges" add constraint "login_challenges_token_hash_unique" unique ("token_hash");`);

    this.addSql(`create table "user_two_factor" ("user_id" uuid not null, "tenant_id" uuid not null, "sealed_secret" text not null, "enabled_at" timestamptz null, "last_used_step" bigint null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("user_id"));`);
    this.addSql(`create index "user_two_factor_tenant_id_index" on "user_two_factor" ("tenant_id");`);

    this.addSql(`alter table "tenant_settings" add "require_two_factor" boolean not null default false;`);

    this.addSql(`alter table "portal_sessions" add "last_used_at" timestamptz null;`);

    this.addSql(`alter table "two_factor_recovery_codes" add constraint "two_factor_recovery_codes_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "two_factor_recovery_codes" add constraint "two_factor_recovery_codes_user_id_foreign" foreign key ("user_id") references "users" ("id");`);

    this.addSql(`alter table "login_challenges" add constraint "login_challenges_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "login_challenges" add constraint "login_challenges_user_id_foreign" foreign key ("user_id") references "users" ("id");`);
    this.addSql(`alter table "login_challenges" add constraint "login_challenges_purpose_check" check ("purpose" in ('code', 'enrol'));`);

    this.addSql(`alter table "user_two_factor" add constraint "user_two_factor_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "user_two_factor" add constraint "user_two_factor_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "two_factor_recovery_codes" cascade;`);
    this.addSql(`drop table if exists "login_challenges" cascade;`);
    this.addSql(`drop table if exists "user_two_factor" cascade;`);

    this.addSql(`alter table "portal_sessions" drop column "last_used_at";`);

    this.addSql(`alter table "tenant_settings" drop column "require_two_factor";`);
  }

}
