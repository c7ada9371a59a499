#!/usr/bin/env python3
"""How big refs/perfgate/history grows, and how fast `perfgate history`
reads it: a repository of N pushes to main, each with a record of B
benchmarks on the ref, laid out as `perfgate record` lays them out (one
file per record under COMMIT[0..2]/COMMIT/, one commit on the ref per
record) and in its format; written with git fast-import, since measuring
5,000 pushes for real would take days.

    python3 bench/history_size.py                 # 5,000 records x 40
    python3 bench/history_size.py --records 500 --benchmarks 10

Prints a markdown table: the ref's size as perfgate writes it (loose
objects), packed (what a push or a fetch of it carries), and the wall time
of `perfgate history` over the last 200 pushes (its default), 1,000 and
all of them.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def record(commit, parent, tree, ptree, i, names, rng):
    """A record as perfgate writes it (src/history/record.c)."""
    benches = []
    for k, name in enumerate(names):
        if rng.random() < 0.7:  # most pushes do not reach most benchmarks
            benches.append({"name": name, "status": "unchanged",
                            "untouched": True, "base_ns": None,
                            "head_ns": None, "change": 0, "change_lo": 0,
                            "change_hi": 0})
            continue
        base = 1000.0 * (k + 1) * (1 + rng.gauss(0, 0.01))
        change = rng.gauss(0, 0.005)
        benches.append({"name": name, "status": "unchanged",
                        "base_ns": float("%.6g" % base),
                        "head_ns": float("%.6g" % (base * (1 + change))),
                        "change": float("%.6g" % change),
                        "change_lo": float("%.6g" % (change - 0.004)),
                        "change_hi": float("%.6g" % (change + 0.004))})
    return {"perfgate_record": 1, "commit": commit, "parent": parent,
            "tree": tree, "parent_tree": ptree,
            "subject": "push %d: a subject of ordinary length" % i,
            # An hour apart, all in the past: perfgate leaves out a record
            # dated ahead of its clock.
            "when": 1700000000 + 3600 * i,
            "machine": {"name": "AMD EPYC 7763 64-Core Processor, 4 cores",
                        "cpu": "AMD EPYC 7763 64-Core Processor", "cores": 4,
                        "kernel": "6.8.0-1017-azure",
                        "compiler": "cc (Ubuntu 13.2.0-23ubuntu4) 13.2.0"},
            "perfgate": "0.9.0", "method": 1,
            "config_digest": "%040x" % 12345, "noise_floor": 0.1,
            "benchmarks": benches}


def git(repo, *args, **kw):
    return subprocess.run(["git", "-C", repo, *args], check=True,
                          capture_output=True, text=True, **kw).stdout


def make(repo, n, b):
    git(repo, "init", "-q", "-b", "main")
    # main: n commits, each changing one file.
    imp = []
    for i in range(n):
        data = "line %d\n" % i
        imp.append("commit refs/heads/main\nmark :%d\n"
                   "committer t <t@e> %d +0000\ndata %d\npush %d\n"
                   % (i + 1, 1790000000 + i, len("push %d" % i) + 1, i))
        if i:
            imp.append("from :%d\n" % i)
        imp.append("M 644 inline src/f.c\ndata %d\n%s\n" % (len(data), data))
    subprocess.run(["git", "-C", repo, "fast-import", "--quiet"],
                   input="".join(imp), text=True, check=True)
    commits = git(repo, "rev-list", "--reverse", "main").split()
    trees = git(repo, "log", "--reverse", "--format=%T", "main").split()
    rng = random.Random(1)
    names = ["bench_%02d" % k for k in range(b)]
    imp = []
    for i in range(1, n):
        rec = json.dumps(record(commits[i], commits[i - 1], trees[i],
                                trees[i - 1], i, names, rng),
                         separators=(",", ":"))
        path = "%s/%s/%d-amd-epyc-7763-64-core-processor-4-cores-%08x.json" % (
            commits[i][:2], commits[i], 1790000000 + i, rng.getrandbits(32))
        msg = "perfgate record %s" % commits[i][:12]
        imp.append("commit refs/perfgate/history\nmark :%d\n"
                   "committer perfgate <perfgate@localhost> %d +0000\n"
                   "data %d\n%s\n" % (i, 1790000000 + i, len(msg), msg))
        if i > 1:
            imp.append("from :%d\n" % (i - 1))
        imp.append("M 644 inline %s\ndata %d\n%s\n"
                   % (path, len(rec.encode()), rec))
    subprocess.run(["git", "-C", repo, "fast-import", "--quiet"],
                   input="".join(imp), text=True, check=True)


def ref_size(repo):
    """Bytes of the objects only the ref reaches: zlib'd one by one (as
    libgit2 writes them), and packed with deltas (as pushed)."""
    objs = git(repo, "rev-list", "--objects", "refs/perfgate/history",
               "--not", "main").split("\n")
    ids = [o.split()[0] for o in objs if o.strip()]
    sizes = git(repo, "cat-file", "--batch-check=%(objectsize)",
                input="\n".join(ids) + "\n").split()
    raw = sum(int(s) for s in sizes)
    import zlib
    loose = 0
    batch = subprocess.run(["git", "-C", repo, "cat-file", "--batch"],
                           input=("\n".join(ids) + "\n").encode(),
                           capture_output=True,
                           check=True).stdout
    pos = 0
    while pos < len(batch):
        eol = batch.index(b"\n", pos)
        size = int(batch[pos:eol].split()[2])
        body = batch[eol + 1:eol + 1 + size]
        loose += len(zlib.compress(body))
        pos = eol + 1 + size + 1
    pack = subprocess.run(
        ["git", "-C", repo, "pack-objects", "--revs", "--stdout", "-q"],
        input=b"refs/perfgate/history\n^main\n", capture_output=True,
        check=True).stdout
    return len(ids), raw, loose, len(pack)


def timed(perfgate, repo, *args):
    best = None
    for _ in range(3):
        t = time.monotonic()
        p = subprocess.run([perfgate, "history", *args], cwd=repo,
                           capture_output=True, text=True)
        dt = time.monotonic() - t
        if p.returncode != 0:
            sys.exit("perfgate history failed: " + p.stderr)
        best = dt if best is None else min(best, dt)
    return best


def mib(n):
    return "%.1f MiB" % (n / 1048576)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=5000)
    ap.add_argument("--benchmarks", type=int, default=40)
    ap.add_argument("--perfgate", default=os.path.join(ROOT, "build",
                                                       "perfgate"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="pg-history-size-")
    try:
        repo = os.path.join(tmp, "repo")
        os.makedirs(repo)
        make(repo, a.records + 1, a.benchmarks)
        n, raw, loose, packed = ref_size(repo)
        print("%d records of %d benchmarks (%d objects on the ref)\n"
              % (a.records, a.benchmarks, n))
        print("| what | size |\n|---|---|")
        print("| records' JSON and trees, raw | %s |" % mib(raw))
        print("| as perfgate writes it (loose, zlib) | %s |" % mib(loose))
        print("| packed (a push or fetch of it) | %s |" % mib(packed))
        print("| per record, packed | %.0f bytes |\n" % (packed / a.records))
        print("| perfgate history | wall time (best of 3) |\n|---|---|")
        for last in (200, 1000, a.records):
            if last > a.records:
                continue
            print("| --last %d | %.2f s |" % (
                last, timed(a.perfgate, repo, "--last", str(last))))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
