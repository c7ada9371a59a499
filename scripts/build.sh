#!/bin/sh
# Builds the perfgate executable alone (no tests, no benchmark) into
# BUILD_DIR: what the GitHub Action and the Docker image ship.
#   usage: scripts/build.sh BUILD_DIR
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: scripts/build.sh BUILD_DIR}
cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
    >/dev/null
cmake --build "$dir" --target perfgate -j "$(nproc)"
echo "perfgate: built $dir/perfgate"
