import { Migration } from '@mikro-orm/migrations';

export class Migration20261125201558_addon_source_ssh_host_key extends Migration {

  override name = 'Migration20261125201558_addon_source_ssh_host_key';

  override up(): void | Promise<void> {
    this.addSql(`alter table "addon_sources" add "ssh_host_key" varchar(2000) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "addon_sources" drop column "ssh_host_key";`);
  }

}
