/**
 * ERP_UPGRADE_COMMANDS (docs/upgrades.md): per target ERP version, the image and the command line
 * that upgrade a database of the version before it. The command runs like the ERP's neutralization,
 * in a one-off container (Docker) or Job (Kubernetes) with the instance's database connection in
 * the image's HOST/PORT/USER/PASSWORD environment (the official image's entrypoint turns them into
 * `--db_host` …), its data volume and its server configuration. Placeholders in the command:
 * `{database}`, `{from_version}`, `{target_version}`; in the image: `{version}` (the target).
 */
import { imageFor } from '../../../provisioning/image-template.ts'

export interface UpgradeCommand {
  image: string
  command: string[]
}

export type UpgradeCommands = ReadonlyMap<string, UpgradeCommand>

const VERSION = /^\d+\.\d+$/
const PLACEHOLDERS = ['{database}', '{from_version}', '{target_version}']

/** The commands of the setting, or the reason it is not valid. Unset: none (no upgrade is offered). */
export function parseUpgradeCommands (raw: string | undefined): { commands: UpgradeCommands } | { problem: string } {
  if (raw === undefined || raw.trim() === '') return { commands: new Map() }
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    return { problem: 'not JSON' }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { problem: 'a JSON object keyed by target ERP version' }
  const commands = new Map<string, UpgradeCommand>()
  for (const [version, entry] of Object.entries(parsed)) {
    if (!VERSION.test(version)) return { problem: `${JSON.stringify(version)} is not an ERP version like 17.0` }
    const { image, command } = (entry ?? {}) as { image?: unknown, command?: unknown }
    if (typeof image !== 'string' || image.trim() === '') return { problem: `${version}: "image" must be an image reference` }
    try {
      imageFor(image, version)
    } catch {
      return { problem: `${version}: "image" cannot be made for that version` }
    }
    if (!Array.isArray(command) || command.length === 0 || !command.every((arg) => typeof arg === 'string' && arg !== '')) {
      return { problem: `${version}: "command" must be a non-empty array of strings` }
    }
    const unknown = command.flatMap((arg: string) => arg.match(/\{[^}]*\}/g) ?? []).find((p) => !PLACEHOLDERS.includes(p))
    if (unknown !== undefined) return { problem: `${version}: ${unknown} is not a placeholder (${PLACEHOLDERS.join(', ')})` }
    commands.set(version, { image, command: command as string[] })
  }
  return { commands }
}

/** The command line and image for one upgrade of `database` from `from` to `target`. */
export function upgradeRun (entry: UpgradeCommand, values: { database: string, from: string, target: string }): { image: string, command: string[] } {
  return {
    image: imageFor(entry.image, values.target),
    command: entry.command.map((arg) => arg.replaceAll('{database}', values.database).replaceAll('{from_version}', values.from).replaceAll('{target_version}', values.target))
  }
}

/** The major of an ERP version (`17.0` → 17). */
export const majorOf = (version: string): number => Number(version.split('.')[0])
