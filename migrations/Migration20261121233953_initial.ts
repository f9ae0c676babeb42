import { Migration } from '@mikro-orm/migrations';

export class Migration20261121233953_initial extends Migration {

  override name = 'Migration20261121233953_initial';

  override up(): void | Promise<void> {
    this.addSql(`create table "rate_limit_counters" ("key" varchar(300) not null, "hits" int not null, "reset_at" timestamptz not null, primary key ("key"));`);
    this.addSql(`create index "rate_limit_counters_reset_at_index" on "rate_limit_counters" ("reset_at");`);

    this.addSql(`create table "tenants" ("id" uuid not null, "name" varchar(200) not null, "subdomain" varchar(40) not null, "status" text not null default 'active', "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "tenants" add constraint "tenants_subdomain_unique" unique ("subdomain");`);

    this.addSql(`create table "users" ("id" uuid not null, "tenant_id" uuid not null, "email" varchar(254) not null, "name" varchar(200) not null, "role" text not null default 'user', "active" boolean not null default true, "password_hash" varchar(255) not null, "last_login_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "users_tenant_id_index" on "users" ("tenant_id");`);
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);

    this.addSql(`create table "portal_sessions" ("id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "revoked_at" timestamptz null, "ip" varchar(64) null, "user_agent" varchar(512) null, primary key ("id"));`);
    this.addSql(`create index "portal_sessions_tenant_id_index" on "portal_sessions" ("tenant_id");`);
    this.addSql(`create index "portal_sessions_user_id_index" on "portal_sessions" ("user_id");`);

    this.addSql(`alter table "tenants" add constraint "tenants_status_check" check ("status" in ('active', 'suspended'));`);

    this.addSql(`alter table "users" add constraint "users_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "users" add constraint "users_role_check" check ("role" in ('admin', 'user'));`);

    this.addSql(`alter table "portal_sessions" add constraint "portal_sessions_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "portal_sessions" add constraint "portal_sessions_user_id_foreign" foreign key ("user_id") references "users" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "users" drop constraint "users_tenant_id_foreign";`);
    this.addSql(`alter table "portal_sessions" drop constraint "portal_sessions_tenant_id_foreign";`);
    this.addSql(`alter table "portal_sessions" drop constraint "portal_sessions_user_id_foreign";`);

    this.addSql(`drop table if exists "rate_limit_counters" cascade;`);
    this.addSql(`drop table if exists "tenants" cascade;`);
    this.addSql(`drop table if exists "users" cascade;`);
    this.addSql(`drop table if exists "portal_sessions" cascade;`);
  }

}
