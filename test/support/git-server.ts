/**
 * A real Git server for tests: `git http-backend` (the CGI program that
 * serves Git's smart HTTP protocol) behind a local HTTPS server with a
 * self-signed certificate, which git trusts through GIT_SSL_CAINFO (set in this
 * process's environment, as an operator would). Repositories are made by the
 * test: `repo.commit({...files})` writes, commits and pushes.
 */
import { execFile, spawn } from 'node:child_process'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { tempDir } from '../auth-server/helpers.ts'
import { startHttpsServer, type TestHttpsServer } from './https-server.ts'

interface Teardown { teardown: (fn: () => unknown) => void }

const run = promisify(execFile)
const GIT_ENV = { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.com', GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent' }

export interface TestRepo {
  /** https://localhost:<port>/<name>.git */
  url: string
  /** Replaces the whole tree with `files` (path -> content; null deletes), commits on `branch` and pushes; answers the commit id. */
  commit: (files: Record<string, string | Buffer | null>, branch?: string) => Promise<string>
}

export interface GitServer {
  https: TestHttpsServer
  repo: (name: string, options?: { token?: string }) => Promise<TestRepo>
  /** Runs before each upload-pack POST is answered (a fetch in progress): tests pause a sync here. */
  beforeUploadPack?: () => Promise<void>
  /** Requests seen, as `METHOD path`. */
  requests: string[]
}

/** A bare repository at `bare`, and its `commit` (through a working copy at `work`). */
export async function bareRepo (bare: string, work: string): Promise<TestRepo['commit']> {
  await run('git', ['init', '--quiet', '--bare', '--initial-branch=main', bare])
  await mkdir(work, { recursive: true })
  await run('git', ['init', '--quiet', '--initial-branch=main', work], { env: { ...process.env, ...GIT_ENV } })
  return async (files, branch = 'main') => {
    const git = async (...args: string[]) => (await run('git', ['-C', work, ...args], { env: { ...process.env, ...GIT_ENV } })).stdout.trim()
    await git('checkout', '--quiet', '-B', branch)
    for (const [path, content] of Object.entries(files)) {
      const file = join(work, path)
      if (content === null) {
        await rm(file, { recursive: true, force: true })
      } else {
        await mkdir(dirname(file), { recursive: true })
        await writeFile(file, content)
      }
    }
    await git('add', '-A')
    await git('commit', '--quiet', '--allow-empty', '-m', `change ${Date.now()}`)
    await git('push', '--quiet', '--force', bare, `${branch}:${branch}`)
    return await git('rev-parse', 'HEAD')
  }
}

/** `listenHost` '::1' serves over IPv6 loopback only. */
export async function startGitServer (t: Teardown, options: { listenHost?: string } = {}): Promise<GitServer> {
  const root = await tempDir(t)
  const projects = join(root, 'srv')
  await mkdir(projects)
  const tokens = new Map<string, string>()
  const server: GitServer = {
    https: undefined as unknown as TestHttpsServer,
    requests: [],
    repo: async (name, options = {}) => {
      if (options.token !== undefined) tokens.set(`/${name}.git`, options.token)
      const commit = await bareRepo(join(projects, `${name}.git`), join(root, 'work', name))
      return { url: `${server.https.origin}/${name}.git`, commit }
    }
  }
  server.https = await startHttpsServer(t, { ...options, handler: (req, res) => { void serve(req, res) } })
  const caFile = join(root, 'ca.pem')
  await writeFile(caFile, server.https.ca)
  const previous = process.env.GIT_SSL_CAINFO
  process.env.GIT_SSL_CAINFO = caFile
  t.teardown(() => { if (previous === undefined) delete process.env.GIT_SSL_CAINFO; else process.env.GIT_SSL_CAINFO = previous })

  async function serve (req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://localhost')
    server.requests.push(`${req.method} ${url.pathname}`)
    const repoPath = /^\/[^/]+\.git/.exec(url.pathname)?.[0] ?? ''
    const token = tokens.get(repoPath)
    if (token !== undefined && req.headers.authorization !== `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' })
      res.end()
      return
    }
    if (req.method === 'POST' && url.pathname.endsWith('/git-upload-pack')) await server.beforeUploadPack?.()
    const child = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH, GIT_PROJECT_ROOT: projects, GIT_HTTP_EXPORT_ALL: '1', PATH_INFO: url.pathname, QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET', CONTENT_TYPE: req.headers['content-type'] ?? '', HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''), REMOTE_ADDR: '127.0.0.1', REMOTE_USER: '',
        ...(req.headers['content-length'] === undefined ? {} : { CONTENT_LENGTH: req.headers['content-length'] })
      }
    })
    req.pipe(child.stdin)
    let head = Buffer.alloc(0)
    let headersSent = false
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) return void res.write(chunk)
      head = Buffer.concat([head, chunk])
      const end = head.indexOf('\r\n\r\n')
      if (end === -1) return
      let status = 200
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':')
        const [key, value] = [line.slice(0, colon).trim(), line.slice(colon + 1).trim()]
        if (key.toLowerCase() === 'status') status = Number.parseInt(value, 10)
        else res.setHeader(key, value)
      }
      res.writeHead(status)
      headersSent = true
      res.write(head.subarray(end + 4))
    })
    child.on('close', () => res.end())
  }
  return server
}
