"""Wrong, crashing, hanging and faulty code, on either side or in the
problem: each ends in a status charged to whose code it was."""
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from harness import (BROKEN, CONFIG, CRASH, EXITS, HANG, LANES,  # noqa: E402
                     MEASURED, RepoTest, SERIAL, WRONG, fixture)


# A problem for reduce_sum's solutions that crashes in the function named
# by CRASH_IN (or nowhere), and counts its teardowns in a file.
FAULTY_PROBLEM = fixture("faulty_problem.c")

# A problem whose solution returns a new result each call, which run()
# frees before it keeps the next.
FREES_PROBLEM = fixture("frees_problem.c")

FREES_SOLUTION = fixture("frees_solution.c")

# A problem that makes each side's input with the side's own encoder
# (side_setup, pg_lookup), and says its work from the case's parameters.
LOOKUP_PROBLEM = fixture("lookup_problem.c")

FILL = fixture("fill.c")

# A solution that is right, then crashes once it has been called LIMIT
# times: after verification, while it is timed.
CRASHES_LATER = fixture("crashes_later.c")


class Failures(RepoTest):
    """What the head's code does wrong fails the gate, named and explained."""


    def test_the_timeout_is_per_call_not_for_the_whole_measurement(self):
        # 50 ms a call, 1 s allowed, at least 30 rounds of two cases: each
        # side spends 3 s or more in user code in all, none of it a hang.
        slow = SERIAL.replace("#include <stddef.h>", "#include <stddef.h>\n"
                              "#include <time.h>").replace(
            "{\n", "{\n    nanosleep(&(struct timespec){0, 50000000}, "
            "NULL);\n", 1)
        self.base_repo(solution=slow)
        self.commit({"src/sum.c": slow + "int head_marker(void) "
                     "{ return 1; }\n"})
        r = self.perfgate("HEAD~1", "HEAD", "--timeout", "1s",
                          "--min-rounds", "30", "--max-time", "10s",
                          "--noise-floor", "50%")
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        self.assertEqual(r.bench("sum")["status"], "unchanged")

    def check_head_failure(self, source, status, *args):
        self.base_repo()
        self.commit({"src/sum.c": source})
        r = self.perfgate("HEAD~1", "HEAD", *args)
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        b = r.bench()
        self.assertEqual(b["status"], status)
        self.assertEqual(b["side"], "head")
        self.assertIsNone(b["change"])
        self.assertEqual(r.json["verdict"], "fail")
        return b

    def test_wrong_result_is_incorrect(self):
        b = self.check_head_failure(WRONG, "incorrect")
        self.assertIn("expected", b["message"])
        self.assertIn("n=20000", b["message"])

    def test_crash_is_reported_with_its_signal(self):
        b = self.check_head_failure(CRASH, "crashed")
        self.assertIn("SIGSEGV", b["message"])

    def test_a_crash_while_loading_is_the_heads(self):
        # A constructor is the side's code too, run when its library (or a
        # copy of it at another address) is loaded.
        b = self.check_head_failure(
            "#include <signal.h>\n" + SERIAL +
            "__attribute__((constructor)) static void boom(void)\n"
            "{\n    raise(SIGSEGV);\n}\n", "crashed")
        self.assertIn("SIGSEGV", b["message"])

    def test_exit_in_user_code_is_a_crash(self):
        b = self.check_head_failure(EXITS, "crashed")
        self.assertIn("status 3", b["message"])

    def test_hang_is_stopped_at_the_timeout(self):
        start = time.monotonic()
        b = self.check_head_failure(HANG, "timeout", "--timeout", "1s")
        self.assertLess(time.monotonic() - start, 60)
        self.assertIn("head", b["message"])

    def test_build_error_is_build_failed_with_the_compiler_output(self):
        b = self.check_head_failure(BROKEN, "build_failed")
        self.assertIn("src/sum.c", b["log"])
        self.assertIn("error", b["log"])

    def test_a_function_no_source_defines_is_named_at_build_time(self):
        # sum.c calls sk_add(), which is in a file the config leaves out.
        calls = SERIAL.replace(
            "void solution", "float sk_add(float a, float b);\n"
            "void solution", 1).replace("s += in[i];", "s = sk_add(s, in[i]);")
        b = self.check_head_failure(calls, "build_failed")
        self.assertIn("'solution' calls 'sk_add', which none of the sources "
                      "defines: add the file that defines it to 'sources'",
                      b["message"])
        # With the file added, it builds.
        with open(os.path.join(self.repo, "perfgate.yml")) as f:
            config = f.read()
        self.write("perfgate.yml", config.replace(
            "sources: [src/sum.c]", "sources: [src/sum.c, src/add.c]"))
        self.write("src/add.c",
                   "float sk_add(float a, float b) { return a + b; }\n")
        r = self.perfgate("--aa", "--noise-floor", "60%")
        self.assertIn(r.bench()["status"], MEASURED, r.bench()["message"])

    def test_other_benchmarks_still_run_after_a_crash(self):
        config = CONFIG + """  - name: other
    problem: reduce_sum
    sources: [src/other.c]
    cases: [{n: 1000}]
"""
        self.commit({"perfgate.yml": config, "src/sum.c": SERIAL,
                     "src/other.c": SERIAL}, "base")
        self.commit({"src/sum.c": CRASH})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "50%")
        self.assertEqual(r.code, 1)
        self.assertEqual(r.bench("sum")["status"], "crashed")
        self.assertEqual(r.bench("other")["status"], "unchanged")

    def test_failure_on_the_base_side_only_is_reported_not_failed(self):
        self.base_repo(CRASH)
        self.commit({"src/sum.c": SERIAL})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        b = r.bench()
        self.assertEqual(b["status"], "crashed")
        self.assertEqual(b["side"], "base")
        self.assertEqual(r.json["verdict"], "pass")

    def test_a_head_as_broken_as_its_base_fails(self):
        # Whatever happened to the base, the head is checked too.
        for i, (base, head, status) in enumerate((
                (WRONG, WRONG, "incorrect"), (CRASH, WRONG, "incorrect"),
                (HANG, CRASH, "crashed"), (BROKEN, WRONG, "incorrect"),
                (WRONG, BROKEN, "build_failed"))):
            with self.subTest(i=i):
                self.commit({"perfgate.yml": CONFIG,
                             "src/sum.c": "/* %d */\n%s" % (i, base)}, "base")
                self.commit({"src/sum.c": head})
                r = self.perfgate("HEAD~1", "HEAD", "--timeout", "1s")
                self.assertEqual(r.code, 1, r.stdout + r.stderr)
                b = r.bench()
                self.assertEqual((b["status"], b["side"]), (status, "head"),
                                 b["message"])
                self.assertEqual(r.json["verdict"], "fail")

    def test_a_right_head_after_a_broken_base_passes(self):
        for i, base in enumerate((WRONG, CRASH, BROKEN)):
            with self.subTest(i=i):
                self.commit({"perfgate.yml": CONFIG,
                             "src/sum.c": "/* %d */\n%s" % (i, base)}, "base")
                self.commit({"src/sum.c": SERIAL})
                r = self.perfgate("HEAD~1", "HEAD")
                self.assertEqual(r.code, 0, r.stdout + r.stderr)
                self.assertEqual(r.bench()["side"], "base")

    def test_new_benchmark_has_no_baseline(self):
        self.commit({"README": "nothing yet\n"}, "before perfgate")
        self.commit({"perfgate.yml": CONFIG, "src/sum.c": SERIAL})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 0, r.stderr)
        b = r.bench()
        self.assertEqual(b["status"], "new")
        self.assertIsNone(b["base_ns"])
        self.assertGreater(b["head_ns"], 0)

    def test_new_benchmark_is_still_verified(self):
        self.commit({"README": "nothing yet\n"}, "before perfgate")
        self.commit({"perfgate.yml": CONFIG, "src/sum.c": WRONG})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1)
        self.assertEqual(r.bench()["status"], "incorrect")


class ProblemFaults(RepoTest):
    """A fault in a problem's own code is named as the problem's: which
    function of which problem file, on which case; perfgate-measure never
    dies of a call perfgate makes into a problem wrongly; and a broken
    problem never passes."""

    def problem_repo(self, problem_file, problem, sources, extra=None):
        """Commits a benchmark 'sum' of `problem` (at perf/`problem_file`)
        on `sources` ({path: text}), with a short budget."""
        files = {"perfgate.yml": "version: 1\nsettings: {max_time: 0.3s}\n"
                 "benchmarks:\n  - {name: sum, problem: perf/%s, "
                 "sources: [%s]%s}\n" % (problem_file, ", ".join(sources),
                                         extra or ""),
                 "perf/" + problem_file: problem}
        files.update(sources)
        self.commit(files, "base")

    def faulty(self, where, n_cases=1):
        self.teardowns = os.path.join(self.tmp, "teardowns.log")
        problem = FAULTY_PROBLEM.replace(
            "#include <perfgate/problem.h>",
            "#include <perfgate/problem.h>\n#define CRASH_IN %s\n"
            "#define TEARDOWN_LOG \"%s\"" % (where, self.teardowns), 1)
        cases = "[{n: 1000}, {n: 2000}]" if n_cases == 2 else "[{n: 1000}]"
        self.problem_repo("faulty.c", problem, {"src/sum.c": SERIAL},
                          ", cases: " + cases)
        self.commit({"src/sum.c": LANES})
        # Unboxed, so that the problem can write its log of teardowns.
        return self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%",
                             "--sandbox", "off")

    def test_each_function_of_a_problem_that_crashes_is_named(self):
        for where, says in (("SETUP", "setup()"), ("FLOPS", "flops()"),
                            ("BYTES", "bytes()"), ("RUN", "run()"),
                            ("VERIFY", "verify()")):
            with self.subTest(where=where):
                self.tearDown()
                self.setUp()
                r = self.faulty(where)
                b = r.bench()
                self.assertEqual(b["status"], "crashed", r.stdout)
                self.assertIn(says, b["message"])
                self.assertIn("perf/faulty.c", b["message"])
                self.assertIn("n=1000", b["message"])
                self.assertIn("SIGSEGV", b["message"])
                # A broken problem never passes.
                self.assertEqual(r.code, 1, r.stdout)

    def test_a_crash_in_setup_or_flops_is_no_sides(self):
        for where in ("SETUP", "FLOPS", "BYTES"):
            with self.subTest(where=where):
                self.tearDown()
                self.setUp()
                b = self.faulty(where).bench()
                self.assertIsNone(b["side"], b["message"])
                self.assertIn("problem", b["message"])

    def test_teardown_is_called_for_every_set_up(self):
        r = self.faulty("NOWHERE", n_cases=2)
        self.assertIn(r.bench()["status"], MEASURED, r.stdout)
        with open(self.teardowns) as f:
            calls = f.read().count("teardown")
        # Each case: the base's and the head's, in the process that checks
        # both first (and counts their heap there: no process of its own)
        # and in each side's own process of every draw.
        self.assertEqual(calls, 4 * (r.bench()["processes"] + 1))

    def test_a_crash_in_teardown_is_the_problems(self):
        r = self.faulty("TEARDOWN")
        b = r.bench()
        self.assertEqual(b["status"], "crashed", r.stdout)
        self.assertIn("teardown()", b["message"])
        self.assertEqual(r.code, 1)

    def test_run_may_free_what_the_last_call_returned(self):
        # run() is also called with perfgate's empty stand-in, to measure
        # the harness's own cost; the stand-in returns 0 (NULL), so a run()
        # that frees the last result frees nothing.
        self.problem_repo("frees.c", FREES_PROBLEM, {"src/sum.c": FREES_SOLUTION})
        self.commit({"src/sum.c": FREES_SOLUTION.replace("float s = 0;",
                                                         "float s = 0.0f;")})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        self.assertIn(r.bench()["status"], MEASURED, r.bench()["message"])
        r = self.perfgate("--aa", "HEAD", "--noise-floor", "60%")
        self.assertIn(r.bench()["status"], MEASURED, r.bench()["message"])

    def test_a_run_that_reads_the_result_is_named_with_the_stand_in(self):
        # Reading what the solution returned inside run() reads the empty
        # stand-in's NULL: the problem's fault, named as such, and it fails.
        problem = FREES_PROBLEM.replace(
            "size_t n; };", "size_t n; float first; };").replace(
            "    free(s->last);\n    s->last = ((sum_fn)fn)(s->in, s->n);",
            "    float *r = ((sum_fn)fn)(s->in, s->n);\n"
            "    s->first = r[0];\n    free(s->last);\n    s->last = r;")
        self.assertIn("s->first = r[0]", problem)
        self.problem_repo("reads.c", problem, {"src/sum.c": FREES_SOLUTION})
        r = self.perfgate("--aa", "HEAD", "--noise-floor", "60%")
        b = r.bench()
        self.assertEqual(b["status"], "crashed", r.stdout)
        self.assertIsNone(b["side"])
        self.assertIn("problem perf/reads.c: run() on case n=1000", b["message"])
        self.assertIn("empty stand-in", b["message"])
        self.assertEqual(r.code, 1)

    def test_verbose_says_what_is_run_and_called(self):
        self.faulty("NOWHERE")
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%", "-v",
                          "--no-cache")
        self.assertEqual(r.code, 0, r.stderr)
        for said in ("perfgate: run: cc ", "perfgate-measure ",
                     "measure (head): setup() on case n=1000: the head's own",
                     "measure: run() and verify() on case n=1000, head side: "
                     "right", "calls per sample", "measure: teardown() on "
                     "case n=1000"):
            self.assertIn(said, r.stderr)
        # Not a word of it without -v.
        quiet = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        self.assertNotIn("perfgate: run:", quiet.stderr)
        self.assertNotIn("measure:", quiet.stderr)

    def test_a_run_that_hangs_on_the_stand_in_is_stopped_at_the_timeout(self):
        # A run() that waits for a result never gets one from the stand-in:
        # the per-call timeout holds the problem's own calls too, not only
        # the sides'.
        problem = FREES_PROBLEM.replace(
            "    free(s->last);\n    s->last = ((sum_fn)fn)(s->in, s->n);",
            "    float *r = ((sum_fn)fn)(s->in, s->n);\n"
            "    while (!r)\n        __asm__ __volatile__(\"\");\n"
            "    free(s->last);\n    s->last = r;")
        self.assertIn("while (!r)", problem)
        self.problem_repo("waits.c", problem, {"src/sum.c": FREES_SOLUTION})
        start = time.monotonic()
        r = self.perfgate("--aa", "HEAD", "--timeout", "1s")
        self.assertLess(time.monotonic() - start, 60)
        b = r.bench()
        self.assertEqual(b["status"], "timeout", r.stdout)
        self.assertIsNone(b["side"])
        self.assertIn("problem perf/waits.c: run() on case n=1000: still "
                      "running after 1 s", b["message"])
        self.assertIn("empty stand-in", b["message"])
        self.assertEqual(r.code, 1)

    def test_a_side_setup_problem_with_flops_and_bytes(self):
        # setup() calls the side's own code; flops() and bytes() read the
        # case's parameters: perfgate-measure used to die of it.
        self.problem_repo("lookup.c", LOOKUP_PROBLEM,
                          {"src/sum.c": SERIAL, "src/fill.c": FILL})
        self.commit({"src/sum.c": LANES})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        b = r.bench()
        self.assertIn(b["status"], MEASURED, b["message"])
        self.assertEqual([c["flops"] for c in b["cases"]], [1000, 4000])
        self.assertEqual([c["bytes"] for c in b["cases"]], [4000, 16000])

    def test_a_head_that_crashes_while_timed_like_its_base_fails(self):
        # Both sides are right when checked and crash after a few thousand
        # calls of a copy; the base is timed first and crashes first.  The head, as
        # broken, must not pass because it was never reached.
        self.base_repo(CRASHES_LATER.replace("LIMIT", "20"))
        self.commit({"src/sum.c": CRASHES_LATER.replace("LIMIT", "21")})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench()
        self.assertEqual(b["status"], "crashed", r.stdout)
        self.assertEqual(b["side"], "head", b["message"])
        self.assertEqual(r.code, 1)

    def test_a_head_that_survives_timing_after_its_base_crashed_passes(self):
        self.base_repo(CRASHES_LATER.replace("LIMIT", "20"))
        self.commit({"src/sum.c": SERIAL})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench()
        self.assertEqual(b["status"], "crashed", r.stdout)
        self.assertEqual(b["side"], "base", b["message"])
        self.assertEqual(r.code, 0, r.stdout)


if __name__ == "__main__":
    unittest.main()
