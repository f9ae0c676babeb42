import { Migration } from '@mikro-orm/migrations';

/**
 * Instances get an integer id (`bigint generated always as identity`); the old
 * uuid stays on every row as `uid`, so the database, login role, password and
 * backend labels derived from it do not change for existing instances.
 * Existing rows are numbered in creation order, and every reference to an
 * instance is rewritten from its uuid to its new integer: invitations.instance_id
 * (foreign key), activities.instance_id, activities.target_id of instance
 * targets, and the instance id in queued instance jobs.
 */
export class Migration20261125114431_integer_instance_ids extends Migration {

  override name = 'Migration20261125114431_integer_instance_ids';

  override up(): void | Promise<void> {
    // The uuid becomes `uid`; the integer is filled in creation order, then handed to an identity.
    this.addSql(`alter table "invitations" drop constraint "invitations_instance_id_foreign";`);
    this.addSql(`alter table "instances" rename column "id" to "uid";`);
    this.addSql(`alter table "instances" alter column "uid" set default gen_random_uuid();`);
    this.addSql(`alter table "instances" add column "id" bigint null;`);
    this.addSql(`update "instances" as i set "id" = n.rn from (select "uid", row_number() over (order by "created_at", "uid") as rn from "instances") as n where n."uid" = i."uid";`);
    this.addSql(`alter table "instances" alter column "id" set not null;`);
    this.addSql(`alter table "instances" alter column "id" add generated always as identity;`);
    this.addSql(`select setval(pg_get_serial_sequence('"instances"', 'id'), coalesce(max("id"), 0) + 1, false) from "instances";`);

    // References: uuid -> integer. An activity naming an instance that no longer exists keeps no instance.
    this.addSql(`alter table "invitations" rename column "instance_id" to "instance_uid";`);
    this.addSql(`alter table "invitations" add column "instance_id" bigint null;`);
    this.addSql(`update "invitations" as v set "instance_id" = i."id" from "instances" as i where i."uid" = v."instance_uid";`);
    this.addSql(`alter table "invitations" drop column "instance_uid";`);

    this.addSql(`drop index "activities_tenant_id_instance_id_id_index";`);
    this.addSql(`alter table "activities" rename column "instance_id" to "instance_uid";`);
    this.addSql(`alter table "activities" add column "instance_id" bigint null;`);
    this.addSql(`update "activities" as a set "instance_id" = i."id" from "instances" as i where i."uid" = a."instance_uid";`);
    this.addSql(`alter table "activities" drop column "instance_uid";`);
    this.addSql(`create index "activities_tenant_id_instance_id_id_index" on "activities" ("tenant_id", "instance_id", "id");`);
    this.addSql(`update "activities" as a set "target_id" = i."id"::text from "instances" as i where a."target_type" = 'instance' and a."target_id" = i."uid"::text;`);

    // The primary key moves to the integer; the uuid stays unique.
    this.addSql(`alter table "instances" drop constraint "instances_pkey";`);
    this.addSql(`alter table "instances" add constraint "instances_pkey" primary key ("id");`);
    this.addSql(`alter table "instances" add constraint "instances_uid_unique" unique ("uid");`);
    this.addSql(`alter table "invitations" add constraint "invitations_instance_id_foreign" foreign key ("instance_id") references "instances" ("id") on delete set null;`);

    // Instance jobs still queued carry the uuid; pg-boss's schema exists once the app has started.
    this.addSql(`do $$ begin
  if to_regclass('pgboss.job') is not null then
    update pgboss.job as j set data = jsonb_set(j.data, '{instanceId}', to_jsonb(i."id"))
    from "instances" as i
    where j.name = 'instance-actions' and j.data ->> 'instanceId' = i."uid"::text;
  end if;
end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`do $$ begin
  if to_regclass('pgboss.job') is not null then
    update pgboss.job as j set data = jsonb_set(j.data, '{instanceId}', to_jsonb(i."uid"::text))
    from "instances" as i
    where j.name = 'instance-actions' and j.data ->> 'instanceId' = i."id"::text;
  end if;
end $$;`);
    this.addSql(`alter table "invitations" drop constraint "invitations_instance_id_foreign";`);
    this.addSql(`alter table "instances" drop constraint "instances_uid_unique";`);
    this.addSql(`alter table "instances" drop constraint "instances_pkey";`);

    this.addSql(`update "activities" as a set "target_id" = i."uid"::text from "instances" as i where a."target_type" = 'instance' and a."target_id" = i."id"::text;`);
    this.addSql(`drop index "activities_tenant_id_instance_id_id_index";`);
    this.addSql(`alter table "activities" rename column "instance_id" to "instance_ref";`);
    this.addSql(`alter table "activities" add column "instance_id" uuid null;`);
    this.addSql(`update "activities" as a set "instance_id" = i."uid" from "instances" as i where i."id" = a."instance_ref";`);
    this.addSql(`alter table "activities" drop column "instance_ref";`);
    this.addSql(`create index "activities_tenant_id_instance_id_id_index" on "activities" ("tenant_id", "instance_id", "id");`);

    this.addSql(`alter table "invitations" rename column "instance_id" to "instance_ref";`);
    this.addSql(`alter table "invitations" add column "instance_id" uuid null;`);
    this.addSql(`update "invitations" as v set "instance_id" = i."uid" from "instances" as i where i."id" = v."instance_ref";`);
    this.addSql(`alter table "invitations" drop column "instance_ref";`);

    this.addSql(`alter table "instances" drop column "id";`);
    this.addSql(`alter table "instances" rename column "uid" to "id";`);
    this.addSql(`alter table "instances" alter column "id" drop default;`);
    this.addSql(`alter table "instances" add constraint "instances_pkey" primary key ("id");`);
    this.addSql(`alter table "invitations" add constraint "invitations_instance_id_foreign" foreign key ("instance_id") references "instances" ("id") on delete set null;`);
  }

}
