#!/bin/sh
# The Docker image's build stage, as a script so that the test suite runs
# exactly what the Dockerfile runs: install the packages, build, run the
# unit tests, install into PREFIX, and try the installed perfgate end to end
# on a throwaway repository.
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

# The installed layout works: problems found, a benchmark built and run.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(
    cd "$work"
    export GIT_AUTHOR_NAME=perfgate GIT_AUTHOR_EMAIL=perfgate@localhost
    export GIT_COMMITTER_NAME=perfgate GIT_COMMITTER_EMAIL=perfgate@localhost
    git init -q
    "$prefix/bin/perfgate" init vector_add >/dev/null
    cp "$src/examples/problems/vector_add/solution.c" perf/vector_add.c
    git add -A
    git commit -q -m "vector_add"
    "$prefix/bin/perfgate" compare --no-ci --max-time 1s --noise-floor 50% \
        HEAD HEAD >/dev/null
)
echo "perfgate: built, tested and installed in $prefix"
