#!/usr/bin/env python3
"""The engine's benchmark on code that touches memory: vector_add and
reduce_sum (bench/mem.c, through perfgate's built-in problems) at an L1, an
L2, a last-level-cache and a DRAM size, side by side with Google Benchmark
(bench/gbench_mem.cc).  See bench/README.md.

    python3 bench/memory.py [--out docs/accuracy-memory.md]

Rows, for each function and size: A/A (two builds whose code differs but
does the same work, so that perfgate's identical-code skip does not hide
the engine), 10% more bytes read, and 2x; then, per function, an A/A with
all four sizes as cases under `gate: cases`; an A/A and a 2x of reduce_sum
that allocates a one-shot API's state on every call (zlib-ng's
deflateInit2 blocks), beside its time outside perfgate; and an A/A with a
noisy neighbour.  The true size of a change is measured independently: Google
Benchmark with both libraries in one process on the same arrays, each
loaded from 8 copies of its file, randomly interleaved (true_change).
"""
import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import accuracy  # noqa: E402  (re-runs under Debian's python3 for scipy)
from accuracy import (Neighbour, fmt_counts, fmt_pct, fmt_pp, fmt_s,  # noqa
                      gbench_decision, log, run, summarize)

ROOT = accuracy.ROOT
FUNCTIONS = ("vector_add", "reduce_sum")
# (label, elements per array) for each function.
SIZES = {
    "vector_add": [("L1", 2048), ("L2", 32768), ("LLC", 1 << 20),
                   ("DRAM", 4 << 20)],
    "reduce_sum": [("L1", 4096), ("L2", 131072), ("LLC", 2 << 20),
                   ("DRAM", 16 << 20)],
}
# (name, bench/mem.c variant, expected verdict; None: depends on its size)
PAIRS = [("A/A", 1, "unchanged"), ("+10% bytes", 2, None),
         ("2x", 3, "regression")]
# Copies of each side's library in the true-change measurement.
COPIES = 8
# Perfgate's own flags for a side (src/gate/build/build.c), so that this measures
# what perfgate measures.
SIDE_FLAGS = ["-O2", "-fPIC", "-shared", "-fno-semantic-interposition",
              "-Wl,-Bsymbolic"]


class Builder:
    def __init__(self, tmp, cc):
        self.tmp, self.cc = tmp, cc

    def solution(self, fn, variant, oneshot=False):
        out = os.path.join(self.tmp, "%s_%d%s.so"
                           % (fn, variant, "_oneshot" if oneshot else ""))
        if not os.path.exists(out):
            extra = ["-DREDUCE"] if fn == "reduce_sum" else []
            extra += ["-DONESHOT"] if oneshot else []
            run([self.cc, *SIDE_FLAGS, *extra, "-DVARIANT=%d" % variant,
                 os.path.join(ROOT, "bench", "mem.c"), "-o", out])
        return out

    def problem(self, fn):
        out = os.path.join(self.tmp, "%s.problem.so" % fn)
        if not os.path.exists(out):
            run([self.cc, *SIDE_FLAGS, "-std=c11", "-I",
                 os.path.join(ROOT, "include"),
                 os.path.join(ROOT, "problems", fn + ".c"), "-o", out])
        return out


def perfgate_trials(args, problem, base, head, cases, trials, cpu,
                    gate="total"):
    cmd = [args.pg_bench, "--problem", problem, "--base", base, "--head",
           head, "--symbol", "solution", "--cases", cases, "--trials",
           str(trials), "--noise-floor", str(args.floor), "--cpu", str(cpu),
           "--gate", gate]
    out = run(cmd).stdout
    return [{"verdict": r["status"], "change": r["change"],
             "seconds": r["wall_s"], "base_ns": r["base_ns"],
             "rounds": r["rounds"]}
            for r in map(json.loads, filter(str.strip, out.splitlines()))
            if not r.get("system")]


def gbench_json(args, lib, fn, n, cpu, out, repetitions, min_time,
                extra=()):
    run(["taskset", "-c", str(cpu), args.gbench_mem, lib, fn, str(n),
         "--benchmark_repetitions=%d" % repetitions,
         "--benchmark_min_time=%s" % min_time, "--benchmark_format=json",
         "--benchmark_out_format=json", "--benchmark_out=" + out, *extra])
    with open(out) as f:
        return json.load(f)


def true_change(args, base, head, fn, n, cpu, tmp):
    """Independently of perfgate: Google Benchmark with both libraries in
    one process on the same arrays (so that data placement is the same for
    both), each loaded from COPIES copies of its file (so that each side's
    code sits at as many addresses: one address can cost a side some 4%,
    docs/accuracy.md), 10 repetitions of 0.05 s of every copy, randomly
    interleaved; the ratio of the means of the copies' medians."""
    libs = []
    for k in range(COPIES):
        for side, lib in (("base", base), ("head", head)):
            libs.append(os.path.join(tmp, "truth.%s.%d.so" % (side, k)))
            shutil.copyfile(lib, libs[-1])
    j = gbench_json(args, ",".join(libs), fn, n, cpu,
                    os.path.join(tmp, "truth.json"), 10, "0.05",
                    ["--benchmark_enable_random_interleaving=true"])
    t = {b["run_name"]: b["real_time"] for b in j["benchmarks"]
         if b.get("aggregate_name") == "median"}
    mean = {side: statistics.mean(t["BM_%s/%d" % (side, k)]
                                  for k in range(COPIES))
            for side in ("base", "head")}
    return mean["head"] / mean["base"] - 1, mean["base"]


def gbench_trial(args, base, head, fn, n, cpu, tmp):
    """As accuracy.py's: compare.py's rule a CI user would write."""
    start = time.monotonic()
    j1 = gbench_json(args, base, fn, n, cpu, os.path.join(tmp, "b.json"),
                     args.peer_repetitions, args.peer_min_time)
    j2 = gbench_json(args, head, fn, n, cpu, os.path.join(tmp, "h.json"),
                     args.peer_repetitions, args.peer_min_time)
    result = gbench_decision(j1, j2, "BM_mem", args.floor)
    result["seconds"] = time.monotonic() - start
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--trials", type=int, default=50)
    p.add_argument("--peer-trials", type=int, default=10)
    p.add_argument("--unscored-trials", type=int, default=10,
                   help="trials of a row whose true change lies between 3%%\n"
                        "and 7%%, which no verdict is scored on (near the\n"
                        "floor, such rows run to max_time)")
    p.add_argument("--peer-repetitions", type=int, default=9)
    p.add_argument("--peer-min-time", default="0.05")
    p.add_argument("--floor", type=float, default=0.05)
    p.add_argument("--functions", default=",".join(FUNCTIONS))
    p.add_argument("--sizes", default="L1,L2,LLC,DRAM")
    p.add_argument("--only-placement", action="store_true",
                   help="only the rows of one library loaded twice")
    p.add_argument("--only-cases", action="store_true",
                   help="only the A/A rows of every size as a case")
    p.add_argument("--only-oneshot", action="store_true",
                   help="only the rows of a one-shot API's state per call")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: 2 trials, 1 peer trial, L1 only")
    p.add_argument("--out", help="also write the table to this file")
    p.add_argument("--raw", help="write every trial as JSON to this file")
    args = p.parse_args()
    if args.quick:
        args.trials, args.peer_trials, args.sizes = 2, 1, "L1"
    args.pg_bench = os.path.join(args.build_dir, "bench", "pg_bench")
    args.gbench_mem = os.path.join(args.build_dir, "bench", "gbench_mem")
    for exe in (args.pg_bench, args.gbench_mem):
        if not os.access(exe, os.X_OK):
            sys.exit("memory.py: %s is missing: run ./test.sh first"
                     % exe)
    functions = args.functions.split(",")
    sizes = args.sizes.split(",")
    cpu = max(os.sched_getaffinity(0))
    tmp = tempfile.mkdtemp(prefix="perfgate-membench-")
    rows, raw = [], []
    started = time.monotonic()

    def row(fn, label, n_cases, base, head, expected, truth, pg, gb,
            noisy=False):
        r = {"function": fn, "row": label, "truth": truth, "noisy": noisy,
             "expected": expected,
             "perfgate": summarize(pg, truth or 0, expected),
             "gbench": summarize(gb, truth or 0, expected) if gb else None,
             "call_ns": statistics.median(
                 x["base_ns"] for x in pg if x["base_ns"]) / n_cases
             if any(x["base_ns"] for x in pg) else None}
        rows.append(r)
        raw.append({"row": r, "perfgate": pg, "gbench": gb})
        s = r["perfgate"]
        log("  perfgate %s, median %s, %s%s" % (
            fmt_counts(s), fmt_pct(s["median_change"], 2),
            fmt_s(s["median_seconds"]),
            "; gbench %s" % fmt_counts(r["gbench"]) if gb else ""))

    try:
        build = Builder(tmp, os.environ.get("CC", "cc"))
        only = args.only_placement or args.only_oneshot
        rest = only or args.only_cases
        for fn in [] if only else functions:
            problem = build.problem(fn)
            base = build.solution(fn, 0)
            for size, n in ([] if args.only_cases else
                            [s for s in SIZES[fn] if s[0] in sizes]):
                for name, variant, expected in PAIRS:
                    head = build.solution(fn, variant)
                    truth = (0.0 if variant == 1 else
                             true_change(args, base, head, fn, n, cpu,
                                         tmp)[0])
                    if expected is None:
                        expected = ("regression" if truth > 0.07 else
                                    "unchanged" if truth < 0.03 else None)
                    label = "%s n=%d %s" % (size, n, name)
                    trials = (args.trials if expected else
                              min(args.trials, args.unscored_trials))
                    log("%s %s: true %+.2f%%, %d + %d trials" % (
                        fn, label, truth * 100, trials, args.peer_trials))
                    pg = perfgate_trials(args, problem, base, head,
                                         "n=%d" % n, trials, cpu)
                    gb = [gbench_trial(args, base, head, fn, n, cpu, tmp)
                          for _ in range(args.peer_trials)]
                    row(fn, label, 1, base, head, expected, truth, pg, gb)
            # Several cases under gate: cases: no false alarm may come of
            # deciding on each.
            cases = "; ".join("n=%d" % n for s, n in SIZES[fn] if s in sizes)
            log("%s A/A, every size a case, gate: cases" % fn)
            pg = perfgate_trials(args, problem, base,
                                 build.solution(fn, 1), cases, args.trials,
                                 cpu, gate="cases")
            row(fn, "A/A, %s as cases, gate: cases" % "+".join(sizes),
                len(cases.split(";")), base, None, "unchanged", 0.0, pg, [])
        # Code placement: the same library twice, byte for byte (as
        # `perfgate compare --aa` builds it), at an unaligned size.  The
        # sides share their data; only the code's addresses differ.
        for fn in [] if args.only_oneshot or args.only_cases else functions:
            problem, base = build.problem(fn), build.solution(fn, 0)
            twin = base.replace(".so", ".twin.so")
            shutil.copyfile(base, twin)
            log("%s n=1001 A/A, the same library loaded twice" % fn)
            pg = perfgate_trials(args, problem, base, twin, "n=1001",
                                 args.trials, cpu)
            row(fn, "n=1001 A/A, one library loaded twice", 1, base, twin,
                "unchanged", 0.0, pg, [])
        if not (args.only_placement or args.only_cases) and \
                "reduce_sum" in functions:
            # A one-shot API: its state allocated and freed on every call
            # (issue 48, item 4: zlib-ng's compress2 read slower in perfgate
            # than outside it while what ran before in the measuring process
            # decided whether each call's free gave its memory back to the
            # system).  Beside perfgate's time a call, the same library's
            # outside it: they must agree.
            fn = "reduce_sum"
            fits = [s for s in SIZES[fn] if s[0] in sizes]
            size, n = ([s for s in fits if s[0] == "L2"] or fits)[0]
            problem = build.problem(fn)
            base = build.solution(fn, 0, oneshot=True)
            for name, variant, expected in (("A/A", 1, "unchanged"),
                                            ("2x", 3, "regression")):
                head = build.solution(fn, variant, oneshot=True)
                truth, outside = true_change(args, base, head, fn, n, cpu,
                                             tmp)
                if variant == 1:
                    truth = 0.0
                label = ("%s n=%d one-shot state per call, %s (outside "
                         "perfgate: %s a call)"
                         % (size, n, name, accuracy.fmt_call(outside)))
                log("%s %s: true %+.2f%%" % (fn, label, truth * 100))
                pg = perfgate_trials(args, problem, base, head, "n=%d" % n,
                                     args.trials, cpu)
                gb = [gbench_trial(args, base, head, fn, n, cpu, tmp)
                      for _ in range(args.peer_trials)]
                row(fn, label, 1, base, head, expected, truth, pg, gb)
        if not rest:
            # A load that comes and goes, on the measuring CPU.
            fn = functions[0]
            size, n = [s for s in SIZES[fn] if s[0] in sizes][-1]
            log("%s %s A/A with a noisy neighbour" % (fn, size))
            neighbour = Neighbour(cpu)
            try:
                problem, base = build.problem(fn), build.solution(fn, 0)
                head = build.solution(fn, 1)
                pg = perfgate_trials(args, problem, base, head, "n=%d" % n,
                                     args.trials, cpu)
                gb = [gbench_trial(args, base, head, fn, n, cpu, tmp)
                      for _ in range(args.peer_trials)]
            finally:
                neighbour.stop()
            row(fn, "%s n=%d A/A, noisy neighbour" % (size, n), 1, base, head,
                "unchanged", 0.0, pg, gb, noisy=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    table = render(args, rows, cpu, time.monotonic() - started)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table)
    if args.raw:
        with open(args.raw, "w") as f:
            json.dump(raw, f, indent=1)


def render(args, rows, cpu, seconds):
    out = ["Produced by `python3 bench/memory.py%s` in %.0f min, measuring "
           "on CPU %d of %d. perfgate: %d trials per row, %d where no "
           "verdict is scored (pg_bench: the "
           "measuring process, verification, calibration, interleaving, "
           "stopping rule; builds excluded), %g%% floor, max_time 10 s. "
           "Google Benchmark: %d trials per row, %d repetitions of "
           "--benchmark_min_time=%s, regression when the median rose by "
           "more than the floor with compare.py's U test p < 0.05. True "
           "change: Google Benchmark, both libraries in one process on the "
           "same arrays, each loaded from %d copies of its file, 10 x 0.05 s "
           "of each copy randomly interleaved, ratio of the means of the "
           "copies' medians. Right: the expected verdict (A/A unchanged, 2x "
           "regression, +10%% bytes a regression where its true size is "
           "above 7%%, unchanged below 3%%, not scored between)."
           % (" " + " ".join(sys.argv[1:]) if sys.argv[1:] else "",
              seconds / 60, cpu, os.cpu_count(), args.trials,
              min(args.trials, args.unscored_trials),
              args.floor * 100, args.peer_trials, args.peer_repetitions,
              args.peer_min_time, COPIES), "",
           "| function | row | call | true change | perfgate R / U / I | "
           "perfgate right | perfgate median change | perfgate median error "
           "| perfgate time per decision | GB R / U / I | GB right | GB "
           "median change | GB time per decision |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        s, g = r["perfgate"], r["gbench"]
        right = (lambda x: "–" if r["expected"] is None or x is None
                 else "%d/%d" % (x["right"], x["n"]))
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                   "| %s | %s |" % (
                       r["function"], r["row"],
                       accuracy.fmt_call(r["call_ns"]),
                       fmt_pct(r["truth"], 2), fmt_counts(s), right(s),
                       fmt_pct(s["median_change"], 2),
                       fmt_pp(s["median_error"]),
                       fmt_s(s["median_seconds"]),
                       fmt_counts(g) if g else "–", right(g),
                       fmt_pct(g["median_change"], 2) if g else "–",
                       fmt_s(g["median_seconds"]) if g else "–"))
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
