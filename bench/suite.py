#!/usr/bin/env python3
"""A Google Benchmark suite gated by perfgate (suite:), side by side with
Google Benchmark's own compare.py on the same two binaries in the same
trial.  See bench/README.md, "Suites".

    python3 bench/suite.py [--trials 50] [--out FILE]

The suite (bench/suite/suite_bench.cc) has compute-bound benchmarks of about
50 ns, 5 us, 500 us and 20 ms and memory-bound ones in the L2 and in DRAM,
whose work a -DFACTOR of the build scales.  Each pair is a git repository
of its own, in a temporary directory: the base built with FACTOR 1, the
head with 1.03, 1.08 or 1.25; the A/A head with FACTOR 1 and another SALT,
another program that does the same work, as a change that does not touch
the code's speed makes.

perfgate runs as a user would run it (`perfgate compare HEAD~1`, default
settings: 5% floor, gate: cases for a suite, 10 s budget); each of the
suite's benchmarks is a decision.  compare.py runs both binaries with
--benchmark_repetitions=10 and --benchmark_min_time=0.05, and a
benchmark's decision is the rule accuracy.py gives it: regression when
the median rose by more than the floor and the U test's p < 0.05.

It needs the build and Debian's libbenchmark-dev, libbenchmark-tools and
python3-scipy, which ./test.sh installs.
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
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from accuracy import gbench_decision  # noqa: E402

PAIRS = [("A/A", 1.0), ("+3%", 1.03), ("+8%", 1.08), ("+25%", 1.25)]
# name: (label, size for the truth)
BENCHMARKS = [("BM_chain/40", "chain, 50 ns"),
              ("BM_chain/4000", "chain, 5 µs"),
              ("BM_chain/400000", "chain, 500 µs"),
              ("BM_chain/15000000", "chain, 20 ms"),
              ("BM_stream/65536", "stream, L2, 3 µs"),
              ("BM_stream/33554432", "stream, DRAM, 3 ms")]
FLOOR = 0.05


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True,
                          **kw)


def truth(name, factor):
    """The head's true change of benchmark `name` at `factor`, from the
    work suite_bench.cc does (its rounding)."""
    n = int(name.split("/")[1])
    if name.startswith("BM_chain"):
        return round(n * factor) / n - 1
    return (round(n * factor) // 8) / (n // 8) - 1


class Pair:
    """A repository whose HEAD~1 builds the suite at FACTOR 1 and HEAD at
    `factor`, with another SALT."""

    def __init__(self, tmp, factor):
        self.dir = os.path.join(tmp, "repo")
        os.makedirs(os.path.join(self.dir, "bench"))
        shutil.copy(os.path.join(HERE, "suite", "suite_bench.cc"),
                    os.path.join(self.dir, "bench"))
        with open(os.path.join(HERE, "suite", "Makefile")) as f:
            self.makefile = f.read()
        self.write("Makefile", self.makefile)
        self.write(".gitignore", "bench/suite\n")
        self.write("perfgate.yml", "version: 1\nbenchmarks:\n"
                   "  - name: suite\n    suite: bench/suite\n"
                   "    build: make bench/suite\n")
        self.git("init", "-q", "-b", "main")
        self.git("add", "-A")
        self.git("-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q",
                 "-m", "base")
        self.factor = factor
        self.write("Makefile", self.makefile.replace(
            "FACTOR ?= 1.0", "FACTOR ?= %s" % factor).replace(
            "SALT ?= 0", "SALT ?= 1"))
        self.git("-c", "user.name=b", "-c", "user.email=b@b", "commit",
                 "-q", "-am", "head")
        # The binaries compare.py runs: each side built alone.
        self.bins = []
        for i, f in enumerate([1.0, factor]):
            out = os.path.join(tmp, "suite_%d" % i)
            run(["c++", "-O2", "-DFACTOR=%s" % f, "-DSALT=%d" % i,
                 os.path.join(HERE, "suite", "suite_bench.cc"), "-o", out,
                 "-lbenchmark", "-lpthread"])
            self.bins.append(out)

    def write(self, path, text):
        with open(os.path.join(self.dir, path), "w") as f:
            f.write(text)

    def git(self, *args):
        run(["git", *args], cwd=self.dir)


def perfgate_trial(args, pair, tmp):
    """One perfgate decision per benchmark: the suite's cases."""
    out = os.path.join(tmp, "pg.json")
    cmd = [args.perfgate, "compare", "--json", out, "--quiet", "HEAD~1"]
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
    env.pop("GITHUB_ACTIONS", None)
    start = time.monotonic()
    subprocess.run(cmd, cwd=pair.dir, env=env, capture_output=True,
                   text=True)
    wall = time.monotonic() - start
    with open(out) as f:
        b = json.load(f)["benchmarks"][0]
    cases = {c["name"]: c for c in b.get("cases", [])}
    return {"wall": wall, "seconds": b.get("seconds"),
            "rounds": b.get("rounds"), "status": b["status"],
            "cases": {n: {"verdict": cases[n].get("status") if n in cases
                          else b["status"],
                          "change": cases[n].get("change") if n in cases
                          else None} for n, _ in BENCHMARKS}}


def gbench_run(args, binary, out):
    run([binary, "--benchmark_repetitions=%d" % args.peer_repetitions,
         "--benchmark_min_time=%s" % args.peer_min_time,
         "--benchmark_out_format=json", "--benchmark_out=" + out])
    with open(out) as f:
        return json.load(f)


def gbench_trial(args, pair, tmp):
    start = time.monotonic()
    j1 = gbench_run(args, pair.bins[0], os.path.join(tmp, "gb0.json"))
    j2 = gbench_run(args, pair.bins[1], os.path.join(tmp, "gb1.json"))
    wall = time.monotonic() - start
    return {"wall": wall,
            "cases": {n: gbench_decision(j1, j2, n, FLOOR)
                      for n, _ in BENCHMARKS}}


def expected(factor, change):
    """What a right verdict is: a regression beyond the floor, else
    unchanged (+3% lies within it)."""
    return "regression" if change > FLOOR else "unchanged"


def median(v):
    v = sorted(x for x in v if x is not None)
    return v[len(v) // 2] if v else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--perfgate", default=os.path.join(ROOT, "build",
                                                       "perfgate"))
    ap.add_argument("--trials", type=int, default=50,
                    help="perfgate's trials of A/A and +8%% (default 50)")
    ap.add_argument("--other-trials", type=int, default=10,
                    help="trials of +3%% and +25%% (default 10)")
    ap.add_argument("--peer-trials", type=int, default=15,
                    help="compare.py's trials of each pair (default 15)")
    ap.add_argument("--peer-repetitions", type=int, default=10)
    ap.add_argument("--peer-min-time", default="0.05")
    ap.add_argument("--pairs", default="A/A,+3%,+8%,+25%")
    ap.add_argument("--out", help="also write the table to this file")
    ap.add_argument("--raw", help="every trial as JSON to this file")
    ap.add_argument("--from-raw", metavar="RAW",
                    help="print the table of a --raw file, and run nothing")
    args = ap.parse_args()
    if args.from_raw:
        print(from_raw(args.from_raw), end="")
        return
    wanted = args.pairs.split(",")
    raw, rows = [], []
    for label, factor in PAIRS:
        if label not in wanted:
            continue
        trials = args.trials if label in ("A/A", "+8%") else args.other_trials
        tmp = tempfile.mkdtemp(prefix="pg-suite-bench-")
        try:
            pair = Pair(tmp, factor)
            results = []
            for t in range(trials):
                pg = perfgate_trial(args, pair, tmp)
                gb = (gbench_trial(args, pair, tmp)
                      if t < args.peer_trials else None)
                results.append({"perfgate": pg, "gbench": gb})
                if args.raw:
                    # Kept as it goes: a run cut short keeps its trials.
                    with open(args.raw, "w") as f:
                        json.dump(raw + [{"pair": label,
                                          "trials": results}], f)
                log("%s trial %d: perfgate %.1f s (%s)%s" %
                    (label, t + 1, pg["wall"], pg["status"],
                     ", compare.py %.1f s" % gb["wall"] if gb else ""))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        raw.append({"pair": label, "trials": results})
        rows += rows_of(label, factor, results)
    table = render(rows)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table)
    if args.raw:
        with open(args.raw, "w") as f:
            json.dump(raw, f, indent=1)


def rows_of(label, factor, results):
    """The table's rows of one pair's trials."""
    rows = []
    for name, what in BENCHMARKS:
        change = truth(name, factor)
        want = expected(factor, change)
        row = {"pair": label, "what": what, "truth": change}
        for tool in ("perfgate", "gbench"):
            cs = [r[tool]["cases"][name] for r in results if r[tool]]
            row[tool] = {
                "trials": len(cs),
                "right": sum(c["verdict"] == want for c in cs),
                "false": sum(c["verdict"] in ("regression", "improvement") and
                             c["verdict"] != want for c in cs),
                "median": median([c["change"] for c in cs])}
        row["pg_wall"] = median([r["perfgate"]["wall"] for r in results])
        row["pg_measure"] = median([r["perfgate"]["seconds"]
                                    for r in results])
        row["gb_wall"] = median([r["gbench"]["wall"] for r in results
                                 if r["gbench"]])
        rows.append(row)
    return rows


def from_raw(path):
    """The table of a --raw file, as the run that wrote it printed it (or
    would have, had it been cut short)."""
    with open(path) as f:
        raw = json.load(f)
    factors = dict(PAIRS)
    return render([row for p in raw
                   for row in rows_of(p["pair"], factors[p["pair"]],
                                      p["trials"])])


def seconds(x):
    return "–" if x is None else "%.1f s" % x


def pct(x):
    return "–" if x is None else "%+.1f%%" % (100 * x)


def render(rows):
    lines = ["| pair | benchmark | true | perfgate right | false alarms | "
             "median | compare.py right | false alarms | median |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        p, g = r["perfgate"], r["gbench"]
        lines.append("| %s | %s | %s | %d/%d | %d | %s | %d/%d | %d | %s |" % (
            r["pair"], r["what"], pct(r["truth"]), p["right"], p["trials"],
            p["false"], pct(p["median"]), g["right"], g["trials"],
            g["false"], pct(g["median"])))
    lines.append("")
    lines.append("| pair | perfgate: wall per trial (the suite, 6 "
                 "decisions) | of it measuring | compare.py: both binaries |")
    lines.append("|---|---|---|---|")
    seen = set()
    for r in rows:
        if r["pair"] in seen:
            continue
        seen.add(r["pair"])
        lines.append("| %s | %s | %s | %s |" % (
            r["pair"], seconds(r["pg_wall"]), seconds(r["pg_measure"]),
            seconds(r["gb_wall"])))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
