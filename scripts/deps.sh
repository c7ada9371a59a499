#!/bin/sh
# Installs the Debian (or Ubuntu) packages named on the command line that
# are not installed yet, with sudo when not root.  Used by bootstrap.sh, test.sh, the
# GitHub Action and the Docker image's build.
#   usage: scripts/deps.sh PACKAGE...
set -eu

missing=""
for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
        missing="$missing $p"
    fi
done
[ -n "$missing" ] || exit 0

echo "perfgate: installing$missing"
if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "perfgate: need root (or sudo) to install:$missing" >&2
    exit 1
fi
$sudo apt-get update -qq
# shellcheck disable=SC2086 # the list is meant to split
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
