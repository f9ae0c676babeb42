/**
 * Usage of one container as `docker stats` computes it, and the size of its data volume from
 * the engine's disk-usage report (`docker system df -v`).
 */
import type Docker from 'dockerode'
import type { UsageReading } from '../backend.ts'
import { statusOf, type EngineCall } from './engine-calls.ts'
import { containerName, dataVolumeName } from './names.ts'

const MB = 1024 * 1024

/** The part of the engine's stats answer the reading needs (API 1.41+, cgroup v1 and v2). */
export interface ContainerStats {
  cpu_stats?: { cpu_usage?: { total_usage?: number, percpu_usage?: number[] }, system_cpu_usage?: number, online_cpus?: number }
  precpu_stats?: { cpu_usage?: { total_usage?: number }, system_cpu_usage?: number }
  memory_stats?: { usage?: number, stats?: Record<string, number | undefined> }
}

/**
 * Cores in use between the engine's two readings (~1 s apart with stream=false): the container's
 * share of the host's CPU time times the host's CPUs, as `docker stats` does (its % is this x 100).
 */
export function cpuCoresOf (stats: ContainerStats): number {
  const cpu = stats.cpu_stats
  const pre = stats.precpu_stats
  const used = (cpu?.cpu_usage?.total_usage ?? 0) - (pre?.cpu_usage?.total_usage ?? 0)
  const system = (cpu?.system_cpu_usage ?? 0) - (pre?.system_cpu_usage ?? 0)
  const cpus = cpu?.online_cpus ?? cpu?.cpu_usage?.percpu_usage?.length ?? 0
  if (used <= 0 || system <= 0 || cpus <= 0) return 0
  return (used / system) * cpus
}

/** Memory without the page cache the kernel can drop, as `docker stats` shows it. */
export function memoryMbOf (stats: ContainerStats): number {
  const memory = stats.memory_stats
  const usage = memory?.usage ?? 0
  const stat = memory?.stats ?? {}
  // cgroup v2 reports inactive_file; v1 total_inactive_file (cache on old engines).
  const cache = stat.inactive_file ?? stat.total_inactive_file ?? stat.cache ?? 0
  return Math.max(0, usage - (cache < usage ? cache : 0)) / MB
}

interface DiskUsage { Volumes?: Array<{ Name?: string, UsageData?: { Size?: number } | null }> | null }

export function createDockerUsage (docker: Docker, call: EngineCall) {
  async function containerUsage (name: string, timeoutMs: number): Promise<Pick<UsageReading, 'cpuCores' | 'memoryMb'>> {
    try {
      const stats = await call('stats', name, (signal) =>
        docker.getContainer(name).stats({ stream: false, abortSignal: signal } as unknown as { stream: false }), timeoutMs) as ContainerStats
      return { cpuCores: cpuCoresOf(stats), memoryMb: memoryMbOf(stats) }
    } catch (error) {
      if (statusOf(error) === 404) return { cpuCores: 0, memoryMb: 0 } // gone meanwhile: it uses nothing
      throw error
    }
  }

  /**
   * The engine measures every image, container and volume for one df answer, which takes seconds
   * on a busy host: a slow or failed one leaves the volume unknown (null) rather than failing the
   * CPU and memory reading. The sampler's longer timeout usually gets it.
   */
  async function volumeMb (volume: string, timeoutMs: number): Promise<number | null> {
    try {
      const usage = await call('df', volume, (signal) => (docker.df as unknown as (opts: { abortSignal: AbortSignal }) => Promise<unknown>)({ abortSignal: signal }), timeoutMs) as DiskUsage
      const size = usage.Volumes?.find((v) => v.Name === volume)?.UsageData?.Size
      return size === undefined || size < 0 ? null : size / MB // -1: the engine did not measure it
    } catch {
      return null
    }
  }

  return async (spec: { subdomain: string }, options: { running: boolean, timeoutMs: number }): Promise<UsageReading> => {
    const name = containerName(spec.subdomain)
    const [usage, volume] = await Promise.all([
      options.running ? containerUsage(name, options.timeoutMs) : { cpuCores: 0, memoryMb: 0 },
      volumeMb(dataVolumeName(spec.subdomain), options.timeoutMs)
    ])
    return { ...usage, volumeMb: volume, volumeCapacityMb: null }
  }
}
