/**
 * The shell steps of a filestore restore on the data volume, mounted at `root` in a one-off
 * container (Docker) or a Job's pod (Kubernetes) of the backup image: POSIX sh and busybox suffice. The archive is unpacked into a
 * hidden staging folder on the same volume; only once the unpack has completed are the live
 * entries moved aside, the staged ones moved in (renames on one filesystem). The entries moved
 * aside are kept until the restore settles: dropped once the restored database is in place, put
 * back when it could not be, so files and database never come from two different points in time.
 * A failure before the swap leaves the live files as they were and no staging folder behind.
 */

const STAGING = '.restore-staging'
const OLD = '.restore-old'
/** Made inside OLD once every live entry is in it: from then on the live folder holds restored entries only. */
const ASIDE_COMPLETE = '.aside-complete'

/** The folder the archive is unpacked into (its entries are `data/...`, as the export made them). */
export const stagingPath = (root: string): string => `${root}/${STAGING}`

/** Every entry of folder $1 but the working folders and the marker, hidden ones included; no match means no line. */
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
 * Moves the live entries aside (kept until settled) and the staged ones in. Should any step
 * fail, the live filestore is put back as it was.
 */
export const swapStagedIn = (root: string): string => script(root,
  'fail () { echo "$1" >&2; put_back; exit 1; }',
  `[ -d ${STAGING}/data ] || fail 'the filestore archive holds no data/ folder'`,
  `mkdir ${OLD} || fail 'cannot make ${OLD}'`,
  `{ entries . | while IFS= read -r f; do mv -- "$f" ${OLD}/ || exit 1; done; } || fail 'moving the old filestore aside failed'`,
  `touch ${OLD}/${ASIDE_COMPLETE} || fail 'cannot mark the old filestore as moved aside'`,
  `{ entries ${STAGING}/data | while IFS= read -r f; do mv -- "$f" ./ || exit 1; done; } || fail 'moving the restored filestore in failed'`,
  `rm -rf -- ${STAGING}`
)

/** The restore settled: the restored entries stay, the replaced ones go. */
export const dropReplaced = (root: string): string => `cd ${root} && rm -rf -- ${OLD} ${STAGING}`

/** The restore could not settle: the replaced entries come back, the restored ones go. */
export const putReplacedBack = (root: string): string => script(root, 'put_back')

/** The step that ends a restore, keeping the restored entries or the replaced ones. */
export const settleStep = (root: string, keep: 'restored' | 'replaced'): string => keep === 'restored' ? dropReplaced(root) : putReplacedBack(root)
