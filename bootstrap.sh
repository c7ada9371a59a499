#!/bin/sh
# Installs the Debian packages perfgate needs (only those missing), then
# configures and builds perfgate in ./build.  Safe to run again.
set -eu

# The first line builds perfgate; the second is the benchmark's peer
# (Google Benchmark and its compare.py, which needs scipy).
packages="build-essential cmake pkg-config git python3 libgit2-dev libyaml-dev libcjson-dev
libbenchmark-dev libbenchmark-tools python3-scipy"

missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
        missing="$missing $p"
    fi
done

if [ -n "$missing" ]; then
    echo "bootstrap: installing$missing"
    if [ "$(id -u)" -eq 0 ]; then
        sudo=""
    elif command -v sudo >/dev/null 2>&1; then
        sudo="sudo"
    else
        echo "bootstrap: need root (or sudo) to install:$missing" >&2
        exit 1
    fi
    $sudo apt-get update -qq
    # shellcheck disable=SC2086 # the list is meant to split
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi

cd "$(dirname "$0")"
cmake -S . -B build -DPERFGATE_WERROR=ON
cmake --build build -j "$(nproc)"
echo "bootstrap: built build/perfgate"
