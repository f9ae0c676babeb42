/**
 * What an instance needs from the Docker backend beyond an engine that answers:
 * its image, in the engine or pullable, and its database server, answering where
 * containers connect (the bridge's gateway for host.docker.internal). The probe runs
 * on this machine, whose own connection the server may see under another address
 * (NAT): a pg_hba.conf refusal counts only when it names a container's address. Checked at start (one line per
 * problem, naming the setting that fixes it) and before an instance is created,
 * so that a backend that cannot serve it refuses at once instead of failing for
 * minutes.
 */
import { randomBytes } from 'node:crypto'
import { BlockList } from 'node:net'
import Docker from 'dockerode'
import pg from 'pg'
import { dockerContainerAccess } from '../database/container-access.ts'
import { DOCKER_HOST_ALIAS } from './docker/container-config.ts'
import { imageFor } from './image-template.ts'

export interface ServeProblem {
  /** One line for the operator: what is wrong and the setting (or step) that fixes it. */
  reason: string
  /** What a tenant is told when creating an instance: no hosts, no settings. */
  tenantMessage: string
}

export interface DockerServeChecks {
  /** Problems for an instance of `erpVersion` (every offered version when omitted). */
  problems: (erpVersion?: string) => Promise<ServeProblem[]>
}

const CACHE_MS = 30_000
/** A role name of the instances' form that no instance has: the server's answer to it says whether it lets instances in. */
const PROBE_ROLE = `erp_${'0'.repeat(32)}`

export function createDockerServeChecks (options: {
  imageTemplate: string
  erpVersions: readonly string[]
  /** The database server as instances are told to reach it. */
  database: { host: string, port: number }
  network?: string
  docker?: Docker
}): DockerServeChecks {
  const docker = options.docker ?? new Docker()
  const cache = new Map<string, { at: number, result: Promise<ServeProblem | undefined> }>()
  const cached = (key: string, check: () => Promise<ServeProblem | undefined>): Promise<ServeProblem | undefined> => {
    const hit = cache.get(key)
    if (hit !== undefined && Date.now() - hit.at < CACHE_MS) return hit.result
    const result = check()
    cache.set(key, { at: Date.now(), result })
    return result
  }

  async function image (erpVersion: string): Promise<ServeProblem | undefined> {
    const name = imageFor(options.imageTemplate, erpVersion)
    const signal = () => AbortSignal.timeout(5000)
    const found = docker.getImage(name) as unknown as { inspect: (o: object) => Promise<unknown>, distribution: (o: object) => Promise<unknown> }
    try {
      await found.inspect({ abortSignal: signal() })
      return undefined
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 404) return undefined // the engine check speaks for an engine that does not answer
    }
    try {
      await found.distribution({ abortSignal: signal() }) // asks the registry for the manifest, pulls nothing
      return undefined
    } catch (error) {
      const why = ((error as { json?: { message?: string } }).json?.message ?? (error as Error).message).trim()
      return {
        reason: `image ${name} (ERP ${erpVersion}) is not in the Docker engine and cannot be pulled (${why}): pull or build it on the Docker host, or set ERP_IMAGE to an image that is there`,
        tenantMessage: `The ERP software for version ${erpVersion} is not available on the hosting platform yet; support has to provide it before instances of that version can be created.`
      }
    }
  }

  async function database (): Promise<ServeProblem | undefined> {
    const { port } = options.database
    let host = options.database.host
    const containers = new BlockList()
    if (host === DOCKER_HOST_ALIAS) {
      const access = await dockerContainerAccess({ docker, ...(options.network === undefined ? {} : { network: options.network }) })
      if (access === undefined) return unreachable(`${host}:${port}`, 'the Docker bridge\'s address on this machine could not be found')
      host = access.listen[0]!
      for (const subnet of access.subnets) containers.addSubnet(subnet.split('/')[0]!, Number(subnet.split('/')[1]), 'ipv4')
    }
    const client = new pg.Client({ host, port, user: PROBE_ROLE, password: randomBytes(12).toString('hex'), database: 'postgres', connectionTimeoutMillis: 3000 })
    client.on('error', () => {})
    try {
      await client.connect()
      return undefined
    } catch (error) {
      const { code, message } = error as { code?: string, message: string }
      if (code === '28P01' || code === '3D000') return undefined // it let the role try its password
      if (code === '28000') {
        // The host's own connection may reach the server under another address (NAT): only a refusal of a container's address speaks for containers.
        const seenAs = /pg_hba\.conf entry for host "([^"]+)"/.exec(message)?.[1]
        if (seenAs === undefined || !containers.check(seenAs, 'ipv4')) return undefined
        return unreachable(`${options.database.host}:${port}`, `its pg_hba.conf refuses the instances' roles from ${seenAs}`)
      }
      // The embedded server listens on the bridge only if the engine answered when it started.
      const late = code === 'ECONNREFUSED' ? '; the embedded server: restart the service once the Docker engine runs' : ''
      return unreachable(`${options.database.host}:${port}`, `${host}:${port}: ${message}${late}`)
    } finally {
      await client.end().catch(() => {})
    }
  }

  function unreachable (address: string, why: string): ServeProblem {
    return {
      reason: `instance containers cannot reach their database server at ${address} (${why}): unset DATABASE_URL and ERP_DATABASE_URL to use the embedded server, which listens on the Docker bridge; ` +
        'or let that server listen where containers reach it and allow the instance roles (erp_*) from the Docker subnets in pg_hba.conf, or set ERP_DATABASE_HOST to an address containers reach',
      tenantMessage: 'The hosting platform cannot run new instances right now: their database is not reachable. Try again later, or contact support.'
    }
  }

  return {
    async problems (erpVersion) {
      const versions = erpVersion === undefined ? [...new Set(options.erpVersions)] : [erpVersion]
      const found = await Promise.all([cached('database', database), ...versions.map((version) => cached(`image:${version}`, () => image(version)))])
      return found.filter((problem): problem is ServeProblem => problem !== undefined)
    }
  }
}
