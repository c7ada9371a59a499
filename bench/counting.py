#!/usr/bin/env python3
"""Counting instead of timing (perfgate compare --measure): how often the
counted verdict is right, whether identical work reads exactly 0 at other
code layouts, how it fares beside a noisy neighbour, and what a decision
costs against a timed one.  See docs/accuracy.md ("Counting").

    python3 bench/counting.py [--trials 50] [--counter callgrind]
    python3 bench/counting.py --floor-study --kinds compute,memory,libc
    python3 bench/counting.py --cost-study --kinds compute,memory,libc --trials 3

Each trial is a throwaway repository: a base and a head of one function,
compared by the built perfgate.  Rows:

  compute   a chain of multiply-adds (each waits on the last)
  memory    strided walks over 1 MiB, 1 KiB a step
  dispatch  a function that runs one chain natively and another under
            valgrind (as a library dispatching on AVX-512 does on a CPU
            that has it); the head lengthens the simulated one alone.
            Right: the count is marked "another code path" and does not
            gate, since the code the machine runs did not change.

A/A rows change the layout only: k unrelated functions ahead of the
measured one (k drawn per trial), so that the library, its addresses and
its size differ while the work is the same.

--floor-study runs A/A rows alone, counted as instructions and as cycles,
at layouts that differ in one way each (functions ahead, the order two
files are linked in, the measured function's alignment) and in all three,
on compute, memory and libc (memcpy and qsort, libc's code counted too),
and says what floor the largest change calls for.  "+1.5%" rows do 1.5% more
work (ROUNDS 200 -> 203).  "noisy" runs two busy loops beside perfgate
the whole time.
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PERFGATE = os.environ.get("PERFGATE", os.path.join(ROOT, "build", "perfgate"))

SOURCES = {
    "compute": """#include <stddef.h>
#include <stdint.h>
volatile uint64_t sink;
uint64_t work(const uint8_t *data, size_t len)
{
    uint64_t x = len;
    for (size_t r = 0; r < ROUNDS * 64; r++)
        x = x * 0x9E3779B97F4A7C15u + r;
    sink = x;
    return data[0];
}
""",
    "memory": """#include <stddef.h>
#include <stdint.h>
volatile uint64_t sink;
uint64_t work(const uint8_t *data, size_t len)
{
    uint64_t h = 0;
    for (size_t r = 0; r < ROUNDS; r++)
        for (size_t i = r % 64; i < len; i += 1024)
            h += data[i];
    sink = h; /* the result is the same whatever ROUNDS is */
    return data[0];
}
""",
    "dispatch": """#include <stddef.h>
#include <stdint.h>
#include <valgrind/valgrind.h>
volatile uint64_t sink;
__attribute__((noinline)) static void chain(size_t rounds)
{
    uint64_t x = rounds;
    for (size_t r = 0; r < rounds * 64; r++)
        x = x * 0x9E3779B97F4A7C15u + r;
    sink = x;
}
__attribute__((noinline)) static void native(size_t rounds)
{
    uint64_t x = rounds;
    for (size_t r = 0; r < rounds * 64; r++)
        x = x * 0xD6E8FEB86659FD93u + r;
    sink = x;
}
uint64_t work(const uint8_t *data, size_t len)
{
    (void)len;
    if (RUNNING_ON_VALGRIND)
        chain(ROUNDS);
    else
        native(200);
    return data[0];
}
""",
    "libc": """#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
volatile uint64_t sink;
static uint32_t buf[16384];
static int by_value(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}
uint64_t work(const uint8_t *data, size_t len)
{
    uint64_t h = 0;
    for (size_t r = 0; r < ROUNDS / 20; r++) {
        memcpy(buf, data + r * 64, sizeof(buf) < len / 2 ? sizeof(buf) : len / 2);
        qsort(buf, 2048, sizeof(*buf), by_value);
        h += buf[r];
    }
    sink = h;
    return data[0];
}
""",
}

CONFIG = """version: 1
settings:
  max_time: 2s
benchmarks:
  - name: work
    function: "uint64_t work(const uint8_t *data, size_t len)"
    sources: [src/work.c]
    args: {data: {count: len}}
    cases: [{len: 1048576}]
"""


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def source(kind, rounds, padding):
    pad = "".join("int pad%d(int x) { return x * %d + %d; }\n" % (i, i + 3, i)
                  for i in range(padding))
    return pad + "#define ROUNDS %d\n" % rounds + SOURCES[kind]


def init_repo(tmp):
    """An empty repository under `tmp`, with a src/ folder."""
    repo = tempfile.mkdtemp(dir=tmp)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "bench@example.com")
    git(repo, "config", "user.name", "bench")
    os.makedirs(os.path.join(repo, "src"))
    return repo


def make_repo(tmp, kind, base, head):
    """A repository whose HEAD~1 is `base` and HEAD is `head`, each
    (rounds, padding)."""
    repo = init_repo(tmp)
    for i, (rounds, padding) in enumerate((base, head)):
        with open(os.path.join(repo, "perfgate.yml"), "w") as f:
            f.write(CONFIG)
        with open(os.path.join(repo, "src", "work.c"), "w") as f:
            f.write(source(kind, rounds, padding))
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "side %d" % i)
    return repo


def compare(repo, measure, counter, floor=None):
    """(verdict, change, seconds) of perfgate compare HEAD~1 HEAD."""
    out = os.path.join(repo, "..", os.path.basename(repo) + ".json")
    args = [PERFGATE, "compare", "HEAD~1", "HEAD", "-q", "--json", out,
            "--measure", measure]
    if measure != "time":
        args += ["--counter", counter]
    if floor:
        args += ["--noise-floor", floor]
    start = time.monotonic()
    subprocess.run(args, cwd=repo, capture_output=True, text=True)
    seconds = time.monotonic() - start
    with open(out) as f:
        b = json.load(f)["benchmarks"][0]
    return b["status"], b["change"], seconds, b.get("message"), b


class Neighbour:
    """Two busy loops, one per core, for as long as it is open."""

    def __enter__(self):
        self.procs = [subprocess.Popen(
            [sys.executable, "-c", "while True: pass"]) for _ in range(2)]
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
            p.wait()


def row(tmp, kind, label, base, head, want, trials, counter, noisy):
    hits, changes, seconds, exact, marked, faults = 0, [], [], 0, 0, []
    for t in range(trials):
        b = (base[0], random.randrange(0, 40))
        h = (head[0], random.randrange(0, 40))
        while h[1] == b[1]:
            h = (head[0], random.randrange(0, 40))
        repo = make_repo(tmp, kind, b, h)
        # The builds, once, so that the figures are of measuring alone.
        compare(repo, "time", counter, floor="90%")
        if noisy:
            with Neighbour():
                verdict, change, s, msg, b = compare(repo, "instructions",
                                                     counter)
        else:
            verdict, change, s, msg, b = compare(repo, "instructions",
                                                 counter)
        if verdict == "skipped":
            sys.exit("counting.py: not counted: %s" % msg)
        other = (b.get("code_path") or {}).get("other") is not None
        marked += other
        if kind == "dispatch":
            # Marked, and not gating: the machine's code did not change.
            hits += other and not b["fails_gate"]
        else:
            hits += verdict == want and not other
        if change is None:
            # Not measured (crashed, timed out, an error): a miss, and
            # what happened is kept for the table's notes.
            faults.append("%s: %s" % (verdict, msg))
        else:
            exact += change == 0
            changes.append(change)
        seconds.append(s)
        shutil.rmtree(repo)
    r = {"row": "%s %s%s" % (kind, label, ", noisy" if noisy else ""),
         "want": want, "hits": hits, "trials": trials,
         "exact": exact, "marked": marked, "faults": faults,
         "lo": min(changes, default=float("nan")),
         "hi": max(changes, default=float("nan")),
         "seconds": statistics.median(seconds)}
    # Each row as it ends, so that a long run's rows outlive its end.
    log(json.dumps(r))
    return r


FLOOR_CONFIG = CONFIG.replace("sources: [src/work.c]",
                              "sources: [src/a.c, src/b.c]")
FILLER = "".join("long fill%d(long x) { return x * %d ^ %d; }\n" % (i, i + 7, i)
                 for i in range(24))
# What a floor-study side may differ in: k functions ahead of the measured
# one, its alignment, and the order its file is linked in.
PERTURBATIONS = {
    "padding": lambda: (random.randrange(0, 40), 16, False),
    "link order": lambda: (5, 16, random.random() < 0.5),
    "alignment": lambda: (0, random.choice((16, 32, 64, 128, 256, 512)),
                          False),
    "all three": lambda: (random.randrange(0, 40),
                          random.choice((16, 32, 64, 128, 256, 512)),
                          random.random() < 0.5),
}


def layout_repo(tmp, kind, base, head):
    """A repository of two commits of the same work at the layouts `base`
    and `head`, each (padding, alignment, swapped): the measured function
    in src/a.c and filler in src/b.c, or swapped (linked the other way)."""
    repo = init_repo(tmp)
    for i, (padding, align, swapped) in enumerate((base, head)):
        work = ("#define WORK_ALIGN __attribute__((aligned(%d)))\n" % align +
                source(kind, 200, padding).replace(
                    "uint64_t work(", "WORK_ALIGN uint64_t work("))
        files = (FILLER, work) if swapped else (work, FILLER)
        with open(os.path.join(repo, "perfgate.yml"), "w") as f:
            f.write(FLOOR_CONFIG)
        for name, text in zip(("a.c", "b.c"), files):
            with open(os.path.join(repo, "src", name), "w") as f:
                f.write(text)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "side %d" % i)
    return repo


def floor_study(tmp, kinds, metrics, trials, counter):
    """A/A at other layouts, per kind, metric and perturbation: how often
    the count is exactly the same, and the largest change seen."""
    rows = []
    for kind in kinds:
        for metric in metrics:
            for name, draw in PERTURBATIONS.items():
                log("floor: %s %s %s..." % (kind, metric, name))
                changes, unchanged, timed = [], 0, []
                for _ in range(trials):
                    b, h = draw(), draw()
                    while h == b:
                        h = draw()
                    repo = layout_repo(tmp, kind, b, h)
                    verdict, change, _, msg, _ = compare(repo, metric,
                                                         counter)
                    if verdict == "skipped" or change is None:
                        sys.exit("counting.py: not counted: %s" % msg)
                    changes.append(change)
                    unchanged += verdict == "unchanged"
                    if metric == "instructions":
                        # The same pair timed, at the time's 5% floor.
                        timed.append(compare(repo, "time", counter)[:2])
                    shutil.rmtree(repo)
                rows.append({"kind": kind, "metric": metric,
                             "perturbation": name, "trials": trials,
                             "exact": sum(c == 0 for c in changes),
                             "unchanged": unchanged,
                             "largest": max(abs(c) for c in changes),
                             "timed": timed})
    return rows


def print_floor(rows, counter):
    print("Counter: %s; %d trials a row; A/A at other layouts only.\n"
          % (counter, rows[0]["trials"]))
    print("| kind | metric | perturbation | exactly 0 | unchanged at 1% | "
          "largest change |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %d/%d | %d/%d | %.4f%% |"
              % (r["kind"], r["metric"], r["perturbation"], r["exact"],
                 r["trials"], r["unchanged"], r["trials"],
                 r["largest"] * 100))
    print("\nThe same pairs timed (`--measure time`, 5% floor):\n")
    print("| kind | perturbation | unchanged at 5% | largest change |")
    print("|---|---|---|---|")
    for r in rows:
        if r["timed"]:
            print("| %s | %s | %d/%d | %.2f%% |"
                  % (r["kind"], r["perturbation"],
                     sum(v == "unchanged" for v, _ in r["timed"]),
                     len(r["timed"]),
                     max(abs(c) for _, c in r["timed"]) * 100))
    print()
    for metric in sorted({r["metric"] for r in rows}):
        worst = max(r["largest"] for r in rows if r["metric"] == metric)
        # The floor: twice the largest change layout alone made, at least
        # the default 1%.
        print("- %s: the largest A/A change at another layout %.4f%%; "
              "a floor of %.2f%% holds it twice over (the default is 1%%)."
              % (metric, worst * 100, max(2 * worst * 100, 1.0)))


def timing_cost(tmp, kind, counter, trials, rounds=200):
    """(median seconds of a timed decision, of a counted one, and the
    base's time a call in ns) on the same pair of `rounds` against 1.5%
    more (builds done beforehand)."""
    timed, counted, per_call = [], [], []
    for _ in range(trials):
        # libc does ROUNDS / 20 passes: its head does one pass more.
        more = 20 if kind == "libc" else max(1, rounds * 3 // 200)
        repo = make_repo(tmp, kind, (rounds, 0), (rounds + more, 0))
        compare(repo, "time", counter, floor="90%")
        _, _, seconds, _, b = compare(repo, "time", counter)
        timed.append(seconds)
        per_call.append(b.get("base_ns") or 0)
        counted.append(compare(repo, "instructions", counter)[2])
        shutil.rmtree(repo)
    return (statistics.median(timed), statistics.median(counted),
            statistics.median(per_call))


def cost_study(tmp, kinds, counter, trials):
    """The cost rows: a decision timed and counted, on calls from about
    10 us to about 1 ms (the issue's bound is 30x up to 1 ms a call)."""
    print("Counter: %s; median of %d decisions a row.\n" % (counter, trials))
    print("| kind | time a call | timed decision | counted decision | ratio |")
    print("|---|---|---|---|---|")
    for kind in kinds:
        for rounds in COST_ROUNDS[kind]:
            log("cost %s, %d rounds..." % (kind, rounds))
            t, c, ns = timing_cost(tmp, kind, counter, trials, rounds)
            print("| %s | %.0f µs | %.2f s | %.2f s | %.1fx |"
                  % (kind, ns / 1e3, t, c, c / t), flush=True)


# Rounds that make a call about 10 us, 100 us and 1 ms on the development
# VM (the table says what each took).
COST_ROUNDS = {"compute": (120, 1200, 12000), "memory": (40, 400, 4000),
               "libc": (20, 140)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=50)
    ap.add_argument("--counter", default="callgrind",
                    choices=("callgrind", "hardware"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kinds", default="compute,memory,dispatch",
                    help="the rows' kinds, comma-separated")
    ap.add_argument("--target-rows", action="store_true",
                    help="only A/A (quiet) and +1.5%% (noisy) rows")
    ap.add_argument("--noisy-only", action="store_true",
                    help="only the rows beside the two busy loops")
    ap.add_argument("--floor-study", action="store_true",
                    help="only the A/A rows at other layouts (padding, "
                         "link order, alignment), instructions and "
                         "cycles, and the floor they call for")
    ap.add_argument("--cost-study", action="store_true",
                    help="only the cost of a decision, timed and counted, "
                         "at about 10 us, 100 us and 1 ms a call "
                         "(TRIALS decisions a row)")
    args = ap.parse_args()
    random.seed(args.seed)
    tmp = tempfile.mkdtemp(prefix="pg-counting-")
    os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
    if args.cost_study:
        try:
            cost_study(tmp, [k for k in args.kinds.split(",")
                             if k != "dispatch"], args.counter, args.trials)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return
    if args.floor_study:
        kinds = [k for k in args.kinds.split(",") if k != "dispatch"]
        try:
            rows = floor_study(tmp, kinds, ("instructions", "cycles"),
                               args.trials, args.counter)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        print_floor(rows, args.counter)
        return
    rows = []
    try:
        for kind in args.kinds.split(","):
            for label, base, head, want in (
                    ("A/A (layout)", (200, 0), (200, 0), "unchanged"),
                    ("+1.5%", (200, 0), (203, 0), "regression")):
                for noisy in (False, True):
                    # --target-rows: the targets alone (A/A quiet,
                    # +1.5% beside the neighbour); counts do not move with
                    # load, so the others add little at 50 trials.
                    if args.target_rows and noisy != (label == "+1.5%"):
                        continue
                    if args.noisy_only and not noisy:
                        continue
                    log("%s %s%s..." % (kind, label,
                                        ", noisy" if noisy else ""))
                    rows.append(row(tmp, kind, label, base, head, want,
                                    args.trials, args.counter, noisy))
        cost = {kind: timing_cost(tmp, kind, args.counter,
                                  max(3, args.trials // 10))[:2]
                for kind in args.kinds.split(",") if kind != "dispatch"}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("Counter: %s; %d trials a row; count floor 1%%.\n"
          % (args.counter, args.trials))
    print("| row | right | exactly 0 | marked another path | "
          "change, lowest … highest | seconds a decision |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        want = ("marked, not gating" if r["row"].startswith("dispatch")
                else r["want"])
        print("| %s | %d/%d %s | %d/%d | %d/%d | %+.4f%% … %+.4f%% | %.2f |"
              % (r["row"], r["hits"], r["trials"], want, r["exact"],
                 r["trials"], r["marked"], r["trials"], r["lo"] * 100,
                 r["hi"] * 100, r["seconds"]))
    for r in rows:
        for f in r["faults"]:
            print("\n- %s, not measured: %s" % (r["row"], f))
    if not cost:  # dispatch rows alone: nothing to time against
        return
    print("\n| row | timed decision | counted decision | ratio |")
    print("|---|---|---|---|")
    for kind, (t, c) in cost.items():
        print("| %s +1.5%% | %.2f s | %.2f s | %.1fx |" % (kind, t, c, c / t))


if __name__ == "__main__":
    main()
