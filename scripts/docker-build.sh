#!/bin/sh
# The Docker image's build stage, as a script so that the test suite runs
# exactly what the Dockerfile runs: install the packages, build, run the
# unit tests, install into PREFIX, and run the installed perfgate's
# quickstart end to end.
#   usage: scripts/docker-build.sh PREFIX BUILD_DIR
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:?usage: scripts/docker-build.sh PREFIX BUILD_DIR}
build=${2:?usage: scripts/docker-build.sh PREFIX BUILD_DIR}

# shellcheck disable=SC2046 # the list is meant to split
"$src/scripts/deps.sh" $(cat "$src/scripts/packages.txt")
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
cmake --build "$build" -j "$(nproc)" --target perfgate unit_tests
ctest --test-dir "$build" --output-on-failure \
    -R '^unit\.(util|config|stats|report|system|gpu|ci)$'
cmake --install "$build" >/dev/null

# The installed layout works: the quickstart, as the demo runs it, with
# the installed perfgate (problems found, both sides built, measured and
# judged: a pass, then a regression).
"$prefix/share/perfgate/scripts/demo.sh" "$prefix/bin/perfgate" >/dev/null
echo "perfgate: built, tested and installed in $prefix"
