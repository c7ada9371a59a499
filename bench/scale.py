#!/usr/bin/env python3
"""The gate at scale: how perfgate's time follows the size of a change.

Builds throwaway repositories of N benchmarks (one C source each, on the
built-in reduce_sum, one case) and times `perfgate compare HEAD~1 HEAD` for
a commit that changes nothing any benchmark builds from (a README), one
that changes one benchmark (2x slower), and one that changes all of them
(2x slower).  For each it reports the wall time, the measuring time (the
sum of the benchmarks' own `seconds`) and the rest (checking what a change
reaches, building, verifying), and how many benchmarks were not affected.

    python3 bench/scale.py [--sizes 1,10,100,400] [--out docs/scale.md]

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


def run(perfgate, repo):
    out = os.path.join(repo, "..", os.path.basename(repo) + ".json")
    start = time.monotonic()
    p = subprocess.run([perfgate, "compare", "main", "change", "-q",
                        "--noise-floor", "50%", "--json", out],
                       cwd=repo, capture_output=True, text=True)
    wall = time.monotonic() - start
    with open(out) as f:
        result = json.load(f)
    os.remove(out)
    measuring = sum(b["seconds"] or 0 for b in result["benchmarks"])
    skipped = sum(1 for b in result["benchmarks"] if b.get("not_affected"))
    regressions = result["counts"]["regression"]
    return p.returncode, wall, measuring, skipped, regressions


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1,10,100,400")
    ap.add_argument("--changes", default="nothing,one,all")
    ap.add_argument("--build-dir", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--out")
    args = ap.parse_args()
    perfgate = os.path.join(os.path.abspath(args.build_dir), "perfgate")
    rows = []
    started = time.monotonic()
    for n in [int(x) for x in args.sizes.split(",")]:
        repo = make_repo(n)
        try:
            for which in args.changes.split(","):
                change(repo, n, which)
                code, wall, measuring, skipped, regs = run(perfgate, repo)
                rows.append((n, which, wall, measuring, wall - measuring,
                             skipped, regs, code))
                print("%4d benchmarks, %-7s changed: %7.2f s wall, %6.2f s "
                      "measuring, %6.2f s the rest, %d not affected, "
                      "%d regressions (exit %d)" % rows[-1], flush=True)
        finally:
            shutil.rmtree(repo, ignore_errors=True)
    table = ["| benchmarks | changed | wall | measuring | the rest | "
             "not affected | regressions |",
             "|---|---|---|---|---|---|---|"]
    for n, which, wall, measuring, rest, skipped, regs, code in rows:
        table.append("| %d | %s | %.2f s | %.2f s | %.2f s | %d | %d |"
                     % (n, which, wall, measuring, rest, skipped, regs))
    text = ("Produced by `python3 bench/scale.py --sizes %s --changes %s` in "
            "%.0f s.\n\n" % (args.sizes, args.changes,
                             time.monotonic() - started) + "\n".join(table)
            + "\n")
    print()
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
