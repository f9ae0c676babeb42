import { Migration } from '@mikro-orm/migrations';

export class Migration20261122010513_money_checks extends Migration {

  override name = 'Migration20261122010513_money_checks';

  override up(): void | Promise<void> {
    this.addSql(`alter table "plans" add constraint "plans_trial_days_check" check (trial_days >= 0);`);
    this.addSql(`alter table "plans" add constraint "plans_base_price_monthly_check" check (base_price_monthly >= 0);`);
    this.addSql(`alter table "plans" add constraint "plans_included_users_check" check (included_users >= 0);`);
    this.addSql(`alter table "plans" add constraint "plans_extra_user_price_monthly_check" check (extra_user_price_monthly >= 0);`);
    this.addSql(`alter table "plans" add constraint "plans_storage_limit_gb_check" check (storage_limit_gb >= 0);`);
    this.addSql(`alter table "plans" add constraint "plans_storage_overage_price_check" check (storage_overage_price >= 0);`);
    this.addSql(`alter table "plans" add constraint "plans_max_users_check" check (max_users >= 1);`);
    this.addSql(`alter table "plans" add constraint "plans_max_instances_check" check (max_instances >= 0);`);
    this.addSql(`alter table "plans" add constraint "plans_max_workers_check" check (max_workers >= 0);`);
    this.addSql(`alter table "plans" add constraint "plans_annual_discount_bps_check" check (annual_discount_bps >= 0 AND annual_discount_bps <= 10000);`);

    this.addSql(`alter table "subscriptions" add constraint "subscriptions_amount_check" check (amount >= 0);`);
    this.addSql(`alter table "subscriptions" add constraint "subscriptions_amount_due_check" check (amount_due >= 0);`);

    this.addSql(`alter table "payments" add constraint "payments_amount_check" check (amount >= 0);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "payments" drop constraint "payments_amount_check";`);

    this.addSql(`alter table "plans" drop constraint "plans_trial_days_check";`);
    this.addSql(`alter table "plans" drop constraint "plans_base_price_monthly_check";`);
    this.addSql(`alter table "plans" drop constraint "plans_included_users_check";`);
    this.addSql(`alter table "plans" drop constraint "plans_extra_user_price_monthly_check";`);
    this.addSql(`alter table "plans" drop constraint "plans_storage_limit_gb_check";`);
    this.addSql(`alter table "plans" drop constraint "plans_storage_overage_price_check";`);
    this.addSql(`alter table "plans" drop constraint "plans_max_users_check";`);
    this.addSql(`alter table "plans" drop constraint "plans_max_instances_check";`);
    this.addSql(`alter table "plans" drop constraint "plans_max_workers_check";`);
    this.addSql(`alter table "plans" drop constraint "plans_annual_discount_bps_check";`);

    this.addSql(`alter table "subscriptions" drop constraint "subscriptions_amount_check";`);
    this.addSql(`alter table "subscriptions" drop constraint "subscriptions_amount_due_check";`);
  }

}
