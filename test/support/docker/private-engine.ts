/**
 * A Docker engine of a test's own: a second `dockerd` with its own socket, data, exec root and
 * containerd namespace, so a test may stop and restart "the engine" without touching the one the
 * other tests use. No default bridge and no iptables rules (the machine's engine owns those);
 * user-defined networks and ports published on 127.0.0.1 (docker-proxy) work as usual.
 * Needs root and the `dockerd` binary (Debian's docker.io).
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, openSync } from 'node:fs'
import { mkdir, readFile, rm } from 'node:fs/promises'
import { promisify } from 'node:util'
import Docker from 'dockerode'

const exec = promisify(execFile)

export interface PrivateEngine {
  /** `unix:///…/docker.sock`, for DOCKER_HOST. */
  host: string
  docker: Docker
  /** SIGTERM to dockerd, as a service manager's stop does; resolves once it has exited. */
  stop: () => Promise<void>
  /** Starts dockerd again on the same data; resolves once it answers. */
  start: () => Promise<void>
  /** Copies an image from the machine's engine into this one. */
  loadImage: (name: string) => Promise<void>
  /** Stops it for good and removes everything it kept. */
  destroy: () => Promise<void>
}

export function privateEngineUnavailable (): string | undefined {
  if (process.getuid?.() !== 0) return 'not root'
  for (const dir of ['/usr/bin', '/usr/sbin', '/usr/local/bin']) if (existsSync(`${dir}/dockerd`)) return undefined
  return 'no dockerd binary'
}

export async function startPrivateEngine (): Promise<PrivateEngine> {
  const name = `erpd-${randomBytes(3).toString('hex')}`
  const root = `/tmp/${name}` // short: the socket path must fit in 108 bytes
  await mkdir(root, { recursive: true })
  const socket = `${root}/docker.sock`
  const host = `unix://${socket}`
  const docker = new Docker({ socketPath: socket })
  let child: ChildProcess | undefined

  const answers = async () => { try { await docker.ping(); return true } catch { return false } }
  const start = async () => {
    const log = openSync(`${root}/dockerd.log`, 'a')
    child = spawn('dockerd', [
      '--host', host, '--data-root', `${root}/data`, '--exec-root', `${root}/x`, '--pidfile', `${root}/docker.pid`,
      '--bridge', 'none', '--iptables=false', '--ip6tables=false', '--storage-driver', 'vfs',
      '--containerd-namespace', name, '--containerd-plugins-namespace', `${name}-plugins`
    ], { stdio: ['ignore', log, log] })
    const exited = new Promise((resolve) => child!.once('exit', resolve))
    const deadline = Date.now() + 60_000
    while (!(await answers())) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 100))])
        throw new Error(`the private dockerd did not answer; its log:\n${(await readFile(`${root}/dockerd.log`, 'utf8')).slice(-3000)}`)
      }
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  const stop = async () => {
    const running = child
    if (running === undefined || running.exitCode !== null) return
    const exited = new Promise((resolve) => running.once('exit', resolve))
    running.kill('SIGTERM')
    await exited
  }
  await start()
  return {
    host,
    docker,
    start,
    stop,
    loadImage: async (image) => {
      await exec('bash', ['-c', 'docker save "$1" | docker -H "$2" load', 'load', image, host], { maxBuffer: 16 * 1024 * 1024 })
    },
    destroy: async () => {
      for (const container of await docker.listContainers({ all: true }).catch(() => [])) {
        await docker.getContainer(container.Id).remove({ force: true, v: true }).catch(() => {})
      }
      await stop()
      await rm(root, { recursive: true, force: true })
    }
  }
}
