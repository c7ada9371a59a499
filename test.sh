#!/bin/sh
# The second set-up command: installs what perfgate's tests and benchmarks
# need beyond the tool itself (scripts/test-packages.txt: Google Benchmark
# and scipy for the benchmark's peer, PyYAML, shellcheck, clang-format,
# valgrind for --profile, Chromium for the HTML report, npm for the
# workflow schema check), builds everything with warnings as errors, and
# runs the whole suite.  Arguments go to ctest: ./test.sh -L unit.
set -eu
cd "$(dirname "$0")"

# shellcheck disable=SC2046 # the list is meant to split
scripts/deps.sh $(cat scripts/packages.txt scripts/test-packages.txt)
# From the npm registry, into build/tools: the schema check the tests run
# on action.yml and the workflow templates, and gitlab-ci-local, which runs
# the GitLab templates (4.53.0: the last that runs on Debian 12's Node 20).
command -v npm >/dev/null 2>&1 || scripts/deps.sh npm
if [ ! -x build/tools/node_modules/.bin/action-validator ] ||
    [ ! -x build/tools/node_modules/.bin/gitlab-ci-local ]; then
    npm install --silent --no-audit --no-fund --prefix build/tools \
        @action-validator/cli@0.6.0 gitlab-ci-local@4.53.0
fi

cmake -S . -B build -DPERFGATE_WERROR=ON >/dev/null
cmake --build build -j "$(nproc)"
if [ $# -eq 0 ]; then
    set -- -j "$(nproc)"
fi
exec ctest --test-dir build --output-on-failure "$@"
