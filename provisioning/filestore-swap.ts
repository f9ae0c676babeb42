/**
 * The shell steps of a filestore restore on the data volume, mounted at `root` in a one-off
 * container (Docker) or a Job's pod (Kubernetes) of the backup image: POSIX sh and busybox suffice. The archive is unpacked into a
 * hidden staging folder on the same volume; only once the unpack has completed are the live
 * entries moved aside, the staged ones moved in (renames on one filesystem). The entries moved
 * aside are kept until the restore settles: dropped once the restored database is in place, put
 * back when it could not be, so files and database never come from two different points in time.
 * A failure before the swap leaves the live files as they were and no staging folder behind.
 *
 * Before the swap, the staged entries are made to fit the instance, as Odoo's own restore does:
 * the web sessions folder (`sessions/`, logins of the moment of the backup, not data) is left
 * out, and the attachments folder `filestore/<source database>` takes the name of the database
 * the instance runs on (Odoo reads `filestore/<its own database name>`). The two names come from
 * the environment, FILESTORE_FROM and FILESTORE_TO; unset or equal (a restore in place), nothing
 * is renamed.
 */

const STAGING = '.restore-staging'
const OLD = '.restore-old'
/** Made inside OLD once every live entry is in it: from then on the live folder holds restored entries only. */
const ASIDE_COMPLETE = '.aside-complete'

/** The folder the archive is unpacked into (its entries are `data/...`, as the export made them). */
export const stagingPath = (root: string): string => `${root}/${STAGING}`

/** Odoo's web sessions folder in its data directory: never backed up, never restored. */
export const SESSIONS = 'sessions'

/** The names a database may have here (Odoo's own rule is stricter): safe in a path and a shell word. */
const DATABASE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/

/** The environment that renames the staged attachments folder from the source's database name to the instance's. */
export function filestoreRename (from: string, to: string): { FILESTORE_FROM: string, FILESTORE_TO: string } {
  for (const name of [from, to]) if (!DATABASE_NAME.test(name)) throw new TypeError(`${JSON.stringify(name)} is not a database name`)
  return { FILESTORE_FROM: from, FILESTORE_TO: to }
}

/**
 * Renames the staged filestore/$FILESTORE_FROM to filestore/$FILESTORE_TO (replacing a staged
 * folder of that name: the source's attachments are the ones its database refers to). Run in
 * `fail`'s scope, before anything live moved.
 */
// oxlint-disable-next-line no-template-curly-in-string -- ${VAR} here is the shell's
const RENAME_FILESTORE = 'if [ -n "${FILESTORE_FROM:-}" ] && [ -n "${FILESTORE_TO:-}" ] && [ "$FILESTORE_FROM" != "$FILESTORE_TO" ]; then ' +
  'case "$FILESTORE_FROM$FILESTORE_TO" in */*|*..*) fail "bad filestore names" ;; esac; ' +
  `if [ -d "${STAGING}/data/filestore/$FILESTORE_FROM" ]; then ` +
  `{ rm -rf -- "${STAGING}/data/filestore/$FILESTORE_TO" && mv -- "${STAGING}/data/filestore/$FILESTORE_FROM" "${STAGING}/data/filestore/$FILESTORE_TO"; } || fail 'cannot rename the restored filestore after the database of the instance'; fi; fi`

/** Every entry of folder $1 but the working folders and the marker, hidden ones included; no match means no line. */
// oxlint-disable-next-line no-template-curly-in-string -- ${VAR} here is the shell's
const ENTRIES = 'entries () { for f in "$1"/* "$1"/.[!.]* "$1"/..?*; do case "${f##*/}" in ' +
  `${STAGING}|${OLD}|${ASIDE_COMPLETE}) continue ;; esac; if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\\n' "$f"; fi; done; }`

/**
 * Puts the entries a swap moved aside back, wherever it was cut off, and removes the working
 * folders. Before the marker the live folder holds only old entries (the rest are aside); after
 * it, only restored ones, which go first.
 */
const PUT_BACK = `put_back () { if [ -d ${OLD} ]; then ` +
  `if [ -e ${OLD}/${ASIDE_COMPLETE} ]; then rm -rf -- ${STAGING} && mkdir ${STAGING} && { entries . | while IFS= read -r f; do mv -- "$f" ${STAGING}/ || exit 1; done; } || return 1; fi; ` +
  `{ entries ${OLD} | while IFS= read -r f; do mv -- "$f" ./ || exit 1; done; } || return 1; fi; rm -rf -- ${STAGING} ${OLD}; }`

const script = (root: string, ...steps: string[]): string => [`cd ${root} || exit 1`, ENTRIES, PUT_BACK, ...steps].join('\n')

/** Puts back what an attempt that never settled moved aside, and makes the empty staging folder. */
export const prepareStaging = (root: string): string => script(root, 'put_back || exit 1', `mkdir ${STAGING}`)

/** After a failed unpack: the staging folder goes, the live files stay. */
export const discardStaging = (root: string): string => `cd ${root} && rm -rf -- ${STAGING}`

/**
 * For a copy (FILESTORE_TO set), the owner (`uid:gid`) the data folder itself takes: the restored
 * data's, that of the staged `data/filestore` (else `data/`), which tar kept from the source
 * (Odoo's user, 101 in the official image). A new instance's volume is fresh and first mounted by
 * the restore's container, whose image has nothing at that path, so Docker gave it no owner but
 * root; the ERP could then not make its `sessions/` there (left out of the archive) and would fail
 * every request. Empty when there is nothing to take: a restore in place keeps its folder as it
 * is, and a root-owned restore gives no owner.
 */
// oxlint-disable-next-line no-template-curly-in-string -- ${VAR} here is the shell's
const RESTORED_OWNER = 'owner=""; if [ -n "${FILESTORE_TO:-}" ]; then ' +
  `owner=$(stat -c %u:%g ${STAGING}/data/filestore 2>/dev/null || stat -c %u:%g ${STAGING}/data 2>/dev/null || true); ` +
  'case "$owner" in 0:*|"$(stat -c %u:%g . 2>/dev/null)") owner="" ;; esac; fi'

/**
 * Gives the data folder the restored data's owner. Not a failure when refused: on Kubernetes the
 * Job may run without the right to chown, and there the pod's fsGroup already makes the volume
 * writable to the ERP; one script serves both backends.
 */
const ADOPT_OWNER = 'if [ -n "$owner" ]; then chown "$owner" . 2>/dev/null || ' +
  'echo "the data folder keeps its owner: chown to $owner was refused" >&2; fi'

/**
 * Moves the live entries aside (kept until settled) and the staged ones in, and for a copy gives
 * the data folder the restored data's owner. Should any step fail, the live filestore is put back
 * as it was.
 */
export const swapStagedIn = (root: string): string => script(root,
  'fail () { echo "$1" >&2; put_back; exit 1; }',
  `[ -d ${STAGING}/data ] || fail 'the filestore archive holds no data/ folder'`,
  `rm -rf -- ${STAGING}/data/${SESSIONS} || fail 'cannot leave the web sessions out'`,
  RENAME_FILESTORE,
  RESTORED_OWNER,
  `mkdir ${OLD} || fail 'cannot make ${OLD}'`,
  `{ entries . | while IFS= read -r f; do mv -- "$f" ${OLD}/ || exit 1; done; } || fail 'moving the old filestore aside failed'`,
  `touch ${OLD}/${ASIDE_COMPLETE} || fail 'cannot mark the old filestore as moved aside'`,
  `{ entries ${STAGING}/data | while IFS= read -r f; do mv -- "$f" ./ || exit 1; done; } || fail 'moving the restored filestore in failed'`,
  ADOPT_OWNER,
  `rm -rf -- ${STAGING}`
)

/** The restore settled: the restored entries stay, the replaced ones go. */
export const dropReplaced = (root: string): string => `cd ${root} && rm -rf -- ${OLD} ${STAGING}`

/** The restore could not settle: the replaced entries come back, the restored ones go. */
export const putReplacedBack = (root: string): string => script(root, 'put_back')

/** The step that ends a restore, keeping the restored entries or the replaced ones. */
export const settleStep = (root: string, keep: 'restored' | 'replaced'): string => keep === 'restored' ? dropReplaced(root) : putReplacedBack(root)
