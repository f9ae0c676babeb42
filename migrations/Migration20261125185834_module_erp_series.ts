import { Migration } from '@mikro-orm/migrations';

export class Migration20261125185834_module_erp_series extends Migration {

  override name = 'Migration20261125185834_module_erp_series';

  override up(): void | Promise<void> {
    this.addSql(`alter table "erp_modules" add "erp_series" varchar(16) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "erp_modules" drop column "erp_series";`);
  }

}
