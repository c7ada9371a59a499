#!/bin/sh
# Lets bubblewrap make perfgate's box on Ubuntu 23.10 and later, whose
# AppArmor policy forbids unprivileged user namespaces
# (kernel.apparmor_restrict_unprivileged_userns=1): the narrow profile
# Canonical recommends, for /usr/bin/bwrap alone.  Used by the GitHub
# Action on GitHub's own runners, which are thrown away after the job; on
# a machine of your own, run it once by hand if you want the box there.
# Anywhere else (no such policy, no AppArmor) it does nothing.
#   usage: scripts/allow-bwrap.sh
set -eu

restrict=/proc/sys/kernel/apparmor_restrict_unprivileged_userns
[ "$(cat "$restrict" 2>/dev/null || echo 0)" = 1 ] || exit 0
[ -x /usr/bin/bwrap ] && command -v apparmor_parser >/dev/null 2>&1 || exit 0
profile=/etc/apparmor.d/perfgate-bwrap
[ -e "$profile" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "perfgate: this machine forbids the box (AppArmor restricts user namespaces) and there is no sudo to allow bubblewrap" >&2
    exit 0
fi
echo "perfgate: allowing /usr/bin/bwrap user namespaces (AppArmor profile $profile)"
printf '%s\n' 'abi <abi/4.0>,' 'include <tunables/global>' \
    'profile perfgate-bwrap /usr/bin/bwrap flags=(unconfined) {' \
    '  userns,' '}' | $sudo tee "$profile" >/dev/null
$sudo apparmor_parser -r "$profile"
