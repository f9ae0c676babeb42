import t from 'tap'
import { readdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

/**
 * Inside a room (plugins/app/<domain>/), a file's name says its role, one
 * pattern per role: `index.ts`, `<name>.service.ts`, `<name>.entity.ts`,
 * `<name>.errors.ts`, `<name>.queries.ts`, `<name>.view.ts`, `<name>.activity.ts`, `<name>.queue.ts`
 * (a job queue's declaration), `<name>.job.ts` (what works a queue or a periodic task);
 * any other helper is a plain kebab-case name. The README's layout table lists the roles.
 */
const ROOMS = fileURLToPath(new URL('../../plugins/app/', import.meta.url))
const ROLE = /^[a-z][a-z0-9-]*\.(service|entity|errors|queries|view|activity|queue|job)\.ts$/
const HELPER = /^[a-z][a-z0-9-]*\.ts$/
/** A role written another way: `-view`, `-views`, `.views`, `-queries`, `.query`… */
const ROLE_MISSPELT = /[-.](views?|quer(y|ies)|services?|entit(y|ies)|errors?|activit(y|ies)|queues?|jobs?)\.ts$/

export function fileNameProblem (name: string): string | undefined {
  if (name === 'index.ts' || ROLE.test(name)) return undefined
  if (HELPER.test(name) && !ROLE_MISSPELT.test(name)) return undefined
  return `${name}: use index.ts, <name>.(service|entity|errors|queries|view|activity|queue|job).ts, or a kebab-case helper name`
}

t.test('every file in a room follows one pattern per role', async (t) => {
  const rooms = (await readdir(ROOMS, { withFileTypes: true })).filter((entry) => entry.isDirectory())
  t.ok(rooms.length > 5, 'the rooms are found')
  for (const room of rooms) {
    for (const name of await readdir(`${ROOMS}${room.name}`)) {
      t.equal(fileNameProblem(name), undefined, `plugins/app/${room.name}/${name}`)
    }
  }
})

t.test('the check refuses the other spellings of a role', async (t) => {
  for (const name of ['instance-views.ts', 'plan-view.ts', 'grants-queries.ts', 'dashboard.billing.ts', 'user-service.ts', 'Ticket.view.ts', 'backup-activity.ts', 'instance-jobs.ts', 'restore-job.ts', 'backup-queue.ts']) {
    t.not(fileNameProblem(name), undefined, name)
  }
  for (const name of ['index.ts', 'plan.view.ts', 'instance.queries.ts', 'backups.activity.ts', 'instance-actions.job.ts', 'recommendation-request.ts']) {
    t.equal(fileNameProblem(name), undefined, name)
  }
})
