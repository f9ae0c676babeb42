import { Migration } from '@mikro-orm/migrations';

export class Migration20261122025808_oauth extends Migration {

  override name = 'Migration20261122025808_oauth';

  override up(): void | Promise<void> {
    this.addSql(`create table "oidc_payloads" ("kind" varchar(40) not null, "id" varchar(255) not null, "payload" jsonb not null, "grant_id" varchar(255) null, "uid" varchar(255) null, "user_code" varchar(255) null, "expires_at" timestamptz null, "consumed_at" timestamptz null, primary key ("kind", "id"));`);
    this.addSql(`create index "oidc_payloads_grant_id_index" on "oidc_payloads" ("grant_id");`);
    this.addSql(`create index "oidc_payloads_uid_index" on "oidc_payloads" ("uid");`);
    this.addSql(`create index "oidc_payloads_expires_at_index" on "oidc_payloads" ("expires_at");`);

    this.addSql(`create table "oauth_revoked_tokens" ("jti" varchar(255) not null, "expires_at" timestamptz not null, primary key ("jti"));`);
    this.addSql(`create index "oauth_revoked_tokens_expires_at_index" on "oauth_revoked_tokens" ("expires_at");`);

    this.addSql(`create table "oauth_handoff_codes" ("id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "code_hash" varchar(64) not null, "transaction" varchar(255) not null, "expires_at" timestamptz not null, "consumed_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "oauth_handoff_codes" add constraint "oauth_handoff_codes_code_hash_unique" unique ("code_hash");`);

    this.addSql(`alter table "oauth_handoff_codes" add constraint "oauth_handoff_codes_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "oauth_handoff_codes" add constraint "oauth_handoff_codes_user_id_foreign" foreign key ("user_id") references "users" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "oidc_payloads" cascade;`);
    this.addSql(`drop table if exists "oauth_revoked_tokens" cascade;`);
    this.addSql(`drop table if exists "oauth_handoff_codes" cascade;`);
  }

}
