import fc from 'fast-check'
import t from 'tap'
import { instanceResources, NO_SUBSCRIPTION, tenantQuota, type SubscriptionSize } from '../../../../plugins/app/instances/instance-resources.ts'

/** Sizes as subscriptions hold them, plus the odd values (negative, zero) a bad row could carry. */
const size: fc.Arbitrary<SubscriptionSize> = fc.record({
  workers: fc.oneof(fc.integer({ min: 0, max: 16 }), fc.integer({ min: -5, max: 200 })),
  storageGb: fc.oneof(fc.integer({ min: 1, max: 500 }), fc.integer({ min: -10, max: 100_000 })),
  instances: fc.oneof(fc.integer({ min: 1, max: 10 }), fc.integer({ min: -3, max: 1000 }))
})

const positiveInteger = (n: number): boolean => Number.isSafeInteger(n) && n > 0

t.test('instanceResources: whole positive numbers, whatever the subscription holds', async (t) => {
  fc.assert(fc.property(size, (s) => {
    const r = instanceResources(s)
    // Whole numbers: the Kubernetes backend renders them as quantities and refuses fractions.
    return positiveInteger(r.memoryMb) && positiveInteger(r.cpuMillicores) && positiveInteger(r.storageGb) && Number.isSafeInteger(r.workers) && r.workers >= 0
  }), { numRuns: 3000 })
  t.pass()
})

t.test('instanceResources matches the formula: 1024 + 512·workers MB, 1000 + 500·workers millicores, storage ≥ 1 GB', async (t) => {
  fc.assert(fc.property(size, (s) => {
    const workers = s.workers < 0 ? 0 : s.workers
    const r = instanceResources(s)
    return r.workers === workers && r.memoryMb === 1024 + 512 * workers && r.cpuMillicores === 1000 + 500 * workers &&
      r.storageGb === (s.storageGb < 1 ? 1 : s.storageGb)
  }), { numRuns: 3000 })
  t.same(instanceResources({ workers: 0, storageGb: 10, instances: 1 }), { workers: 0, memoryMb: 1024, cpuMillicores: 1000, storageGb: 10 }, 'no workers: 1 GB, one core')
  t.same(instanceResources({ workers: 2, storageGb: 60, instances: 3 }), { workers: 2, memoryMb: 2048, cpuMillicores: 2000, storageGb: 60 }, 'two workers: 2 GB, two cores')
  t.same(instanceResources(NO_SUBSCRIPTION), { workers: 0, memoryMb: 1024, cpuMillicores: 1000, storageGb: 10 }, 'before any subscription: one small instance')
})

t.test('instanceResources grows with workers and storage, and ignores the number of instances', async (t) => {
  fc.assert(fc.property(size, fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 1, max: 50 }), (s, moreWorkers, moreStorage, otherInstances) => {
    const base = instanceResources(s)
    const bigger = instanceResources({ ...s, workers: Math.max(0, s.workers) + moreWorkers, storageGb: Math.max(1, s.storageGb) + moreStorage })
    const grows = bigger.memoryMb >= base.memoryMb && bigger.cpuMillicores >= base.cpuMillicores && bigger.storageGb >= base.storageGb
    const strictly = moreWorkers === 0 || (bigger.memoryMb > base.memoryMb && bigger.cpuMillicores > base.cpuMillicores)
    const storageStrictly = moreStorage === 0 || bigger.storageGb > base.storageGb
    const perInstance = JSON.stringify(instanceResources({ ...s, instances: otherInstances })) === JSON.stringify(base)
    return grows && strictly && storageStrictly && perInstance
  }), { numRuns: 3000 })
  t.pass()
})

t.test('tenantQuota: every instance the subscription allows at full size, at least one', async (t) => {
  fc.assert(fc.property(size, (s) => {
    const each = instanceResources(s)
    const q = tenantQuota(s)
    const instances = s.instances < 1 ? 1 : s.instances
    return q.instances === instances && q.memoryMb === each.memoryMb * instances && q.cpuMillicores === each.cpuMillicores * instances &&
      q.storageGb === each.storageGb * instances && positiveInteger(q.memoryMb) && positiveInteger(q.cpuMillicores) && positiveInteger(q.storageGb)
  }), { numRuns: 3000 })
  t.same(tenantQuota(NO_SUBSCRIPTION), { instances: 1, memoryMb: 1024, cpuMillicores: 1000, storageGb: 10 })
  t.same(tenantQuota({ workers: 1, storageGb: 20, instances: 3 }), { instances: 3, memoryMb: 4608, cpuMillicores: 4500, storageGb: 60 })
  t.same(tenantQuota({ workers: 0, storageGb: 5, instances: 0 }), { instances: 1, memoryMb: 1024, cpuMillicores: 1000, storageGb: 5 }, 'zero instances still leaves room for one')
})

t.test('tenantQuota grows with the number of instances and always fits one instance', async (t) => {
  fc.assert(fc.property(size, fc.integer({ min: 1, max: 20 }), (s, more) => {
    const each = instanceResources(s)
    const q = tenantQuota(s)
    const bigger = tenantQuota({ ...s, instances: Math.max(1, s.instances) + more })
    return q.memoryMb >= each.memoryMb && q.cpuMillicores >= each.cpuMillicores && q.storageGb >= each.storageGb &&
      bigger.instances > q.instances && bigger.memoryMb > q.memoryMb && bigger.cpuMillicores > q.cpuMillicores && bigger.storageGb > q.storageGb
  }), { numRuns: 2000 })
  t.pass()
})
