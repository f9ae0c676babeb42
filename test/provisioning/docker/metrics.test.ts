/** CPU and memory from the engine's stats answer, computed as `docker stats` does. */
import t from 'tap'
import fc from 'fast-check'
import { cpuCoresOf, memoryMbOf } from '../../../provisioning/docker/metrics.ts'

const stats = (used: number, system: number, cpus: number) => ({
  cpu_stats: { cpu_usage: { total_usage: 1_000_000 + used }, system_cpu_usage: 9_000_000 + system, online_cpus: cpus },
  precpu_stats: { cpu_usage: { total_usage: 1_000_000 }, system_cpu_usage: 9_000_000 }
})

t.test('cores are the container\'s share of the host\'s CPU time times the host\'s CPUs', async (t) => {
  // docker stats: 50% of the host's time on a 2-CPU host shows 100.00%, one core.
  t.equal(cpuCoresOf(stats(500, 1000, 2)), 1)
  t.equal(cpuCoresOf(stats(250, 1000, 4)), 1)
  t.equal(cpuCoresOf(stats(0, 1000, 2)), 0, 'idle')
  t.equal(cpuCoresOf({}), 0, 'a stopped container reports nothing')
  t.equal(cpuCoresOf({ ...stats(10, 100, 0), cpu_stats: { cpu_usage: { total_usage: 1_000_010, percpu_usage: [1, 2, 3, 4] }, system_cpu_usage: 9_000_100 } }), 0.4, 'cgroup v1 without online_cpus: the per-CPU list counts them')
  fc.assert(fc.property(fc.nat(1e9), fc.integer({ min: 1, max: 1e9 }), fc.integer({ min: 1, max: 256 }), (used, system, cpus) => {
    const cores = cpuCoresOf(stats(Math.min(used, system), system, cpus))
    return cores >= 0 && cores <= cpus
  }), { numRuns: 200 })
})

t.test('memory leaves out the page cache the kernel can drop', async (t) => {
  const MB = 1024 * 1024
  t.equal(memoryMbOf({ memory_stats: { usage: 300 * MB, stats: { inactive_file: 100 * MB } } }), 200, 'cgroup v2')
  t.equal(memoryMbOf({ memory_stats: { usage: 300 * MB, stats: { total_inactive_file: 50 * MB } } }), 250, 'cgroup v1')
  t.equal(memoryMbOf({ memory_stats: { usage: 64 * MB, stats: {} } }), 64)
  t.equal(memoryMbOf({ memory_stats: {} }), 0, 'a stopped container')
})
