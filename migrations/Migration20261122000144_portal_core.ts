import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000144_portal_core extends Migration {

  override name = 'Migration20261122000144_portal_core';

  override up(): void | Promise<void> {
    this.addSql(`create table "erp_modules" ("id" serial primary key, "technical_name" varchar(64) not null, "name" varchar(120) not null, "description" text not null, "category" varchar(60) not null, "sequence" int not null default 100);`);
    this.addSql(`alter table "erp_modules" add constraint "erp_modules_technical_name_unique" unique ("technical_name");`);
    this.addSql(`create index "erp_modules_category_index" on "erp_modules" ("category");`);

    this.addSql(`create table "mail_outbox" ("id" uuid not null, "tenant_id" uuid null, "kind" varchar(60) not null, "recipient" varchar(254) not null, "subject" varchar(300) not null, "sealed_body" text null, "status" text not null default 'pending', "attempts" int not null default 0, "next_attempt_at" timestamptz not null, "locked_until" timestamptz null, "last_error" varchar(1000) null, "sent_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "mail_outbox_status_next_attempt_at_index" on "mail_outbox" ("status", "next_attempt_at");`);

    this.addSql(`create table "instances" ("id" uuid not null, "tenant_id" uuid not null, "name" varchar(100) not null, "subdomain" varchar(40) not null, "erp_version" varchar(20) not null, "backend" text not null, "state" text not null default 'provisioning', "status_message" varchar(500) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "instances_tenant_id_index" on "instances" ("tenant_id");`);
    this.addSql(`alter table "instances" add constraint "instances_subdomain_unique" unique ("subdomain");`);

    this.addSql(`create table "activities" ("id" bigserial primary key, "tenant_id" uuid not null, "type" varchar(60) not null, "title" varchar(300) not null, "actor_kind" text not null, "actor_id" varchar(100) null, "actor_name" varchar(200) not null, "target_type" varchar(40) null, "target_id" varchar(64) null, "instance_id" uuid null, "created_at" timestamptz not null);`);
    this.addSql(`create index "activities_tenant_id_id_index" on "activities" ("tenant_id", "id");`);
    this.addSql(`create index "activities_tenant_id_type_id_index" on "activities" ("tenant_id", "type", "id");`);
    this.addSql(`create index "activities_tenant_id_instance_id_id_index" on "activities" ("tenant_id", "instance_id", "id");`);

    this.addSql(`create table "tenant_settings" ("tenant_id" uuid not null, "address" varchar(500) null, "phone" varchar(40) null, "email" varchar(254) null, "vat_id" varchar(40) null, "country" varchar(2) null, "currency" varchar(3) not null default 'EUR', "timezone" varchar(64) not null default 'UTC', "language" varchar(16) not null default 'en', "notify_instance_events" boolean not null default true, "notify_billing" boolean not null default true, "notify_tickets" boolean not null default true, "notify_weekly_report" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("tenant_id"));`);

    this.addSql(`create table "tickets" ("id" uuid not null, "tenant_id" uuid not null, "subject" varchar(200) not null, "description" text not null, "priority" text not null default 'normal', "status" text not null default 'open', "created_by_id" uuid null, "last_message_at" timestamptz not null, "closed_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "tickets_tenant_id_status_last_message_at_index" on "tickets" ("tenant_id", "status", "last_message_at");`);

    this.addSql(`create table "ticket_messages" ("id" uuid not null, "tenant_id" uuid not null, "ticket_id" uuid not null, "author_id" uuid null, "author_name" varchar(200) not null, "from_support" boolean not null default false, "message" text not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "ticket_messages_ticket_id_index" on "ticket_messages" ("ticket_id");`);

    this.addSql(`create table "invitations" ("id" uuid not null, "tenant_id" uuid not null, "email" varchar(254) not null, "name" varchar(200) not null, "role" text not null, "instance_id" uuid null, "token_hash" varchar(64) not null, "status" text not null default 'pending', "expires_at" timestamptz not null, "invited_by_id" uuid null, "accepted_user_id" uuid null, "accepted_at" timestamptz null, "cancelled_at" timestamptz null, "send_count" int not null default 0, "last_sent_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "invitations_tenant_id_index" on "invitations" ("tenant_id");`);
    this.addSql(`alter table "invitations" add constraint "invitations_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create unique index "invitations_pending_email_unique" on "invitations" ("tenant_id", "email") where "status" = 'pending';`);

    this.addSql(`alter table "mail_outbox" add constraint "mail_outbox_status_check" check ("status" in ('pending', 'sent', 'failed'));`);

    this.addSql(`alter table "instances" add constraint "instances_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "instances" add constraint "instances_backend_check" check ("backend" in ('kubernetes', 'docker'));`);
    this.addSql(`alter table "instances" add constraint "instances_state_check" check ("state" in ('provisioning', 'running', 'starting', 'stopping', 'stopped', 'restarting', 'error', 'deleting', 'deleted'));`);

    this.addSql(`alter table "activities" add constraint "activities_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "activities" add constraint "activities_actor_kind_check" check ("actor_kind" in ('user', 'agent', 'system'));`);

    this.addSql(`alter table "tenant_settings" add constraint "tenant_settings_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "tickets" add constraint "tickets_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "tickets" add constraint "tickets_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on delete set null;`);
    this.addSql(`alter table "tickets" add constraint "tickets_priority_check" check ("priority" in ('low', 'normal', 'high', 'urgent'));`);
    this.addSql(`alter table "tickets" add constraint "tickets_status_check" check ("status" in ('open', 'answered', 'closed'));`);

    this.addSql(`alter table "ticket_messages" add constraint "ticket_messages_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "ticket_messages" add constraint "ticket_messages_ticket_id_foreign" foreign key ("ticket_id") references "tickets" ("id");`);
    this.addSql(`alter table "ticket_messages" add constraint "ticket_messages_author_id_foreign" foreign key ("author_id") references "users" ("id") on delete set null;`);

    this.addSql(`alter table "invitations" add constraint "invitations_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "invitations" add constraint "invitations_instance_id_foreign" foreign key ("instance_id") references "instances" ("id") on delete set null;`);
    this.addSql(`alter table "invitations" add constraint "invitations_invited_by_id_foreign" foreign key ("invited_by_id") references "users" ("id") on delete set null;`);
    this.addSql(`alter table "invitations" add constraint "invitations_accepted_user_id_foreign" foreign key ("accepted_user_id") references "users" ("id") on delete set null;`);
    this.addSql(`alter table "invitations" add constraint "invitations_role_check" check ("role" in ('admin', 'user'));`);
    this.addSql(`alter table "invitations" add constraint "invitations_status_check" check ("status" in ('pending', 'accepted', 'cancelled'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "invitations" drop constraint "invitations_instance_id_foreign";`);
    this.addSql(`alter table "ticket_messages" drop constraint "ticket_messages_ticket_id_foreign";`);

    this.addSql(`drop table if exists "erp_modules" cascade;`);
    this.addSql(`drop table if exists "mail_outbox" cascade;`);
    this.addSql(`drop table if exists "instances" cascade;`);
    this.addSql(`drop table if exists "activities" cascade;`);
    this.addSql(`drop table if exists "tenant_settings" cascade;`);
    this.addSql(`drop table if exists "tickets" cascade;`);
    this.addSql(`drop table if exists "ticket_messages" cascade;`);
    this.addSql(`drop table if exists "invitations" cascade;`);
  }

}
