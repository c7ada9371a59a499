#!/bin/sh
# Installs the Debian packages perfgate needs (only those missing), then
# configures and builds perfgate in ./build.  Safe to run again.
set -eu
cd "$(dirname "$0")"

# The first line builds perfgate; the second is the benchmark's peer
# (Google Benchmark and its compare.py, which needs scipy), the linter the
# tests run on every shell script, and the formatter they run on changed
# C lines; the third, the profiler --profile uses and the browser the
# tests open the HTML report in.
# shellcheck disable=SC2046 # the list is meant to split
scripts/deps.sh $(cat scripts/packages.txt) \
    libbenchmark-dev libbenchmark-tools python3-scipy shellcheck python3-yaml \
    clang-format \
    valgrind chromium

# The schema check the tests run on action.yml and the workflow templates
# (from the npm registry, into build/tools).
command -v npm >/dev/null 2>&1 || scripts/deps.sh npm
if [ ! -x build/tools/node_modules/.bin/action-validator ]; then
    npm install --silent --no-audit --no-fund --prefix build/tools \
        @action-validator/cli@0.6.0
fi

cmake -S . -B build -DPERFGATE_WERROR=ON
cmake --build build -j "$(nproc)"
echo "bootstrap: built build/perfgate"
