import type { ToolDefinition } from './tool.ts'
import { accountTools } from './account.ts'
import { addonSourceTools } from './addon-sources.ts'
import { backupTools } from './backups.ts'
import { instanceUserTools } from './instance-users.ts'
import { instanceModuleTools } from './instance-modules.ts'
import { catalogTools } from './catalog.ts'
import { instanceTools } from './instances.ts'
import { logTools } from './logs.ts'
import { metricsTools } from './metrics.ts'
import { stagingTools } from './staging.ts'
import { supportTools } from './support.ts'
import { teamTools } from './team.ts'
import { upgradeTools } from './upgrades.ts'

/** Every tool /api/mcp offers, grouped as the portal is. A new capability adds its file here. */
export const ALL_TOOLS: ToolDefinition[] = [...accountTools, ...instanceTools, ...logTools, ...metricsTools, ...backupTools, ...stagingTools, ...upgradeTools, ...instanceUserTools, ...instanceModuleTools, ...catalogTools, ...addonSourceTools, ...supportTools, ...teamTools]
