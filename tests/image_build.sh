#!/bin/sh
# Runs the Docker image's build script into DIR (the Dockerfile must call
# it), then checks what it installed.
#   usage: image_build.sh SOURCE_DIR DIR
set -eu
src=$1
dir=$2
grep -q '^RUN /src/scripts/docker-build.sh ' "$src/Dockerfile"
rm -rf "$dir"
"$src/scripts/docker-build.sh" "$dir/prefix" "$dir/build"
test -x "$dir/prefix/bin/perfgate"
test -f "$dir/prefix/share/perfgate/include/perfgate/problem.h"
test "$(find "$dir/prefix/share/perfgate/problems" -name "*.c" | wc -l)" -eq 10
rm -rf "$dir"
