#!/bin/sh
# bench/function/run.sh MIRRORS_DIR [TRIALS]
#
# Functions of real projects gated from their prototype alone: each config
# below is at most 8 lines, and no C is written.  For each project it makes
# a throwaway repository with one commit per revision (the project's files
# read with `git archive` from a clone; nothing of them is kept in
# perfgate), then runs `perfgate compare` on the pair, TRIALS times
# (default 3), and prints one line per run and benchmark: verdict, change,
# interval, seconds spent measuring, and each case's change.
#
#   zlib   f8719f5^ f8719f5  braided CRC-32: crc32_z faster; adler32_z
#                            untouched (identical code once built)
#   zlib   e9d5486^ e9d5486  K&R definitions removed: no change meant
#   lz4    629ba802^ 629ba802  "decomp: refine read_variable_length codegen
#                            layout": LZ4_decompress_safe, its input made by
#                            the side's own LZ4_compress_default
#   base64 b8b3c58^ b8b3c58  "Generic64: enc: use 12-bit lookup table":
#                            base64_encode faster (the project's own make)
#   zlib-ng 34e18dbf^ 34e18dbf  "Speed up crc32_[v]pclmulqdq on small
#                            strings": zng_crc32 through zlib-ng's own
#                            CMake build, which picks its code path by the
#                            CPU's features at run time (VPCLMULQDQ where
#                            the CPU has AVX-512, PCLMULQDQ under valgrind)
#
# MIRRORS_DIR holds clones named madler+zlib/repo, lz4+lz4/repo,
# aklomp+base64/repo and zlib-ng+zlib-ng/repo (as the search tool's fetch
# leaves them); a missing one is skipped.
#
# MEASURE=all (or instructions, cycles) passes --measure: under `all` each
# benchmark gets a second line, its counted verdict, and a third when the
# two disagree (perfgate's own reason) or the count ran on another code
# path.
set -eu
mirrors=${1:?usage: bench/function/run.sh MIRRORS_DIR [TRIALS]}
trials=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
perfgate=${PERFGATE:-$here/../../build/perfgate}
[ -x "$perfgate" ] || { echo "run.sh: $perfgate is missing: run ./bootstrap.sh first" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfgate-function-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# project REPO NAME CONFIG PATHS BASE HEAD: a repository of two commits.
project() {
    src=$1 name=$2 config=$3 paths=$4 base=$5 head=$6
    repo=$tmp/$name-$head
    git init -q "$repo"
    for rev in "$base" "$head"; do
        git -C "$repo" rm -rq --ignore-unmatch . >/dev/null
        # shellcheck disable=SC2086
        git -C "$src" archive "$rev" $paths | tar x -C "$repo"
        printf '%s' "$config" >"$repo/perfgate.yml"
        git -C "$repo" add -A
        git -C "$repo" -c user.name=bench -c user.email=bench@localhost \
            commit -q -m "$name $rev"
    done
    i=0
    while [ "$i" -lt "$trials" ]; do
        i=$((i + 1))
        # shellcheck disable=SC2086
        "$perfgate" -C "$repo" compare -q HEAD~1 HEAD --json "$tmp/r.json" \
            ${MEASURE:+--measure "$MEASURE"} >/dev/null || true
        python3 - "$name $base..$head" "$tmp/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))
def line(pair, name, b):
    change = b["change"] if b.get("change") is not None else float("nan")
    metric = b.get("metric", "time")
    head = "%-26s %-16s %-12s %-12s %+7.2f%%" % (pair, name, metric,
                                                 b["status"], 100 * change)
    if b.get("identical_code"):
        print(head + " (identical code)")
        return
    iv = b.get("change_interval") or [float("nan")] * 2
    cases = " ".join("%s %+.1f%%" % (c["name"], 100 * c["change"])
                     for c in b.get("cases", []) if c.get("change") is not None)
    print("%s [%+.2f, %+.2f] %6.2fs  %s" % (
        head, 100 * iv[0], 100 * iv[1], b.get("seconds") or 0,
        cases or b.get("message") or ""))
for b in r["benchmarks"]:
    line(sys.argv[1], b["name"], b)
    if b.get("fails_gate") and b.get("counted"):
        print("%-26s %-16s fails the gate" % ("", ""))
    if b.get("counted"):
        line("", "", b["counted"])
    if b.get("disagreement"):
        print("%-26s %-16s disagree: %s" % ("", "", b["disagreement"]))
    # Under `all` the dispatch check's findings are the count's.
    path = b.get("code_path") or (b.get("counted") or {}).get("code_path") or {}
    for key in ("other", "uncounted"):
        if path.get(key):
            print("%-26s %-16s %s: %s" % ("", "", key, path[key]))
PY
    done
}

ZLIB='version: 1
benchmarks:
  - name: crc32_z
    function: "unsigned long crc32_z(unsigned long crc, const unsigned char *buf, size_t len)"
    sources: [crc32.c]
    args: {crc: 0, buf: {count: len}}
    cases: [{len: 64}, {len: 4096}, {len: 1048576}]
  - name: adler32_z
    function: "unsigned long adler32_z(unsigned long adler, const unsigned char *buf, size_t len)"
    sources: [adler32.c]
    args: {adler: 1, buf: {count: len}}
    cases: [{len: 64}, {len: 4096}, {len: 1048576}]
'
LZ4='version: 1
benchmarks:
  - name: LZ4_decompress_safe
    function: "int LZ4_decompress_safe(const char *src, char *dst, int compressedSize, int dstCapacity)"
    helpers: ["int LZ4_compress_default(const char *src, char *dst, int srcSize, int dstCapacity)"]
    sources: [lib/lz4.c]
    args: {src: {count: "n + n/255 + 16", from: "LZ4_compress_default(raw, src, n, n + n/255 + 16)", with: {raw: {count: n, fill: text}}}, compressedSize: src, dst: {count: n}, dstCapacity: n}
    cases: [{n: 4096}, {n: 65536}, {n: 1048576}]
'
BASE64='version: 1
benchmarks:
  - name: base64_encode
    function: "void base64_encode(const char *src, size_t srclen, char *out, size_t *outlen, int flags)"
    build: make lib/libbase64.o
    library: lib/libbase64.o
    args: {src: {count: srclen}, out: {count: "srclen*4/3 + 4"}, outlen: {count: 1}, flags: 0}
    cases: [{srclen: 64}, {srclen: 4096}, {srclen: 1048576}]
'
ZLIBNG='version: 1
benchmarks:
  - name: zng_crc32
    function: "uint32_t zng_crc32(uint32_t crc, const uint8_t *buf, uint32_t len)"
    build: cmake -S . -B out -DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_SHARED_LIBS=OFF -DZLIB_ENABLE_TESTS=OFF -DWITH_GTEST=OFF >/dev/null && cmake --build out -j2 >/dev/null
    library: out/libz-ng.a
    args: {crc: 0, buf: {count: len}}
    cases: [{len: 12}, {len: 64}, {len: 4096}]
'
if [ -d "$mirrors/madler+zlib/repo" ]; then
    z=$mirrors/madler+zlib/repo
    files="crc32.c crc32.h adler32.c zutil.h zlib.h zconf.h"
    project "$z" zlib "$ZLIB" "$files" f8719f5^ f8719f5
    project "$z" zlib "$ZLIB" "$files" e9d5486^ e9d5486
fi
if [ -d "$mirrors/lz4+lz4/repo" ]; then
    project "$mirrors/lz4+lz4/repo" lz4 "$LZ4" "lib/lz4.c lib/lz4.h" \
        629ba802^ 629ba802
fi
if [ -d "$mirrors/aklomp+base64/repo" ]; then
    project "$mirrors/aklomp+base64/repo" base64 "$BASE64" \
        "lib include Makefile" b8b3c58^ b8b3c58
fi
if [ -d "$mirrors/zlib-ng+zlib-ng/repo" ]; then
    project "$mirrors/zlib-ng+zlib-ng/repo" zlib-ng "$ZLIBNG" . \
        34e18dbf^ 34e18dbf
fi
