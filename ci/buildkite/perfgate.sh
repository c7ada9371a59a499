#!/bin/sh
# Buildkite's perfgate step: compare the pull request with its merge base,
# put the report on the build page as an annotation, and keep perfgate's
# verdict as the step's.
set -u
# The base branch, whose merge base with the pull request is the base.
git fetch --no-tags origin \
    "+refs/heads/$BUILDKITE_PULL_REQUEST_BASE_BRANCH:refs/remotes/origin/$BUILDKITE_PULL_REQUEST_BASE_BRANCH"
status=0
# No build cache by default: a long-lived agent runs every pull request's
# code as one user, and a cache kept there (even one per pull request) can
# be written by any of them, to be measured as another's base.  Where each
# job runs in a container of its own, set PERFGATE_CACHE_DIR to a volume
# mounted there: each pull request keeps its builds in a directory of its
# own under it.
cache=--no-cache
if [ -n "${PERFGATE_CACHE_DIR:-}" ]; then
    cache="--cache-dir=$PERFGATE_CACHE_DIR/pr-$BUILDKITE_PULL_REQUEST"
fi
# main's history, read only, where a trusted job records one: the comment
# then says how main moved before the base.
git fetch --quiet origin "+refs/perfgate/history:refs/perfgate/history" ||
    true
# Exit 78: passed, but a case got slower beyond the floor under the total
# (soft_fail in pipeline.yml shows it as a warning).
perfgate compare --json perfgate.json --markdown perfgate.md "$cache" \
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
