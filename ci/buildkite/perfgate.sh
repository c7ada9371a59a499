#!/bin/sh
# Buildkite's perfgate step: compare the pull request with its merge base,
# put the report on the build page as an annotation, and keep perfgate's
# verdict as the step's.
set -u
# The base branch, whose merge base with the pull request is the base.
git fetch --no-tags origin \
    "+refs/heads/$BUILDKITE_PULL_REQUEST_BASE_BRANCH:refs/remotes/origin/$BUILDKITE_PULL_REQUEST_BASE_BRANCH"
status=0
# Builds are kept in ~/.cache/perfgate (XDG_CACHE_HOME/perfgate) between
# runs on a long-lived agent; in a container, mount a volume there to keep
# them, or pass --no-cache.
# Exit 78: passed, but a case got slower beyond the floor under the total
# (soft_fail in pipeline.yml shows it as a warning).
perfgate compare --json perfgate.json --markdown perfgate.md \
    --warning-exit-code 78 || status=$?
if [ -f perfgate.md ]; then
    case $status in
    0) style=success ;;
    78) style=warning ;;
    *) style=error ;;
    esac
    buildkite-agent annotate --style "$style" --context perfgate <perfgate.md
fi
exit "$status"
