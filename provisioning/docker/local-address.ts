/**
 * Where an instance opens from the machine that runs the service, without a
 * proxy or a DNS name: the port its container publishes on the loopback address
 * (DOCKER_PUBLISH_PORTS), read from the container's inspect data.
 */
import Docker from 'dockerode'
import { containerName, ERP_PORT } from './names.ts'

const LOOPBACK = new Set(['127.0.0.1', '0.0.0.0', ''])

/** `http://127.0.0.1:<published port>` while the container runs with its port published; undefined otherwise. */
export async function publishedLocalUrl (docker: Docker, subdomain: string, timeoutMs = 2000): Promise<string | undefined> {
  const container = docker.getContainer(containerName(subdomain)) as unknown as { inspect: (opts: { abortSignal: AbortSignal }) => Promise<Docker.ContainerInspectInfo> }
  let info: Docker.ContainerInspectInfo
  try {
    info = await container.inspect({ abortSignal: AbortSignal.timeout(timeoutMs) })
  } catch {
    return undefined
  }
  if (!info.State.Running) return undefined
  const bindings = info.NetworkSettings.Ports?.[`${ERP_PORT}/tcp`] ?? []
  const binding = bindings.find((entry) => LOOPBACK.has(entry.HostIp) && entry.HostPort !== '')
  return binding === undefined ? undefined : `http://127.0.0.1:${binding.HostPort}`
}
