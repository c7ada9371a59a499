#!/bin/sh
# Builds perfgate with AddressSanitizer and UBSan in its own build tree and
# runs the test suite there (timing tests aside: sanitizers slow the
# harness, not what it measures, but they are not worth the wait).
#   usage: sanitize.sh SOURCE_DIR BUILD_DIR
set -eu
src=$1
dir=$2
cmake -S "$src" -B "$dir" -DPERFGATE_SANITIZE=ON -DPERFGATE_WERROR=ON \
    -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$dir" -j "$(nproc)" >/dev/null
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
LSAN_OPTIONS=suppressions=$src/tests/lsan.supp:print_suppressions=0 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$dir" --output-on-failure -LE 'timing|sanitizer|cuda|lint|image'
