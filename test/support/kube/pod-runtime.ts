/**
 * Runs a bare Pod's container for real, on the local Docker engine: the container's image,
 * command and args unchanged, its user, read-only root and dropped capabilities, and its
 * PersistentVolumeClaim mounts backed by host folders (`claimFolders`: `<namespace>/<claim>` →
 * folder; `subPath` and `readOnly` honoured). The container's address on the Docker bridge stands
 * for the pod IP (reachable from this host, as a pod IP is from the API server); the readiness
 * probe (tcpSocket or httpGet) is run against it, so "ready" means the container answers.
 * Images are not pulled: they must exist locally.
 */
import { execFile } from 'node:child_process'
import { get } from 'node:http'
import { connect } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { isObject, type JsonObject } from './merge.ts'

const run = promisify(execFile)
const asObject = (value: unknown): JsonObject => (isObject(value) ? value : {})

export interface PodRuntimeOptions {
  /** `<namespace>/<claim name>` → the host folder that claim's volume is. */
  claimFolders: Record<string, string>
}

export interface RunningContainer {
  /** undefined until the container runs (then its bridge address: the pod IP). */
  ip: string | undefined
  ready: boolean
  /** Why it could not start (a claim with no folder, docker run failing): the pod stays ContainerCreating. */
  error: string | undefined
  stop: () => Promise<void>
}

/** `docker run` arguments for a pod's first container (the fake runs one per pod). */
export function dockerRunArgs (namespace: string, podName: string, spec: JsonObject, options: PodRuntimeOptions): string[] {
  const container = asObject((Array.isArray(spec.containers) ? spec.containers : [])[0])
  const podSecurity = asObject(spec.securityContext)
  const security = asObject(container.securityContext)
  const user = security.runAsUser ?? podSecurity.runAsUser
  const group = security.runAsGroup ?? podSecurity.runAsGroup
  const args = ['run', '-d', '--label', 'erp.test/fake-kube-pod=1', '--name', `fake-kube-${namespace}-${podName}-${Date.now().toString(36)}`]
  if (user !== undefined) args.push('--user', group === undefined ? String(user) : `${String(user)}:${String(group)}`)
  if (security.readOnlyRootFilesystem === true) args.push('--read-only')
  if (security.allowPrivilegeEscalation === false) args.push('--security-opt', 'no-new-privileges')
  const drop = asObject(security.capabilities).drop
  if (Array.isArray(drop)) for (const cap of drop) args.push('--cap-drop', String(cap))
  for (const e of Array.isArray(container.env) ? container.env : []) args.push('-e', `${String(asObject(e).name)}=${String(asObject(e).value ?? '')}`)
  const volumes = (Array.isArray(spec.volumes) ? spec.volumes : []).map(asObject)
  for (const m of Array.isArray(container.volumeMounts) ? container.volumeMounts : []) {
    const mount = asObject(m)
    const volume = volumes.find((v) => v.name === mount.name)
    const claim = asObject(volume?.persistentVolumeClaim)
    const folder = options.claimFolders[`${namespace}/${String(claim.claimName)}`]
    if (folder === undefined) throw new Error(`volume ${String(mount.name)}: no host folder for claim ${namespace}/${String(claim.claimName)} (claimFolders)`)
    const readOnly = mount.readOnly === true || claim.readOnly === true
    args.push('-v', `${typeof mount.subPath === 'string' ? join(folder, mount.subPath) : folder}:${String(mount.mountPath)}${readOnly ? ':ro' : ''}`)
  }
  const command = Array.isArray(container.command) ? container.command.map(String) : []
  const rest = Array.isArray(container.args) ? container.args.map(String) : []
  if (command.length > 0) args.push('--entrypoint', command[0] ?? '')
  args.push(String(container.image), ...command.slice(1), ...rest)
  return args
}

function probeOnce (ip: string, probe: JsonObject): Promise<boolean> {
  const http = asObject(probe.httpGet)
  const tcp = asObject(probe.tcpSocket)
  return new Promise((resolve) => {
    if (http.port !== undefined) {
      const request = get({ host: ip, port: Number(http.port), path: String(http.path ?? '/'), timeout: 1000 }, (res) => { res.resume(); resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 400) })
      request.on('error', () => resolve(false)).on('timeout', () => { request.destroy(); resolve(false) })
      return
    }
    const socket = connect({ host: ip, port: Number(tcp.port ?? 0), timeout: 1000 })
    socket.on('connect', () => { socket.destroy(); resolve(true) }).on('error', () => resolve(false)).on('timeout', () => { socket.destroy(); resolve(false) })
  })
}

export class DockerPodRuntime {
  readonly #options: PodRuntimeOptions
  readonly #stopping = new Set<Promise<void>>()
  /** What failed to start (also on each container's `error`). */
  readonly errors: string[] = []

  constructor (options: PodRuntimeOptions) { this.#options = options }

  start (namespace: string, podName: string, spec: JsonObject): RunningContainer {
    const state: RunningContainer = { ip: undefined, ready: false, error: undefined, stop: async () => {} }
    let stopped = false
    let id: string | undefined
    state.stop = async () => {
      stopped = true
      if (id === undefined) return
      const removing = run('docker', ['rm', '-f', id]).then(() => {}, () => {})
      this.#stopping.add(removing)
      await removing
      this.#stopping.delete(removing)
    }
    const fail = (error: unknown): void => { state.error = (error as Error).message; this.errors.push(`${namespace}/${podName}: ${state.error}`) }
    const probe = asObject(asObject((Array.isArray(spec.containers) ? spec.containers : [])[0]).readinessProbe)
    void (async () => {
      id = (await run('docker', dockerRunArgs(namespace, podName, spec, this.#options))).stdout.trim()
      if (stopped) { await state.stop(); return }
      state.ip = (await run('docker', ['inspect', '-f', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}', id])).stdout.trim()
      while (!stopped && !state.ready) {
        state.ready = Object.keys(probe).length === 0 || await probeOnce(state.ip, probe)
        if (!state.ready) await new Promise((resolve) => setTimeout(resolve, 100))
      }
    })().catch(fail)
    return state
  }

  /** Waits for the containers being removed. */
  async settle (): Promise<void> { await Promise.all(this.#stopping) }
}
