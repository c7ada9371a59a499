#!/bin/sh
# The first set-up command: installs the Debian packages perfgate needs
# (only those missing; scripts/packages.txt), builds it in ./build, and
# runs it on the bundled example (scripts/demo.sh).  Safe to run again.
# The tests need more: ./test.sh installs that and runs them.
set -eu
cd "$(dirname "$0")"

# shellcheck disable=SC2046 # the list is meant to split
scripts/deps.sh $(cat scripts/packages.txt)
cmake -S . -B build >/dev/null
cmake --build build -j "$(nproc)" --target perfgate perfgate-measure
echo "bootstrap: built build/perfgate"
scripts/demo.sh build/perfgate
