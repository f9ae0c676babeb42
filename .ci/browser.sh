# Sourced by .ci/run (like .ci/docker.sh).
# Chromium for the real-browser test (test/auth-server/browser.test.ts drives it with playwright-core,
#    executablePath /usr/bin/chromium, never a downloaded browser): the machine's when it runs; else
#    Debian's chromium, installed here (as root). Exports nothing: without Chromium that test fails, not skips.
chromium_bin=/usr/bin/chromium
chromium_ok() { [ -x "$chromium_bin" ] && "$chromium_bin" --version >/dev/null 2>&1; }
browser_fail() {
  echo "--- BROWSER: $*" >&2
  exit 1
}
if ! chromium_ok; then
  browser_started=$(date +%s%N)
  [ "$(id -u)" = 0 ] || browser_fail "need chromium at $chromium_bin but not running as root: install it (Debian: apt-get install chromium)"
  command -v apt-get >/dev/null 2>&1 || browser_fail "need chromium at $chromium_bin and there is no apt-get: install Chromium there"
  echo "--- installing chromium (Debian package)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  chromium_ok || browser_fail "chromium was installed but $chromium_bin --version does not run"
  echo "--- installed in $(( ($(date +%s%N) - browser_started) / 1000000 )) ms"
fi
echo "--- $("$chromium_bin" --version 2>/dev/null) at $chromium_bin"
