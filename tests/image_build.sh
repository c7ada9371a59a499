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
test -f "$dir/prefix/share/perfgate/include/perfgate/function.h"
test "$(find "$dir/prefix/share/perfgate/problems" -name "*.c" | wc -l)" -eq 10
# The installed perfgate gates a function declared by its prototype: its
# generated problem compiles against the installed headers alone.
repo=$dir/repo
mkdir -p "$repo"
git init -q "$repo"
cat >"$repo/f.c" <<'C'
#include <stddef.h>
long sum(const int *x, size_t n)
{
    long s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s;
}
C
cat >"$repo/perfgate.yml" <<'YML'
version: 1
settings: {max_time: 0.2s}
benchmarks:
  - name: sum
    function: "long sum(const int *x, size_t n)"
    sources: [f.c]
    args: {x: {count: n}}
    cases: [{n: 100000}]
YML
git -C "$repo" add -A
git -C "$repo" -c user.name=t -c user.email=t@localhost commit -qm base
# The head sums backwards: other code, the same result, checked against
# the base (the floor is wide: this checks the install, not the machine).
sed -i 's/for (size_t i = 0; i < n; i++)/for (size_t i = n; i-- > 0;)/' \
    "$repo/f.c"
(cd "$repo" && PERFGATE_DATA_DIR='' "$dir/prefix/bin/perfgate" compare \
    --no-ci --noise-floor 90% --json "$dir/r.json" >/dev/null)
grep -q '"verdict":[[:space:]]*"pass"' "$dir/r.json"
rm -rf "$dir"
