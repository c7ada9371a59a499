#!/usr/bin/env python3
"""perfgate on a GPU: the figures issue 4 asks for, end to end.

Runs the real `perfgate compare` (git, nvcc, the device) in a throwaway
repository, on bench/gpu_chain.cu, a vector_add kernel behind a dependent
chain of STEPS multiply-adds per thread (compute-bound, so STEPS sets its
cost: 4000 -> 4400 steps is exactly 10% more work):

  A/A      the same kernel on both sides: the measured change (target:
           within +-1%);
  +10%     the kernel with a 10% longer chain: detected how often (target:
           every time);
  time     seconds per decision: measuring (target: at most 3 s), and
           wall time with the two nvcc builds;
  demo     examples/problems/matmul: solution.cu -> solution_optimized.cu,
           the speed-up the README shows.

Needs an NVIDIA GPU, its driver and the CUDA toolkit; exits 2 without.
Usage: python3 bench/gpu.py [--trials 10] [--out FILE] [--perfgate PATH]
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


def git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def chain(steps):
    with open(os.path.join(ROOT, "bench", "gpu_chain.cu")) as f:
        return f.read().replace("#define STEPS 4000",
                                "#define STEPS %d" % steps)


CHAIN_CONFIG = """version: 1
benchmarks:
  - name: chain
    problem: vector_add
    sources: [kernel.cu]
    cases: [{n: 1048576}]
"""

DEMO_CONFIG = """version: 1
benchmarks:
  - name: matmul
    problem: matmul
    sources: [matmul.cu]
"""


class Repo:
    def __init__(self, perfgate):
        self.tmp = tempfile.TemporaryDirectory(prefix="pg-gpu-bench-")
        self.path = self.tmp.name
        self.perfgate = perfgate
        git(self.path, "init", "-q", "-b", "main")
        git(self.path, "config", "user.email", "bench@example.com")
        git(self.path, "config", "user.name", "perfgate bench")
        git(self.path, "config", "commit.gpgsign", "false")
        self.n = 0

    def commit(self, files):
        for name, text in files.items():
            with open(os.path.join(self.path, name), "w") as f:
                f.write(text)
        git(self.path, "add", "-A")
        self.n += 1
        git(self.path, "commit", "-q", "-m", "c%d" % self.n)

    def compare(self):
        out = os.path.join(self.path, "..", "r.json")
        start = time.monotonic()
        p = subprocess.run([self.perfgate, "compare", "HEAD~1", "HEAD",
                            "--json", out], cwd=self.path,
                           capture_output=True, text=True)
        wall = time.monotonic() - start
        if p.returncode == 2:
            sys.exit("perfgate failed:\n" + p.stderr)
        with open(out) as f:
            r = json.load(f)
        return r, r["benchmarks"][0], wall


def emit(lines, path):
    """The table: printed, and written to `path` too when one is given."""
    text = "\n".join(lines) + "\n"
    print(text)
    if path:
        with open(path, "w") as f:
            f.write(text)


def pct(x):
    return "%+.2f%%" % (100 * x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--out", help="also write the table to this file")
    ap.add_argument("--perfgate",
                    default=os.path.join(ROOT, "build", "perfgate"))
    args = ap.parse_args()

    repo = Repo(os.path.abspath(args.perfgate))
    base = chain(4000)
    repo.commit({"perfgate.yml": CHAIN_CONFIG, "kernel.cu": base})
    rows = {"A/A": [], "+10%": []}
    gpu = None
    for trial in range(args.trials):
        for label, text in (("A/A", base), ("+10%", chain(4400))):
            # A host function of the trial's own, so that the library
            # differs and is measured: a comment alone would build the same
            # one, which perfgate does not measure ("identical code").
            repo.commit({"kernel.cu": text + 'extern "C" int trial_%d(void) '
                         '{ return %d; }\n' % (trial, trial)})
            r, b, wall = repo.compare()
            if b["status"] == "skipped":
                print("no GPU: " + (b["message"] or ""), file=sys.stderr)
                return 2
            if b["change"] is None:
                print("%s trial %d not measured: %s %s" % (
                    label, trial + 1, b["status"], b["message"] or ""),
                    file=sys.stderr)
                return 1
            gpu = r.get("gpu", gpu)
            rows[label].append((b, wall))
            print("%-5s trial %2d: %-10s %s  [%s, %s]  %.2f s measuring, "
                  "%.1f s wall" % (label, trial + 1, b["status"],
                                   pct(b["change"]),
                                   pct(b["change_interval"][0]),
                                   pct(b["change_interval"][1]),
                                   b["seconds"], wall), file=sys.stderr)
            repo.commit({"kernel.cu": base})

    demo = Repo(os.path.abspath(args.perfgate))
    ex = os.path.join(ROOT, "examples", "problems", "matmul")
    with open(os.path.join(ex, "solution.cu")) as f:
        naive = f.read()
    with open(os.path.join(ex, "solution_optimized.cu")) as f:
        optimized = f.read()
    demo.commit({"perfgate.yml": DEMO_CONFIG, "matmul.cu": naive})
    demo.commit({"matmul.cu": optimized})
    _, d, dwall = demo.compare()

    lines = []
    if gpu:
        lines.append("GPU: %s (%s, %d SMs), driver %d, runtime %d" % (
            gpu["name"], gpu["arch"], gpu["sm_count"], gpu["driver_version"],
            gpu["runtime_version"]))
    lines.append("Command: python3 bench/gpu.py --trials %d" % args.trials)
    lines.append("")
    lines.append("| Pair | Verdicts | Change: median (min … max) | "
                 "Measuring s/decision: median (max) | Wall s/decision |")
    lines.append("|---|---|---|---|---|")
    for label, runs in rows.items():
        changes = [b["change"] for b, _ in runs]
        verdicts = {}
        for b, _ in runs:
            verdicts[b["status"]] = verdicts.get(b["status"], 0) + 1
        secs = [b["seconds"] for b, _ in runs]
        walls = [w for _, w in runs]
        lines.append("| %s | %s | %s (%s … %s) | %.2f (%.2f) | %.1f |" % (
            label, ", ".join("%s %d/%d" % (k, v, len(runs))
                             for k, v in sorted(verdicts.items())),
            pct(statistics.median(changes)), pct(min(changes)),
            pct(max(changes)), statistics.median(secs), max(secs),
            statistics.median(walls)))
    lines.append("| matmul naive → optimized (README) | %s | %s | %.2f | "
                 "%.1f |" % (d["status"], pct(d["change"]), d["seconds"],
                             dwall))
    emit(lines, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
