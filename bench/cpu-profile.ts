/**
 * Reads a V8 .cpuprofile (`node --cpu-prof`) and prints self time by function
 * and by file, with files under node_modules grouped by package: enough to see
 * whether a request's time goes to our code, a library, JSON or the garbage
 * collector. `node bench/cpu-profile.ts <file.cpuprofile> [top]` on its own.
 */
import { readFile } from 'node:fs/promises'

interface ProfileNode {
  id: number
  callFrame: { functionName: string, url: string, lineNumber: number }
  hitCount?: number
}

interface CpuProfile {
  nodes: ProfileNode[]
  startTime: number
  endTime: number
  samples: number[]
  timeDeltas: number[]
}

/** `node_modules/@scope/name/...` → `@scope/name`; our own files relative to the repository. */
function placeOf (url: string): string {
  if (url === '') return '(native)'
  const modules = url.lastIndexOf('/node_modules/')
  if (modules >= 0) {
    const [first, second] = url.slice(modules + '/node_modules/'.length).split('/')
    return first?.startsWith('@') === true ? `${first}/${second}` : first ?? url
  }
  if (url.startsWith('node:')) return url
  const root = new URL('../', import.meta.url).href
  return url.startsWith(root) ? url.slice(root.length) : url
}

function top (totals: Map<string, number>, all: number, count: number): string[] {
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, micros]) => `${(100 * micros / all).toFixed(1).padStart(5)} %  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${name}`)
}

/**
 * `sinceMicros`: leave out the samples taken before this moment (the
 * monotonic clock of `process.hrtime`, in µs, as the profile's timestamps),
 * e.g. the process's start-up before the load began.
 */
export async function printProfileSummary (file: string, count = 25, sinceMicros = 0): Promise<void> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const selfTime = new Map<number, number>()
  let at = profile.startTime
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0
    at += delta
    if (at >= sinceMicros) selfTime.set(id, (selfTime.get(id) ?? 0) + delta)
  })

  const byFunction = new Map<string, number>()
  const byPlace = new Map<string, number>()
  let all = 0
  let idle = 0
  for (const [id, micros] of selfTime) {
    const frame = byId.get(id)?.callFrame
    if (frame === undefined) continue
    if (frame.functionName === '(idle)') {
      idle += micros
      continue
    }
    all += micros
    const place = placeOf(frame.url)
    const name = `${frame.functionName || '(anonymous)'}  ${place}${frame.url === '' ? '' : `:${frame.lineNumber + 1}`}`
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros)
    byPlace.set(place, (byPlace.get(place) ?? 0) + micros)
  }
  console.log(`busy ${(all / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms`)
  console.log('\nself time by function')
  for (const line of top(byFunction, all, count)) console.log(line)
  console.log('\nself time by file or package')
  for (const line of top(byPlace, all, count)) console.log(line)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2]
  if (file === undefined) throw new Error('usage: node bench/cpu-profile.ts <file.cpuprofile> [top]')
  await printProfileSummary(file, Number(process.argv[3] ?? 25))
}
