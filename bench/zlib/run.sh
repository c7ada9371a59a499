#!/bin/sh
# bench/zlib/run.sh ZLIB_CLONE [TRIALS]
#
# perfgate on real code that nobody here wrote: zlib's crc32(), at zlib's own
# commits.  It makes a throwaway repository with one commit per zlib
# revision (crc32.c and the headers it includes, read from ZLIB_CLONE with
# `git show`; nothing of zlib is kept in perfgate) and crc32_problem.c
# beside it, then runs `perfgate compare` on these pairs, TRIALS times each
# (default 5):
#
#   f8719f5^ f8719f5   "Speed up software CRC-32 computation by a factor of
#                      1.5 to 3" (braided CRC): expected faster
#   e9d5486^ e9d5486   "Remove K&R function definitions": no change meant
#   --aa e9d5486       the same revision against itself, measured
#
# and prints one line per run and benchmark: pair, benchmark, verdict,
# total change and interval, seconds spent measuring, and each case's
# change.  Two benchmarks gate the same function: crc32, with the problem
# file beside this script, and crc32_fn, declared by its prototype alone.  Get a clone with
#   git clone https://github.com/madler/zlib
set -eu
here=$(cd "$(dirname "$0")" && pwd)
zlib=${1:?usage: bench/zlib/run.sh ZLIB_CLONE [TRIALS]}
trials=${2:-5}
perfgate=${PERFGATE:-$here/../../build/perfgate}
[ -x "$perfgate" ] || { echo "run.sh: $perfgate is missing: run ./bootstrap.sh first" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfgate-zlib-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
repo=$tmp/repo
git init -q "$repo"
mkdir -p "$repo/perf"
cp "$here/crc32_problem.c" "$repo/perf/crc32.c"
cat >"$repo/perfgate.yml" <<'YML'
version: 1
benchmarks:
  - name: crc32
    problem: perf/crc32.c
    sources: [crc32.c]
    include: [.]
    symbol: crc32
    cases: [{n: 64}, {n: 4096}, {n: 1048576}]
  # The same function declared by its prototype: no problem file, the head
  # checked against the base.
  - name: crc32_fn
    function: "unsigned long crc32(unsigned long crc, const unsigned char *buf, unsigned int len)"
    sources: [crc32.c]
    include: [.]
    args: {crc: 0, buf: {count: n}, len: n}
    cases: [{n: 64}, {n: 4096}, {n: 1048576}]
YML
for rev in f8719f5^ f8719f5 e9d5486^ e9d5486; do
    for f in crc32.c crc32.h zutil.h zlib.h zconf.h; do
        git -C "$zlib" show "$rev:$f" >"$repo/$f"
    done
    git -C "$repo" add -A
    git -C "$repo" -c user.name=bench -c user.email=bench@localhost \
        commit -q --allow-empty -m "zlib $rev ($(git -C "$zlib" rev-parse --short "$rev"))"
    git -C "$repo" tag "z$(echo "$rev" | tr '^' p)"
done
report() {
    python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))
for b in r["benchmarks"]:
    iv = b.get("change_interval") or [float("nan")] * 2
    cases = " ".join("%s %+.1f%%" % (c["name"], 100 * c["change"])
                     for c in b.get("cases", []) if c.get("change") is not None)
    change = b["change"] if b["change"] is not None else float("nan")
    print("%-20s %-9s %-12s %+7.2f%% [%+.2f, %+.2f] %5.2fs%s  %s" % (
        sys.argv[1], b["name"], b["status"], 100 * change, 100 * iv[0],
        100 * iv[1], b.get("seconds") or 0,
        " identical code" if b.get("identical_code") else "", cases))
PY
}
i=0
while [ "$i" -lt "$trials" ]; do
    i=$((i + 1))
    for pair in "zf8719f5p zf8719f5" "ze9d5486p ze9d5486" "--aa ze9d5486"; do
        # shellcheck disable=SC2086
        "$perfgate" -C "$repo" compare -q $pair --json "$tmp/r.json" \
            >/dev/null || true
        report "$pair" "$tmp/r.json"
    done
done
