/**
 * The shell steps of a filestore restore on the data volume (mounted at `root` in a one-off
 * container of the backup image: POSIX sh and busybox suffice). The archive is unpacked into a
 * hidden staging folder on the same volume; only once the unpack has completed are the live
 * entries moved aside, the staged ones moved in (renames on one filesystem) and the old removed.
 * A failure before the swap leaves the live files as they were and no staging folder behind.
 */

const STAGING = '.restore-staging'
const OLD = '.restore-old'

/** The folder the archive is unpacked into (its entries are `data/...`, as the export made them). */
export const stagingPath = (root: string): string => `${root}/${STAGING}`

/** Every entry of folder $1 but the two working folders, hidden ones included; no match means no line. */
const ENTRIES = 'entries () { for f in "$1"/* "$1"/.[!.]* "$1"/..?*; do case "${f##*/}" in ' +
  `${STAGING}|${OLD}) continue ;; esac; if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\\n' "$f"; fi; done; }`

/** Removes what a killed attempt left, and makes the empty staging folder. */
export const prepareStaging = (root: string): string => `cd ${root} && rm -rf -- ${STAGING} ${OLD} && mkdir ${STAGING}`

/** After a failed unpack: the staging folder goes, the live files stay. */
export const discardStaging = (root: string): string => `cd ${root} && rm -rf -- ${STAGING}`

/**
 * Moves the live entries aside and the staged ones in. Should moving aside fail, what was moved
 * goes back and the staging is removed, so the live filestore stays whole.
 */
export const swapStagedIn = (root: string): string => [
  `cd ${root} || exit 1`,
  ENTRIES,
  `rollback () { echo "$1" >&2; entries ${OLD} | while IFS= read -r f; do mv -- "$f" ./; done; rm -rf -- ${STAGING} ${OLD}; exit 1; }`,
  `[ -d ${STAGING}/data ] || rollback 'the filestore archive holds no data/ folder'`,
  `mkdir ${OLD} || rollback 'cannot make ${OLD}'`,
  `entries . | while IFS= read -r f; do mv -- "$f" ${OLD}/ || exit 1; done || rollback 'moving the old filestore aside failed'`,
  `entries ${STAGING}/data | while IFS= read -r f; do mv -- "$f" ./ || exit 1; done || { echo 'moving the restored filestore in failed' >&2; exit 1; }`,
  `rm -rf -- ${STAGING} ${OLD}`
].join('\n')
