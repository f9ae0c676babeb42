import { Migration } from '@mikro-orm/migrations';

export class Migration20261122015843_instance_lifecycle extends Migration {

  override name = 'Migration20261122015843_instance_lifecycle';

  override up(): void | Promise<void> {
    this.addSql(`alter table "instances" add "status" text null, add "image" varchar(200) not null, add "memory_mb" int not null, add "cpu_millicores" int not null, add "storage_gb" int not null, add "workers" int not null default 0, add "last_sync_at" timestamptz null, add "last_backup_at" timestamptz null;`);
    this.addSql(`alter table "instances" add constraint "instances_memory_mb_check" check (memory_mb > 0);`);
    this.addSql(`alter table "instances" add constraint "instances_cpu_millicores_check" check (cpu_millicores > 0);`);
    this.addSql(`alter table "instances" add constraint "instances_storage_gb_check" check (storage_gb > 0);`);
    this.addSql(`alter table "instances" add constraint "instances_workers_check" check (workers >= 0);`);
    this.addSql(`alter table "instances" add constraint "instances_status_check" check ("status" in ('provisioning', 'running', 'starting', 'stopping', 'stopped', 'restarting', 'error', 'deleting', 'deleted'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "instances" drop constraint "instances_memory_mb_check";`);
    this.addSql(`alter table "instances" drop constraint "instances_cpu_millicores_check";`);
    this.addSql(`alter table "instances" drop constraint "instances_storage_gb_check";`);
    this.addSql(`alter table "instances" drop constraint "instances_workers_check";`);
    this.addSql(`alter table "instances" drop constraint "instances_status_check";`);
    this.addSql(`alter table "instances" drop column "status", drop column "image", drop column "memory_mb", drop column "cpu_millicores", drop column "storage_gb", drop column "workers", drop column "last_sync_at", drop column "last_backup_at";`);
  }

}
