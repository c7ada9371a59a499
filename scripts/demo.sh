#!/bin/sh
# perfgate's main job on the bundled example (examples/quickstart), as a
# newcomer's first run: the example becomes a git repository in a
# temporary directory, the working tree is compared with HEAD (nothing
# changed: the gate passes), then its sum is made several times slower and
# compared again (the gate fails, exit status 1).  The directory is removed
# afterwards; README.md's quickstart does the same by hand.
#   usage: scripts/demo.sh [PERFGATE]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
perfgate=${1:-$src/build/perfgate}
# A path is taken from here; a bare name is looked up on PATH.
case $perfgate in
*/*) perfgate=$(cd "$(dirname "$perfgate")" && pwd)/$(basename "$perfgate") ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/perfgate-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

cp -r "$src/examples/quickstart/." "$work"
cd "$work"
export GIT_AUTHOR_NAME=perfgate GIT_AUTHOR_EMAIL=perfgate@localhost
export GIT_COMMITTER_NAME=perfgate GIT_COMMITTER_EMAIL=perfgate@localhost
git init -q
git add .
git commit -qm "first version"

echo
echo "\$ perfgate compare        # the working tree against HEAD: nothing changed"
"$perfgate" compare --no-ci
echo
echo "\$ sed -i 's/LANES 8/LANES 1/' src/sum.c    # the sum becomes one serial chain"
sed -i 's/LANES 8/LANES 1/' src/sum.c
echo "\$ perfgate compare"
status=0
"$perfgate" compare --no-ci || status=$?
echo
if [ "$status" -ne 1 ]; then
    echo "demo: the second compare should have failed the gate (exit 1), not exit $status" >&2
    exit 1
fi
echo "The gate failed on the slower sum (exit status 1), as it would on a pull"
echo "request. Next: README.md's \"Gate a function of yours\"."
