#!/usr/bin/env python3
"""The memory pass's benchmark (docs/measuring.md, "The heap per call"):
is the heap per call counted exactly, is every change caught and named,
and what does counting it cost?

    python3 bench/heap.py [--runs 50] [--out FILE] [--perfgate PATH]

A repository of our own code (tests/integration/fixtures/allocs.c, which
copies its input into a malloc'd buffer each call, and bench/chain.c, which
allocates nothing), compared with `perfgate compare` as a user runs it:

- A/A, allocating and not: two builds that differ only in a function no one
  calls; the heap must read exactly the same, in every run.
- A head with one allocation more per call, one byte more, a peak a quarter
  higher, and a leak of 16 bytes a call: each must be caught (the JSON's
  figures differ by exactly that) and named (the terminal says it).
- The cost: the same compare with --memory off and with it on, on the
  chain (allocates nothing) and on reduce_sum at a DRAM size allocating a
  one-shot API's state each call (bench/mem.c -DONESHOT), interleaved: the
  wall time per decision either way, the counting's own time, and the timed
  rounds' own figures.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALLOCS = os.path.join(ROOT, "tests", "integration", "fixtures", "allocs.c")
OTHER = "int pg_bench_other(int x) { return 3 * x; }\n"

CONFIG = """version: 1
settings:
  max_time: {max_time}
benchmarks:
  - name: heap
    function: "uint64_t checksum(const uint8_t *data, size_t len)"
    sources: [allocs.c]
    ldflags: [-pthread]
    args: {{data: {{count: len}}}}
    cases: [{{len: 256}}, {{len: 4096}}]
  - name: chain
    problem: chain_problem.c
    symbol: chain
    sources: [chain.c]
    cases: [{{seed: 1}}]
  - name: oneshot
    problem: reduce_sum
    sources: [mem.c]
    cases: [{{n: 4194304}}]
"""

# (row, defines of the head, what the JSON must show, what the text says)
CHANGES = [
    ("one allocation more", {"EXTRA": 24},
     {"allocs": 1, "bytes": 24}, "+1 allocation, +24 B per call"),
    ("one byte more", {"MORE": 1},
     {"bytes": 1, "peak": 1}, "+1 B per call; peak 256 B → 257 B"),
    ("a peak a quarter higher", {"MORE": 64},
     {"bytes": 64, "peak": 64}, "+64 B per call; peak 256 B → 320 B"),
    ("a leak of 16 B a call", {"LEAK": 16},
     {"allocs": 1, "bytes": 16, "leaked": 16}, "leaks 16 B per call more"),
]


def git(repo, *args):
    subprocess.run(["git", "-C", repo, *args], check=True,
                   capture_output=True)


def source(defines, extra=""):
    with open(ALLOCS) as f:
        text = f.read()
    return extra + "".join("#define %s %s\n" % kv
                           for kv in defines.items()) + text


def commit(repo, files, message):
    for name, text in files.items():
        with open(os.path.join(repo, name), "w") as f:
            f.write(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"],
                          check=True, capture_output=True,
                          text=True).stdout.strip()


def read(path):
    with open(path) as f:
        return f.read()


def compare(perfgate, repo, base, head, *args):
    out = os.path.join(repo, "..", "result.json")
    t = time.monotonic()
    p = subprocess.run([perfgate, "compare", "--no-ci", "--json", out, base,
                        head, *args], cwd=repo, capture_output=True,
                       text=True)
    wall = time.monotonic() - t
    if p.returncode not in (0, 1):
        sys.exit("perfgate failed (%d):\n%s" % (p.returncode, p.stderr))
    with open(out) as f:
        return json.load(f), p.stdout, wall


def bench(r, name):
    return next(b for b in r["benchmarks"] if b["name"] == name)


def differences(b):
    """Per case, head minus base, for each figure."""
    out = []
    for c in b["cases"]:
        m = c.get("memory") or {}
        if not m.get("base") or not m.get("head"):
            return None
        out.append({k: m["head"][k] - m["base"][k] for k in m["head"]})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--cost-runs", type=int, default=10)
    ap.add_argument("--out")
    ap.add_argument("--perfgate",
                    default=os.path.join(ROOT, "build", "perfgate"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="perfgate-heap.")
    repo = os.path.join(tmp, "repo")
    os.mkdir(repo)
    git(repo, "init", "-q")
    git(repo, "config", "user.name", "bench")
    git(repo, "config", "user.email", "bench@localhost")
    chain = "#define STEPS 20000\n" + read(os.path.join(ROOT, "bench",
                                                       "chain.c"))
    mem = "#define REDUCE 1\n#define ONESHOT 1\n#define VARIANT 0\n" + read(
        os.path.join(ROOT, "bench", "mem.c"))
    config = CONFIG.format(max_time="300ms")
    base = commit(repo, {"perfgate.yml": config, "allocs.c": source({}),
                         "chain.c": chain, "mem.c": mem,
                         "chain_problem.c": read(os.path.join(
                             ROOT, "bench", "chain_problem.c"))}, "base")
    same = commit(repo, {"allocs.c": source({}, OTHER),
                         "chain.c": OTHER + chain, "mem.c": OTHER + mem},
                  "A/A")
    heads = [commit(repo, {"allocs.c": source(d)}, row)
             for row, d, _, _ in CHANGES]
    lines = ["| row | runs | caught | named | head - base, per call "
             "(case len=256) |", "|---|---|---|---|---|"]
    # A/A: exactly the same, allocating (heap) and not (chain).
    zero = {"heap": 0, "chain": 0}
    for i in range(a.runs):
        r, text, _ = compare(a.perfgate, repo, base, same, "-b", "heap",
                             "-b", "chain")
        for name in zero:
            b = bench(r, name)
            d = differences(b)
            zero[name] += d is not None and not b["memory"].get("case") and \
                all(v == 0 for c in d for v in c.values())
    for name, n in zero.items():
        lines.append("| A/A, %s | %d | %d of %d exactly 0 | – | 0 |" % (
            "allocating" if name == "heap" else "allocating nothing",
            a.runs, n, a.runs))
    for (row, _, want, phrase), head in zip(CHANGES, heads):
        caught = named = 0
        first = None
        for i in range(a.runs):
            r, text, _ = compare(a.perfgate, repo, same, head, "-b", "heap")
            d = differences(bench(r, "heap"))
            first = d and d[0]
            caught += d is not None and all(
                abs(c.get(k, 0) - v) < 1e-9 for c in d for k, v in
                want.items())
            named += phrase in text
        lines.append("| %s | %d | %d | %d | %s |" % (
            row, a.runs, caught, named,
            ", ".join("%s %+g" % (k, v) for k, v in (first or {}).items()
                      if v)))
    # The cost, at the default budget: the decision's wall time (measuring
    # and checking, the builds cached) with the heap counted and without,
    # interleaved; the counting's own time in the measuring child; and the
    # timed rounds' figures with it and without.
    lines += ["", "| benchmark | time per decision, --memory off | "
              "--memory report | adds | of which counting | timed change, "
              "off / report |", "|---|---|---|---|---|---|"]
    for name in ("chain", "oneshot"):
        walls = {"off": [], "report": []}
        changes = {"off": [], "report": []}
        counting = []
        for i in range(a.cost_runs):
            for mode in ("off", "report") if i % 2 else ("report", "off"):
                r, _, wall = compare(a.perfgate, repo, base, same, "-b",
                                     name, "--memory", mode, "--max-time",
                                     "10s")
                b = bench(r, name)
                changes[mode].append(b["change"] or 0)
                walls[mode].append(wall)
                if mode == "report":
                    counting.append(b["memory"]["seconds"])
        off = statistics.median(walls["off"])
        on = statistics.median(walls["report"])
        lines.append("| %s | %.2f s | %.2f s | %+.1f%% | %.1f ms | %+.2f%% / "
                     "%+.2f%% |" % (name, off, on, 100 * (on - off) / off,
                                    1e3 * statistics.median(counting),
                                    100 * statistics.median(changes["off"]),
                                    100 * statistics.median(
                                        changes["report"])))
    table = "\n".join(lines)
    print(table)
    if a.out:
        with open(a.out, "w") as f:
            f.write(table + "\n")
    subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
