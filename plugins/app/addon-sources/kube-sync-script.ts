/**
 * The shell script the Kubernetes sync Job runs (POSIX sh, busybox or GNU tools, git): the same
 * steps as the Docker path (git-fetch.ts, addon-checkout.ts). A shallow fetch of the branch pinned
 * to the address the portal checked (http.curloptResolve, or ssh to the address keyed by the host's
 * name), caps on fetched bytes and on the tree's files and bytes, a checkout into a hidden
 * `.source-<id>-<commit>-<nonce>` folder of the mounted claim, one rename of the `.source-<id>`
 * link, one link per module. It reports through its log: the last line is
 * `ADDON-SYNC {"commit":…,"modules":[{"name":…,"manifest":<base64>}],"skipped":[…],"host_key":…}`
 * or `ADDON-SYNC {"error":…}`; the portal reads the manifests itself (never evaluated).
 *
 * Inputs (environment): ADDONS (the claim's mount), SOURCE_ID, MODE (sync|remove), FETCH_URL,
 * BRANCH, SUBPATH, PIN_RESOLVE (https) or SSH_HOST_ALIAS and SSH_HOST_KEY (ssh; the pinned key, empty: pin the first seen), MAX_BYTES, MAX_FILES, TAKEN, INSTALLED
 * (` module=source ` pairs other sources provide); from the Job's Secret: GIT_TOKEN or DEPLOY_KEY.
 */
// `%{` stands for the shell's `${` (which a template literal would read as its own).
export const SYNC_SCRIPT = String.raw`set -u
say () { printf 'ADDON-SYNC %s\n' "$1"; }
fail () { m=$(printf '%s' "$1" | tr -d '\000-\037"\\' | cut -c1-600); say "{\"error\":\"$m\"}"; exit 1; }
A="$ADDONS"
cur=".source-$SOURCE_ID"
remove_stale () {
  for l in "$A"/* ; do
    [ -L "$l" ] || continue
    t=$(readlink "$l")
    case "$t" in "$cur/"*) case " $1 " in *" $(basename "$l") "*) ;; *) rm -f "$l" ;; esac ;; esac
  done
  for d in "$A/$cur-"* ; do [ -d "$d" ] && [ "$d" != "$2" ] && rm -rf "$d" ; done
  return 0
}
if [ "$MODE" = remove ]; then
  [ -d "$A" ] || { say '{"removed":true}'; exit 0; }
  remove_stale "" ""
  rm -f "$A/$cur"
  say '{"removed":true}'
  exit 0
fi
W=$(mktemp -d) || fail 'no temporary folder'
trap 'rm -rf "$W"' EXIT
G="$W/git"
set -- -c protocol.allow=never -c protocol.https.allow=always -c protocol.ssh.allow=always -c http.followRedirects=false \
  -c core.symlinks=false -c core.hooksPath=/dev/null -c submodule.recurse=false
export GIT_TERMINAL_PROMPT=0 GIT_ASKPASS= SSH_ASKPASS=
if [ -n "%{PIN_RESOLVE:-}" ]; then set -- "$@" -c "http.curloptResolve=$PIN_RESOLVE"; fi
if [ -n "%{GIT_TOKEN:-}" ]; then
  export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=http.extraHeader
  GIT_CONFIG_VALUE_0="Authorization: Basic $(printf 'x-access-token:%s' "$GIT_TOKEN" | base64 | tr -d '\n')"
  export GIT_CONFIG_VALUE_0
fi
unset GIT_TOKEN
if [ -n "%{DEPLOY_KEY:-}" ]; then
  (umask 077; printf '%s\n' "$DEPLOY_KEY" > "$W/key")
  check=accept-new
  if [ -n "%{SSH_HOST_KEY:-}" ]; then printf '%s %s\n' "$SSH_HOST_ALIAS" "$SSH_HOST_KEY" > "$W/known_hosts"; check=yes; fi
  export GIT_SSH_COMMAND="ssh -i $W/key -o IdentitiesOnly=yes -o BatchMode=yes -o HostKeyAlias=$SSH_HOST_ALIAS -o StrictHostKeyChecking=$check -o UserKnownHostsFile=$W/known_hosts -o GlobalKnownHostsFile=/dev/null -o UpdateHostKeys=no -F /dev/null"
fi
unset DEPLOY_KEY
git init -q --bare "$G" || fail 'git init failed'
git "$@" --git-dir "$G" fetch --quiet --depth 1 --no-tags --no-recurse-submodules --end-of-options "$FETCH_URL" "+refs/heads/$BRANCH:refs/source/head" 2>"$W/err" &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  kb=$(du -sk "$G/objects" 2>/dev/null | cut -f1)
  if [ "$(( %{kb:-0} * 1024 ))" -gt "$MAX_BYTES" ]; then
    kill "$pid" 2>/dev/null
    fail "the repository is larger than the $MAX_BYTES-byte limit (over $(( kb * 1024 )) bytes fetched)"
  fi
  sleep 1
done
if ! wait "$pid"; then
  if grep -qiE "couldn't find remote ref|not our ref" "$W/err"; then fail "the branch $BRANCH does not exist in the repository"; fi
  fail "$(grep -E '^(fatal|error):|Permission denied \(|Host key verification failed' "$W/err" | head -3 | tr '\n' ' ')"
fi
host_key=""
[ -f "$W/known_hosts" ] && host_key=$(head -n 1 "$W/known_hosts" | cut -d ' ' -f 2,3)
commit=$(git --git-dir "$G" rev-parse --verify --end-of-options 'refs/source/head^{commit}') || fail 'no commit fetched'
sizes=$(git --git-dir "$G" ls-tree -r -l --end-of-options "$commit" | awk '{ n++; if ($4 ~ /^[0-9]+$/) b += $4 } END { printf "%d %.0f", n, b }')
files=%{sizes% *}; bytes=%{sizes#* }
[ "$files" -gt "$MAX_FILES" ] && fail "the repository has more than $MAX_FILES files"
[ "$bytes" -gt "$MAX_BYTES" ] && fail "the repository's files are larger than the $MAX_BYTES-byte limit"
mkdir -p "$A" || fail 'the addons volume is not writable'
stage="$A/$cur-$(printf '%s' "$commit" | cut -c1-12)-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"
mkdir "$stage" || fail 'cannot create the checkout folder'
if ! git "$@" --git-dir "$G" --work-tree "$stage" checkout --quiet --force --detach "$commit" 2>"$W/err"; then
  rm -rf "$stage"; fail "$(grep -E '^(fatal|error):' "$W/err" | head -3 | tr '\n' ' ')"
fi
root="$stage%{SUBPATH:+/$SUBPATH}"
found=""
for d in "$root"/*/ ; do
  n=$(basename "$d")
  case "$n" in *[!A-Za-z0-9_]*|'') continue ;; esac
  [ "%{#n}" -le 64 ] && [ -f "$d/__manifest__.py" ] && found="$found $n"
done
for n in $found; do
  case " $TAKEN " in *" $n="*)
    other=$(printf '%s' " $TAKEN " | sed "s/.* $n=\([^ ]*\) .*/\1/")
    rm -rf "$stage"; fail "the module $n is already provided by the addon source $other" ;;
  esac
done
for e in %{INSTALLED:-}; do
  case " $found " in *" %{e%%=*} "*) ;; *) rm -rf "$stage"; fail "the module %{e%%=*} is no longer in the repository but is installed on $(printf '%s' "%{e#*=}" | tr '_' ' ')" ;; esac
done
ln -s "$(basename "$stage")" "$A/.link-$SOURCE_ID-new" && mv -fT "$A/.link-$SOURCE_ID-new" "$A/$cur" || { rm -rf "$stage"; fail 'cannot switch the checkout'; }
prefix="$cur/%{SUBPATH:+$SUBPATH/}"
linked=""; skipped=""; modules=""
for n in $found; do
  p="$A/$n"
  if [ -L "$p" ]; then t=$(readlink "$p"); case "$t" in "$cur/"*) ;; *) skipped="$skipped,\"$n\""; continue ;; esac
  elif [ -e "$p" ]; then skipped="$skipped,\"$n\""; continue; fi
  if [ "$(readlink "$p" 2>/dev/null)" != "$prefix$n" ]; then ln -s "$prefix$n" "$A/.link-$SOURCE_ID-new" && mv -fT "$A/.link-$SOURCE_ID-new" "$p"; fi
  linked="$linked $n"
  modules="$modules,{\"name\":\"$n\",\"manifest\":\"$(head -c 8192 "$root/$n/__manifest__.py" | base64 | tr -d '\n')\"}"
done
remove_stale "$linked" "$stage"
say "{\"commit\":\"$commit\",\"modules\":[%{modules#,}],\"skipped\":[%{skipped#,}],\"host_key\":\"$host_key\"}"
`.replaceAll('%{', '${')
