#!/usr/bin/env python3
"""The gate at scale: how perfgate's time follows the size of a change.

Builds throwaway repositories of N benchmarks (one C source each, on the
built-in reduce_sum, one case) and times `perfgate compare HEAD~1 HEAD` for
a commit that changes nothing any benchmark builds from (a README), one
that changes one benchmark (2x slower), and one that changes all of them
(2x slower), each with a cold build cache (empty) and a warm one (what the
cold run left).  For each it reports the wall time, the building time
(checking what the change reaches, building or taking builds from the
cache: the result's `build_seconds`), the measuring time (the sum of the
benchmarks' own `seconds`), and how many benchmarks were not affected.
With all changed it also measures in 4 shards with the warm cache, merges
them, and checks that every benchmark's status is the unsharded one.

    python3 bench/scale.py [--sizes 1,10,100,400] [--changes nothing,one]
                           [--tmpdir /dev/shm] [--out docs/scale.md]

--tmpdir is the TMPDIR perfgate runs with: where it writes the revisions
it compares (on a disk file system, creating their files is a cost of its
own).

Nothing else heavy should run on the machine meanwhile.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))
from harness import SERIAL, TWICE  # noqa: E402


def git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def make_repo(n):
    repo = tempfile.mkdtemp(prefix="pg-scale-")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "bench@example.com")
    git(repo, "config", "user.name", "bench")
    config = "version: 1\nsettings: {max_time: 2s}\nbenchmarks:\n"
    os.makedirs(os.path.join(repo, "src"))
    for i in range(n):
        config += ("  - {name: b%d, problem: reduce_sum, sources: "
                   "[src/b%d.c], cases: [{n: 20000}]}\n" % (i, i))
        with open(os.path.join(repo, "src", "b%d.c" % i), "w") as f:
            f.write("/* benchmark %d */\n%s" % (i, SERIAL))
    with open(os.path.join(repo, "perfgate.yml"), "w") as f:
        f.write(config)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo


def change(repo, n, which):
    """A commit on top of the base: 'nothing', 'one' or 'all' changed."""
    git(repo, "reset", "-q", "--hard", "main")
    git(repo, "checkout", "-q", "-B", "change")
    with open(os.path.join(repo, "README"), "w") as f:
        f.write("a change to the docs\n")
    for i in range({"nothing": 0, "one": 1, "all": n}[which]):
        with open(os.path.join(repo, "src", "b%d.c" % i), "w") as f:
            f.write("/* benchmark %d */\n%s" % (i, TWICE))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", which)


def run(perfgate, repo, cache, *extra):
    out = os.path.join(repo, "..", os.path.basename(repo) + ".json")
    start = time.monotonic()
    p = subprocess.run([perfgate, "compare", "main", "change", "-q",
                        "--noise-floor", "50%", "--json", out,
                        "--cache-dir", cache, *extra],
                       cwd=repo, capture_output=True, text=True)
    wall = time.monotonic() - start
    with open(out) as f:
        result = json.load(f)
    os.remove(out)
    return p.returncode, wall, result


def figures(result):
    measuring = sum(b["seconds"] or 0 for b in result["benchmarks"])
    skipped = sum(1 for b in result["benchmarks"] if b.get("not_affected"))
    return (result.get("build_seconds") or 0, measuring, skipped,
            result["counts"]["regression"])


def statuses(result):
    return {b["name"]: b["status"] for b in result["benchmarks"]}


def sharded(perfgate, repo, cache, whole, shards=4):
    """Measures in `shards` shards and merges: 1 when every benchmark's
    status is the unsharded run's; and the slowest shard's wall time."""
    paths, slowest = [], 0.0
    for k in range(1, shards + 1):
        path = os.path.join(repo, "..", "shard-%d.json" % k)
        start = time.monotonic()
        subprocess.run([perfgate, "compare", "main", "change", "-q",
                        "--noise-floor", "50%", "--cache-dir", cache,
                        "--shard", "%d/%d" % (k, shards), "--json", path],
                       cwd=repo, capture_output=True)
        slowest = max(slowest, time.monotonic() - start)
        paths.append(path)
    merged = os.path.join(repo, "..", "merged.json")
    subprocess.run([perfgate, "merge", "--json", merged, *paths],
                   capture_output=True)
    with open(merged) as f:
        result = json.load(f)
    for p in paths + [merged]:
        os.remove(p)
    return statuses(result) == statuses(whole), slowest


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1,10,100,400")
    ap.add_argument("--changes", default="nothing,one,all")
    ap.add_argument("--build-dir", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--tmpdir", help="TMPDIR for perfgate")
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.tmpdir:
        os.environ["TMPDIR"] = args.tmpdir
    perfgate = os.path.join(os.path.abspath(args.build_dir), "perfgate")
    rows, shard_rows = [], []
    started = time.monotonic()
    for n in [int(x) for x in args.sizes.split(",")]:
        repo = make_repo(n)
        try:
            for which in args.changes.split(","):
                change(repo, n, which)
                cache = tempfile.mkdtemp(prefix="pg-scale-cache-")
                for state in ("cold", "warm"):
                    code, wall, result = run(perfgate, repo, cache)
                    rows.append((n, which, state, wall) + figures(result))
                    print("%4d benchmarks, %-7s changed, %s cache: %7.2f s "
                          "wall, %6.2f s building, %6.2f s measuring, %d not "
                          "affected, %d regressions" % rows[-1], flush=True)
                if which == "all":
                    agree, slowest = sharded(perfgate, repo, cache, result)
                    shard_rows.append((n, agree, slowest, wall))
                    print("%4d benchmarks, all changed, 4 shards: statuses "
                          "%s the unsharded run's; slowest shard %.2f s"
                          % (n, "equal" if agree else "DIFFER from", slowest),
                          flush=True)
                shutil.rmtree(cache, ignore_errors=True)
        finally:
            shutil.rmtree(repo, ignore_errors=True)
    table = ["| benchmarks | changed | cache | wall | building | measuring "
             "| not affected | regressions |",
             "|---|---|---|---|---|---|---|---|"]
    for n, which, state, wall, build, measuring, skipped, regs in rows:
        table.append("| %d | %s | %s | %.2f s | %.2f s | %.2f s | %d | %d |"
                     % (n, which, state, wall, build, measuring, skipped,
                        regs))
    if shard_rows:
        table += ["", "All changed, warm cache, in 4 shards run one after "
                  "the other and merged:", "",
                  "| benchmarks | statuses equal the unsharded run's | "
                  "slowest shard | unsharded |", "|---|---|---|---|"]
        for n, agree, slowest, whole in shard_rows:
            table.append("| %d | %s | %.2f s | %.2f s |"
                         % (n, "yes" if agree else "**no**", slowest, whole))
    text = ("Produced by `python3 bench/scale.py --sizes %s --changes %s%s` in "
            "%.0f s.\n\n" % (args.sizes, args.changes,
                             " --tmpdir " + args.tmpdir if args.tmpdir else "",
                             time.monotonic() - started) + "\n".join(table)
            + "\n")
    print()
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
