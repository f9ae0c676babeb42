import { Migration } from '@mikro-orm/migrations';

export class Migration20261128222804_agent_access extends Migration {

  override name = 'Migration20261128222804_agent_access';

  override up(): void | Promise<void> {
    this.addSql(`create table "agent_tool_calls" ("id" bigint generated always as identity not null primary key, "tenant_id" uuid not null, "grant_id" varchar(255) not null, "client_id" varchar(255) not null, "client_name" varchar(200) not null, "user_id" uuid not null, "tool" varchar(100) not null, "arguments" jsonb not null, "outcome" varchar(64) not null, "duration_ms" int not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "agent_tool_calls_grant_id_id_index" on "agent_tool_calls" ("grant_id", "id");`);
    this.addSql(`create index "agent_tool_calls_created_at_index" on "agent_tool_calls" ("created_at");`);

    this.addSql(`create table "oauth_grant_access" ("grant_id" varchar(255) not null, "tenant_id" uuid not null, "user_id" uuid not null, "level" text not null, "instance_ids" jsonb null, "updated_at" timestamptz not null, primary key ("grant_id"));`);

    this.addSql(`alter table "activities" add "actor_grant_id" varchar(255) null;`);

    this.addSql(`alter table "agent_tool_calls" add constraint "agent_tool_calls_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);

    this.addSql(`alter table "oauth_grant_access" add constraint "oauth_grant_access_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "oauth_grant_access" add constraint "oauth_grant_access_user_id_foreign" foreign key ("user_id") references "users" ("id");`);
    this.addSql(`alter table "oauth_grant_access" add constraint "oauth_grant_access_level_check" check ("level" in ('read', 'operate', 'administer'));`);

    // Agents connected before levels existed were allowed everything their person may do: they keep it (capped by the role, as every grant is).
    this.addSql(`insert into "oauth_grant_access" ("grant_id", "tenant_id", "user_id", "level", "instance_ids", "updated_at")
      select g."id", u."tenant_id", u."id", 'administer', null, now()
      from "oidc_payloads" g join "users" u on u."id"::text = g."payload"->>'accountId'
      where g."kind" = 'Grant';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "agent_tool_calls" cascade;`);
    this.addSql(`drop table if exists "oauth_grant_access" cascade;`);

    this.addSql(`alter table "activities" drop column "actor_grant_id";`);
  }

}
