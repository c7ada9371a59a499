"""A project's own Google Benchmark suite (suite:), built from git on both
sides and measured interleaved, as a user's would be."""
import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from harness import MEASURED, RepoTest, fixture  # noqa: E402

WORK = fixture("suite/work.c")
WORK_H = fixture("suite/work.h")
SUITE = fixture("suite/suite.cc")
MAKEFILE = fixture("suite/Makefile")
CONFIG = fixture("suite/suite.yml")

HAS_GBENCH = os.path.exists("/usr/include/benchmark/benchmark.h")


@unittest.skipUnless(HAS_GBENCH, "Google Benchmark (libbenchmark-dev) is "
                     "not installed")
class Suites(RepoTest):
    """Each of the suite's benchmarks a case, paired by name; what a side
    lacks said, what a side's process does wrong charged to it."""

    def project(self, config=CONFIG):
        return self.commit({"perfgate.yml": config, "Makefile": MAKEFILE,
                            "src/work.c": WORK, "src/work.h": WORK_H,
                            "bench/suite.cc": SUITE,
                            ".gitignore": "build/\nbench/suite\n"}, "base")

    def cases(self, b):
        return {c["name"]: c for c in b["cases"]}

    def test_a_slower_function_fails_its_benchmarks(self):
        self.project()
        # Three times the chain's work: a change no load can hide.
        self.commit({"src/work.h": WORK_H.replace("#define SPIN_FACTOR 1",
                                                  "#define SPIN_FACTOR 3")})
        r = self.perfgate("HEAD~1", "--profile")
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        b = r.bench("suite")
        self.assertEqual(b["status"], "regression", b.get("message"))
        self.assertEqual(b["problem"], "google-benchmark")
        # --profile: the slowest benchmark's timed loop, function by
        # function, under callgrind: the chain three times longer, and
        # nothing of the program's start (main) or the harness's own.
        p = b["profile"]
        if "AddressSanitizer" in (p.get("skipped") or ""):
            pass  # a sanitized perfgate does not profile
        elif shutil.which("valgrind"):
            self.assertEqual(p["tool"], "callgrind", p.get("skipped"))
            self.assertIn(p["case"], ("BM_spin/2000", "BM_spin/20000"))
            rows = {f["function"]: f for f in p["functions"]}
            self.assertAlmostEqual(rows["spin"]["head"] / rows["spin"]["base"],
                                   3.0, delta=0.01)
            self.assertNotIn("main", rows)
            self.assertIn("where the time went", r.stdout)
        else:
            self.assertIn("install valgrind", p["skipped"])
        cases = self.cases(b)
        self.assertEqual(sorted(cases), ["BM_fill/65536", "BM_spin/2000",
                                         "BM_spin/20000"])
        for name in ("BM_spin/2000", "BM_spin/20000"):
            self.assertEqual(cases[name]["status"], "regression", name)
            self.assertGreater(cases[name]["change"], 1.0, name)
        self.assertIn(cases["BM_fill/65536"]["status"], MEASURED)
        # Its bytes per second, as bytes a call.
        self.assertAlmostEqual(cases["BM_fill/65536"]["bytes"], 65536,
                               delta=65536 * 0.01)
        self.assertIn("no correctness check", b["message"])
        self.assertIn("BM_spin/20000", r.stdout)

    def test_benchmarks_one_side_lacks_are_said(self):
        self.project()
        head = SUITE.replace("BENCHMARK(BM_fill)->Arg(1 << 16);",
                             "BENCHMARK(BM_fill)->Arg(1 << 12);")
        self.commit({"bench/suite.cc": head})
        r = self.perfgate("HEAD~1", "--noise-floor", "60%")
        b = r.bench("suite")
        self.assertIn(b["status"], MEASURED, b.get("message"))
        self.assertEqual(sorted(self.cases(b)),
                         ["BM_spin/2000", "BM_spin/20000"])
        self.assertIn("1 new in the head, not measured (BM_fill/4096)",
                      b["message"])
        self.assertIn("1 gone from the head (BM_fill/65536)", b["message"])

    def test_a_benchmark_that_skips_itself(self):
        # One the machine cannot run (SkipWithError on both sides): left
        # out and said; one only the head skips: the head's failure.
        skip = ("static void BM_skip(benchmark::State &state)\n{\n"
                "    state.SkipWithError(\"CPU does not support it\");\n"
                "    for (auto _ : state)\n        ;\n}\n"
                "BENCHMARK(BM_skip);\n\nBENCHMARK_MAIN();")
        self.project()
        self.commit({"bench/suite.cc": SUITE.replace("BENCHMARK_MAIN();",
                                                     skip)})
        self.commit({"src/work.c": WORK + "/* changed */\nint x = 1;\n"})
        r = self.perfgate("HEAD~1", "--noise-floor", "60%")
        b = r.bench("suite")
        self.assertIn(b["status"], MEASURED, b.get("message"))
        self.assertNotIn("BM_skip", self.cases(b))
        self.assertIn("1 skipped by the benchmark itself on both sides "
                      "(SkipWithError), not measured (BM_skip)",
                      b["message"])
        head = SUITE.replace(
            "    for (auto _ : state) {\n        fill(",
            "    state.SkipWithError(\"no buffer\");\n"
            "    for (auto _ : state) {\n        fill(")
        self.assertNotEqual(head, SUITE)
        self.commit({"bench/suite.cc": head.replace("BENCHMARK_MAIN();",
                                                    skip)})
        r = self.perfgate("HEAD~1")
        b = r.bench("suite")
        self.assertEqual((b["status"], b["side"]), ("incorrect", "head"))
        self.assertIn("head side: BM_fill/65536 reported an error: no buffer "
                      "(the base's does not)", b["message"])

    def test_a_change_the_program_does_not_see(self):
        self.project()
        self.commit({"README": "the suite\n"})
        r = self.perfgate("HEAD~1")
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        b = r.bench("suite")
        self.assertEqual(b["status"], "unchanged")
        self.assertTrue(b["identical_code"])
        self.assertEqual(b["rounds"], 0)

    def test_a_crash_and_a_hang_are_charged_to_the_head(self):
        self.project()
        crash = SUITE.replace("    for (auto _ : state)\n        benchmark::"
                              "DoNotOptimize(spin",
                              "    if (state.range(0) == 2000)\n"
                              "        abort();\n"
                              "    for (auto _ : state)\n"
                              "        benchmark::DoNotOptimize(spin")
        self.assertNotEqual(crash, SUITE)
        self.commit({"bench/suite.cc": crash})
        r = self.perfgate("HEAD~1")
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        b = r.bench("suite")
        self.assertEqual((b["status"], b["side"]), ("crashed", "head"))
        self.assertIn("BM_spin/2000 killed by SIGABRT", b["message"])

        hang = SUITE.replace("std::vector<unsigned char> buf(state.range(0));",
                             "std::vector<unsigned char> buf(state.range(0));"
                             "\n    for (;;)\n        ;")
        self.commit({"bench/suite.cc": hang})
        r = self.perfgate("HEAD~2", "--timeout", "2s")
        b = r.bench("suite")
        self.assertEqual((b["status"], b["side"]), ("timeout", "head"))
        # Its three repetitions' 2 s each, and 5 s to start.
        self.assertIn("BM_fill/65536 still running after 11 s", b["message"])

    def test_what_cannot_be_measured_says_why(self):
        self.project()
        self.commit({"README": "changed\n"})
        # A filter that keeps nothing: the config's mistake, loudly.
        r = self.perfgate("HEAD~1", "--config", self.config(
            "    filter: BM_nothing\n"))
        b = r.bench("suite")
        self.assertEqual((b["status"], b["side"]), ("build_failed", "head"))
        self.assertIn("lists no benchmark that filter 'BM_nothing' matches",
                      b["message"])
        # A build that makes no such program.
        r = self.perfgate("HEAD~1", "--config", self.config(
            "", suite="bench/other"))
        b = r.bench("suite")
        self.assertEqual((b["status"], b["side"]), ("build_failed", "head"))
        self.assertIn("the build made no bench/other", b["message"])
        # A program that is not a Google Benchmark binary.
        self.write("bench/tool", "#!/bin/sh\necho 'usage: tool FILE'\n")
        os.chmod(os.path.join(self.repo, "bench/tool"), 0o755)
        self.commit({}, "tool")
        self.commit({"README": "again\n"})
        r = self.perfgate("HEAD~1", "--config", self.config(
            "", suite="bench/tool"))
        b = r.bench("suite")
        self.assertEqual((b["status"], b["side"]), ("crashed", "head"))
        self.assertIn("does not list its benchmarks as a Google Benchmark "
                      "binary does", b["message"])

    def test_init_writes_the_entry_from_what_the_program_lists(self):
        self.project()
        init = [os.environ.get("PERFGATE", "perfgate"), "init", "--suite",
                "bench/suite"]
        os.remove(os.path.join(self.repo, "perfgate.yml"))
        # Built in the working tree first, as a user has it.
        subprocess.run(["make", "bench/suite"], cwd=self.repo, check=True,
                       capture_output=True)
        r = subprocess.run(init + ["--build", "make bench/suite"],
                           cwd=self.repo, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.repo, "perfgate.yml")) as f:
            text = f.read()
        self.assertIn("  - name: suite\n    suite: bench/suite\n"
                      "    build: 'make bench/suite'\n"
                      "    # 3 benchmarks, each a case: BM_spin/2000, "
                      "BM_spin/20000, BM_fill/65536\n", text)
        # What it wrote gates the suite.
        self.commit({"src/work.h": WORK_H.replace("#define SPIN_FACTOR 1",
                                                  "#define SPIN_FACTOR 3")})
        r2 = self.perfgate("HEAD~1")
        self.assertEqual(r2.bench("suite")["status"], "regression")
        # No command that makes it; a program that is not there.
        r = subprocess.run(init, cwd=self.repo, capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("name the command that makes bench/suite: --build",
                      r.stderr)
        r = subprocess.run(init[:-1] + ["bench/none", "--build", "make"],
                           cwd=self.repo, capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("bench/none is not in the working tree: build it "
                      "first", r.stderr)

    def test_bisect_and_record_take_a_suite_as_any_benchmark(self):
        self.project()
        self.commit({"README": "one\n"}, "readme")
        culprit = self.commit({"src/work.h": WORK_H.replace(
            "#define SPIN_FACTOR 1", "#define SPIN_FACTOR 3")}, "slower")
        last = self.commit({"README": "two\n"}, "readme again")
        env = dict(os.environ, TMPDIR=self.pgtmp,
                   XDG_CACHE_HOME=os.path.join(self.tmp, "cache"),
                   PERFGATE_MACHINE="test machine")
        perfgate = os.environ.get("PERFGATE", "perfgate")
        out = os.path.join(self.out, "bisect.json")
        p = subprocess.run([perfgate, "bisect", "--noise-floor", "50%",
                            "--json", out, "HEAD~3", last], cwd=self.repo,
                           capture_output=True, text=True, timeout=600,
                           env=env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(out) as f:
            r = json.load(f)
        self.assertEqual(r["result"], "found")
        self.assertEqual(r["culprit"]["commit"], culprit)
        self.assertEqual(r["benchmarks"], ["suite"])
        # A record of main's last commit holds the suite's cases.
        p = subprocess.run([perfgate, "record", "-q", last], cwd=self.repo,
                           capture_output=True, text=True, timeout=600,
                           env=env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        (path,) = self.git("ls-tree", "-r", "--name-only",
                           "refs/perfgate/history").splitlines()
        rec = json.loads(self.git("show", "refs/perfgate/history:" + path))
        (b,) = rec["benchmarks"]
        self.assertEqual(b["name"], "suite")
        self.assertEqual(b["status"], "unchanged")
        self.assertEqual(os.listdir(self.pgtmp), [])

    @unittest.skipUnless(shutil.which("valgrind"), "valgrind is not "
                         "installed")
    def test_counted_only_what_the_harness_times(self):
        # A benchmark whose set-up and paused stretch the head makes five
        # times longer, and whose timed work it leaves alone.
        paused = (
            "static void BM_paused(benchmark::State &state)\n{\n"
            "    benchmark::DoNotOptimize(spin(SETUP));\n"
            "    for (auto _ : state) {\n"
            "        state.PauseTiming();\n"
            "        benchmark::DoNotOptimize(spin(SETUP));\n"
            "        state.ResumeTiming();\n"
            "        benchmark::DoNotOptimize(spin(300));\n"
            "    }\n}\nBENCHMARK(BM_paused);\n\n"
            # callgrind's CPU (valgrind 3.19) has no AVX-512, whatever the
            # machine has: a benchmark that needs it skips itself there.
            "static void BM_wide(benchmark::State &state)\n{\n"
            "    if (!__builtin_cpu_supports(\"avx512f\"))\n"
            "        state.SkipWithError(\"no AVX-512\");\n"
            "    for (auto _ : state)\n"
            "        benchmark::DoNotOptimize(spin(10));\n"
            "}\nBENCHMARK(BM_wide);\n\n"
            "static void BM_two(benchmark::State &state)\n{\n"
            "    for (auto _ : state)\n"
            "        benchmark::DoNotOptimize(spin(100));\n"
            "}\nBENCHMARK(BM_two)->Threads(2);\n\nBENCHMARK_MAIN();")
        self.project()
        self.commit({"bench/suite.cc": SUITE.replace(
            "BENCHMARK_MAIN();", "#define SETUP 1000\n" + paused)})
        self.commit({"bench/suite.cc": SUITE.replace(
            "BENCHMARK_MAIN();", "#define SETUP 5000\n" + paused),
            "src/work.h": WORK_H.replace("#define SPIN_FACTOR 1",
                                         "#define SPIN_FACTOR 3")})
        r = self.perfgate("HEAD~1", "--measure", "instructions")
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        b = r.bench("suite")
        self.assertEqual((b["status"], b["metric"], b["counter"]),
                         ("regression", "instructions", "callgrind"),
                         b.get("message"))
        cases = self.cases(b)
        # Three times the chain: the spin's count triples, to within the
        # harness's loop (a few instructions); the fill's does not move.
        for name in ("BM_spin/2000", "BM_spin/20000"):
            self.assertEqual(cases[name]["status"], "regression")
            self.assertAlmostEqual(cases[name]["change"], 2.0, delta=0.01)
        self.assertEqual(cases["BM_fill/65536"]["change"], 0)
        # The paused stretch tripled too (SPIN_FACTOR) and grew fivefold,
        # but only the timed 300 is counted: three times it.
        self.assertAlmostEqual(cases["BM_paused"]["change"], 2.0,
                               delta=0.05)
        for c in cases.values():
            self.assertEqual(c["change_interval"][0],
                             c["change_interval"][1])
        self.assertNotIn("BM_wide", cases)
        self.assertIn("1 skipped by the benchmark itself on both sides under "
                      "callgrind (SkipWithError), not counted (BM_wide)",
                      b["message"])
        self.assertIn("1 run on several threads, whose loops one count "
                      "cannot tell apart, not counted (BM_two/threads:2)",
                      b["message"])
        self.assertIn("instr", r.stdout)
        # measure: all: timed, and counted beside the time, each judged at
        # its own floor (the count's subset: BM_wide skips itself there).
        r = self.perfgate("HEAD~1", "--measure", "all", "--max-time", "1s")
        b = r.bench("suite")
        self.assertIsNone(b.get("counter"))
        k = b["counted"]
        self.assertEqual((k["status"], k["metric"]),
                         ("regression", "instructions"), k.get("message"))
        self.assertEqual(sorted(self.cases(k)),
                         ["BM_fill/65536", "BM_paused", "BM_spin/2000",
                          "BM_spin/20000"])
        # The same program on both sides: not a count's worth of change.
        r = self.perfgate("--aa", "HEAD", "--measure", "cycles")
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        b = r.bench("suite")
        self.assertEqual(b["metric"], "cycles")
        for c in b["cases"]:
            self.assertEqual(c["change"], 0, c["name"])
        # A head that asks valgrind about itself is timed instead.
        asks = SUITE.replace("#include <vector>",
                             "#include <vector>\n"
                             "#include <valgrind/valgrind.h>").replace(
            "    for (auto _ : state)\n        benchmark::DoNotOptimize(spin",
            "    if (RUNNING_ON_VALGRIND)\n        return;\n"
            "    for (auto _ : state)\n        benchmark::DoNotOptimize(spin")
        self.assertIn("RUNNING_ON_VALGRIND", asks)
        self.commit({"bench/suite.cc": asks})
        r = self.perfgate("HEAD~1", "--measure", "instructions",
                          "--noise-floor", "60%", "--max-time", "1s")
        b = r.bench("suite")
        self.assertIsNone(b.get("counter"), b.get("message"))
        self.assertIn("timed, not counted: the head's bench/suite asks "
                      "valgrind about itself", b["message"])

    def config(self, extra, suite="bench/suite"):
        path = os.path.join(self.tmp, "suite.yml")
        with open(path, "w") as f:
            f.write(CONFIG.replace("suite: bench/suite\n",
                                   "suite: " + suite + "\n") + extra)
        return path


NV_STANDIN = fixture("nvsuite/nvbench_standin.c")
NV_STANDIN_H = fixture("nvsuite/nvbench_standin.h")
NV_BENCH = fixture("nvsuite/benchmarks.c")
NV_MAKEFILE = fixture("nvsuite/Makefile")
NV_CONFIG = fixture("nvsuite/nvsuite.yml")
# A state of spin that skips itself, as one for a GPU it cannot run on.
NV_SKIP = NV_BENCH.replace(
    "    spin_args a = {(unsigned long)nv_get_int64(state, \"Work\"), 0};\n",
    "    spin_args a = {(unsigned long)nv_get_int64(state, \"Work\"), 0};\n\n"
    "    if (a.n == 1 << 14)\n"
    "        nv_skip(state, \"needs sm_90\");\n")


@unittest.skipUnless(shutil.which("cc") and shutil.which("make"),
                     "no C compiler or make")
class Nvbench(RepoTest):
    """An nvbench suite (kind: nvbench), here a program on nvbench's
    stand-in (its command line and JSON, CPU-only benchmarks: no GPU on
    this machine): each state a case, named as --axis takes it."""

    def project(self, bench=NV_BENCH, config=NV_CONFIG):
        return self.commit({"perfgate.yml": config, "Makefile": NV_MAKEFILE,
                            "src/work.c": WORK, "src/work.h": WORK_H,
                            "bench/benchmarks.c": bench,
                            "bench/nvbench_standin.c": NV_STANDIN,
                            "bench/nvbench_standin.h": NV_STANDIN_H,
                            ".gitignore": "bench/nvsuite\n"}, "base")

    def cases(self, b):
        return {c["name"]: c for c in b["cases"]}

    def test_a_slower_function_fails_its_states(self):
        self.project()
        self.commit({"src/work.h": WORK_H.replace("#define SPIN_FACTOR 1",
                                                  "#define SPIN_FACTOR 3")})
        r = self.perfgate("HEAD~1", "--profile")
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        b = r.bench("nvsuite")
        self.assertEqual((b["status"], b["problem"]), ("regression",
                                                       "nvbench"),
                         b.get("message"))
        cases = self.cases(b)
        self.assertEqual(sorted(cases), ["fill/Bytes=65536",
                                         "spin/Work[pow2]=11",
                                         "spin/Work[pow2]=14"])
        for name in ("spin/Work[pow2]=11", "spin/Work[pow2]=14"):
            self.assertEqual(cases[name]["status"], "regression", name)
            self.assertGreater(cases[name]["change"], 1.0, name)
        self.assertIn(cases["fill/Bytes=65536"]["status"], MEASURED)
        # Its global memory bytes and element count, per sample.
        self.assertAlmostEqual(cases["fill/Bytes=65536"]["bytes"], 65536,
                               delta=65536 * 0.01)
        self.assertAlmostEqual(cases["spin/Work[pow2]=11"]["items"], 2048,
                               delta=2048 * 0.01)
        self.assertIn("no correctness check", b["message"])
        self.assertIn("not profiled", b["profile"]["skipped"])

    def test_states_one_side_lacks_and_a_filter(self):
        self.project()
        self.commit({"bench/benchmarks.c": NV_BENCH.replace(
            '{"11", "14"}', '{"11", "15"}')})
        r = self.perfgate("HEAD~1", "--noise-floor", "60%")
        b = r.bench("nvsuite")
        self.assertIn(b["status"], MEASURED, b.get("message"))
        self.assertEqual(sorted(self.cases(b)), ["fill/Bytes=65536",
                                                 "spin/Work[pow2]=11"])
        self.assertIn("1 new in the head, not measured (spin/Work[pow2]=15)",
                      b["message"])
        self.assertIn("1 gone from the head (spin/Work[pow2]=14)",
                      b["message"])
        # A filter is a regex over the cases' names.
        path = os.path.join(self.tmp, "filtered.yml")
        with open(path, "w") as f:
            f.write(NV_CONFIG + "    filter: '^spin/.*=11$'\n")
        r = self.perfgate("HEAD~1", "--noise-floor", "60%", "--config", path)
        b = r.bench("nvsuite")
        self.assertEqual(sorted(self.cases(b)), ["spin/Work[pow2]=11"],
                         b.get("message"))

    def test_a_state_that_skips_itself_and_a_crash(self):
        self.project(NV_SKIP)
        self.commit({"src/work.c": WORK + "/* changed */\nint x = 1;\n"})
        r = self.perfgate("HEAD~1", "--noise-floor", "60%")
        b = r.bench("nvsuite")
        self.assertIn(b["status"], MEASURED, b.get("message"))
        self.assertNotIn("spin/Work[pow2]=14", self.cases(b))
        self.assertIn("1 skipped by the benchmark itself on both sides "
                      "(state.skip), not measured (spin/Work[pow2]=14)",
                      b["message"])
        # Only the head skips it: the head's doing.
        self.commit({"bench/benchmarks.c": NV_SKIP.replace(
            "1 << 14", "1 << 11")})
        r = self.perfgate("HEAD~1")
        b = r.bench("nvsuite")
        self.assertEqual((b["status"], b["side"]), ("incorrect", "head"))
        self.assertIn("head side: spin/Work[pow2]=11 skipped itself: "
                      "needs sm_90 (the base's does not)", b["message"])
        # A state whose process dies: charged to the head.
        self.commit({"bench/benchmarks.c": NV_SKIP.replace(
            "    nv_add_global_memory_bytes(state, (int64_t)a.n);\n",
            "    nv_add_global_memory_bytes(state, (int64_t)a.n);\n"
            "    abort();\n")})
        r = self.perfgate("HEAD~2")
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        b = r.bench("nvsuite")
        self.assertEqual((b["status"], b["side"]), ("crashed", "head"))
        self.assertIn("fill/Bytes=65536 killed by SIGABRT", b["message"])

    def test_counted_asks_are_timed_and_init_knows_the_kind(self):
        self.project()
        self.commit({"src/work.h": WORK_H.replace("#define SPIN_FACTOR 1",
                                                  "#define SPIN_FACTOR 3")})
        r = self.perfgate("HEAD~1", "--measure", "instructions")
        b = r.bench("nvsuite")
        self.assertEqual(b["status"], "regression", b.get("message"))
        self.assertIsNone(b.get("counter"))
        self.assertIn("timed, not counted: an nvbench program's benchmarks "
                      "run on the GPU", b["message"])
        # init --suite finds the program an nvbench one.
        os.remove(os.path.join(self.repo, "perfgate.yml"))
        subprocess.run(["make", "bench/nvsuite"], cwd=self.repo, check=True,
                       capture_output=True)
        p = subprocess.run([os.environ.get("PERFGATE", "perfgate"), "init",
                            "--suite", "bench/nvsuite", "--build",
                            "make bench/nvsuite"], cwd=self.repo,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.repo, "perfgate.yml")) as f:
            text = f.read()
        self.assertIn("    suite: bench/nvsuite\n"
                      "    build: 'make bench/nvsuite'\n"
                      "    kind: nvbench\n"
                      "    # 3 benchmarks, each a case: spin/Work[pow2]=11, "
                      "spin/Work[pow2]=14, fill/Bytes=65536\n", text)


if __name__ == "__main__":
    unittest.main()
