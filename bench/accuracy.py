#!/usr/bin/env python3
"""The engine's benchmark: how often perfgate's verdict is right, how close
its estimate is, and how long a decision takes, side by side with Google
Benchmark and its tools/compare.py, on pairs whose true cost ratio is known
by construction (bench/chain.c).  See bench/README.md.

    python3 bench/accuracy.py [--out docs/accuracy.md]

It needs the build and Debian's libbenchmark-dev, libbenchmark-tools and
python3-scipy, which ./test.sh installs and builds.
"""
import argparse
import json
import os
import importlib.util
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GBENCH_TOOLS = "/usr/share/benchmark"

# compare.py's U test needs scipy.
if importlib.util.find_spec("scipy") is None:
    # Debian's scipy belongs to Debian's python3; another python3 first on
    # PATH (pyenv, a venv) does not see it.
    if os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("accuracy.py: scipy is missing: apt-get install python3-scipy")
sys.path.insert(0, GBENCH_TOOLS)
from gbench import report as gbench_report  # noqa: E402

# (name, change in percent, expected verdict)
PAIRS = [
    ("A/A", 0, "unchanged"),
    ("+3%", 3, "unchanged"),
    ("+8%", 8, "regression"),
    ("+25%", 25, "regression"),
    ("-20%", -20, "improvement"),
]
DURATIONS = [("30 ns", 30e-9), ("2 µs", 2e-6), ("200 µs", 200e-6),
             ("20 ms", 20e-3)]
# The large-code solution (bench/bigcode.c): 200 passes, about 4 ms a call.
BIG = ("large code", None)
CASES = 3


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


class Builder:
    """Compiles bench/chain.c at a given length, each build a new file (the
    A/A pair is the same source compiled twice)."""

    def __init__(self, tmp, cc):
        self.tmp, self.cc, self.n = tmp, cc, 0

    def solution(self, steps):
        self.n += 1
        out = os.path.join(self.tmp, "chain_%d_%d.so" % (steps, self.n))
        run([self.cc, "-O2", "-fPIC", "-shared", "-DSTEPS=%d" % steps,
             os.path.join(ROOT, "bench", "chain.c"), "-o", out])
        return out

    def big(self, passes):
        """bench/bigcode.c: the chain in 2,000 distinct functions, about
        235 KB of code, `passes` times through them a call."""
        self.n += 1
        out = os.path.join(self.tmp, "big_%d_%d.so" % (passes, self.n))
        run([self.cc, "-O2", "-fPIC", "-shared", "-fno-ipa-icf",
             "-DPASSES=%d" % passes, os.path.join(ROOT, "bench", "bigcode.c"),
             "-o", out])
        return out

    def problem(self):
        out = os.path.join(self.tmp, "chain_problem.so")
        run([self.cc, "-O2", "-fPIC", "-shared",
             "-I", os.path.join(ROOT, "include"),
             os.path.join(ROOT, "bench", "chain_problem.c"), "-o", out])
        return out


def perfgate_trials(args, problem, base, head, trials, cpu):
    cmd = [args.pg_bench, "--problem", problem, "--base", base, "--head",
           head, "--trials", str(trials), "--noise-floor", str(args.floor),
           "--cpu", str(cpu)]
    out = run(cmd).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    results = []
    for r in rows:
        if r.get("system"):
            continue
        results.append({"verdict": r["status"], "change": r["change"],
                        "seconds": r["wall_s"], "base_ns": r["base_ns"],
                        "lo": r["lo"], "hi": r["hi"], "rounds": r["rounds"]})
    return results


def gbench_run(args, lib, cpu, out):
    cmd = ["taskset", "-c", str(cpu), args.gbench_peer, lib,
           "--benchmark_repetitions=%d" % args.peer_repetitions,
           "--benchmark_min_time=%s" % args.peer_min_time,
           "--benchmark_format=json", "--benchmark_out_format=json",
           "--benchmark_out=" + out]
    run(cmd)
    with open(out) as f:
        return json.load(f)


def gbench_trial(args, base, head, cpu, tmp):
    """One decision as a CI user writes it with compare.py: regression when
    the median rose by more than the floor and the U test's p < 0.05."""
    start = time.monotonic()
    j1 = gbench_run(args, base, cpu, os.path.join(tmp, "gb_base.json"))
    j2 = gbench_run(args, head, cpu, os.path.join(tmp, "gb_head.json"))
    result = gbench_decision(j1, j2, "BM_chain", args.floor)
    result["seconds"] = time.monotonic() - start
    return result


def gbench_decision(j1, j2, name, floor):
    """compare.py's difference report of benchmark `name`, judged as a CI
    user would: regression when the median rose by more than the floor and
    the U test's p < 0.05 (improvement likewise)."""
    change = pvalue = base_ns = None
    for entry in gbench_report.get_difference_report(j1, j2, True):
        if entry["name"] == name + "_median":
            m = entry["measurements"][0]
            change = m["time"]
            base_ns = m["real_time"]
        if entry["name"] == name and entry.get("utest"):
            pvalue = entry["utest"]["time_pvalue"]
    verdict = "unchanged"
    if change is not None and pvalue is not None and pvalue < 0.05:
        if change > floor:
            verdict = "regression"
        elif change < -floor:
            verdict = "improvement"
    return {"verdict": verdict, "change": change, "base_ns": base_ns,
            "pvalue": pvalue}


def contradicts(status, lo, hi, floor=0.05):
    """1 when a label says what its own interval does not (issue 48's
    target: never): a regression whose interval reaches below the floor,
    an improvement whose reaches above minus it, an unchanged whose leaves
    +-floor.  No interval, or no label: 0."""
    if lo is None or hi is None:
        return 0
    if status == "regression":
        return int(lo <= floor)
    if status == "improvement":
        return int(hi >= -floor)
    if status == "unchanged":
        return int(lo < -floor or hi > floor)
    return 0


def summarize(results, truth, expected):
    counts = {"regression": 0, "unchanged": 0, "improvement": 0,
              "inconclusive": 0, "other": 0}
    for r in results:
        v = r["verdict"]
        counts[v if v in counts else "other"] += 1
    changes = [r["change"] for r in results if r["change"] is not None]
    errors = [abs(c - truth) for c in changes]
    return {
        "n": len(results),
        "counts": counts,
        "right": counts.get(expected, 0),
        "median_change": statistics.median(changes) if changes else None,
        "median_error": statistics.median(errors) if errors else None,
        "median_seconds": statistics.median(r["seconds"] for r in results)
        if results else None,
        "contradictions": sum(contradicts(r["verdict"], r.get("lo"),
                                          r.get("hi")) for r in results),
    }


class Neighbour:
    """A CPU-bound process on the measuring CPU, on and off in turns of
    `period` seconds: a load that comes and goes."""

    def __init__(self, cpu, period=0.3):
        code = ("import time\n"
                "while True:\n"
                "    end = time.monotonic() + %f\n"
                "    while time.monotonic() < end: pass\n"
                "    time.sleep(%f)\n" % (period, period))
        self.proc = subprocess.Popen(
            ["taskset", "-c", str(cpu), sys.executable, "-c", code])

    def stop(self):
        self.proc.kill()
        self.proc.wait()


class Loaded:
    """A neighbour that saturates every CPU: a busy loop pinned to each,
    and a memory streamer copying 64 MiB back and forth (out of every
    cache), for the whole row: the machine a new user's CI job shares."""

    def __init__(self):
        busy = "while True: pass\n"
        stream = ("a = bytearray(64 << 20)\nb = bytearray(64 << 20)\n"
                  "while True:\n    b[:] = a\n    a[:] = b\n")
        self.procs = [subprocess.Popen(["taskset", "-c", str(c),
                                        sys.executable, "-c", busy])
                      for c in sorted(os.sched_getaffinity(0))]
        self.procs.append(subprocess.Popen([sys.executable, "-c", stream]))

    def stop(self):
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()


def fmt_pct(x, digits=1):
    return "–" if x is None else "%+.*f%%" % (digits, x * 100)


def fmt_pp(x):
    return "–" if x is None else "%.2f pp" % (x * 100)


def fmt_s(x):
    return "–" if x is None else ("%.2f s" % x)


def fmt_counts(s):
    c = s["counts"]
    text = "%d / %d / %d" % (c["regression"], c["unchanged"],
                             c["improvement"])
    if c.get("inconclusive"):
        text += " (+%d inconclusive)" % c["inconclusive"]
    if s.get("contradictions"):
        text += " (%d labels against their interval)" % s["contradictions"]
    if c["other"]:
        text += " (+%d failed)" % c["other"]
    return text


def fmt_call(ns):
    if ns is None:
        return "–"
    for unit, scale in (("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return "%.3g %s" % (ns / scale, unit)
    return "%.3g ns" % ns


def choose_steps(ns_per_step, seconds, pct):
    """A base length near the target whose change by `pct` is a whole
    number of steps, to a millionth for every pair from 2 µs up.  For the shortest
    calls the nearest exact pair may be too long: then the closest ratio
    within 0.75-1.5x the target, and the table shows the true change."""
    target = seconds * 1e9 / ns_per_step
    best = None
    lo, hi = max(4, int(target * 0.75)), max(8, int(target * 1.5))
    for base in range(lo, hi + 1):
        head = round(base * (100 + pct) / 100)
        err = abs(head / base - (100 + pct) / 100)
        key = (round(err, 6), abs(base - target))
        if best is None or key < best[0]:
            best = (key, base, head)
    return best[1], best[2]


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--trials", type=int, default=50,
                   help="perfgate trials per pair (default 50; the issue "
                        "asks at least 30)")
    p.add_argument("--peer-trials", type=int, default=20,
                   help="Google Benchmark trials per pair (default 20)")
    p.add_argument("--peer-repetitions", type=int, default=9)
    p.add_argument("--peer-min-time", default="0.05",
                   help="seconds per repetition for Google Benchmark "
                        "(default 0.05; its own default, 0.5, takes 10x "
                        "longer per decision)")
    p.add_argument("--floor", type=float, default=0.05)
    p.add_argument("--durations", default="30ns,2us,200us,20ms",
                   help="which call durations (default: all four)")
    p.add_argument("--no-noisy", action="store_true",
                   help="skip the noisy-neighbour row")
    p.add_argument("--loaded", action="store_true",
                   help="add rows beside a neighbour that saturates both "
                        "cores (busy loops and a memory streamer): 2 µs and "
                        "200 µs at A/A, +8%% and +25%%, and the large-code "
                        "solution (bench/bigcode.c, about 4 ms a call) "
                        "quiet and loaded")
    p.add_argument("--pairs",
                   help="only these pairs, comma-separated (A/A,+8%%,...)")
    p.add_argument("--only-loaded", action="store_true",
                   help="only the rows --loaded adds")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: 3 trials, 2 peer trials, 2 µs only")
    p.add_argument("--out", help="also write the table to this file")
    p.add_argument("--raw", help="write every trial as JSON to this file")
    args = p.parse_args()

    if args.quick:
        args.trials, args.peer_trials, args.durations = 3, 2, "2us"
    args.pg_bench = os.path.join(args.build_dir, "bench", "pg_bench")
    args.gbench_peer = os.path.join(args.build_dir, "bench", "gbench_peer")
    for exe in (args.pg_bench, args.gbench_peer):
        if not os.access(exe, os.X_OK):
            sys.exit("accuracy.py: %s is missing: run ./test.sh first "
                     "(it installs libbenchmark-dev and builds both)" % exe)
    wanted = [d.strip().replace("µ", "u") for d in args.durations.split(",")]
    durations = [d for d in DURATIONS if d[0].replace(" ", "").replace(
        "µ", "u") in wanted]
    cpu = max(os.sched_getaffinity(0))
    cc = os.environ.get("CC", "cc")
    tmp = tempfile.mkdtemp(prefix="perfgate-bench-")
    raw = []
    rows = []
    started = time.monotonic()
    try:
        build = Builder(tmp, cc)
        problem = build.problem()
        # The cost of one step, from one quick A/A of a long chain.
        probe = build.solution(100000)
        r = perfgate_trials(args, problem, probe, probe, 1, cpu)[0]
        ns_per_step = r["base_ns"] / CASES / 100000
        log("one multiply-add step: %.3f ns; measuring on CPU %d"
            % (ns_per_step, cpu))

        plan = [] if args.only_loaded else [
            (d, pair, False) for d in durations for pair in PAIRS]
        if not args.no_noisy and not args.quick and not args.only_loaded:
            plan.append((DURATIONS[1], PAIRS[0], True))
        if args.loaded or args.only_loaded:
            scored = [p for p in PAIRS if p[0] in ("A/A", "+8%", "+25%")]
            plan += [(d, pair, "loaded") for d in DURATIONS[1:3]
                     for pair in scored]
            plan += [(BIG, pair, load) for load in (False, "loaded")
                     for pair in scored]
        if args.pairs:
            plan = [p for p in plan if p[1][0] in args.pairs.split(",")]
        for (dname, dsec), (pname, pct, expected), noisy in plan:
            if dname == BIG[0]:
                base_steps, head_steps = 200, 200 * (100 + pct) // 100
                base = build.big(base_steps)
                head = build.big(head_steps)
            else:
                base_steps, head_steps = choose_steps(ns_per_step, dsec, pct)
                base = build.solution(base_steps)
                head = build.solution(head_steps)
            truth = head_steps / base_steps - 1
            trials = args.trials
            if pname == "-20%":
                trials = min(args.trials, 30)
            label = "%s %s%s" % (dname, pname, " " + (
                "loaded" if noisy == "loaded" else "noisy") if noisy else "")
            log("%s: %d vs %d steps (true %+.2f%%), %d + %d trials"
                % (label, base_steps, head_steps, truth * 100, trials,
                   args.peer_trials))
            neighbour = (Loaded() if noisy == "loaded"
                         else Neighbour(cpu) if noisy else None)
            try:
                pg = perfgate_trials(args, problem, base, head, trials, cpu)
                gb = [gbench_trial(args, base, head, cpu, tmp)
                      for _ in range(args.peer_trials)]
            finally:
                if neighbour:
                    neighbour.stop()
            call_ns = statistics.median(
                r["base_ns"] for r in pg if r["base_ns"]) / CASES
            row = {"duration": dname, "pair": pname, "noisy": noisy,
                   "truth": truth, "call_ns": call_ns,
                   "base_steps": base_steps, "head_steps": head_steps,
                   "perfgate": summarize(pg, truth, expected),
                   "gbench": summarize(gb, truth, expected),
                   "expected": expected}
            rows.append(row)
            raw.append({"row": row, "perfgate": pg, "gbench": gb})
            s, g = row["perfgate"], row["gbench"]
            log("  perfgate %s right, median %s, %s; gbench %s right, "
                "median %s, %s" % (
                    "%d/%d" % (s["right"], s["n"]), fmt_pct(s["median_change"], 2),
                    fmt_s(s["median_seconds"]),
                    "%d/%d" % (g["right"], g["n"]), fmt_pct(g["median_change"], 2),
                    fmt_s(g["median_seconds"])))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    table = render(args, rows, ns_per_step, cpu, time.monotonic() - started)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table)
    if args.raw:
        with open(args.raw, "w") as f:
            json.dump(raw, f, indent=1)


def render(args, rows, ns_per_step, cpu, seconds):
    cpu_name = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu_name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    out = []
    out.append("| call | pair | true change | perfgate R / U / I | perfgate "
               "median change | perfgate median error | perfgate time per "
               "decision | Google Benchmark R / U / I | GB median change | "
               "GB median error | GB time per decision |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        s, g = r["perfgate"], r["gbench"]
        out.append("| %s | %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s |"
                   % (fmt_call(r["call_ns"]) + (
                       ", large code" if r["duration"] == BIG[0] else ""),
                      r["pair"],
                      " beside two busy cores and a memory streamer"
                      if r["noisy"] == "loaded"
                      else " with a noisy neighbour" if r["noisy"] else "",
                      fmt_pct(r["truth"], 2), fmt_counts(s),
                      fmt_pct(s["median_change"], 2), fmt_pp(s["median_error"]),
                      fmt_s(s["median_seconds"]), fmt_counts(g),
                      fmt_pct(g["median_change"], 2), fmt_pp(g["median_error"]),
                      fmt_s(g["median_seconds"])))
    head = [
        "Produced by `python3 bench/accuracy.py%s` in %.0f min on %s "
        "(%d CPUs), measuring on CPU %d; one multiply-add step took %.3f ns."
        % (" " + " ".join(sys.argv[1:]) if sys.argv[1:] else "",
           seconds / 60, cpu_name, os.cpu_count(), cpu, ns_per_step),
        "",
        "R / U / I: how many trials gave regression / unchanged / "
        "improvement, at a %g%% floor. perfgate: %d trials per pair (30 for "
        "-20%%), default settings (max_time 10 s, min_rounds 5). Google "
        "Benchmark: %d trials per pair, %d repetitions of "
        "--benchmark_min_time=%s each, regression when the median rose by "
        "more than the floor and compare.py's U test gives p < 0.05. Time "
        "per decision: measurement only (both sides), builds excluded. The "
        "call column is the measured time of one call; three cases per "
        "benchmark."
        % (args.floor * 100, args.trials, args.peer_trials,
           args.peer_repetitions, args.peer_min_time),
        "",
    ]
    return "\n".join(head + out) + "\n"


if __name__ == "__main__":
    main()
