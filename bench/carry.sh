#!/bin/sh
# bench/carry.sh DIR: perfgate, perfgate-measure, bubblewrap (where this
# machine has it, for the box) and the shared libraries they link (glibc's
# own excepted) copied into DIR, with DIR/env.sh to source on a machine
# that has none of them: a GPU machine without libgit2, libyaml or cJSON
# and without a package registry.  There, from a copy of this repository:
#
#   . DIR/env.sh          # PERFGATE, PERFGATE_DATA_DIR, LD_LIBRARY_PATH, PATH
#   python3 tests/integration/test_cuda.py Gpu
#   python3 bench/gpu.py --perfgate "$PERFGATE"
#
# Both machines must be x86-64, and the other's glibc as new as this one's
# (Debian 12: 2.36).  Build first (./bootstrap.sh).
set -eu
cd "$(dirname "$0")/.."

if [ $# -ne 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
    echo "usage: bench/carry.sh DIR" >&2
    exit 2
fi
if [ ! -x build/perfgate ] || [ ! -x build/perfgate-measure ]; then
    echo "bench/carry.sh: build/perfgate is not built: run ./bootstrap.sh" >&2
    exit 1
fi
dir=$1
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/lib"
cp build/perfgate build/perfgate-measure "$dir/bin/"
bwrap=$(command -v bwrap || true)
[ -n "$bwrap" ] && cp "$bwrap" "$dir/bin/"
# Every library ldd resolves, but the C library's own (the other machine
# has its own, and mixing two is what breaks).
ldd build/perfgate build/perfgate-measure ${bwrap:+"$bwrap"} |
    awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
    while read -r lib; do
        case ${lib##*/} in
        libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | \
            libresolv.so* | ld-linux*) ;;
        *) cp -L "$lib" "$dir/lib/" ;;
        esac
    done
# Sourced from the root of the repository's copy on the other machine,
# which is the data directory (problems/, include/).
case $dir in
/*) at=$dir ;;
*) at="\$PWD/$dir" ;;
esac
cat >"$dir/env.sh" <<EOF
# . $dir/env.sh, from the repository's root (bench/carry.sh)
export PERFGATE="$at/bin/perfgate"
export PERFGATE_DATA_DIR="\$PWD"
export LD_LIBRARY_PATH="$at/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export PATH="$at/bin:\$PATH"
EOF
echo "bench/carry.sh: $(find "$dir/lib" -type f | wc -l) libraries and perfgate in $dir;" \
    "there: . $dir/env.sh" >&2
