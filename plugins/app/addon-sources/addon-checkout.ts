/**
 * A source's files in the tenant's addons folder, switched atomically.
 *
 * The ERP loads modules from the direct children of its addons path and
 * follows symbolic links, so a source is laid out as:
 *   .source-<id>-<commit>-<nonce>/   the checkout (hidden: never loaded itself)
 *   .source-<id>  -> .source-<id>-<commit>-<nonce>     the current checkout
 *   <module>      -> .source-<id>/<subpath>/<module>   one link per module
 * A sync writes a new hidden checkout, then renames a new `.source-<id>` link
 * over the old one: one atomic rename switches every module of the source at
 * once, so a module folder the ERP sees is the old one or the new one, never a
 * half-written tree. Links are relative, so they resolve the same inside the
 * instances, wherever the folder is mounted.
 */
import { randomBytes } from 'node:crypto'
import { lstat, mkdir, readdir, readFile, readlink, rename, rm, symlink, unlink } from 'node:fs/promises'
import { join } from 'node:path'

export const MODULE_NAME = /^[A-Za-z0-9_]{1,64}$/

const currentLink = (sourceId: number) => `.source-${sourceId}`
const checkoutPrefix = (sourceId: number) => `.source-${sourceId}-`

/** A new, empty, hidden folder for the next checkout of the source. */
export async function stagingFolder (addonsDir: string, sourceId: number, commit: string): Promise<string> {
  await mkdir(addonsDir, { recursive: true })
  const dir = join(addonsDir, `${checkoutPrefix(sourceId)}${commit.slice(0, 12)}-${randomBytes(4).toString('hex')}`)
  await mkdir(dir)
  return dir
}

export interface FoundModule {
  technicalName: string
  /** From the manifest's `name`, else the technical name. */
  name: string
  description: string
  /** The ERP series the manifest's `version` names (`17.0.1.0.0` → `17.0`); null when it names none (`1.0`). */
  erpSeries: string | null
}

/** The module folders (with a __manifest__.py) directly inside `root`. */
export async function findModules (root: string): Promise<FoundModule[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => [])
  const found: FoundModule[] = []
  for (const entry of entries) {
    if (!entry.isDirectory() || !MODULE_NAME.test(entry.name)) continue
    const manifest = await readFile(join(root, entry.name, '__manifest__.py'), 'utf8').catch(() => undefined)
    if (manifest === undefined) continue
    const module = manifestModule(entry.name, manifest)
    if (module !== undefined) found.push(module)
  }
  return found.sort((a, b) => a.technicalName.localeCompare(b.technicalName))
}

/** A module from its folder's name and its manifest's text; undefined for a name the ERP would not load. */
export function manifestModule (technicalName: string, manifest: string): FoundModule | undefined {
  if (!MODULE_NAME.test(technicalName)) return undefined
  return {
    technicalName,
    name: manifestString(manifest, 'name') ?? technicalName,
    description: manifestString(manifest, 'summary') ?? '',
    erpSeries: erpSeriesOf(manifestString(manifest, 'version'))
  }
}

/**
 * Odoo's manifest convention: a five-part version starts with the series it is written for
 * (`17.0.1.0.0`); a shorter one (`1.0`) names none, and the module is taken as fitting any.
 */
export function erpSeriesOf (version: string | undefined): string | null {
  return /^(\d{1,3}\.\d{1,3})\.\d+\.\d+\.\d+$/.exec(version ?? '')?.[1] ?? null
}

/** A plain string value of the manifest's dict (never evaluated). */
function manifestString (manifest: string, key: string): string | undefined {
  const match = new RegExp(`['"]${key}['"]\\s*:\\s*(['"])((?:(?!\\1)[^\\\\\\n]|\\\\.){1,300})\\1`).exec(manifest)
  return match?.[2]?.trim().slice(0, 300) || undefined
}

async function linkTarget (path: string): Promise<string | undefined> {
  return await readlink(path).catch(() => undefined)
}

async function replaceLink (addonsDir: string, name: string, target: string): Promise<void> {
  const temporary = join(addonsDir, `.link-${randomBytes(6).toString('hex')}`)
  await symlink(target, temporary)
  await rename(temporary, join(addonsDir, name))
}

export interface SwitchResult {
  linked: string[]
  /** Modules another source or a folder of the tenant already provides. */
  skipped: string[]
}

/**
 * Makes `checkout` the source's current tree and links its modules (those in
 * `moduleNames`, found under `subpath`), then removes links of modules that are
 * gone and older checkouts.
 */
export async function switchTo (addonsDir: string, sourceId: number, checkout: string, subpath: string | null, moduleNames: string[]): Promise<SwitchResult> {
  const current = currentLink(sourceId)
  const prefix = `${current}/${subpath === null ? '' : `${subpath}/`}`
  await replaceLink(addonsDir, current, checkout.slice(addonsDir.length + 1))
  const linked: string[] = []
  const skipped: string[] = []
  for (const name of moduleNames) {
    const path = join(addonsDir, name)
    const target = await linkTarget(path)
    const exists = target !== undefined || await lstat(path).then(() => true, () => false)
    const ours = target?.startsWith(`${current}/`) === true
    if (exists && !ours) {
      skipped.push(name)
      continue
    }
    if (target !== `${prefix}${name}`) await replaceLink(addonsDir, name, `${prefix}${name}`)
    linked.push(name)
  }
  await removeStale(addonsDir, sourceId, new Set(linked), checkout)
  return { linked, skipped }
}

/** Links into the source's tree that are not in `keep`, and checkouts other than `keepCheckout`. */
async function removeStale (addonsDir: string, sourceId: number, keep: Set<string>, keepCheckout: string | undefined): Promise<void> {
  const current = currentLink(sourceId)
  for (const entry of await readdir(addonsDir, { withFileTypes: true })) {
    const path = join(addonsDir, entry.name)
    if (entry.isSymbolicLink()) {
      const target = await linkTarget(path)
      if (target !== undefined && target.startsWith(`${current}/`) && !keep.has(entry.name)) await unlink(path).catch(() => {})
    } else if (entry.isDirectory() && entry.name.startsWith(checkoutPrefix(sourceId)) && path !== keepCheckout) {
      await rm(path, { recursive: true, force: true })
    }
  }
}

/** Removes everything of the source: its module links, its current link and its checkouts. */
export async function removeSource (addonsDir: string, sourceId: number): Promise<void> {
  if (!await lstat(addonsDir).then(() => true, () => false)) return
  await removeStale(addonsDir, sourceId, new Set(), undefined)
  await unlink(join(addonsDir, currentLink(sourceId))).catch(() => {})
}

/** Drops a staging folder a failed sync left. */
export async function discard (dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true })
}
