import { Migration } from '@mikro-orm/migrations';

export class Migration20261122003542_billing extends Migration {

  override name = 'Migration20261122003542_billing';

  override up(): void | Promise<void> {
    this.addSql(`create table "plans" ("id" serial primary key, "code" varchar(40) not null, "name" varchar(100) not null, "description" text not null, "active" boolean not null default true, "is_trial" boolean not null default false, "trial_days" int not null default 0, "currency" varchar(3) not null, "base_price_monthly" bigint not null, "included_users" int not null, "extra_user_price_monthly" bigint not null, "storage_limit_gb" int not null, "storage_overage_price" bigint not null, "max_users" int not null, "max_instances" int not null, "max_workers" int not null, "annual_discount_bps" int not null default 0, "features" jsonb not null, "sequence" int not null default 100, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "plans" add constraint "plans_code_unique" unique ("code");`);

    this.addSql(`create table "subscriptions" ("id" uuid not null, "tenant_id" uuid not null, "plan_id" int not null, "status" text not null, "billing_cycle" text not null, "users" int not null, "storage" int not null, "workers" int not null, "instances" int not null, "currency" varchar(3) not null, "amount" bigint not null, "amount_due" bigint not null default '0', "payment_reference" varchar(64) null, "current_period_start" timestamptz null, "current_period_end" timestamptz null, "trial_started_at" timestamptz null, "trial_ends_at" timestamptz null, "activated_at" timestamptz null, "ended_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "subscriptions" add constraint "subscriptions_tenant_id_unique" unique ("tenant_id");`);
    this.addSql(`alter table "subscriptions" add constraint "subscriptions_payment_reference_unique" unique ("payment_reference");`);
    this.addSql(`create index "subscriptions_status_trial_ends_at_index" on "subscriptions" ("status", "trial_ends_at");`);

    this.addSql(`create table "plan_configurations" ("id" serial primary key, "tenant_id" uuid not null, "plan_id" int not null, "users" int not null, "storage" int not null, "workers" int not null, "instances" int not null, "billing_cycle" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "plan_configurations" add constraint "plan_configurations_tenant_id_unique" unique ("tenant_id");`);

    this.addSql(`create table "payments" ("id" uuid not null, "tenant_id" uuid not null, "subscription_id" uuid not null, "provider" varchar(40) not null, "reference" varchar(64) not null, "provider_transaction_id" varchar(128) null, "amount" bigint not null, "currency" varchar(3) not null, "status" text not null default 'pending', "paid_at" timestamptz null, "failure_reason" varchar(300) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "payments_tenant_id_index" on "payments" ("tenant_id");`);
    this.addSql(`create index "payments_subscription_id_index" on "payments" ("subscription_id");`);
    this.addSql(`create index "payments_reference_index" on "payments" ("reference");`);
    this.addSql(`alter table "payments" add constraint "payments_provider_transaction_unique" unique ("provider", "provider_transaction_id");`);

    this.addSql(`alter table "subscriptions" add constraint "subscriptions_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "subscriptions" add constraint "subscriptions_plan_id_foreign" foreign key ("plan_id") references "plans" ("id");`);
    this.addSql(`alter table "subscriptions" add constraint "subscriptions_status_check" check ("status" in ('trialing', 'pending_payment', 'active', 'past_due', 'expired', 'cancelled'));`);
    this.addSql(`alter table "subscriptions" add constraint "subscriptions_billing_cycle_check" check ("billing_cycle" in ('monthly', 'yearly'));`);

    this.addSql(`alter table "plan_configurations" add constraint "plan_configurations_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "plan_configurations" add constraint "plan_configurations_plan_id_foreign" foreign key ("plan_id") references "plans" ("id");`);
    this.addSql(`alter table "plan_configurations" add constraint "plan_configurations_billing_cycle_check" check ("billing_cycle" in ('monthly', 'yearly'));`);

    this.addSql(`alter table "payments" add constraint "payments_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id");`);
    this.addSql(`alter table "payments" add constraint "payments_subscription_id_foreign" foreign key ("subscription_id") references "subscriptions" ("id");`);
    this.addSql(`alter table "payments" add constraint "payments_status_check" check ("status" in ('pending', 'paid', 'failed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "subscriptions" drop constraint "subscriptions_plan_id_foreign";`);
    this.addSql(`alter table "plan_configurations" drop constraint "plan_configurations_plan_id_foreign";`);
    this.addSql(`alter table "payments" drop constraint "payments_subscription_id_foreign";`);

    this.addSql(`drop table if exists "plans" cascade;`);
    this.addSql(`drop table if exists "subscriptions" cascade;`);
    this.addSql(`drop table if exists "plan_configurations" cascade;`);
    this.addSql(`drop table if exists "payments" cascade;`);
  }

}
