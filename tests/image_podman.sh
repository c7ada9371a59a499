#!/bin/sh
# Builds the Dockerfile as it is, with podman, on a Debian base that
# mmdebstrap makes from the package registry (the CUDA base it names
# cannot be had offline; BASE is the Dockerfile's own argument for that).
# The build runs the unit tests and, in the image as it ships, the
# quickstart (a pass, then a regression caught): a build that succeeds
# is the check.  Skipped (77) without podman or mmdebstrap, which
# ./test.sh installs.
#   usage: image_podman.sh SOURCE_DIR WORK_DIR
set -eu
src=$1
work=$2
for tool in podman mmdebstrap; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "image_podman: no $tool (./test.sh installs it): skipped"
        exit 77
    fi
done

tag=perfgate-test-$$
base=localhost/$tag-base
image=localhost/$tag
rm -rf "$work"
mkdir -p "$work"
cleanup() {
    podman rmi -f "$image" "$base" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The host's release, the smallest variant that apt works in.
suite=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
suite=${suite:-bookworm}
mmdebstrap --quiet --variant=minbase "$suite" "$work/base.tar"
podman import --quiet "$work/base.tar" "$base" >/dev/null
rm -f "$work/base.tar"

# chroot isolation: no container runtime needed, as in a CI job's shell.
# No layers kept: nothing of the build stays behind but the image.
podman build --isolation chroot --layers=false --no-cache \
    --build-arg "BASE=$base" -t "$image" "$src" >"$work/build.log" 2>&1 || {
    tail -n 60 "$work/build.log"
    echo "image_podman: podman build failed (the log's end is above)" >&2
    exit 1
}
# Both stages ran what they must: the unit tests in the build, and the
# quickstart's regression caught in the image that ships.
grep -q "perfgate: built, tested and installed in /opt/perfgate" \
    "$work/build.log"
grep -q "The gate failed on the slower sum (exit status 1)" "$work/build.log"
# The image as it ships: perfgate on PATH as its entrypoint.
podman image inspect --format '{{.Config.Entrypoint}}' "$image" |
    grep -q perfgate
echo "image_podman: the Dockerfile built on $suite, its quickstart ran"
