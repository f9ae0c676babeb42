/**
 * What a registration or update may say. Everything here ends up as an
 * argument of git or a path in the tenant's storage, so the rules are strict:
 * refusals are 400 ADDON_SOURCE_INVALID naming the field.
 */
import { checkOutboundUrl, OutboundUrlError } from '../../../lib/outbound-url.ts'
import type { CredentialKind } from './addon-source.entity.ts'
import { AddonSourceInvalid } from './addon-sources.errors.ts'

export interface SourceFields {
  name?: string
  repository_url?: string
  branch?: string
  subpath?: string | null
  /** An access token for an https repository. */
  token?: string
  /** An OpenSSH private key for an ssh repository. */
  deploy_key?: string
  /** The ssh server's public key to require (`<type> <base64>`); null forgets the pinned one. */
  ssh_host_key?: string | null
}

const invalid = (field: string, message: string) => AddonSourceInvalid(message, { field })

/** A branch name git accepts and that cannot be read as an option or a path escape. */
export function checkBranch (branch: string): string {
  if (branch.startsWith('-')) throw invalid('branch', 'A branch name must not start with "-"')
  if (branch.startsWith('/') || branch.endsWith('/') || branch.includes('//')) throw invalid('branch', 'A branch name must not start or end with "/" nor contain "//"')
  if (branch.includes('..') || branch.includes('@{') || branch === '@') throw invalid('branch', 'A branch name must not contain ".." or "@{"')
  if (!/^[A-Za-z0-9._/+-]{1,200}$/.test(branch)) throw invalid('branch', 'A branch name uses letters, digits and . _ / + - only')
  if (branch.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'))) throw invalid('branch', 'No part of a branch name may start with "." or end with ".lock"')
  if (branch.endsWith('.')) throw invalid('branch', 'A branch name must not end with "."')
  return branch
}

/** A relative folder inside the repository; empty means its root. */
export function checkSubpath (subpath: string | null | undefined): string | null {
  if (subpath == null) return null
  const trimmed = subpath.replace(/\/+$/, '')
  if (trimmed === '' || trimmed === '.') return null
  if (trimmed.startsWith('/')) throw invalid('subpath', 'The subpath must be relative to the repository\'s root')
  if (trimmed.startsWith('-')) throw invalid('subpath', 'The subpath must not start with "-"')
  const parts = trimmed.split('/')
  if (parts.some((part) => part === '..' || part === '.' || part === '')) throw invalid('subpath', 'The subpath must not contain "..", "." or empty parts')
  if (!parts.every((part) => /^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$/.test(part)) || trimmed.length > 500) {
    throw invalid('subpath', 'Each part of the subpath uses letters, digits and . _ - (not first)')
  }
  return trimmed
}

export function checkRepositoryUrl (raw: string, credential: CredentialKind | null): URL {
  let url: URL
  try {
    url = checkOutboundUrl(raw.trim(), ['https:', 'ssh:'])
  } catch (error) {
    if (error instanceof OutboundUrlError) throw invalid('repository_url', `The repository URL is not acceptable: ${error.message}`)
    throw error
  }
  if (url.protocol === 'ssh:' && credential !== 'deploy_key') throw invalid('repository_url', 'An ssh:// repository needs a deploy key (`deploy_key`)')
  if (url.protocol === 'https:' && credential === 'deploy_key') throw invalid('deploy_key', 'A deploy key is for ssh:// repositories; give an https repository a `token`')
  if (url.hash !== '' || url.search !== '') throw invalid('repository_url', 'The repository URL must not have a query or fragment')
  if (url.pathname === '/' || url.pathname === '') throw invalid('repository_url', 'The repository URL must name a repository (a path)')
  return url
}

export function checkCredential (fields: SourceFields): { kind: CredentialKind, secret: string } | null {
  if (fields.token !== undefined && fields.deploy_key !== undefined) throw invalid('token', 'Give either a token or a deploy key, not both')
  if (fields.token !== undefined) {
    if (!/^[\x21-\x7e]{1,1000}$/.test(fields.token)) throw invalid('token', 'The token must be printable characters without spaces')
    return { kind: 'token', secret: fields.token }
  }
  if (fields.deploy_key !== undefined) {
    if (!/^-----BEGIN OPENSSH PRIVATE KEY-----\r?\n[A-Za-z0-9+/=\r\n]+-----END OPENSSH PRIVATE KEY-----\s*$/.test(fields.deploy_key)) {
      throw invalid('deploy_key', 'The deploy key must be an OpenSSH private key (-----BEGIN OPENSSH PRIVATE KEY-----) without a passphrase')
    }
    return { kind: 'deploy_key', secret: fields.deploy_key }
  }
  return null
}

const HOST_KEY = /^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(?:256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com) ([A-Za-z0-9+/]{40,1900}={0,2})$/

/**
 * An ssh server's public key as known_hosts and `ssh-keyscan` write it: `<type> <base64>`, a
 * leading host field and a trailing comment being dropped. Only for ssh:// repositories.
 */
export function checkHostKey (raw: string | null | undefined, url: URL): string | null | undefined {
  if (raw == null) return raw
  if (url.protocol !== 'ssh:') throw invalid('ssh_host_key', 'A host key is for ssh:// repositories only')
  const words = raw.trim().split(/\s+/)
  const key = [0, 1].map((start) => words.slice(start, start + 2).join(' ')).find((pair) => HOST_KEY.test(pair))
  if (key === undefined) throw invalid('ssh_host_key', 'The host key must be an OpenSSH public key line: `ssh-ed25519 AAAA…` (as in known_hosts or from ssh-keyscan)')
  return key
}

/** The repository's last path segment without `.git`: a default name. */
export function defaultName (url: URL): string {
  const last = url.pathname.split('/').filter(Boolean).pop() ?? url.hostname
  return last.replace(/\.git$/, '').slice(0, 120) || url.hostname
}
