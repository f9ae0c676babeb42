import { Migration } from '@mikro-orm/migrations';

export class Migration20261126022520_module_edition extends Migration {

  override name = 'Migration20261126022520_module_edition';

  override up(): void | Promise<void> {
    this.addSql(`alter table "erp_modules" add "edition" varchar(16) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "erp_modules" drop column "edition";`);
  }

}
