/**
 * The restore Job's script: loads an archive the backup Job made (manifest.json, database.dump,
 * filestore.tar with entries under data/) from the backup claim, mounted read-only at
 * /backups, into a staged database and the instance's data claim, mounted at /data.
 *
 * Nothing is changed before the whole archive matches its recorded SHA-256 and every part the
 * SHA-256 its manifest names: a mismatch ends the script with a `corrupt` result line. The dump
 * goes into RESTORE_DATABASE (a fresh database the control plane made beside the instance's, and
 * puts in its place once the Job succeeded) with the Docker path's pg_restore flags; the
 * filestore is unpacked into a hidden folder on the claim, then swapped in with the Docker path's
 * steps (../filestore-swap.ts), so a failed unpack leaves the old files where they were, and the
 * replaced files stay aside until the control plane settles the restore (a second, short Job: kept
 * when the database could not be promoted, dropped once it was). Parts are read straight out of
 * the archive (tar -O): the data claim needs room for one extra filestore, not for a copy of the
 * archive.
 *
 * A restore into another instance than the backup's (a copy) gives the loaded database its own
 * identity (../copy-identity.ts: NEW_DATABASE_UUID, NEW_DATABASE_SECRET) and the filestore folder
 * the instance's database name (FILESTORE_FROM, FILESTORE_TO); the web sessions are never restored.
 *
 * Run again after a crash it converges: what an earlier attempt moved aside is put back first.
 * Environment: ARCHIVE, EXPECTED_SHA256, RESTORE_DATABASE, for a copy the four above, and the
 * instance's database Secret (HOST, PORT, USER, PASSWORD: the staged database belongs to the instance's role).
 */

import { copyIdentityStep } from '../copy-identity.ts'
import { discardStaging, prepareStaging, stagingPath, swapStagedIn } from '../filestore-swap.ts'

export const RESTORE_MARK = 'ERP-RESTORE-RESULT'
export const DATA_PATH = '/data'

export const RESTORE_SCRIPT = `set -eu
export PGHOST="$HOST" PGPORT="$PORT" PGUSER="$USER" PGPASSWORD="$PASSWORD"
corrupt () { echo "${RESTORE_MARK} corrupt $1"; exit 3; }
[ -f "$ARCHIVE" ] || corrupt "the archive $ARCHIVE is missing from the backup claim"
found=$(sha256sum "$ARCHIVE" | cut -d' ' -f1)
[ "$found" = "$EXPECTED_SHA256" ] || corrupt "the archive's SHA-256 is $found, the backup recorded $EXPECTED_SHA256"
manifest=$(tar -xOf "$ARCHIVE" manifest.json | tr -d ' \\n') || corrupt "the archive holds no manifest.json"
for part in database.dump filestore.tar; do
  want=$(printf '%s' "$manifest" | grep -o "\\"name\\":\\"$part\\"[^}]*" | grep -o '[0-9a-f]\\{64\\}' || true)
  got=$(tar -xOf "$ARCHIVE" "$part" | sha256sum | cut -d' ' -f1)
  [ -n "$want" ] && [ "$got" = "$want" ] || corrupt "$part has SHA-256 $got, the manifest says \${want:-nothing}"
done
echo "archive verified; loading the database"
tar -xOf "$ARCHIVE" database.dump | pg_restore --clean --if-exists --no-owner --no-privileges --single-transaction --exit-on-error --dbname "$RESTORE_DATABASE"
${copyIdentityStep('"$RESTORE_DATABASE"')}
echo "database loaded; unpacking the filestore"
( set +e
${prepareStaging(DATA_PATH)}
)
tar -xOf "$ARCHIVE" filestore.tar | tar -C "${stagingPath(DATA_PATH)}" -xf - || { ( set +e
${discardStaging(DATA_PATH)}
); echo "the filestore could not be unpacked" >&2; exit 1; }
( set +e
${swapStagedIn(DATA_PATH)}
)
echo "${RESTORE_MARK} ok"
`

export type RestoreResult = { state: 'ok' } | { state: 'corrupt', message: string }

/** The script's last result line, or undefined when it printed none. */
export function parseRestoreResult (log: string): RestoreResult | undefined {
  const match = new RegExp(`^${RESTORE_MARK} (ok|corrupt (.+))$`, 'm').exec(log)
  if (match === null) return undefined
  return match[1] === 'ok' ? { state: 'ok' } : { state: 'corrupt', message: match[2] ?? '' }
}
