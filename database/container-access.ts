/**
 * How instance containers reach the embedded PostgreSQL. Containers are told
 * `host.docker.internal` (Docker's `host-gateway`: the default bridge's gateway
 * address on the Docker host), so the embedded server also listens there, and
 * pg_hba.conf lets in only the instances' own roles (`erp_<32 hex digits>`), only
 * from the Docker networks' subnets, only with a password (SCRAM).
 */
import { readFile, writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import Docker from 'dockerode'
import { createServer } from 'node:net'

export interface ContainerAccess {
  /** Addresses of this machine the containers reach it by (the bridge's gateway). */
  listen: string[]
  /** Where the containers' connections come from (the bridge's, and DOCKER_NETWORK's, subnets). */
  subnets: string[]
}

/** The instances' login roles, as pg_hba.conf matches them (a regular expression, PostgreSQL 16+). */
export const INSTANCE_ROLES_PATTERN = '/^erp_[0-9a-f]{32}$'

const BEGIN = '# erp-portal: instance containers (managed by the service; rewritten at each start)'
const END = '# erp-portal: end'

interface NetworkIpam { IPAM?: { Config?: Array<{ Subnet?: string, Gateway?: string }> } }

/**
 * The default bridge's gateway and the subnets instance containers come from, asked
 * of the local Docker engine; undefined when it does not answer, is not on this
 * machine (a gateway address that is not one of ours), or has no IPv4 bridge.
 */
export async function dockerContainerAccess (options: { network?: string, docker?: Docker } = {}): Promise<ContainerAccess | undefined> {
  const docker = options.docker ?? new Docker()
  const ipam = async (name: string): Promise<Array<{ Subnet?: string, Gateway?: string }>> => {
    const network = docker.getNetwork(name) as unknown as { inspect: (opts: { abortSignal: AbortSignal }) => Promise<NetworkIpam> }
    return (await network.inspect({ abortSignal: AbortSignal.timeout(3000) })).IPAM?.Config ?? []
  }
  try {
    const bridge = (await ipam('bridge')).filter((entry) => entry.Subnet?.includes('.') === true)
    const candidates = bridge.map((entry) => entry.Gateway ?? firstHost(entry.Subnet!))
    const listen = (await Promise.all(candidates.map(async (address) => await isOwnAddress(address) ? [address] : []))).flat()
    if (listen.length === 0) return undefined
    const extra = options.network === undefined ? [] : await ipam(options.network).catch(() => [])
    const subnets = [...bridge, ...extra].flatMap((entry) => entry.Subnet?.includes('.') === true ? [entry.Subnet] : [])
    return { listen: [...new Set(listen)], subnets: [...new Set(subnets)] }
  } catch {
    return undefined
  }
}

/** Docker gives its bridge the subnet's first address when the network does not name a gateway. */
function firstHost (cidr: string): string {
  const octets = (cidr.split('/')[0] ?? '').split('.').map(Number)
  octets[3] = (octets[3] ?? 0) + 1
  return octets.join('.')
}

/**
 * Whether the address is this machine's: it can be bound. (os.networkInterfaces()
 * leaves out a bridge with no container attached, which is down but has its address.)
 */
function isOwnAddress (address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(0, address, () => server.close(() => resolve(true)))
  })
}

/** Rewrites the service's block of pg_hba.conf (the rest is left as initdb or the operator wrote it). */
export async function writeInstanceAccess (databaseDir: string, subnets: string[]): Promise<void> {
  const file = resolve(databaseDir, 'pg_hba.conf')
  const current = await readFile(file, 'utf8')
  const start = current.indexOf(BEGIN)
  const end = current.indexOf(END)
  const rest = start >= 0 && end > start ? current.slice(0, start) + current.slice(end + END.length).replace(/^\n/, '') : current
  const lines = subnets.map((subnet) => `host all ${INSTANCE_ROLES_PATTERN} ${subnet} scram-sha-256`)
  const block = lines.length === 0 ? '' : [BEGIN, ...lines, END].join('\n') + '\n'
  const next = rest.replace(/\n*$/, '\n') + block
  if (next !== current) await writeFile(file, next)
}
