#!/usr/bin/env python3
"""Do perfgate's 95% intervals hold the next run, and does identical code
ever get a case labelled?

The same comparison is run N times (each trial is a new perfgate-measure
process, through bench/pg_bench: new code placements, new set-ups).  For
the total and for each case, the median of the N changes stands for what
the comparison measures; coverage is how many of the N intervals hold it
(95% is claimed; the target is at least 90%).  A/A rows also count the
cases labelled regression or improvement (the target is none), and every
row says how wide the intervals are (a interval can always be made to
hold by being useless).

Rows: a 64-bit hash of 8 bytes to 1 KiB (bench/hash.c: a few ns to about
130 ns a call, calls independent), the serial chain (bench/chain.c) at
about 5 ns, 50 ns, 2 µs, 200 µs and 20 ms, A/A and +8%, and reduce_sum on arrays
in L1 and in DRAM (bench/mem.c), A/A and +10% bytes; then two of them with
a noisy neighbour on the measuring CPU.

    python3 bench/coverage.py [--trials 20] [--out FILE] [--raw FILE]
                              [--only SUBSTRING] [--quick]

Nothing else heavy should run on the machine meanwhile.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import accuracy  # noqa: E402
import memory  # noqa: E402

ROOT = accuracy.ROOT
run = accuracy.run

# One multiply-add step of the chain is about 1 ns (docs/accuracy.md).
CHAIN_STEPS = [("5 ns", 5), ("50 ns", 50), ("2 µs", 2000),
               ("200 µs", 200000), ("20 ms", 20000000)]


class Builder:
    def __init__(self, tmp, cc):
        self.tmp, self.cc, self.n = tmp, cc, 0
        self.chain = accuracy.Builder(tmp, cc)
        self.mem = memory.Builder(tmp, cc)

    def hash(self):
        self.n += 1
        out = os.path.join(self.tmp, "hash_%d.so" % self.n)
        # A twin: the same code, a file of its own.
        run([self.cc, *memory.SIDE_FLAGS, "-DPG_TWIN=%d" % self.n,
             os.path.join(HERE, "hash.c"), "-o", out])
        return out

    def hash_problem(self):
        out = os.path.join(self.tmp, "hash_problem.so")
        run([self.cc, *memory.SIDE_FLAGS, "-I", os.path.join(ROOT, "include"),
             os.path.join(HERE, "hash_problem.c"), "-o", out])
        return out


def rows(b):
    """(label, kind, problem, base, head, cases, symbol, noisy)"""
    out = []
    out.append(("hash64 A/A, len 8 / 64 / 1024", "A/A", b.hash_problem(),
                b.hash(), b.hash(), "len=8; len=64; len=1024", "hash64",
                False))
    chain_problem = b.chain.problem()
    for label, steps in CHAIN_STEPS:
        more = max(steps + 1, round(steps * 1.08))
        out.append(("chain %s A/A" % label, "A/A", chain_problem,
                    b.chain.solution(steps), b.chain.solution(steps),
                    "seed=1; seed=2; seed=3", "chain", False))
        out.append(("chain %s %+.0f%%" % (label, (more / steps - 1) * 100),
                    "change", chain_problem, b.chain.solution(steps),
                    b.chain.solution(more), "seed=1; seed=2; seed=3",
                    "chain", False))
    for label, n in (("L1", 4096), ("DRAM", 16 << 20)):
        for pair, variant in (("A/A", 1), ("+10% bytes", 2)):
            base = b.mem.solution("reduce_sum", 1)
            # A/A: the same variant built into a second file.
            head = (b.mem.solution("reduce_sum", variant) if variant != 1
                    else twin(b, base))
            out.append(("reduce_sum %s n=%d %s" % (label, n, pair),
                        "A/A" if variant == 1 else "change",
                        b.mem.problem("reduce_sum"), base, head, "n=%d" % n,
                        "solution", False))
    noisy = [r for r in out if r[0] in ("chain 50 ns +8%",
                                         "reduce_sum L1 n=4096 A/A")]
    for r in noisy:
        out.append((r[0] + ", noisy neighbour",) + r[1:7] + (True,))
    return out


def twin(b, lib):
    out = lib.replace(".so", "_twin.so")
    if not os.path.exists(out):
        with open(lib, "rb") as src, open(out, "wb") as dst:
            dst.write(src.read())
    return out


def trials(args, problem, base, head, cases, symbol, cpu):
    cmd = [args.pg_bench, "--problem", problem, "--base", base, "--head",
           head, "--symbol", symbol, "--cases", cases, "--trials",
           str(args.trials), "--noise-floor", str(args.floor), "--cpu",
           str(cpu)]
    out = run(cmd).stdout
    return [json.loads(line) for line in out.splitlines()
            if line.strip() and not json.loads(line).get("system")]


def covered(values):
    """(coverage, median, median width) of [(change, lo, hi)]."""
    # An interval unbounded above is written [lo, null].
    values = [(c, lo, float("inf") if hi is None and lo is not None else hi)
              for c, lo, hi in values]
    ok = [v for v in values if v[0] is not None]
    if not ok:
        return None, None, None
    med = statistics.median(v[0] for v in ok)
    held = sum(1 for c, lo, hi in ok
               if lo is not None and hi is not None and lo <= med <= hi)
    widths = [hi - lo for c, lo, hi in ok if lo is not None and hi is not None]
    return held / len(ok), med, statistics.median(widths) if widths else None


def summarize(label, kind, results):
    total = covered([(r["change"], r["lo"], r["hi"]) for r in results])
    ncases = len(results[0]["cases"]) if results else 0
    cases = [covered([(r["cases"][i]["change"], r["cases"][i]["lo"],
                       r["cases"][i]["hi"]) for r in results])
             for i in range(ncases)]
    labelled = sum(1 for r in results for c in r["cases"]
                   if c["status"] in ("regression", "improvement"))
    # A label its own interval does not back, of a total or a case.
    contradictions = sum(
        accuracy.contradicts(r["status"], r["lo"], r["hi"]) +
        sum(accuracy.contradicts(c["status"], c["lo"], c["hi"])
            for c in r["cases"]) for r in results)
    unresolved = sum(1 for r in results for c in r["cases"]
                     if c.get("resolved") is False)
    calls = [statistics.median(r["cases"][i]["base_ns"] for r in results
                               if r["cases"][i]["base_ns"] is not None)
             for i in range(ncases)]
    return {"label": label, "kind": kind, "trials": len(results),
            "total": total, "cases": cases, "labelled": labelled,
            "unresolved": unresolved, "calls": calls,
            "contradictions": contradictions,
            "verdicts": [r["status"] for r in results]}


def pct(x):
    return "–" if x is None else "%.0f%%" % (x * 100)


def render(args, summaries, cpu, seconds):
    lines = []
    lines.append("Produced by `python3 bench/coverage.py --trials %d` in %.0f "
                 "min, measuring on CPU %d; 5%% floor, default settings "
                 "(max_time 10 s). Coverage: how many of the %d runs' 95%% "
                 "intervals hold the median of all %d (the total, then each "
                 "case). Width: the median interval's width. Labelled: A/A "
                 "cases labelled regression or improvement, over all runs "
                 "and cases. Unresolved: cases said to be below what the "
                 "machine resolves. Against: labels (totals and cases) that "
                 "their own interval does not back.\n"
                 % (args.trials, seconds / 60, cpu, args.trials,
                    args.trials))
    lines.append("| row | calls (base) | total coverage | total width | "
                 "case coverage | case widths | labelled (A/A) | "
                 "unresolved | against | verdicts |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    for s in summaries:
        calls = " / ".join(accuracy.fmt_call(c) for c in s["calls"])
        cov = " / ".join(pct(c[0]) for c in s["cases"])
        widths = " / ".join("–" if c[2] is None else "%.2f pp" % (c[2] * 100)
                            for c in s["cases"])
        verdicts = {}
        for v in s["verdicts"]:
            verdicts[v] = verdicts.get(v, 0) + 1
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %d | %d | %s |" % (
            s["label"], calls, pct(s["total"][0]),
            "–" if s["total"][2] is None else "%.2f pp" % (s["total"][2] * 100),
            cov, widths,
            ("%d" % s["labelled"]) if s["kind"] == "A/A" else "–",
            s["unresolved"], s["contradictions"],
            ", ".join("%d %s" % (n, v) for v, n in sorted(verdicts.items()))))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--floor", type=float, default=0.05)
    ap.add_argument("--only", help="rows whose label holds this")
    ap.add_argument("--quick", action="store_true",
                    help="3 trials of two rows: a smoke run")
    ap.add_argument("--out")
    ap.add_argument("--raw")
    ap.add_argument("--pg-bench", default=os.path.join(
        ROOT, "build", "bench", "pg_bench"))
    args = ap.parse_args()
    if args.quick:
        args.trials, args.only = 3, args.only or "5 ns"
    cpu = (os.cpu_count() or 1) - 1
    start = time.monotonic()
    summaries, raw = [], []
    with tempfile.TemporaryDirectory(prefix="pg-coverage-") as tmp:
        for label, kind, problem, base, head, cases, symbol, noisy in rows(
                Builder(tmp, os.environ.get("CC", "cc"))):
            if args.only and args.only not in label:
                continue
            neighbour = accuracy.Neighbour(cpu) if noisy else None
            try:
                results = trials(args, problem, base, head, cases, symbol,
                                 cpu)
            finally:
                if neighbour:
                    neighbour.stop()
            s = summarize(label, kind, results)
            summaries.append(s)
            raw.append({"label": label, "trials": results})
            print("%-40s total %s, cases %s, labelled %d" % (
                label, pct(s["total"][0]),
                " / ".join(pct(c[0]) for c in s["cases"]), s["labelled"]),
                file=sys.stderr, flush=True)
    table = render(args, summaries, cpu, time.monotonic() - start)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table)
    if args.raw:
        with open(args.raw, "w") as f:
            json.dump(raw, f)


if __name__ == "__main__":
    main()
