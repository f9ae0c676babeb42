/**
 * The tests' PostgreSQL may listen on loopback only (127.0.0.1:5432 here), where the ERP
 * containers cannot reach it: they get `host.docker.internal` (the Docker bridge's gateway) as
 * their database host, as in production. The relay is one long-lived container of the stand-in
 * image on the host's network, `socat` from <bridge gateway>:<port> to 127.0.0.1:<port>, made once
 * per engine and port and shared by every test process (a race to create it is harmless).
 */
import type Docker from 'dockerode'

export const RELAY_LABEL = 'erp.test-database-relay'

function loopbackPort (databaseUrl: string | undefined): number | undefined {
  if (databaseUrl === undefined || databaseUrl === '') return undefined
  const url = new URL(databaseUrl)
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return undefined
  return Number(url.port === '' ? 5432 : url.port)
}

async function bridgeGateway (docker: Docker): Promise<string> {
  const bridge = await docker.getNetwork('bridge').inspect() as { IPAM?: { Config?: Array<{ Gateway?: string, Subnet?: string }> } }
  const config = bridge.IPAM?.Config?.find((c) => c.Subnet?.includes('.') === true)
  if (config?.Gateway !== undefined && config.Gateway !== '') return config.Gateway
  // Without an explicit gateway the engine gives its bridge the subnet's first address (docker0).
  const subnet = /^(\d+\.\d+\.\d+)\.0\/\d+$/.exec(config?.Subnet ?? '')
  if (subnet === null) throw new Error(`the Docker bridge network has no IPv4 gateway (${JSON.stringify(bridge.IPAM)}): the ERP containers cannot reach the host`)
  return `${subnet[1]}.1`
}

/** Makes sure containers reach the database of `databaseUrl` (TEST_DATABASE_URL) at host.docker.internal. */
export async function ensureDatabaseRelay (docker: Docker, image: string, databaseUrl = process.env.TEST_DATABASE_URL): Promise<void> {
  const port = loopbackPort(databaseUrl)
  if (port === undefined) return
  const name = `erp-test-database-relay-${port}`
  const status = (error: unknown): number | undefined => (error as { statusCode?: number }).statusCode
  // Several test processes get here at once: whoever finds it made but not running starts it.
  for (let attempt = 0; attempt < 50; attempt++) {
    const found = await docker.getContainer(name).inspect().catch(() => undefined)
    if (found?.State.Running === true) return
    try {
      if (found === undefined) {
        await docker.createContainer({
          name,
          Image: image,
          Entrypoint: ['socat'],
          Cmd: [`TCP-LISTEN:${port},bind=${await bridgeGateway(docker)},reuseaddr,fork`, `TCP:127.0.0.1:${port}`],
          Labels: { [RELAY_LABEL]: String(port) },
          HostConfig: { NetworkMode: 'host', RestartPolicy: { Name: 'unless-stopped' } }
        })
      }
      await docker.getContainer(name).start()
    } catch (error) {
      // 409: another process made it first; 304: started meanwhile; 404: gone meanwhile. Look again.
      if (![304, 404, 409].includes(status(error) ?? 0)) throw error
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`the database relay container ${name} does not run (docker logs ${name})`)
}
