#!/usr/bin/env python3
"""perfgate against Triton's do_bench: the same kernels, the same device,
the same rule.

Each row is a pair of kernels (base, head) measured both ways, trial
after trial, on one GPU:

  perfgate   `perfgate compare BASE HEAD` in a throwaway repository (git,
             nvcc, the measuring child), its verdict as is;
  do_bench   triton.testing.do_bench on each side (its defaults: 25 ms of
             warm-up, 100 ms of repetitions, the L2 cleared before each,
             the mean), and the rule a CI user writes: a regression when
             the head's time rose by more than the floor, an improvement
             when it fell by more;
  cudagraph  do_bench_cudagraph likewise (the kernel launched on its
             capture stream; no L2 clearing), where the row's kernel has
             a launcher for it.

perfgate keeps its builds in a cache of the run's own, so the first
compare builds both sides of every row and the others take them from it,
as a CI cache would; both figures are printed.

Rows: bench/gpu_chain.cu (a dependent chain of multiply-adds per thread,
one full wave of threads, so its length sets the cost) at about 5 us,
50 us and 2 ms, each A/A and +10% work; vector_add A/A at 1M, 16M and
256M elements (memory-bound); matmul naive against optimized (the
README's example).  The chain's cost is calibrated on the device first:
two lengths timed, a line through them, each target's length read off it;
the line also gives "+10% work"'s true change (the fixed cost of a
launch does not grow).

Needs an NVIDIA GPU, nvcc, PyTorch and Triton; exits 2 without.
Usage: python3 bench/gpu_triton.py [--trials 20] [--budget 300]
           [--perfgate PATH] [--out FILE]
"""
import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import gpu  # noqa: E402  (bench/gpu.py: its repository and chain())

FLOOR = 0.05


def say(msg):
    print(msg, file=sys.stderr, flush=True)


def read(*path):
    with open(os.path.join(ROOT, *path)) as f:
        return f.read()


chain = gpu.chain


# Launchers on a given stream, for do_bench_cudagraph (which captures on
# a stream of its own; the solutions launch on the default stream).  The
# row's source is included, so the kernel is the very same.
CHAIN_LAUNCH = """
extern "C" void launch_on(void *s, const float *a, const float *b, float *c,
                          size_t n)
{
    add_after_chain<<<(unsigned)((n + 255) / 256), 256, 0,
                      (cudaStream_t)s>>>(a, b, c, n);
}
"""
ADD_LAUNCH = """
extern "C" void launch_on(void *s, const float *a, const float *b, float *c,
                          size_t n)
{
    add<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)s>>>(a, b, c, n);
}
"""
HOST_ONLY = 'extern "C" int perfgate_bench_host_only(void) { return 1; }\n'


class Libs:
    """The rows' sources built for do_bench as perfgate builds them
    (a shared library, the runtime shared, for the present GPU)."""

    def __init__(self, arch):
        self.tmp = tempfile.mkdtemp(prefix="pg-triton-")
        self.arch = arch
        self.n = 0

    def build(self, sources):
        """{name: (text, launcher or None)} -> {name: CDLL}, built at once."""
        procs = {}
        for name, (text, launch) in sources.items():
            self.n += 1
            src = os.path.join(self.tmp, "k%d.cu" % self.n)
            with open(src, "w") as f:
                f.write(text + (launch or ""))
            lib = src[:-3] + ".so"
            procs[name] = (lib, subprocess.Popen(
                [nvcc(), "-shared", "-Xcompiler", "-fPIC", "--cudart",
                 "shared", "-gencode=arch=compute_%s,code=sm_%s" %
                 (self.arch, self.arch), src, "-o", lib],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        out = {}
        for name, (lib, p) in procs.items():
            text, _ = p.communicate()
            if p.returncode:
                sys.exit("nvcc failed on %s:\n%s" % (name, text))
            out[name] = ctypes.CDLL(lib)
        return out


def nvcc():
    return os.environ.get("CUDACXX") or "/usr/local/cuda/bin/nvcc"


class Repo(gpu.Repo):
    """bench/gpu.py's throwaway repository, each commit's id kept, and
    compares between two of them with a build cache of their own."""

    def __init__(self, perfgate, cache):
        super().__init__(perfgate)
        self.cache = cache

    def commit(self, files):
        super().commit(files)
        p = subprocess.run(["git", "rev-parse", "HEAD"], cwd=self.path,
                           check=True, capture_output=True, text=True)
        return p.stdout.strip()

    def compare(self, base, head):
        out = os.path.join(self.path, "..", "r%d.json" % os.getpid())
        start = time.monotonic()
        p = subprocess.run([self.perfgate, "compare", base, head, "--json",
                            out, "--cache-dir", self.cache, "--no-ci"],
                           cwd=self.path, capture_output=True, text=True)
        wall = time.monotonic() - start
        if p.returncode not in (0, 1):
            sys.exit("perfgate failed (%d):\n%s" % (p.returncode, p.stderr))
        with open(out) as f:
            r = json.load(f)
        return r, {b["name"]: b for b in r["benchmarks"]}, wall


def verdict(change):
    if change > FLOOR:
        return "regression"
    if change < -FLOOR:
        return "improvement"
    return "unchanged"


class Row:
    def __init__(self, name, truth=None):
        self.name = name
        self.truth = truth
        self.runs = {"perfgate": [], "do_bench": [], "cudagraph": []}
        self.build_wall = None

    def add(self, tool, change, status, seconds):
        self.runs[tool].append((change, status, seconds))


pct = gpu.pct


def table(rows):
    lines = ["| Row | True change | Tool | Verdicts | Change: median "
             "(min … max) | s/decision |", "|---|---|---|---|---|---|"]
    for row in rows:
        for tool, runs in row.runs.items():
            if not runs:
                continue
            counts = {}
            for _, st, _ in runs:
                counts[st] = counts.get(st, 0) + 1
            ch = [c for c, _, _ in runs]
            lines.append("| %s | %s | %s | %s | %s (%s … %s) | %.2f |" % (
                row.name, pct(row.truth) if row.truth is not None else "",
                tool, ", ".join("%s %d/%d" % (k, v, len(runs))
                                for k, v in sorted(counts.items())),
                pct(statistics.median(ch)), pct(min(ch)), pct(max(ch)),
                statistics.median(s for _, _, s in runs)))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--budget", type=float, default=300,
                    help="seconds for the trials; fewer trials when spent")
    ap.add_argument("--out", help="also write the table to this file")
    ap.add_argument("--perfgate",
                    default=os.path.join(ROOT, "build", "perfgate"))
    args = ap.parse_args()
    try:
        import torch
        import triton.testing as tt
    except ImportError as e:
        say("needs PyTorch and Triton: %s" % e)
        return 2
    if not torch.cuda.is_available():
        say("no CUDA device")
        return 2
    props = torch.cuda.get_device_properties(0)
    arch = "%d%d" % (props.major, props.minor)
    sms = props.multi_processor_count
    say("device: %s, sm_%s, %d SMs, triton %s, torch %s" % (
        props.name, arch, sms, __import__("triton").__version__,
        torch.__version__))
    libs = Libs(arch)
    perfgate = os.path.abspath(args.perfgate)
    cache = tempfile.mkdtemp(prefix="pg-triton-cache-")

    # --- the chain's cost, calibrated: t = fixed + per_step * steps -----
    n_chain = sms * 2048  # one full wave of 256-thread blocks
    a = torch.rand(n_chain, device="cuda")
    b = torch.rand(n_chain, device="cuda")
    c = torch.empty(n_chain, device="cuda")
    cal = libs.build({s: (chain(s), None) for s in (256, 16384)})

    def run_solution(lib, x, y, z, n):
        return lambda: lib.solution(ctypes.c_void_p(x.data_ptr()),
                                    ctypes.c_void_p(y.data_ptr()),
                                    ctypes.c_void_p(z.data_ptr()),
                                    ctypes.c_size_t(n))

    def best(fn):
        return min(tt.do_bench(fn, return_mode="min") for _ in range(3))

    t = {s: best(run_solution(lib, a, b, c, n_chain))
         for s, lib in cal.items()}
    per_step = (t[16384] - t[256]) / (16384 - 256)
    fixed = t[256] - per_step * 256
    say("chain: %.3f us fixed + %.3f ns a step (n=%d)" % (
        fixed * 1e3, per_step * 1e6, n_chain))
    targets = {"5us": 5e-3, "50us": 50e-3, "2ms": 2.0}
    steps = {k: max(16, int(round((v - fixed) / per_step)))
             for k, v in targets.items()}
    say("steps: %s" % steps)

    # --- perfgate's repository: each row a benchmark of its own, so
    # that one compare (its builds in parallel) measures every row ---------
    sizes = {"1M": 1 << 20, "16M": 1 << 24, "256M": 1 << 28}
    add_src = read("examples", "problems", "vector_add", "solution.cu")
    pairs = {}  # row -> (benchmark name, case n, base text, head text)
    for k, s in steps.items():
        pairs["chain%s A/A" % k] = ("chain%s_aa" % k, n_chain, chain(s),
                                    chain(s) + HOST_ONLY)
        pairs["chain%s +10%%" % k] = ("chain%s_10" % k, n_chain, chain(s),
                                      chain(int(round(s * 1.1))))
    for k, v in sizes.items():
        pairs["add%s A/A" % k] = ("add%s_aa" % k, v, add_src,
                                  add_src + HOST_ONLY)
    cfg = "version: 1\nbenchmarks:\n" + "".join(
        "  - name: %s\n    problem: vector_add\n    sources: [%s.cu]\n"
        "    cases: [{n: %d}]\n" % (bn, bn, n) for bn, n, _, _ in
        pairs.values())
    repo = Repo(perfgate, cache)
    r_base = repo.commit(dict([("perfgate.yml", cfg)] + [
        ("%s.cu" % bn, t0) for bn, _, t0, _ in pairs.values()]))
    r_head = repo.commit({"%s.cu" % bn: t1 for bn, _, _, t1 in
                          pairs.values()})
    row_of = {bn: name for name, (bn, _, _, _) in pairs.items()}

    # --- do_bench's libraries: the same sources -------------------------
    dl = {name: (t0, t1, CHAIN_LAUNCH if name.startswith("chain")
                 else ADD_LAUNCH) for name, (_, _, t0, t1) in pairs.items()}
    built = libs.build(dict(
        [(name + "|0", (t0, l)) for name, (t0, _, l) in dl.items()] +
        [(name + "|1", (t1, l)) for name, (_, t1, l) in dl.items()]))

    rows = {}
    for name in dl:
        truth = None
        if name.startswith("chain"):
            k = name[5:].split()[0]
            s = steps[k]
            t0 = fixed + per_step * s
            t1 = fixed + per_step * int(round(s * 1.1))
            truth = t1 / t0 - 1 if "+10%" in name else 0.0
        elif "A/A" in name:
            truth = 0.0
        rows[name] = Row(name, truth)

    bufs = {k: [torch.rand(v, device="cuda") for _ in range(3)]
            for k, v in sizes.items()}
    bufs["chain"] = [a, b, c]

    def triton_pair(name, trial):
        key = "chain" if name.startswith("chain") else name.split()[0][3:]
        x, y, z = bufs[key]
        n = x.numel()
        libs2 = [built[name + "|0"], built[name + "|1"]]
        order = (0, 1) if trial % 2 == 0 else (1, 0)
        for tool in ("do_bench", "cudagraph"):
            t = [0.0, 0.0]
            start = time.monotonic()
            for side in order:
                lib = libs2[side]
                if tool == "do_bench":
                    t[side] = tt.do_bench(run_solution(lib, x, y, z, n))
                else:
                    def fn(lib=lib):
                        lib.launch_on(
                            ctypes.c_void_p(torch.cuda.current_stream()
                                            .cuda_stream),
                            ctypes.c_void_p(x.data_ptr()),
                            ctypes.c_void_p(y.data_ptr()),
                            ctypes.c_void_p(z.data_ptr()), ctypes.c_size_t(n))
                    t[side] = tt.do_bench_cudagraph(fn)
            change = t[1] / t[0] - 1
            rows[name].add(tool, change, verdict(change),
                           time.monotonic() - start)

    def perfgate_pairs(trial):
        r, bs, wall = repo.compare(r_base, r_head)
        for bname, bres in bs.items():
            row = rows[row_of[bname]]
            if bres.get("change") is None:
                say("%s trial %d: %s %s" % (row.name, trial + 1,
                                            bres["status"],
                                            bres.get("message") or ""))
                continue
            row.add("perfgate", bres["change"], bres["status"],
                    bres["seconds"])
        walls.append(wall)
        return r

    start = time.monotonic()
    walls = []
    device = None
    done = 0
    for trial in range(args.trials):
        if time.monotonic() - start > args.budget:
            say("budget spent after %d trials" % trial)
            break
        r = perfgate_pairs(trial)
        device = r.get("gpu", device)
        for name in dl:
            triton_pair(name, trial)
        done = trial + 1
        say("trial %d done, %.0f s" % (done, time.monotonic() - start))

    # The README's example, once: matmul naive -> optimized.
    mrepo = Repo(perfgate, cache)
    naive = read("examples", "problems", "matmul", "solution.cu")
    opt = read("examples", "problems", "matmul", "solution_optimized.cu")
    m0 = mrepo.commit({"perfgate.yml": "version: 1\nbenchmarks:\n  - name: "
                       "matmul\n    problem: matmul\n    sources: [mm.cu]\n",
                       "mm.cu": naive})
    m1 = mrepo.commit({"mm.cu": opt})
    mrow = Row("matmul naive → optimized")
    _, bs, wall = mrepo.compare(m0, m1)
    mrow.build_wall = wall
    if bs["matmul"].get("change") is not None:
        mrow.add("perfgate", bs["matmul"]["change"], bs["matmul"]["status"],
                 bs["matmul"]["seconds"])
    mm = libs.build({"0": (naive, None), "1": (opt, None)})
    dim = 2048
    ma, mb, mc = (torch.rand(dim * dim, device="cuda") for _ in range(3))
    for trial in range(3):
        tm = []
        t0 = time.monotonic()
        for side in ("0", "1"):
            lib = mm[side]
            tm.append(tt.do_bench(lambda lib=lib: lib.solution(
                ctypes.c_void_p(ma.data_ptr()), ctypes.c_void_p(mb.data_ptr()),
                ctypes.c_void_p(mc.data_ptr()), ctypes.c_size_t(dim),
                ctypes.c_size_t(dim), ctypes.c_size_t(dim))))
        mrow.add("do_bench", tm[1] / tm[0] - 1, verdict(tm[1] / tm[0] - 1),
                 time.monotonic() - t0)

    out = []
    if device:
        out.append("GPU: %s (%s, %d SMs), driver %s, runtime %s" % (
            device.get("name"), device.get("arch"), device.get("sm_count", 0),
            device.get("driver_version"), device.get("runtime_version")))
    out.append("Command: python3 bench/gpu_triton.py --trials %d (%d run)"
               % (args.trials, done))
    out.append("Chain: n=%d, %.3f us fixed + %.3f ns a step; steps %s" % (
        n_chain, fixed * 1e3, per_step * 1e6, steps))
    out.append("")
    out.append(table(list(rows.values()) + [mrow]))
    out.append("")
    out.append("perfgate's wall time for a compare of all %d rows: %.1f s "
               "the first (both sides of every row built by nvcc), median "
               "%.1f s the others (builds from the cache); matmul %.1f s "
               "(built)" % (len(rows), walls[0] if walls else 0,
                            statistics.median(walls[1:]) if walls[1:] else 0,
                            mrow.build_wall or 0))
    gpu.emit(out, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
