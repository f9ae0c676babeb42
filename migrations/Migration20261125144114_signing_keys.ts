import { Migration } from '@mikro-orm/migrations';

export class Migration20261125144114_signing_keys extends Migration {

  override name = 'Migration20261125144114_signing_keys';

  override up(): void | Promise<void> {
    this.addSql(`create table "oidc_signing_keys" ("name" varchar(40) not null, "sealed" text not null, "updated_at" timestamptz not null, primary key ("name"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "oidc_signing_keys" cascade;`);
  }

}
