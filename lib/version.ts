import { readFileSync } from 'node:fs'

/** The product version from package.json, found from here both in the sources and in dist/. */
function readVersion (): string {
  for (const relative of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: string, version?: string }
      if (pkg.name === 'erp-portal' && typeof pkg.version === 'string') return pkg.version
    } catch {}
  }
  return 'unknown'
}

export const PRODUCT_VERSION = readVersion()
