"""CUDA without a GPU: every CUDA example compiles, and a CUDA benchmark is
built on both sides (a head that does not compile fails the gate) and then
skipped where there is no device.  Skipped as a whole without nvcc."""
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import PERFGATE, RepoTest  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
NVCC = os.environ.get("CUDACXX") or "/usr/local/cuda/bin/nvcc"
HAVE_NVCC = os.access(NVCC, os.X_OK)
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "problems", "*",
                                         "*.cu")))


@unittest.skipUnless(HAVE_NVCC, "no nvcc (set CUDACXX): CUDA not tested")
class Examples(unittest.TestCase):
    def test_every_cuda_example_compiles(self):
        self.assertGreaterEqual(len(EXAMPLES), 10)
        with tempfile.TemporaryDirectory() as tmp:
            for src in EXAMPLES:
                with self.subTest(src=os.path.relpath(src, ROOT)):
                    p = subprocess.run(
                        [NVCC, "-shared", "-Xcompiler", "-fPIC", "--cudart",
                         "shared", "-O2", "-Werror", "all-warnings",
                         "-gencode=arch=compute_80,code=sm_80", src, "-o",
                         os.path.join(tmp, "x.so")],
                        capture_output=True, text=True)
                    self.assertEqual(p.returncode, 0, p.stdout + p.stderr)


@unittest.skipUnless(HAVE_NVCC, "no nvcc (set CUDACXX): CUDA not tested")
class Starters(RepoTest):
    def test_every_cuda_starter_compiles_and_builds(self):
        problems = sorted(os.path.basename(os.path.dirname(p))
                          for p in EXAMPLES if p.endswith("/solution.cu"))
        for name in problems:
            p = subprocess.run([PERFGATE, "init", name, "--language", "cuda"],
                               cwd=self.repo, capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            for name in problems:
                src = os.path.join(self.repo, "perf", name + ".cu")
                with self.subTest(problem=name):
                    p = subprocess.run(
                        [NVCC, "-shared", "-Xcompiler", "-fPIC", "--cudart",
                         "shared", "-Werror", "all-warnings",
                         "-gencode=arch=compute_80,code=sm_80", src, "-o",
                         os.path.join(tmp, "x.so")],
                        capture_output=True, text=True)
                    self.assertEqual(p.returncode, 0, p.stdout + p.stderr)


CONFIG = """version: 1
benchmarks:
  - name: va
    problem: vector_add
    sources: [src/va.cu]
    cuda_arch: sm_80
"""


@unittest.skipUnless(HAVE_NVCC, "no nvcc (set CUDACXX): CUDA not tested")
class Build(RepoTest):
    def setUp(self):
        super().setUp()
        with open(os.path.join(ROOT, "examples", "problems", "vector_add",
                               "solution.cu")) as f:
            self.kernel = f.read()

    def test_built_then_skipped_without_a_device(self):
        self.commit({"perfgate.yml": CONFIG, "src/va.cu": self.kernel})
        self.commit({"src/va.cu": self.kernel + "\n// head\n"})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench("va")
        if "no CUDA device" not in (b["message"] or ""):
            self.skipTest("this machine has a CUDA device")
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        self.assertEqual(b["status"], "skipped")
        self.assertIn("built both sides", b["message"])

    def test_a_head_that_does_not_compile_fails(self):
        self.commit({"perfgate.yml": CONFIG, "src/va.cu": self.kernel})
        self.commit({"src/va.cu": self.kernel.replace("c[i] = a[i] + b[i];",
                                                      "c[i] = a[i] + ;")})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1)
        b = r.bench("va")
        self.assertEqual((b["status"], b["side"]), ("build_failed", "head"))
        self.assertIn("src/va.cu", b["log"])
        self.assertIn("nvcc", b["log"])

    def built(self, r):
        b = r.bench("va")
        return (b["built"]["base"], b["built"]["head"])

    def test_a_kernel_is_built_once_and_then_taken_from_the_cache(self):
        # The kernel reads a header of its own: nvcc -M says so, and a
        # change to it is built again; a flag nvcc hands on to another
        # tool makes the build one perfgate cannot see into.
        kernel = '#include "k.h"\n' + self.kernel.replace(
            "c[i] = a[i] + b[i];", "c[i] = a[i] + b[i] * K;")
        self.commit({"perfgate.yml": CONFIG, "src/va.cu": kernel,
                     "src/k.h": "#define K 1.0f\n"})
        self.commit({"src/va.cu": kernel + "\n// head\n"})
        first = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(self.built(first), ("compiled", "compiled"),
                         first.stderr)
        second = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(self.built(second), ("cache", "cache"))
        self.commit({"src/k.h": "#define K 2.0f\n"})
        third = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(self.built(third), ("cache", "compiled"))
        # Neither side's build changed: nothing to measure.
        self.commit({"README": "docs\n"})
        fourth = self.perfgate("HEAD~1", "HEAD")
        self.assertTrue(fourth.bench("va")["not_affected"])
        self.commit({"perfgate.yml": CONFIG.replace(
            "cuda_arch: sm_80",
            "cuda_arch: sm_80\n    nvcc_flags: [-Xptxas=-v]")})
        for _ in range(2):
            fifth = self.perfgate("HEAD~1", "HEAD")
            self.assertEqual(self.built(fifth), ("compiled", "compiled"))

    def test_bad_cuda_arch(self):
        self.commit({"perfgate.yml": CONFIG.replace("sm_80", "ampere"),
                     "src/va.cu": self.kernel})
        r = self.perfgate()
        self.assertEqual(r.code, 2)
        self.assertIn("cuda_arch 'ampere': want names such as sm_80",
                      r.stderr)


class NoToolkit(RepoTest):
    """Without nvcc, a CUDA benchmark fails clearly; C benchmarks still run."""

    def test_missing_nvcc(self):
        config = CONFIG + ("  - {name: c, problem: vector_add, sources: "
                           "[src/va.c], cases: [{n: 1000}]}\n")
        with open(os.path.join(ROOT, "examples", "problems", "vector_add",
                               "solution.c")) as f:
            c_source = f.read()
        self.commit({"perfgate.yml": config, "src/va.cu": "// a kernel\n",
                     "src/va.c": c_source})
        r = self.perfgate("--noise-floor", "50%",
                          env={"CUDACXX": "/nonexistent/nvcc"})
        self.assertEqual(r.code, 1)
        b = r.bench("va")
        self.assertEqual(b["status"], "build_failed")
        self.assertIn("install the CUDA toolkit or set CUDACXX", b["message"])
        self.assertEqual(r.bench("c")["status"], "unchanged")


FAKE_DIR = os.environ.get("FAKECUDA_DIR", "")

# vector_add "kernels" for the fake device (tests/fakecuda): C that the fake
# nvcc compiles.  Each checks that its arrays are device memory, so that a
# pg_alloc() that handed out host memory would make the output wrong.
#
# The loop adds sixteen floats an iteration, with vectors.  A fake kernel is
# host code, and the GPU path loads each side once (a real kernel's time does
# not depend on where its host code sits), so a fake kernel is exposed to the
# host's code-placement bias that the CPU path's placed copies remove.  The
# plain scalar loop runs at about one element a cycle, bound by the front
# end (on 3 MB of arrays: 72-84 us scalar, 30.5 us four floats at a time,
# 30.5 us sixteen at a time, so the vector loops wait on memory), and in some
# processes one side's copy ran at half speed in every round: in
# test_a_solution_that_waits_for_the_device_is_not_gated the head read +78%
# to +99% in 5 of 156 runs beside a fork-heavy load (gzip in a loop), always
# the head, whose loop crossed a 64-byte line; never with the wait moved to
# the base (0 of 150).  How often comes and goes with the machine's state
# (later the scalar loop read 0 of 260), so the fix is a loop that waits on
# memory, with four times fewer iterations for the front end than it could
# run.
FAKE_KERNEL = """#include <stddef.h>
#include <string.h>
typedef float v4 __attribute__((vector_size(16)));
#define ADD4(k) { v4 x, y; memcpy(&x, a + i + k, sizeof(x)); \\
    memcpy(&y, b + i + k, sizeof(y)); x += y; memcpy(c + i + k, &x, sizeof(x)); }
int fakecuda_is_device(const void *p);
int cudaDeviceSynchronize(void);
void fakecuda_fault(int code);
void fakecuda_refuse(int code);
void solution(const float *a, const float *b, float *c, size_t n)
{
    if (!fakecuda_is_device(a) || !fakecuda_is_device(b) ||
        !fakecuda_is_device(c))
        return;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        ADD4(0) ADD4(4) ADD4(8) ADD4(12)
    }
    for (; i < n; i++)
        c[i] = a[i] + b[i];
    EXTRA
}
"""

SLOWER = """for (int r = 0; r < 2; r++)
        for (size_t i = 0; i < n; i++)
            c[i] = ((volatile float *)a)[i] + b[i];"""

# The stand-in's knobs reach the boxed compiler and measuring child only
# by name (the box starts from an empty environment).
FAKE_CONFIG = """version: 1
settings:
  max_time: 2s
  pass_env: [FAKECUDA_DIR, FAKECUDA_DEVICES, FAKECUDA_GATE_GIVES_UP,
             FAKECUDA_NO_PTX, FAKECUDA_THROTTLE, FAKE_NCU_ERROR]
benchmarks:
  - name: va
    problem: vector_add
    sources: [src/va.cu]
    cases: [{n: 262144}]
"""


def fake_kernel(extra=""):
    return FAKE_KERNEL.replace("EXTRA", extra)


@unittest.skipUnless(FAKE_DIR, "FAKECUDA_DIR is not set (run through ctest)")
class FakeDevice(RepoTest):
    """perfgate's whole CUDA path, on a stand-in for the driver and runtime
    (tests/fakecuda): device memory, event timing, the launch gate, the
    clock probe, the L2 flush and copies, errors from the device."""

    def run_fake(self, *args, env=None):
        full = {"CUDACXX": os.path.join(ROOT, "tests", "fakecuda", "nvcc"),
                "LD_LIBRARY_PATH": FAKE_DIR}
        full.update(env or {})
        return self.perfgate(*args, env=full)

    def two_commits(self, head_extra, config=FAKE_CONFIG, base_extra=""):
        # The head's code always differs (a function more), so that even
        # with nothing else changed both sides are built apart and timed.
        self.commit({"perfgate.yml": config,
                     "src/va.cu": fake_kernel(base_extra)})
        self.commit({"src/va.cu": fake_kernel(head_extra) +
                     'int head_marker(void) { return 1; }\n'})

    def test_a_slower_kernel_is_a_regression(self):
        self.two_commits(SLOWER)
        r = self.run_fake("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        b = r.bench("va")
        self.assertEqual(b["status"], "regression", b)
        self.assertGreater(b["change"], 0.3)
        self.assertEqual(b["cache"], "cold")
        gpu = r.json["gpu"]
        self.assertEqual((gpu["name"], gpu["arch"], gpu["sm_count"]),
                         ("perfgate fake GPU", "sm_90", 4))
        self.assertEqual(gpu["runtime_version"], 13000)
        self.assertGreater(gpu["peak_bandwidth"], 0)
        run = b["gpu"]
        self.assertGreater(run["samples"], 2 * b["rounds"])
        self.assertEqual((run["throttled"], run["gated"]), (0, True))
        # The fake's clock runs at its peak, 1980 MHz.
        self.assertAlmostEqual(run["clock_mhz"], 1980, delta=20)
        self.assertIn("gpu perfgate fake GPU (sm_90, 4 SMs at 1980 MHz",
                      r.stdout)
        self.assertIn("GPU: perfgate fake GPU (sm_90", r.markdown)
        self.assertIn("of bandwidth", r.markdown)

    def test_cold_batches_rotate_copies_and_warm_ones_do_not(self):
        # 3 KB per copy against the fake's 1 MB L2: a cold batch may hold
        # up to 128 calls, one per copy; warm, up to the gate's 256.
        small = FAKE_CONFIG.replace("262144", "256")
        self.two_commits("", config=small)
        r = self.run_fake("HEAD~1", "HEAD", "--noise-floor", "50%")
        b = r.bench("va")
        self.assertEqual(b["cache"], "cold")
        self.assertLessEqual(b["cases"][0]["inner"], 128)
        self.assertGreater(b["cases"][0]["inner"], 1)
        warm = small.replace("    cases:", "    cache: warm\n    cases:")
        self.commit({"perfgate.yml": warm})
        r = self.run_fake("--aa", "HEAD", "--noise-floor", "50%")
        b = r.bench("va")
        self.assertEqual(b["cache"], "warm")
        self.assertGreater(b["cases"][0]["inner"], 128)
        self.assertLessEqual(b["cases"][0]["inner"], 256)

    def with_ncu(self):
        """PATH with the stand-in for ncu (tests/fakecuda/ncu) first."""
        bin_dir = tempfile.mkdtemp(prefix="pg-ncu-bin-")
        self.addCleanup(shutil.rmtree, bin_dir, True)
        os.symlink(os.path.join(ROOT, "tests", "fakecuda", "ncu"),
                   os.path.join(bin_dir, "ncu"))
        return {"PATH": bin_dir + os.pathsep + os.environ["PATH"]}

    def test_a_kernel_regression_is_profiled_by_nsight_compute(self):
        self.two_commits(SLOWER)
        html = os.path.join(self.repo, "..", "profile.html")
        r = self.run_fake("HEAD~1", "HEAD", "--profile", "--html", html,
                          env=self.with_ncu())
        b = r.bench("va")
        self.assertEqual(b["status"], "regression", r.stdout + r.stderr)
        p = b["profile"]
        self.assertIsNone(p["skipped"], p)
        self.assertEqual((p["tool"], p["unit"], p["case"]),
                         ("ncu", "ns", "n=262144"))
        # The side's kernel, both launches summed; perfgate's own left out.
        self.assertEqual([f["function"] for f in p["functions"]],
                         ["va_kernel"])
        self.assertEqual((p["functions"][0]["base"],
                          p["functions"][0]["head"]), (800000, 1200000))
        m = {x["name"]: x for x in p["metrics"]}
        self.assertEqual((m["achieved occupancy"]["base"],
                          m["achieved occupancy"]["head"]), (62.25, 31.5))
        self.assertEqual(m["achieved occupancy"]["unit"], "%")
        # Bytes add up over the launches; shares are weighted by time.
        self.assertEqual(m["DRAM traffic"]["head"], 2 * 25165824)
        self.assertEqual(m["L2 hit rate"]["base"], 50)
        # The stall reasons, heaviest first; none the report lacks.
        stalls = [x["name"] for x in p["metrics"]
                  if x["name"].startswith("stall:")]
        self.assertEqual(stalls, ["stall: long scoreboard",
                                  "stall: math pipe", "stall: wait"])
        self.assertNotIn("registers per thread", m)
        self.assertIn("where the time went in case n=262144 (ncu", r.stdout)
        self.assertRegex(r.stdout, r"va_kernel +800 µs → 1\.20 ms +\+50\.0%")
        self.assertRegex(r.stdout, r"achieved occupancy +62\.2% → +31\.5% "
                         r"+-30\.8 pts")
        self.assertIn("| achieved occupancy | 62.2% | 31.5% | -30.8 pts |",
                      r.markdown)
        self.assertIn("| stall: long scoreboard | 3.25 | 12.75 | +9.50 |",
                      r.markdown)
        with open(html) as f:
            page = f.read()
        self.assertIn("<th><code>va_kernel</code></th>", page)
        self.assertIn("<td>achieved occupancy</td><td class=\"num\">62.2%"
                      "</td><td class=\"num\">31.5%</td>", page)

    def test_without_nsight_compute_the_profile_says_so(self):
        self.two_commits(SLOWER)
        r = self.run_fake("HEAD~1", "HEAD", "--profile")
        p = r.bench("va")["profile"]
        self.assertIn("install NVIDIA Nsight Compute (ncu)", p["skipped"])
        self.assertIn("no profile: no profiler on this machine", r.stdout)

    def test_nsight_compute_refused_the_counters_is_said(self):
        self.two_commits(SLOWER)
        env = self.with_ncu()
        env["FAKE_NCU_ERROR"] = "1"
        r = self.run_fake("HEAD~1", "HEAD", "--profile", env=env)
        b = r.bench("va")
        self.assertEqual(b["status"], "regression")
        self.assertIn("the head side: ncu: ERR_NVGPUCTRPERM",
                      b["profile"]["skipped"])
        self.assertEqual(b["profile"]["functions"], [])

    def test_a_crashed_kernel_is_charged_to_its_side(self):
        self.two_commits("fakecuda_fault(700);")
        r = self.run_fake("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1)
        b = r.bench("va")
        self.assertEqual((b["status"], b["side"]), ("crashed", "head"))
        self.assertIn("an illegal memory access was encountered",
                      b["message"])

    def test_a_refused_launch_is_charged_to_its_side(self):
        self.two_commits("fakecuda_refuse(9);")
        r = self.run_fake("HEAD~1", "HEAD")
        b = r.bench("va")
        self.assertEqual((b["status"], b["side"]), ("crashed", "head"))
        self.assertIn("invalid configuration argument", b["message"])

    def test_throttled_samples_are_taken_again_and_reported(self):
        self.two_commits("")
        r = self.run_fake("HEAD~1", "HEAD", "--noise-floor", "50%",
                          env={"FAKECUDA_THROTTLE": "3"})
        b = r.bench("va")
        self.assertEqual(b["status"], "unchanged", b)
        # The first sample ran throttled three times, and was kept.
        self.assertEqual((b["gpu"]["throttled"], b["gpu"]["kept_throttled"]),
                         (3, 1))
        self.assertIn("clock dropped below 75% of its peak in 3 of", r.stdout)
        self.assertIn("clock dropped below 75%", r.markdown)

    def test_a_gate_that_gives_up_is_turned_off(self):
        self.two_commits("")
        r = self.run_fake("HEAD~1", "HEAD", "--noise-floor", "50%",
                          env={"FAKECUDA_GATE_GIVES_UP": "1"})
        b = r.bench("va")
        self.assertEqual(b["status"], "unchanged", b)
        self.assertFalse(b["gpu"]["gated"])
        self.assertIn("launches could not be queued", r.stdout)

    def test_a_solution_that_waits_for_the_device_is_not_gated(self):
        # Found out before measuring, on both sides alike.
        self.two_commits("cudaDeviceSynchronize();")
        r = self.run_fake("HEAD~1", "HEAD", "--noise-floor", "50%")
        b = r.bench("va")
        self.assertEqual(b["status"], "unchanged", b)
        self.assertFalse(b["gpu"]["gated"])
        self.assertIn("does a solution wait for the device", r.markdown)
        self.assertLessEqual(b["cases"][0]["inner"], 64)

    def test_without_its_ptx_perfgate_still_measures(self):
        self.two_commits(SLOWER)
        r = self.run_fake("HEAD~1", "HEAD", env={"FAKECUDA_NO_PTX": "1"})
        b = r.bench("va")
        self.assertEqual(b["status"], "regression", b)
        self.assertFalse(b["gpu"]["gated"])
        self.assertIsNone(b["gpu"]["clock_mhz"])

    def test_no_device_skips(self):
        self.two_commits(SLOWER)
        r = self.run_fake("HEAD~1", "HEAD", env={"FAKECUDA_DEVICES": "0"})
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        b = r.bench("va")
        self.assertEqual(b["status"], "skipped")
        self.assertIn("not measured: no CUDA device", b["message"])
        self.assertNotIn("gpu", r.json)

    @unittest.skipUnless(HAVE_NVCC and os.environ.get("PG_CUDA_ABI"),
                         "no CUDA toolkit")
    def test_perfgates_own_ptx_assembles(self):
        ptx = subprocess.run([os.environ["PG_CUDA_ABI"]], check=True,
                             capture_output=True, text=True).stdout
        self.assertIn(".entry pg_gate(", ptx)
        ptxas = os.path.join(os.path.dirname(NVCC), "ptxas")
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "pg.ptx")
            with open(src, "w") as f:
                f.write(ptx)
            for arch in ("sm_80", "sm_90"):
                p = subprocess.run([ptxas, "-arch=" + arch, src, "-o",
                                    os.path.join(tmp, "pg.cubin")],
                                   capture_output=True, text=True)
                self.assertEqual(p.returncode, 0, arch + ": " + p.stderr)

    @unittest.skipUnless(HAVE_NVCC, "no nvcc (set CUDACXX): CUDA not tested")
    def test_the_real_runtime_is_found_in_a_real_kernel(self):
        # nvcc's library, with the real CUDA runtime; the fake driver makes
        # the device look present, and the real runtime then cannot start
        # on it: perfgate found the runtime's functions, and says so.
        with open(os.path.join(ROOT, "examples", "problems", "vector_add",
                               "solution.cu")) as f:
            kernel = f.read()
        config = FAKE_CONFIG.replace("cases:", "cuda_arch: sm_80\n    cases:")
        self.commit({"perfgate.yml": config, "src/va.cu": kernel})
        r = self.perfgate("--aa", env={"LD_LIBRARY_PATH": FAKE_DIR})
        b = r.bench("va")
        self.assertEqual(b["status"], "crashed", b)
        self.assertIn("cannot use the GPU: the CUDA runtime cannot start",
                      b["message"])

    def test_report_renders_again_from_the_json(self):
        self.two_commits(SLOWER)
        r = self.run_fake("HEAD~1", "HEAD")
        path = os.path.join(self.out, "result.json")
        md = os.path.join(self.tmp, "again.md")
        p = subprocess.run([PERFGATE, "report", path, "--markdown", md],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 1, p.stderr)
        with open(md) as f:
            self.assertEqual(f.read(), r.markdown)
        self.assertIn("gpu perfgate fake GPU", p.stdout)


def cuda_devices():
    """How many CUDA devices the driver sees; 0 without a driver."""
    import ctypes
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    n = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(n)) != 0:
        return 0
    return n.value


sys.path.insert(0, os.path.join(ROOT, "bench"))
from gpu import chain as gpu_chain  # noqa: E402  (bench/gpu.py)


# A host function: the library differs, the kernel does not.
HOST_ONLY = 'extern "C" int host_only(int x) { return 3 * x + 1; }\n'

GPU_CONFIG = """version: 1
benchmarks:
  - name: chain
    problem: vector_add
    sources: [src/chain.cu]
    cases: [{n: 1048576}]
"""


@unittest.skipUnless(HAVE_NVCC and cuda_devices() > 0,
                     "no CUDA device: the GPU tests need one")
class Gpu(RepoTest):
    """On a real GPU: verdicts on a kernel whose cost is known (the
    benchmark, bench/gpu.py, measures how well; these assert what holds by
    a wide margin)."""

    def test_same_kernel_is_unchanged(self):
        self.commit({"perfgate.yml": GPU_CONFIG, "src/chain.cu": gpu_chain(4000)})
        # The kernel's machine code the same, the library not: measured.
        # (A comment alone builds the same library, "identical code".)
        self.commit({"src/chain.cu": gpu_chain(4000) + HOST_ONLY})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench("chain")
        self.assertEqual(b["status"], "unchanged", r.stdout + r.stderr)
        self.assertFalse(b["identical_code"])
        self.assertLess(abs(b["change"]), 0.03)
        self.assertTrue(b["gpu"]["samples"] > 0)
        self.assertIn("gpu", r.json)

    def test_a_change_that_builds_the_same_code_is_not_measured(self):
        # A comment alone builds the same library: not measured, and said.
        self.commit({"perfgate.yml": GPU_CONFIG, "src/chain.cu": gpu_chain(4000)})
        self.commit({"src/chain.cu": gpu_chain(4000) + "// again\n"})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench("chain")
        self.assertEqual(b["status"], "unchanged", r.stdout + r.stderr)
        self.assertTrue(b["identical_code"])
        self.assertEqual(r.code, 0)

    @unittest.skipUnless(shutil.which("ncu") or os.access(
        os.path.join(os.path.dirname(NVCC), "ncu"), os.X_OK),
        "no Nsight Compute (ncu): its profile not tested")
    def test_a_regression_is_profiled_by_nsight_compute(self):
        # A quarter more steps of the chain: a quarter more instructions,
        # which ncu counts exactly; its time at the base clock, roughly.
        self.commit({"perfgate.yml": GPU_CONFIG, "src/chain.cu": gpu_chain(4000)})
        self.commit({"src/chain.cu": gpu_chain(5000)})
        r = self.perfgate("HEAD~1", "HEAD", "--profile")
        b = r.bench("chain")
        self.assertEqual(b["status"], "regression", r.stdout + r.stderr)
        p = b["profile"]
        self.assertIsNone(p["skipped"], p)
        self.assertEqual(p["tool"], "ncu")
        self.assertEqual(p["functions"][0]["function"], "add_after_chain")
        m = {x["name"]: x for x in p["metrics"]}
        inst = m["warp instructions"]
        self.assertAlmostEqual(inst["head"] / inst["base"], 1.25, delta=0.02)
        self.assertGreater(p["functions"][0]["head"],
                           p["functions"][0]["base"])
        self.assertIn("achieved occupancy", m)
        self.assertIn("where the time went in case n=1048576 (ncu", r.stdout)

    def test_a_quarter_more_work_is_a_regression(self):
        self.commit({"perfgate.yml": GPU_CONFIG, "src/chain.cu": gpu_chain(4000)})
        self.commit({"src/chain.cu": gpu_chain(5000)})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench("chain")
        self.assertEqual(b["status"], "regression", r.stdout + r.stderr)
        self.assertGreater(b["change"], 0.15)
        self.assertLess(b["change"], 0.35)

    # Faults on the device itself, as FakeDevice has them on the stand-in:
    # the head's solution launches something else before the chain.
    LAUNCH = "    add_after_chain<<<"

    def head_does(self, code, kernel="", *args):
        base = gpu_chain(400)
        self.commit({"perfgate.yml": GPU_CONFIG, "src/chain.cu": base})
        head = base.replace("extern \"C\" void solution",
                            kernel + "extern \"C\" void solution")
        head = head.replace(self.LAUNCH, "    " + code + "\n" + self.LAUNCH)
        self.commit({"src/chain.cu": head})
        r = self.perfgate("HEAD~1", "HEAD", *args)
        return r, r.bench("chain")

    def test_a_kernel_that_faults_is_crashed_on_its_side(self):
        r, b = self.head_does(
            "write_nowhere<<<1, 1>>>((float *)16);",
            "__global__ static void write_nowhere(float *p) { *p = 1; }\n")
        self.assertEqual((b["status"], b["side"]), ("crashed", "head"),
                         r.stdout + r.stderr)
        self.assertIn("illegal", b["message"])
        self.assertEqual(r.code, 1)

    def test_a_launch_the_device_refuses_is_crashed_on_its_side(self):
        # 2048 threads a block: more than any NVIDIA GPU allows.  CUDA 13
        # on an H100 answers error 1, "invalid argument" (the stand-in's
        # 9, "invalid configuration argument", is what older runtimes say).
        r, b = self.head_does("add_after_chain<<<1, 2048>>>(a, b, c, n);")
        self.assertEqual((b["status"], b["side"]), ("crashed", "head"),
                         r.stdout + r.stderr)
        self.assertIn("from the solution's launch", b["message"])

    def test_a_kernel_that_hangs_times_out_on_its_side(self):
        r, b = self.head_does(
            "spin_forever<<<1, 1>>>();",
            "__device__ long long spun;\n"
            "__global__ static void spin_forever(void)\n"
            "{ while (clock64() >= 0) spun++; }\n", "--timeout", "5s")
        self.assertEqual((b["status"], b["side"]), ("timeout", "head"),
                         r.stdout + r.stderr)
        self.assertEqual(r.code, 1)

    def test_a_solution_that_waits_for_the_device_is_not_gated(self):
        r, b = self.head_does("cudaDeviceSynchronize();", "",
                              "--noise-floor", "50%")
        self.assertIn(b["status"], ("unchanged", "regression"),
                      r.stdout + r.stderr)
        self.assertFalse(b["gpu"]["gated"])
        self.assertIn("does a solution wait for the device", r.markdown)

    def test_every_example_is_correct_on_the_device(self):
        examples = sorted(p for p in EXAMPLES)
        for src in examples:
            name = os.path.basename(os.path.dirname(src))
            with self.subTest(src=os.path.relpath(src, ROOT)):
                with open(src) as f:
                    text = f.read()
                config = ("version: 1\nsettings: {max_time: 1s}\n"
                          "benchmarks:\n  - {name: x, problem: %s, "
                          "sources: [k.cu]}\n" % name)
                self.commit({"perfgate.yml": config, "k.cu": text})
                # The self-check: the same code on both sides, checked
                # and measured (a compare would find nothing changed).
                r = self.perfgate("--aa")
                b = r.bench("x")
                # Correct and measured; its speed is not what this checks.
                self.assertIn(b["status"],
                              ("unchanged", "regression", "improvement",
                               "inconclusive"),
                              "%s: %s" % (b["message"], b["log"]))
                self.assertGreater(b["rounds"], 0)


if __name__ == "__main__":
    unittest.main()
