#!/bin/sh
# Installs the Debian packages perfgate needs (only those missing), then
# configures and builds perfgate in ./build.  Safe to run again.
set -eu
cd "$(dirname "$0")"

# The first line builds perfgate; the second is the benchmark's peer
# (Google Benchmark and its compare.py, which needs scipy) and the linter
# the tests run on every shell script.
# shellcheck disable=SC2046 # the list is meant to split
scripts/deps.sh $(cat scripts/packages.txt) \
    libbenchmark-dev libbenchmark-tools python3-scipy shellcheck

cmake -S . -B build -DPERFGATE_WERROR=ON
cmake --build build -j "$(nproc)"
echo "bootstrap: built build/perfgate"
