import { Migration } from '@mikro-orm/migrations';

export class Migration20261128221046_webhooks extends Migration {

  override name = 'Migration20261128221046_webhooks';

  override up(): void | Promise<void> {
    this.addSql(`create table "webhook_endpoints" ("id" uuid not null, "tenant_id" uuid not null, "url" varchar(2000) not null, "description" varchar(200) null, "events" jsonb not null, "enabled" boolean not null default true, "sealed_secret" text not null, "sealed_previous_secret" text null, "previous_secret_expires_at" timestamptz null, "failing_since" timestamptz null, "disabled_reason" varchar(300) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "webhook_endpoints_tenant_id_index" on "webhook_endpoints" ("tenant_id");`);

    this.addSql(`create table "webhook_events" ("id" uuid not null, "tenant_id" uuid not null, "type" varchar(60) not null, "target_type" varchar(40) null, "target_id" varchar(64) null, "instance_id" bigint null, "title" varchar(300) not null, "data" jsonb null, "fanned_out_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "webhook_events_tenant_id_index" on "webhook_events" ("tenant_id");`);
    this.addSql(`create index "webhook_events_fanned_out_at_index" on "webhook_events" ("fanned_out_at");`);

    this.addSql(`create table "webhook_deliveries" ("id" uuid not null, "tenant_id" uuid not null, "endpoint_id" uuid not null, "event_id" uuid not null, "status" text not null default 'pending', "attempts" int not null default 0, "response_status" int null, "duration_ms" int null, "last_error" varchar(500) null, "retry_until" timestamptz not null, "locked_until" timestamptz null, "delivered_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "webhook_deliveries_endpoint_id_created_at_index" on "webhook_deliveries" ("endpoint_id", "created_at");`);

    this.addSql(`alter table "webhook_endpoints" add constraint "webhook_endpoints_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);

    this.addSql(`alter table "webhook_events" add constraint "webhook_events_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);

    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_event_id_foreign" foreign key ("event_id") references "webhook_events" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_status_check" check ("status" in ('pending', 'delivered', 'failed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_endpoint_id_foreign";`);
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_event_id_foreign";`);

    this.addSql(`drop table if exists "webhook_endpoints" cascade;`);
    this.addSql(`drop table if exists "webhook_events" cascade;`);
    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);
  }

}
