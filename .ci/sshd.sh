# Sourced by .ci/run. OpenSSH's server for the tests of ssh:// addon sources (a test starts its own
# `sshd -D -f <config>` on a free loopback port as the current user): Debian's openssh-server,
# installed only when no sshd is found. The tests need no system service: nothing is started here.
sshd_bin() { command -v sshd 2>/dev/null || { [ -x /usr/sbin/sshd ] && echo /usr/sbin/sshd; }; }
if [ -z "$(sshd_bin)" ]; then
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 || { echo "--- SSHD: need openssh-server (Debian: apt-get install openssh-server)" >&2; exit 1; }
  echo "--- installing openssh-server (Debian package)"
  apt-get update -qq
  # policy-rc.d 101: the package's postinst must not start a system sshd on port 22.
  # (An existing policy-rc.d, as container images have, is left as it is.)
  sshd_policy_made=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 0755 /usr/sbin/policy-rc.d && sshd_policy_made=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssh-server >/dev/null
  [ -z "$sshd_policy_made" ] || rm -f /usr/sbin/policy-rc.d
fi
echo "--- sshd: $(sshd_bin)"
