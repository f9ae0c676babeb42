/**
 * `npm run check:deps`: the production code's imports against package.json.
 *
 * - Every package a production file imports at run time (what Node loads, type-only imports
 *   erased) is in `dependencies`, so `npm ci --omit=dev` installs it. Production files are the
 *   .ts files outside the top-level test/ and bench/ (what `npm run build` ships, and tools/).
 * - A type-only import names a package in `dependencies` or `devDependencies`.
 * - Every entry of `dependencies` is imported somewhere, or listed in NOT_IMPORTED with why.
 * - `engines.node` is at least what every production dependency's own `engines.node` asks
 *   (read from node_modules/<name>/package.json for each package the lockfile installs with
 *   --omit=dev).
 * Exit 1 with one line per problem.
 */
import { readdir, readFile } from 'node:fs/promises'
import { isBuiltin, stripTypeScriptTypes } from 'node:module'
import { join, relative, resolve, sep } from 'node:path'
import semver from 'semver'

/**
 * Top-level folders whose files never run from a production install. Only at the root: a folder of
 * the same name deeper down (mcp/tools/) is production code. tools/ is checked too: its scripts
 * (check:prod, check:image) run from an install without devDependencies.
 */
const NOT_SHIPPED = new Set(['node_modules', 'dist', 'data', 'test', 'bench'])

/** Dependencies that are needed at run time without an import of their own, and why. */
export const NOT_IMPORTED: Record<string, string> = {}

export interface PackageJson {
  engines?: { node?: string }
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
}

interface Lockfile { packages: Record<string, { dev?: boolean, optional?: boolean, engines?: { node?: string } }> }

export interface DependencyReport {
  problems: string[]
  /** Production file -> packages it loads at run time. */
  runtimeImports: Map<string, Set<string>>
}

/** `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`; undefined for relative paths and Node built-ins. */
export function packageOf (specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('#') || isBuiltin(specifier)) return undefined
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

const SPECIFIERS = [
  /^\s*(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/gm, // import x from 'p', export { x } from 'p'
  /^\s*import\s*['"]([^'"]+)['"]/gm, // import 'p'
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g // import() of a string literal
]

/** The module specifiers a piece of JavaScript (or TypeScript) source names. */
export function specifiersIn (source: string): string[] {
  const found: string[] = []
  for (const pattern of SPECIFIERS) for (const match of source.matchAll(pattern)) if (match[1] !== undefined) found.push(match[1])
  return found
}

async function productionFiles (root: string, dir = root): Promise<string[]> {
  const files: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      const shipped = !(dir === root && NOT_SHIPPED.has(entry.name)) && !entry.name.startsWith('.')
      if (shipped) files.push(...await productionFiles(root, join(dir, entry.name)))
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      files.push(join(dir, entry.name))
    }
  }
  return files
}

export async function checkDependencies (root: string): Promise<DependencyReport> {
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as PackageJson
  const dependencies = new Set(Object.keys(pkg.dependencies ?? {}))
  const devDependencies = new Set(Object.keys(pkg.devDependencies ?? {}))
  const problems: string[] = []
  const runtimeImports = new Map<string, Set<string>>()
  const used = new Set<string>()

  for (const file of (await productionFiles(root)).sort()) {
    const name = relative(root, file).split(sep).join('/')
    const source = await readFile(file, 'utf8')
    // Exactly what Node runs: `import type` gone, `import { type X } from 'p'` still loads p.
    const runtime = new Set(specifiersIn(stripTypeScriptTypes(source)).map(packageOf).filter((p) => p !== undefined))
    runtimeImports.set(name, runtime)
    for (const dependency of runtime) {
      used.add(dependency)
      if (!dependencies.has(dependency)) {
        problems.push(`${name} imports ${dependency} at run time, which is ${devDependencies.has(dependency) ? 'only a devDependency' : 'not in package.json'}: move it to dependencies`)
      }
    }
    for (const dependency of new Set(specifiersIn(source).map(packageOf).filter((p) => p !== undefined))) {
      if (runtime.has(dependency)) continue
      used.add(dependency)
      if (!dependencies.has(dependency) && !devDependencies.has(dependency)) problems.push(`${name} imports types from ${dependency}, which is not in package.json`)
    }
  }

  for (const dependency of [...dependencies].sort()) {
    if (!used.has(dependency) && NOT_IMPORTED[dependency] === undefined) {
      problems.push(`${dependency} is in dependencies but no production file imports it: remove it (or move it to devDependencies)`)
    }
  }

  problems.push(...await engineProblems(root, pkg))
  return { problems, runtimeImports }
}

/** Our `engines.node` must not promise a Node older than some production dependency accepts. */
async function engineProblems (root: string, pkg: PackageJson): Promise<string[]> {
  const ours = pkg.engines?.node
  const lowest = ours === undefined ? null : semver.minVersion(ours)
  if (lowest === null) return ['package.json has no usable engines.node']
  const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8')) as Lockfile
  const problems: string[] = []
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev === true) continue
    let range = entry.engines?.node
    try {
      const installed = JSON.parse(await readFile(join(root, path, 'package.json'), 'utf8')) as PackageJson
      range = installed.engines?.node ?? range
    } catch {
      if (entry.optional === true) continue // a binary for another platform
    }
    if (range !== undefined && !semver.satisfies(lowest, range)) {
      problems.push(`engines.node is "${ours}" but ${path.replace(/^.*node_modules\//, '')} (${path}) needs node "${range}"`)
    }
  }
  return problems
}

if (import.meta.filename === resolve(process.argv[1] ?? '')) {
  const { problems } = await checkDependencies(resolve(import.meta.dirname, '..'))
  for (const problem of problems) console.error(problem)
  if (problems.length > 0) process.exit(1)
  console.log('Dependencies: every production import is a dependency, every dependency is imported, engines.node covers them all.')
}
