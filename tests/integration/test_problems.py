"""Problems: the built-in ones, a library of them, starters from init, C++,
and what one problem and side can see of another."""
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from harness import (CONFIG, MEASURED, PERFGATE, RepoTest,  # noqa: E402
                     fixture)


MATMUL_NAIVE = fixture("matmul_naive.c")

# Another loop order, with fused multiply-adds: just as correct.
MATMUL_IKJ = fixture("matmul_ikj.c")

VECTOR_ADD = fixture("vector_add.c")

PROBLEMS_CONFIG = fixture("problems.yml")

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "..", "examples", "problems")

# Each built-in problem: small cases, and a change to its example solution
# that makes it wrong.
LIBRARY = {
    "vector_add": ("[{n: 1001}]", "i < n", "i + 1 < n"),
    "relu": ("[{n: 33, m: 17}]", ": 0.0f", ": input[i]"),
    "reduce_sum": ("[{n: 1000}]", "+ (acc[6] + acc[7])", "+ acc[6]"),
    "prefix_sum": ("[{n: 1000}]", "output[i] = sum += input[i];",
                   "output[i] = (sum += input[i]) - input[i];"),
    "softmax": ("[{rows: 7, cols: 100}]", "y[j] /= sum;", "y[j] /= 1;"),
    "matvec": ("[{m: 33, k: 29}]", "j < k", "j + 1 < k"),
    "matmul": ("[{m: 33, n: 17, k: 29}]", "p < k", "p + 1 < k"),
    "conv1d": ("[{N: 1000, K: 7}]", "B[j]", "B[K - 1 - j]"),
    "conv2d": ("[{H: 40, W: 30, Kh: 5, Kw: 3}]", "B[k * Kw + l]",
               "B[(Kh - 1 - k) * Kw + l]"),
    "histogram": ("[{height: 40, width: 30, num_bins: 16}]",
                  "histogram_output[b] = 0;", "(void)histogram_output;"),
}

# A problem for functions `unsigned long f(const unsigned char *p, size_t n)`
# that must return mul * n + add.  Its check also fails when a library of
# perfgate's own is loaded in the process that runs the user's code.
PROBE_PROBLEM = fixture("probe_problem.c")

# Functions named as zlib's, cJSON's, libyaml's and libgit2's, which return
# what only this library's own definitions give: 1 + 3n + 7 from crc32_z,
# 10 * 1000 and 9 * 100000 from the version strings' lengths, and 4242.
NAMESAKES = fixture("namesakes.c")

NAMESAKES_ADD = 1 + 7 + 10 * 1000 + 9 * 100000 + 4242

# Base and head each define helper(), differently; each side is right only
# with its own (3n either way).
HELPER_BASE = fixture("helper_base.c")

HELPER_HEAD = fixture("helper_head.c")

# A library with its own rand(), which the C library has too: shipped
# libraries call their own; a plain -shared build calls the first found.
OWN_RAND = fixture("own_rand.c")


class Problems(RepoTest):
    """The built-in problems accept any correct solution, refuse a wrong one."""

    def test_correct_solutions_pass_and_wrong_ones_do_not(self):
        self.commit({"perfgate.yml": PROBLEMS_CONFIG, "src/mm.c": MATMUL_NAIVE,
                     "src/va.c": VECTOR_ADD}, "base")
        self.commit({"src/mm.c": MATMUL_IKJ})
        r = self.perfgate("HEAD~1", "HEAD")
        # Verified and measured (fmaf may be a slow libm call: its speed is
        # not the point here, its correctness is; a loaded machine may
        # leave the verdict inconclusive).
        self.assertIn(r.bench("mm")["status"], MEASURED, r.stdout)
        self.assertEqual(r.bench("va")["status"], "unchanged")
        mm = r.bench("mm")["cases"][0]
        self.assertEqual(mm["flops"], 2 * 33 * 17 * 29)

        self.commit({"src/mm.c": MATMUL_NAIVE.replace("p < k", "p + 1 < k"),
                     "src/va.c": VECTOR_ADD.replace("i < n", "i + 1 < n")})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1)
        self.assertEqual(r.bench("mm")["status"], "incorrect")
        self.assertIn("expected", r.bench("mm")["message"])
        self.assertEqual(r.bench("va")["status"], "incorrect")
        self.assertIn("c[1000]", r.bench("va")["message"])

    def test_listing_has_work_and_cuda_cases_with_known_keys(self):
        p = subprocess.run([PERFGATE, "problems"], capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        blocks = [b for b in p.stdout.split("\n\n") if b.strip()]
        self.assertEqual(len(blocks), 10)

        def keys(cases):
            return [{kv.split("=")[0].strip() for kv in c.split(",")}
                    for c in cases.split(";")]
        for block in blocks:
            lines = block.strip().split("\n")
            with self.subTest(problem=lines[0]):
                fields = dict(l.strip().split(": ", 1) for l in lines[2:])
                self.assertIn("FLOPs", fields["work per call"])
                self.assertIn("bytes", fields["work per call"])
                cpu, gpu = keys(fields["cases"]), keys(fields["CUDA cases"])
                for k in gpu:
                    self.assertEqual(k, cpu[0])


class Library(RepoTest):
    """Every built-in problem against its example C solution, correct and
    made wrong."""

    def sources(self, wrong=False):
        files = {}
        for name, (_, old, new) in LIBRARY.items():
            with open(os.path.join(EXAMPLES, name, "solution.c")) as f:
                text = f.read()
            self.assertIn(old, text, name)
            files["src/%s.c" % name] = text.replace(old, new) if wrong else text
        return files

    def test_examples_pass_and_broken_ones_do_not(self):
        config = "version: 1\nsettings: {max_time: 200ms, noise_floor: 90%}\n"
        config += "benchmarks:\n"
        for name, (cases, _, _) in LIBRARY.items():
            config += ("  - {name: %s, problem: %s, sources: [src/%s.c], "
                       "cases: %s}\n" % (name, name, name, cases))
        self.commit(dict(self.sources(), **{"perfgate.yml": config}), "base")
        # A self-check, to measure each example against itself; whether
        # this machine is quiet enough for the floor is not this test's.
        r = self.perfgate("--aa")
        self.assertIsNotNone(r.json, r.stdout + r.stderr)
        for name in LIBRARY:
            b = r.bench(name)
            # Never a label on identical code; a machine too busy for the
            # floor leaves it without one.
            self.assertIn(b["status"], ("unchanged", "inconclusive"),
                          (name, b["message"]))
            self.assertGreater(b["cases"][0]["flops"], 0, name)
            self.assertGreater(b["cases"][0]["bytes"], 0, name)

        self.commit(self.sources(wrong=True))
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1)
        for name in LIBRARY:
            b = r.bench(name)
            self.assertEqual((name, b["status"], b["side"]),
                             (name, "incorrect", "head"), b["message"])


class Isolation(RepoTest):
    """The user's code runs apart from perfgate's own libraries, each side
    binds its own definitions, and the default build binds them as a
    shipped library does."""

    def probe_config(self, add=0, symbols=None):
        extra = ", symbols: %s" % symbols if symbols else ""
        return ("version: 1\nsettings: {max_time: 200ms, noise_floor: 90%%}\n"
                "benchmarks:\n  - {name: probe, problem: perf/probe.c, "
                "sources: [src/lib.c], cases: [{n: 64, mul: 3, add: %d}]%s}\n"
                % (add, extra))

    def test_namesakes_of_perfgates_libraries_run_their_own_code(self):
        # Interposable, so that every call looks for the first definition
        # in the process: only perfgate's absence makes it the user's.
        self.commit({"perfgate.yml": self.probe_config(NAMESAKES_ADD,
                                                       "interposable"),
                     "perf/probe.c": PROBE_PROBLEM, "src/lib.c": NAMESAKES})
        r = self.perfgate("--aa")
        b = r.bench("probe")
        self.assertIn(b["status"], MEASURED, b["message"])

    def test_base_and_head_bind_their_own_definitions(self):
        self.commit({"perfgate.yml": self.probe_config(0, "interposable"),
                     "perf/probe.c": PROBE_PROBLEM, "src/lib.c": HELPER_BASE})
        self.commit({"src/lib.c": HELPER_HEAD})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench("probe")
        self.assertIn(b["status"], MEASURED, b["message"])

    def test_default_build_binds_internal_calls_within_the_library(self):
        self.commit({"perfgate.yml": self.probe_config(),
                     "perf/probe.c": PROBE_PROBLEM, "src/lib.c": OWN_RAND})
        r = self.perfgate("--aa")
        b = r.bench("probe")
        self.assertIn(b["status"], MEASURED, b["message"])
        # The knob that turns it off: the C library's rand() is called.
        self.write("perfgate.yml", self.probe_config(0, "interposable"))
        r = self.perfgate("--aa")
        b = r.bench("probe")
        self.assertEqual(b["status"], "incorrect", b["message"])
        self.assertIn("expected 192", b["message"])


class Cxx(RepoTest):
    """A C++ solution: c++ from the extension, the function extern "C"."""

    def test_cpp_solution(self):
        source = ('#include <cstddef>\n#include <algorithm>\n'
                  'extern "C" void solution(const float *a, const float *b, '
                  'float *c, size_t n)\n{\n    std::transform(a, a + n, b, '
                  'c, [](float x, float y) { return x + y; });\n}\n')
        config = ("version: 1\nsettings: {max_time: 300ms}\nbenchmarks:\n"
                  "  - {name: va, problem: vector_add, sources: [src/va.cpp], "
                  "cases: [{n: 1000}]}\n")
        self.commit({"perfgate.yml": config, "src/va.cpp": source})
        r = self.perfgate("--noise-floor", "50%")
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        self.assertEqual(r.bench("va")["status"], "unchanged")


class Init(RepoTest):
    """perfgate init: a starter and its benchmark, then a real comparison."""

    def init(self, *args):
        return subprocess.run([PERFGATE, "init", *args], cwd=self.repo,
                              capture_output=True, text=True)

    def test_starter_to_verdict(self):
        self.commit({"README": "a project\n"}, "start")
        p = self.init("vector_add")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("created perf/vector_add.c", p.stdout)
        with open(os.path.join(self.repo, "perf", "vector_add.c")) as f:
            starter = f.read()
        self.assertIn("void solution(const float *a, const float *b, "
                      "float *c, size_t n)", starter)
        # The empty body is compiled, run and found wrong, not crashed
        # (the working tree against HEAD, which has no benchmark yet).
        r = self.perfgate()
        self.assertEqual(r.bench("vector_add")["status"], "incorrect")
        self.commit({}, "starter")
        # Committed and not changed since: the change reaches nothing.
        r = self.perfgate()
        self.assertTrue(r.bench("vector_add")["not_affected"])
        # Filled in, committed, then changed: both sides right, a verdict.
        self.commit({"perf/vector_add.c": VECTOR_ADD}, "solution")
        self.commit({"perf/vector_add.c": VECTOR_ADD.replace(
            "c[i] = a[i] + b[i];", "c[i] = b[i] + a[i];")})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "50%")
        self.assertEqual(r.bench("vector_add")["status"], "unchanged")
        self.assertEqual(r.json["counts"]["incorrect"], 0)

    def test_second_benchmark_and_refusals(self):
        self.base_repo()
        p = self.init("matmul", "--name", "mm")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.repo, "perfgate.yml")) as f:
            config = f.read()
        self.assertTrue(config.startswith(CONFIG), config)
        self.assertIn("  - name: mm\n    problem: matmul\n"
                      "    sources: [perf/mm.c]\n", config)
        again = self.init("matmul", "--name", "mm")
        self.assertEqual(again.returncode, 2)
        self.assertIn("already exists", again.stderr)
        typo = self.init("matmull")
        self.assertEqual(typo.returncode, 2)
        self.assertIn("did you mean 'matmul'", typo.stderr)
        self.assertEqual(self.init("relu", "--source", "../x.c").returncode, 2)
        self.assertEqual(self.init("--help").returncode, 0)


if __name__ == "__main__":
    unittest.main()
