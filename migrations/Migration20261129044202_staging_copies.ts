import { Migration } from '@mikro-orm/migrations';

export class Migration20261129044202_staging_copies extends Migration {

  override name = 'Migration20261129044202_staging_copies';

  override up(): void | Promise<void> {
    this.addSql(`alter table "plans" add "staging_counts_in_limit" boolean not null default true;`);

    this.addSql(`alter table "instances" add "kind" text not null default 'production', add "parent_id" bigint null, add "expires_at" timestamptz null, add "expiry_warned_at" timestamptz null, add "neutralized_at" timestamptz null;`);
    this.addSql(`alter table "instances" add constraint "instances_parent_id_foreign" foreign key ("parent_id") references "instances" ("id") on delete set null;`);
    this.addSql(`create index "instances_parent_id_index" on "instances" ("parent_id");`);
    this.addSql(`alter table "instances" add constraint "instances_kind_check" check ("kind" in ('production', 'staging'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "instances" drop constraint "instances_parent_id_foreign";`);

    this.addSql(`drop index "instances_parent_id_index";`);
    this.addSql(`alter table "instances" drop constraint "instances_kind_check";`);
    this.addSql(`alter table "instances" drop column "kind", drop column "parent_id", drop column "expires_at", drop column "expiry_warned_at", drop column "neutralized_at";`);

    this.addSql(`alter table "plans" drop column "staging_counts_in_limit";`);
  }

}
