import t from 'tap'
import { formatFailures, TapFailureCollector } from './tap-failures.ts'

// What tap prints for a file with one failing assertion two subtests deep, then a passing file.
const STREAM = `# Subtest: test/a.test.ts
    # Subtest: outer
        ok 1 - should be equal
        # Subtest: inner
            not ok 1 - one is two
              ---
              compare: ===
              at:
                fileName: test/a.test.ts
                lineNumber: 4
              source: |
                t.equal(1, 2, 'one is two')
              diff: |
                --- expected
                +++ actual
                -2
                +1
              ...
            
            1..1
        not ok 2 - inner # time=3.2ms
        
        1..2
    not ok 1 - outer # time=5.1ms
    
    1..1
    # time=20ms
not ok 1 - test/a.test.ts # time=20ms
  ---
  exitCode: 1
  ...

# Subtest: test/b.test.ts
    ok 1 - fine
    1..1
ok 2 - test/b.test.ts # time=9ms

# { total: 3, pass: 2, fail: 1 }
`

t.test('the failing assertion, named by its file and subtests, with its diagnostic', async t => {
  const collector = new TapFailureCollector()
  collector.push(STREAM)
  const failures = collector.end()
  t.same(failures, [{
    path: ['test/a.test.ts', 'outer', 'inner', 'one is two'],
    diagnostic: ['diff: |', '  --- expected', '  +++ actual', '  -2', '  +1']
  }], 'only the leaf (the subtests and the file that fail because of it are its path), without where it is')
  t.equal(formatFailures(failures), 'not ok: test/a.test.ts > outer > inner > one is two\n    diff: |\n      --- expected\n      +++ actual\n      -2\n      +1')
})

t.test('lines split across chunks anywhere give the same result', async t => {
  const whole = new TapFailureCollector()
  whole.push(STREAM)
  const expected = whole.end()
  for (const size of [1, 7, 64]) {
    const collector = new TapFailureCollector()
    for (let i = 0; i < STREAM.length; i += size) collector.push(STREAM.slice(i, i + size))
    t.same(collector.end(), expected, `chunks of ${size}`)
  }
})

t.test('a file that fails on its own (a crash or a timeout) is reported with its diagnostic', async t => {
  const collector = new TapFailureCollector()
  collector.push(`# Subtest: test/c.test.ts
    ok 1 - started
not ok 3 - test/c.test.ts # time=30000ms
  ---
  signal: SIGTERM
  expired: TIMEOUT
  ...
`)
  t.same(collector.end(), [{ path: ['test/c.test.ts'], diagnostic: ['signal: SIGTERM', 'expired: TIMEOUT'] }])
})

t.test('a run where everything passes has nothing to report', async t => {
  const collector = new TapFailureCollector()
  collector.push('# Subtest: test/b.test.ts\n    ok 1 - fine\n    1..1\nok 1 - test/b.test.ts # time=9ms\n')
  t.same(collector.end(), [])
})
