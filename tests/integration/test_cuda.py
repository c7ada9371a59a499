"""CUDA without a GPU: every CUDA example compiles, and a CUDA benchmark is
built on both sides (a head that does not compile fails the gate) and then
skipped where there is no device.  Skipped as a whole without nvcc."""
import glob
import os
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
        r = self.perfgate()
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


if __name__ == "__main__":
    unittest.main()
