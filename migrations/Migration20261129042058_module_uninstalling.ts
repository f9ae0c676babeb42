import { Migration } from '@mikro-orm/migrations';

export class Migration20261129042058_module_uninstalling extends Migration {

  override name = 'Migration20261129042058_module_uninstalling';

  override up(): void | Promise<void> {
    this.addSql(`alter table "instance_modules" drop constraint "instance_modules_state_check";`);
    this.addSql(`alter table "instance_modules" add constraint "instance_modules_state_check" check ("state" in ('queued', 'installing', 'installed', 'failed', 'uninstalling', 'uninstalled'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "instance_modules" drop constraint "instance_modules_state_check";`);
    this.addSql(`alter table "instance_modules" add constraint "instance_modules_state_check" check ("state" in ('queued', 'installing', 'installed', 'failed', 'uninstalled'));`);
  }

}
