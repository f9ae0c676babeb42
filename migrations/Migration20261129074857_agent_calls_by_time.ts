import { Migration } from '@mikro-orm/migrations';

export class Migration20261129074857_agent_calls_by_time extends Migration {

  override name = 'Migration20261129074857_agent_calls_by_time';

  override up(): void | Promise<void> {
    this.addSql(`drop index "agent_tool_calls_grant_id_id_index";`);
    this.addSql(`create index "agent_tool_calls_grant_id_created_at_id_index" on "agent_tool_calls" ("grant_id", "created_at", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "agent_tool_calls_grant_id_created_at_id_index";`);
    this.addSql(`create index "agent_tool_calls_grant_id_id_index" on "agent_tool_calls" ("grant_id", "id");`);
  }

}
