"""perfgate compare, end to end, on throwaway repositories."""
import base64
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from harness import (BROKEN, CI_VARIABLES, CONFIG, CRASH, EXITS, HANG,  # noqa
                     LANES, PERFGATE, SERIAL, TWICE, WRONG, RepoTest)


class Verdicts(RepoTest):
    """Timing-based verdicts, with margins that hold on a noisy machine:
    the slower head does twice the work, the faster one a third of the
    latency, and the unchanged one is judged against a 15% floor."""

    def test_unchanged(self):
        self.base_repo()
        # The same work, in code that differs (one function more), so that
        # it is measured rather than found identical.
        self.commit({"src/sum.c": SERIAL + "int sum_revision(void) "
                                           "{ return 2; }\n"})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "15%",
                          "--warning-exit-code", "78")
        self.assertEqual(r.code, 0, r.stderr)  # nothing to warn of
        b = r.bench()
        self.assertEqual(b["status"], "unchanged")
        self.assertEqual(r.json["verdict"], "pass")
        self.assertLess(abs(b["change"]), 0.15)
        self.assertGreaterEqual(b["rounds"], 5)
        self.assertEqual(len(b["cases"]), 2)
        self.assertIsNone(b["side"])

    def test_identical_code_is_not_measured(self):
        self.base_repo()
        self.commit({"src/sum.c": "/* reworded comment */\n" + SERIAL,
                     "README": "docs only\n"})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 0, r.stderr)
        b = r.bench()
        self.assertEqual(b["status"], "unchanged")
        self.assertTrue(b["identical_code"])
        self.assertEqual(b["rounds"], 0)
        self.assertEqual(b["change"], 0)
        # Not measured: one line, not a row of figures nobody measured.
        self.assertIn("1 with identical code (not measured): sum", r.stdout)
        self.assertNotIn("+0.0%", r.stdout)
        self.assertIn("1 with identical code (not measured): `sum`",
                      r.markdown)
        # The self-check measures whatever the code.
        r = self.perfgate("--aa", "HEAD", "--noise-floor", "50%")
        self.assertFalse(r.bench()["identical_code"])
        self.assertGreater(r.bench()["rounds"], 0)

    def test_identical_code_is_still_verified(self):
        # Wrong on main, and its source touched (a comment) by the change:
        # the same code, but built, and the head is wrong.
        self.base_repo(WRONG)
        self.commit({"src/sum.c": "/* reworded */\n" + WRONG})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1, r.stdout)
        b = r.bench()
        self.assertEqual((b["status"], b["side"]), ("incorrect", "head"))
        self.assertTrue(b["identical_code"])
        # A change that reaches none of its files cannot have made it
        # wrong: not affected, and not this change's to fail.
        self.commit({"README": "docs only\n"})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 0, r.stdout)
        self.assertTrue(r.bench()["not_affected"])

    def test_slower_is_a_regression(self):
        self.base_repo()
        self.commit({"src/sum.c": TWICE})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1, r.stderr)
        b = r.bench()
        self.assertEqual(b["status"], "regression")
        self.assertGreater(b["change"], 0.25)
        self.assertEqual(r.json["verdict"], "fail")
        self.assertIn("regression", r.stdout)
        self.assertTrue(r.markdown.startswith("<!-- perfgate -->\n"))
        self.assertIn("❌", r.markdown)

    def test_faster_is_an_improvement(self):
        self.base_repo()
        self.commit({"src/sum.c": LANES})
        r = self.perfgate("HEAD~1")  # HEAD omitted: the (clean) working tree
        self.assertEqual(r.code, 0, r.stderr)
        b = r.bench()
        self.assertEqual(b["status"], "improvement")
        self.assertLess(b["change"], -0.25)
        self.assertTrue(r.json["head"]["worktree"])
        self.assertFalse(r.json["head"]["dirty"])

    def test_a_case_much_slower_under_a_faster_total_is_said(self):
        # Four lanes make the large case about 4x faster; the small one
        # does its work 40 times over: some 40x slower, a tiny part of the
        # total.
        small_slow = LANES.replace("    float a = 0", """    if (n < 1000) {
        float s = 0;
        for (int k = 0; k < 40; k++)
            for (size_t j = 0; j < n; j++)
                s += in[j] * (k == 0);
        out[0] = s;
        return;
    }
    float a = 0""")
        config = CONFIG.replace("cases: [{n: 20000}, {n: 60000}]",
                                "cases: [{n: 64}, {n: 400000}]")
        self.base_repo(config=config)
        self.commit({"src/sum.c": small_slow})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        b = r.bench()
        self.assertEqual(b["status"], "improvement")
        self.assertEqual(b["gate"], "total")
        small = b["cases"][0]
        self.assertEqual(small["status"], "regression")
        self.assertGreater(small["change_interval"][0], 0.05)
        self.assertEqual(b["slower_case"]["name"], "n=64")
        self.assertEqual(b["cases"][1]["status"], "improvement")
        self.assertRegex(r.stdout, r"improvement, but n=64 is [\d.]+x slower")
        self.assertIn("  n=64 ", r.stdout)  # the case's own row
        self.assertIn("'gate: cases'", r.stdout)
        # In the comment, above the collapsed details.
        warn = r.markdown.index("⚠️ **sum**")
        self.assertLess(warn, r.markdown.index("<details>"))
        # For CI systems that show a warning by the exit status.
        r = self.perfgate("HEAD~1", "HEAD", "--warning-exit-code", "78")
        self.assertEqual(r.code, 78, r.stdout + r.stderr)
        # gate: cases fails it.
        self.write("perfgate.yml", config.replace(
            "settings:", "settings:\n  gate: cases"))
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        self.assertEqual(r.bench()["status"], "regression")
        self.assertEqual(r.bench()["gate"], "cases")

    def test_uncommitted_changes_are_the_head(self):
        self.base_repo()
        self.write("src/sum.c", TWICE)  # not committed
        r = self.perfgate()  # BASE = HEAD, HEAD = the working tree
        self.assertEqual(r.code, 1, r.stderr)
        self.assertEqual(r.bench()["status"], "regression")
        self.assertEqual(r.json["head"]["rev"], "working tree")
        self.assertTrue(r.json["head"]["dirty"])
        self.assertEqual(r.json["base"]["commit"], self.git("rev-parse", "HEAD"))


# A problem whose set-ups differ in placement only: the same list of n
# nodes, the same values in the same order of traversal, laid out in memory
# in order by one set-up and shuffled by the next.  Walking it costs the
# same work either way, and several times the time when shuffled.
PLACEMENT_PROBLEM = r"""#include <perfgate/problem.h>

struct node { const struct node *next; long value; };
typedef long (*walk_fn)(const struct node *list);

struct state { const struct node *list; long result, expected; };

static int setups;

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    size_t n = (size_t)pg_param(c, "n", 1 << 20), i;
    struct node *nodes = pg_alloc(c, n * sizeof(*nodes));
    size_t *order = pg_host_alloc(c, n * sizeof(*order));

    if (!s || !nodes || !order)
        return NULL;
    for (i = 0; i < n; i++)
        order[i] = i;
    if (setups++ % 2)
        for (i = n - 1; i > 0; i--) {
            size_t j = (size_t)pg_random_int(c, 0, (long long)i), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    for (i = 0; i < n; i++) {
        nodes[order[i]].value = (long)i;
        nodes[order[i]].next = i + 1 < n ? &nodes[order[i + 1]] : NULL;
    }
    s->list = &nodes[order[0]];
    s->expected = (long)(n * (n - 1) / 2);
    return s;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    s->result = ((walk_fn)fn)(s->list);
}

static int verify(void *state, pg_case *c)
{
    struct state *s = state;
    if (s->result != s->expected)
        return pg_fail(c, "sum %ld, expected %ld", s->result, s->expected);
    return 0;
}

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI,
    .name = "walk",
    .signature = "long walk(const struct node *list)",
    .default_cases = "n=1048576",
    .setup = setup, .run = run, .verify = verify,
};

PG_EXPORT_PROBLEM(problem)
"""

WALK = """#include <stddef.h>
struct node { const struct node *next; long value; };
long solution(const struct node *list)
{
    long sum = 0;
    for (; list; list = list->next)
        sum += list->value;
    return sum;
}
"""


class Engine(RepoTest):
    """What the engine reports beside the verdict: the interval, how and why
    it stopped, the timer and the machine; the self-check; cold caches."""

    def test_interval_timer_and_system_in_the_report(self):
        self.base_repo()
        self.commit({"src/sum.c": TWICE})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench()
        lo, hi = b["change_interval"]
        self.assertLessEqual(lo, b["change"])
        self.assertLessEqual(b["change"], hi)
        self.assertIn(b["stop"], ("clear", "max_time"))
        self.assertEqual(b["cache"], "warm")
        self.assertEqual(r.json["mode"], "compare")
        system = r.json["system"]
        self.assertIn(system["timer"]["clock"],
                      ("tsc", "clock_monotonic_raw", "clock_monotonic"))
        self.assertGreater(system["timer"]["overhead_ns"], 0)
        self.assertGreater(system["timer"]["resolution_ns"], 0)
        self.assertIsInstance(system["cpu"], int)
        self.assertGreater(system["llc_bytes"], 0)
        self.assertIsInstance(system["warnings"], list)
        for w in system["warnings"]:
            self.assertIn("warning: " + w, r.stdout)
        self.assertIn("95% interval", r.stdout)
        self.assertIn("<sub>", r.markdown)

    def test_self_check(self):
        self.base_repo()
        # A 50% floor: this machine's noise is far below half of it.
        r = self.perfgate("--aa", "HEAD", "--noise-floor", "50%")
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        self.assertEqual(r.json["mode"], "aa")
        self.assertTrue(r.json["aa"]["trusted"])
        self.assertEqual(r.json["aa"]["limit"], 0.25)
        self.assertLess(r.json["aa"]["noise"], 0.25)
        self.assertEqual(r.json["base"]["commit"], r.json["head"]["commit"])
        self.assertIn("PASS: self-check", r.stdout)
        self.assertIn("self-check (A/A)", r.markdown)

    def test_sides_are_timed_on_the_same_memory(self):
        # Each side's own set-up has its own placement (in order, or
        # shuffled: several times slower to walk); timed on their own, the
        # same code would read as that difference.
        self.commit({"perfgate.yml": "version: 1\nsettings: {max_time: 1s}\n"
                     "benchmarks:\n  - {name: walk, problem: perf/walk.c, "
                     "sources: [src/walk.c]}\n",
                     "perf/walk.c": PLACEMENT_PROBLEM, "src/walk.c": WALK})
        r = self.perfgate("--aa", "--noise-floor", "50%")
        b = r.bench("walk")
        self.assertEqual(b["status"], "unchanged", b["message"])
        self.assertLess(abs(b["change"]), 0.5)

    def test_each_side_is_timed_at_several_addresses_of_its_own_code(self):
        # Where code lies is a steady difference between two loaded
        # libraries, so each side is loaded several times over and the
        # rounds take the copies in turn.  Every copy that was timed says
        # where it was and whose it is, at exit.
        log = os.path.join(self.tmp, "placements.log")

        def solution(side):
            return SERIAL.replace("{\n", "{\n    called = 1;\n", 1).replace(
                "#include <stddef.h>\n", "#include <stddef.h>\n"
                "#include <stdio.h>\nstatic int called;\n"
                "void solution(const float *in, float *out, size_t n);\n"
                "__attribute__((destructor)) static void placed(void)\n"
                "{\n    FILE *f;\n"
                "    if (called && (f = fopen(\"%s\", \"a\"))) {\n"
                "        fprintf(f, \"%s %%p\\n\", (void *)solution);\n"
                "        fclose(f);\n    }\n}\n" % (log, side), 1)
        self.base_repo(solution("base"))
        self.commit({"src/sum.c": solution("head")})
        # Unboxed: the box would keep the log from being written.
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "50%",
                          "--sandbox", "off")
        self.assertEqual(r.bench()["status"], "unchanged", r.stdout)
        with open(log) as f:
            seen = [line.split() for line in f]
        where = {side: {a for s, a in seen if s == side}
                 for side in ("base", "head")}
        for side, addresses in where.items():
            self.assertGreaterEqual(len(addresses), 4, (side, seen))
        # Never one side's code at the other's address.
        self.assertFalse(where["base"] & where["head"], seen)

    def test_self_check_takes_one_revision(self):
        self.base_repo()
        r = self.perfgate("--aa", "HEAD", "HEAD")
        self.assertEqual(r.code, 2)
        self.assertIn("--aa takes one revision", r.stderr)

    def test_cold_cache(self):
        self.base_repo(config=CONFIG.replace(
            "problem: reduce_sum", "problem: reduce_sum\n    cache: cold"))
        self.commit({"src/sum.c": TWICE})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench()
        self.assertEqual(b["cache"], "cold")
        # One call per sample: a second would find the caches warm.
        for c in b["cases"]:
            self.assertEqual(c["inner"], 1)
        self.assertEqual(b["status"], "regression")

    def test_bad_cache_setting(self):
        self.base_repo(config=CONFIG.replace(
            "problem: reduce_sum", "problem: reduce_sum\n    cache: lukewarm"))
        r = self.perfgate()
        self.assertEqual(r.code, 2)
        self.assertIn("perfgate.yml:8:12: cache 'lukewarm': want 'warm' or "
                      "'cold'", r.stderr)


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


# A problem for reduce_sum's solutions that crashes in the function named
# by CRASH_IN (or nowhere), and counts its teardowns in a file.
FAULTY_PROBLEM = r"""#include <perfgate/problem.h>
#include <stdio.h>
#include <stdlib.h>

enum { NOWHERE, SETUP, RUN, VERIFY, FLOPS, BYTES, TEARDOWN };
#define CRASH(where) \
    do { if (CRASH_IN == (where)) *(volatile int *)0 = 1; } while (0)

typedef void (*sum_fn)(const float *in, float *out, size_t n);
struct state { float *in, *out; size_t n; double want; };

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    size_t i;

    CRASH(SETUP);
    s->n = (size_t)pg_param(c, "n", 1000);
    s->in = pg_alloc(c, s->n * sizeof(float));
    s->out = pg_alloc(c, sizeof(float));
    for (i = 0; i < s->n; i++) {
        s->in[i] = (float)(i % 4);
        s->want += i % 4;
    }
    return s;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    CRASH(RUN);
    ((sum_fn)fn)(s->in, s->out, s->n);
}

static int verify(void *state, pg_case *c)
{
    struct state *s = state;
    CRASH(VERIFY);
    if (s->out[0] != (float)s->want)
        return pg_fail(c, "sum %g, expected %g", s->out[0], s->want);
    return 0;
}

static double flops(const pg_case *c)
{
    CRASH(FLOPS);
    return (double)pg_param(c, "n", 1000);
}

static double bytes(const pg_case *c)
{
    CRASH(BYTES);
    return 4.0 * (double)pg_param(c, "n", 1000);
}

static void teardown(void *state)
{
    FILE *f = fopen(TEARDOWN_LOG, "a");
    (void)state;
    if (f) {
        fputs("teardown\n", f);
        fclose(f);
    }
    CRASH(TEARDOWN);
}

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI, .name = "faulty",
    .signature = "void solution(const float *in, float *out, size_t n)",
    .default_cases = "n=1000",
    .setup = setup, .run = run, .verify = verify,
    .flops = flops, .bytes = bytes, .teardown = teardown,
};
PG_EXPORT_PROBLEM(problem)
"""

# A problem whose solution returns a new result each call, which run()
# frees before it keeps the next.
FREES_PROBLEM = r"""#include <perfgate/problem.h>
#include <stdlib.h>

typedef float *(*sum_fn)(const float *in, size_t n);
struct state { float *in, *last; size_t n; };

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    size_t i;

    s->n = (size_t)pg_param(c, "n", 1000);
    s->in = pg_alloc(c, s->n * sizeof(float));
    for (i = 0; i < s->n; i++)
        s->in[i] = 1;
    return s;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    free(s->last);
    s->last = ((sum_fn)fn)(s->in, s->n);
}

static int verify(void *state, pg_case *c)
{
    struct state *s = state;
    if (!s->last || s->last[0] != (float)s->n)
        return pg_fail(c, "wrong sum");
    return 0;
}

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI, .name = "frees",
    .signature = "float *solution(const float *in, size_t n)",
    .default_cases = "n=1000",
    .setup = setup, .run = run, .verify = verify,
};
PG_EXPORT_PROBLEM(problem)
"""

FREES_SOLUTION = """#include <stdlib.h>
float *solution(const float *in, size_t n)
{
    float *out = malloc(sizeof(*out));
    float s = 0;
    for (size_t i = 0; i < n; i++)
        s += in[i];
    if (out)
        out[0] = s;
    return out;
}
"""

# A problem that makes each side's input with the side's own encoder
# (side_setup, pg_lookup), and says its work from the case's parameters.
LOOKUP_PROBLEM = r"""#include <perfgate/problem.h>

typedef void (*sum_fn)(const float *in, float *out, size_t n);
typedef void (*fill_fn)(float *in, size_t n);
struct state { float *in, *out; size_t n; };

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    fill_fn fill = (fill_fn)pg_lookup(c, "fill");

    if (!fill)
        return NULL;
    s->n = (size_t)pg_param(c, "n", 1000);
    s->in = pg_alloc(c, s->n * sizeof(float));
    s->out = pg_alloc(c, sizeof(float));
    fill(s->in, s->n);
    return s;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    ((sum_fn)fn)(s->in, s->out, s->n);
}

static int verify(void *state, pg_case *c)
{
    struct state *s = state;
    if (s->out[0] != (float)s->n)
        return pg_fail(c, "sum %g, expected %zu", s->out[0], s->n);
    return 0;
}

static double flops(const pg_case *c) { return (double)pg_param(c, "n", 0); }
static double bytes(const pg_case *c) { return 4.0 * pg_param(c, "n", 0); }

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI, .name = "lookup",
    .signature = "void solution(const float *in, float *out, size_t n)",
    .default_cases = "n=1000; n=4000",
    .setup = setup, .run = run, .verify = verify,
    .flops = flops, .bytes = bytes, .side_setup = 1,
};
PG_EXPORT_PROBLEM(problem)
"""

FILL = """#include <stddef.h>
void fill(float *in, size_t n)
{
    for (size_t i = 0; i < n; i++)
        in[i] = 1;
}
"""

# A solution that is right, then crashes once it has been called LIMIT
# times: after verification, while it is timed.
CRASHES_LATER = """#include <stddef.h>
static long calls;
void solution(const float *in, float *out, size_t n)
{
    float s = 0;
    if (++calls > LIMIT)
        *(volatile int *)0 = 1;
    for (size_t i = 0; i < n; i++)
        s += in[i];
    out[0] = s;
}
"""


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
        # Each case: the base's, the head's, and the one both are timed on.
        self.assertEqual(calls, 6)

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
                     "measure: setup() on case n=1000: the one both sides",
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


class UsageErrors(RepoTest):
    """Bad revisions and configs: exit 2, with a message that helps."""

    def test_bad_revision(self):
        self.base_repo()
        r = self.perfgate("no-such-branch")
        self.assertEqual(r.code, 2)
        self.assertIn("'no-such-branch'", r.stderr)
        self.assertIn("git fetch", r.stderr)
        self.assertIsNone(r.json)

    def test_revision_missing_from_a_shallow_clone(self):
        self.base_repo()
        self.commit({"src/sum.c": LANES})
        clone = os.path.join(self.tmp, "shallow")
        self.git("clone", "-q", "--depth", "1", "file://" + self.repo, clone,
                 cwd=self.tmp)
        proc = subprocess.run([PERFGATE, "compare", "HEAD~1"], cwd=clone,
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("shallow", proc.stderr)
        self.assertIn("fetch-depth: 0", proc.stderr)

    def test_malformed_config(self):
        self.base_repo(config=CONFIG.replace("sources:", "sourcez:"))
        r = self.perfgate()
        self.assertEqual(r.code, 2)
        self.assertIn("perfgate.yml:8:5: unknown key 'sourcez' in benchmark "
                      "(did you mean 'sources'?)", r.stderr)

    def test_unknown_case_parameter(self):
        self.base_repo(config=CONFIG.replace("{n: 20000}", "{nn: 20000}"))
        r = self.perfgate()
        self.assertEqual(r.code, 2)
        self.assertIn("perfgate.yml:9:13: unknown parameter 'nn' for problem "
                      "'reduce_sum' (did you mean 'n'?)", r.stderr)

    def test_a_missing_measuring_program_is_named(self):
        # perfgate-measure not where it was said to be: said, with what to
        # do, and not taken for the user's code failing (exit 3, no
        # verdict).  A program that is there and exits 127 is not this.
        self.base_repo()
        self.commit({"src/sum.c": LANES})
        gone = os.path.join(self.tmp, "no-such-perfgate-measure")
        r = self.perfgate("HEAD~1", "HEAD", env=dict(
            os.environ, PERFGATE_MEASURE=gone))
        self.assertEqual(r.code, 3, r.stderr)
        self.assertIn("cannot run %s: install it beside perfgate" % gone,
                      r.stderr)
        self.assertIn("PERFGATE_MEASURE", r.stderr)
        exits = os.path.join(self.tmp, "exits-127")
        with open(exits, "w") as f:
            f.write("#!/bin/sh\necho \"cannot run 'x'\"\nexit 127\n")
        os.chmod(exits, 0o755)
        r = self.perfgate("HEAD~1", "HEAD", env=dict(
            os.environ, PERFGATE_MEASURE=exits))
        self.assertNotIn("install it beside perfgate", r.stderr)

    def test_missing_config(self):
        self.commit({"src/sum.c": SERIAL})
        r = self.perfgate()
        self.assertEqual(r.code, 2)
        self.assertIn("perfgate.yml: no such file", r.stderr)

    def test_not_a_repository(self):
        proc = subprocess.run([PERFGATE, "compare"], cwd=self.out,
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("not a git repository", proc.stderr)

    def test_unknown_benchmark_filter(self):
        self.base_repo()
        r = self.perfgate("--bench", "summ")
        self.assertEqual(r.code, 2)
        self.assertIn("did you mean 'sum'", r.stderr)


def processes(match):
    """The pids whose /proc/PID/cmdline (NUL-separated bytes) match."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if match(f.read()):
                    found.append(int(pid))
        except OSError:
            pass
    return found


class Interrupt(RepoTest):
    def test_sigint_stops_the_child_and_removes_temporaries(self):
        self.base_repo()
        self.commit({"src/sum.c": HANG})
        before = os.listdir(self.pgtmp)
        proc = subprocess.Popen(
            [PERFGATE, "compare", "HEAD~1", "HEAD", "--timeout", "120s"],
            cwd=self.repo, env=dict(os.environ, TMPDIR=self.pgtmp),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # Wait until the hanging head is running (its temporaries exist).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not os.listdir(self.pgtmp):
            time.sleep(0.05)
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("interrupted", err)
        self.assertEqual(os.listdir(self.pgtmp), before)


    def test_sigterm_while_building_in_parallel(self):
        # A compiler that takes its time: the signal comes while both build
        # workers wait on one.  The run ends, its workers and their
        # compilers with it, and nothing is left behind.
        config = CONFIG + "".join(
            "  - {name: s%d, problem: reduce_sum, sources: [src/sum.c], "
            "cflags: [-DN%d], cases: [{n: 100}]}\n" % (i, i) for i in range(3))
        self.base_repo(config=config)
        self.commit({"src/sum.c": LANES})
        cc = os.path.join(self.tmp, "slowcc")
        # (The compiler writes nothing outside its box: it is seen by the
        # sleep it runs.)
        mark = self._mark()
        with open(cc, "w") as f:
            f.write("#!/bin/sh\ncase \"$*\" in *-shared*) "
                    "sleep %s;; esac\nexec cc \"$@\"\n" % mark)
        os.chmod(cc, 0o755)
        proc = self._start("HEAD~1", "HEAD", "-j", "2",
                           env=dict(os.environ, TMPDIR=self.pgtmp, CC=cc))
        self.assertTrue(self._wait_for_sleep(mark), "no build started")
        start = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)
        self.assertLess(time.monotonic() - start, 10)
        self.assertEqual(os.listdir(self.pgtmp), [])
        # No compiler outlives it.
        ps = subprocess.run(["ps", "-eo", "args"], capture_output=True,
                            text=True).stdout
        self.assertNotIn(cc, ps)

    def test_the_temporaries_of_the_tools_it_ran_go_with_it(self):
        # A compiler that leaves a temporary in $TMPDIR (as cc's cc*.s and
        # valgrind's vgdb pipes do) and is then ended by a SIGTERM to
        # perfgate: nothing is left in the user's TMPDIR.
        self.base_repo()
        self.commit({"src/sum.c": LANES})
        cc = os.path.join(self.tmp, "leavingcc")
        mark = self._mark()
        with open(cc, "w") as f:
            f.write("#!/bin/sh\ncase \"$*\" in *-shared*) "
                    "mktemp \"${TMPDIR:-/tmp}/ccXXXXXX.s\" >/dev/null && "
                    "sleep %s;; esac\nexec cc \"$@\"\n" % mark)
        os.chmod(cc, 0o755)
        proc = self._start("HEAD~1", "HEAD",
                           env=dict(os.environ, TMPDIR=self.pgtmp, CC=cc))
        self.assertTrue(self._wait_for_sleep(mark), "no build started")
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)
        self.assertEqual(os.listdir(self.pgtmp), [])

    def _mark(self):
        """A sleep's duration of this test's own (about 16 minutes)."""
        return "985.%d" % (os.getpid() * 1000 + int(time.time()) % 1000)

    def _wait_for_sleep(self, mark):
        """Whether a `sleep MARK` started within a minute."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if processes(lambda c: c == b"sleep\x00%s\x00" % mark.encode()):
                return True
            time.sleep(0.05)
        return False

    def _start(self, *args, env=None, **kw):
        return subprocess.Popen(
            [PERFGATE, "compare", *args], cwd=self.repo,
            env=env or dict(os.environ, TMPDIR=self.pgtmp),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)

    def test_sigterm_while_reading_a_config_from_a_fifo(self):
        # open() of a FIFO nobody writes blocks: the signal interrupts it.
        self.base_repo()
        fifo = os.path.join(self.out, "config.fifo")
        os.mkfifo(fifo)
        proc = self._start("--config", fifo, "HEAD", "HEAD")
        self.assertTrue(self._opening_fifo(proc.pid), "never opened the FIFO")
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("interrupted", err)

    def test_work_that_cannot_see_the_signal_is_ended(self):
        # A FIFO opened for writing and never written: read() is retried
        # after the signal, so perfgate cannot unwind by itself.  It still
        # ends within seconds, temporaries removed.
        self.base_repo()
        fifo = os.path.join(self.out, "config.fifo")
        os.mkfifo(fifo)
        proc = self._start("--config", fifo, "HEAD", "HEAD")
        writer = os.open(fifo, os.O_WRONLY)
        try:
            self.assertTrue(self._holds(proc.pid, fifo), "never read it")
            start = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=60)
            took = time.monotonic() - start
        finally:
            os.close(writer)
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("interrupted", err)
        self.assertLess(took, 30)

    @staticmethod
    def _opening_fifo(pid):
        """Whether `pid` comes to wait in open() for a FIFO's writer (its
        wchan; where the kernel hides it, in the openat system call)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with open(f"/proc/{pid}/wchan") as f:
                    wchan = f.read()
                with open(f"/proc/{pid}/syscall") as f:
                    call = f.read().split()[:1]
            except OSError:
                return False
            if wchan == "wait_for_partner" or (
                    wchan in ("", "0") and call in (["257"], ["56"])):
                return True
            time.sleep(0.02)
        return False

    @staticmethod
    def _holds(pid, path):
        """Whether `pid` comes to have `path` open."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                fds = os.listdir(f"/proc/{pid}/fd")
            except OSError:
                return False
            for fd in fds:
                try:
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == path:
                        return True
                except OSError:
                    pass
            time.sleep(0.02)
        return False

    def _runs_under(self, name):
        """Processes whose command line names the directory `name`."""
        return processes(lambda cmdline: name.encode() in cmdline)

    def test_a_killed_run_leaves_nothing_for_long(self):
        # SIGKILL cannot be caught: the run's directory stays, and the next
        # run removes it, as it names an owner that is gone.  Directories
        # of live runs, of other programs and without an owner are kept.
        self.base_repo()
        self.commit({"src/sum.c": HANG})
        proc = self._start("HEAD~1", "HEAD", "--timeout", "120s")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not os.listdir(self.pgtmp):
            time.sleep(0.05)
        time.sleep(1.0)
        killed = os.listdir(self.pgtmp)
        self.assertEqual(len(killed), 1, killed)
        proc.kill()
        proc.communicate(timeout=30)
        self.assertEqual(os.listdir(self.pgtmp), killed)
        # Its hanging child, in a process group of its own, died with it.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and self._runs_under(killed[0]):
            time.sleep(0.1)
        self.assertEqual(self._runs_under(killed[0]), [])
        keep = ["perfgate-nowner", "perfgate-live01", "other-dir"]
        for name in keep:
            os.mkdir(os.path.join(self.pgtmp, name))
        with open(f"/proc/{os.getpid()}/stat") as f:
            started = f.read().rsplit(")", 1)[1].split()[19]
        with open(os.path.join(self.pgtmp, "perfgate-live01",
                               ".perfgate-owner"), "w") as f:
            f.write(f"{os.getpid()} {started}\n")
        self.commit({"src/sum.c": TWICE})
        proc = self._start("HEAD~1", "HEAD", "--noise-floor", "50%")
        out, err = proc.communicate(timeout=300)
        self.assertIn(proc.returncode, (0, 1), err)
        self.assertEqual(sorted(os.listdir(self.pgtmp)), sorted(keep))


class Symlinks(RepoTest):
    """A pull request may commit symbolic links: what perfgate compiles or
    reads from a revision must not lead out of it (the compiler quotes the
    lines of a file it cannot compile into every report)."""

    SECRET = "ghp_SECRETtokenLINE0123456789 = leaked;\n"

    def setUp(self):
        super().setUp()
        self.secret = os.path.join(self.out, "secret.txt")
        with open(self.secret, "w") as f:
            f.write(self.SECRET)

    def link(self, path, target):
        full = os.path.join(self.repo, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if os.path.lexists(full):
            os.remove(full)
        os.symlink(target, full)

    def assert_not_leaked(self, r):
        for text in (r.stdout, r.stderr, r.markdown or "",
                     json.dumps(r.json)):
            self.assertNotIn("SECRETtoken", text)

    def test_a_source_linked_outside_is_not_compiled(self):
        self.base_repo()
        self.link("src/sum.c", self.secret)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "link")
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1, r.stderr)
        b = r.bench("sum")
        self.assertEqual((b["status"], b["side"]), ("build_failed", "head"))
        self.assertIn("src/sum.c: the source leads outside", b["message"])
        self.assert_not_leaked(r)

    def test_the_working_tree_is_checked_too(self):
        self.base_repo()
        self.link("src/sum.c", self.secret)
        r = self.perfgate()
        self.assertEqual(r.code, 1, r.stderr)
        self.assertEqual(r.bench("sum")["status"], "build_failed")
        self.assert_not_leaked(r)

    def test_a_link_inside_the_revision_is_fine(self):
        self.base_repo()
        self.commit({"src/real/sum.c": SERIAL})
        self.link("src/sum.c", "real/sum.c")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "link inside")
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "50%")
        self.assertEqual(r.code, 0, r.stdout + r.stderr)

    def test_an_include_directory_linked_outside(self):
        config = CONFIG.replace("    sources: [src/sum.c]",
                                "    sources: [src/sum.c]\n"
                                "    include: [inc]")
        self.base_repo(config=config)
        self.link("inc", self.out)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "include outside")
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1, r.stderr)
        self.assertIn("inc: the include directory leads outside",
                      r.bench("sum")["message"])

    def test_a_problem_linked_outside(self):
        config = CONFIG.replace("problem: reduce_sum",
                                "problem: problems/sum.problem.c")
        self.commit({"perfgate.yml": config, "src/sum.c": SERIAL})
        self.link("problems/sum.problem.c", self.secret)
        r = self.perfgate("HEAD", "HEAD")
        self.assertEqual(r.code, 2, r.stderr)
        self.assertIn("problem 'problems/sum.problem.c' leads outside the "
                      "repository", r.stderr)
        self.assertNotIn("SECRETtoken", r.stdout + r.stderr)


class Text(RepoTest):
    """Whatever bytes compilers, user code and commits hold, perfgate
    writes valid UTF-8 without control characters: the JSON must parse
    (the Action's publish step crashed on a Latin-1 subject) and the
    comment must be text (a log cut inside a character posted nothing)."""

    def assert_clean(self, r):
        self.assertIsNotNone(r.json)  # json.load decoded it strictly
        for text in (r.stdout, r.markdown, json.dumps(r.json,
                                                      ensure_ascii=False)):
            self.assertNotIn("\x1b", text)
            self.assertNotIn("\r", text)
            # Bidirectional controls: text that shows other than it reads.
            for bidi in ("\u202a\u202b\u202c\u202d\u202e\u2066\u2067"
                         "\u2068\u2069\u200e\u200f\u061c"):
                self.assertNotIn(bidi, text)

    def test_a_latin1_subject_and_a_long_multibyte_log(self):
        self.base_repo()
        # Hundreds of lines of gcc's multibyte quotes: the comment cuts the
        # log at 3000 bytes, which must not split a character.
        bad = "".join("int \u00e9t\u00e9_%d = \u2018nope\u2019;\n" % i
                      for i in range(300))
        self.write("src/sum.c", bad)
        self.git("add", "-A")
        msg = os.path.join(self.out, "msg")
        with open(msg, "wb") as f:
            f.write(b"caf\xe9 cr\xe8me \x1b[31mred\r\n")
        self.git("-c", "i18n.commitEncoding=latin1", "commit", "-q", "-F",
                 msg)
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1, r.stderr)
        self.assert_clean(r)
        self.assertIn("caf\ufffd cr\ufffdme", r.json["head"]["subject"])
        self.assertEqual(r.bench("sum")["status"], "build_failed")

    def test_output_of_user_code_is_cleaned(self):
        noisy = SERIAL.replace(
            "#include <stddef.h>",
            "#include <stddef.h>\n#include <stdio.h>\n#include <stdlib.h>")
        noisy = noisy.replace(
            "{\n", "{\n    fputs(\"\\x1b]0;owned\\x07\\xff\\xfe \\x1b[2J"
            "\\r::error::fake \\xe2\\x80\\xaetxt.exe\\n\", stderr);\n"
            "    abort();\n", 1)
        self.base_repo()
        self.commit({"src/sum.c": noisy})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1, r.stderr)
        self.assertEqual(r.bench("sum")["status"], "crashed")
        self.assert_clean(r)
        self.assertIn("\ufffd\ufffd", r.bench("sum")["log"])
        # On GitHub's runners a line starting with "::" is a command: the
        # report's lines run with commands stopped, resumed by a token.
        r = self.perfgate("HEAD~1", "HEAD", env={"GITHUB_ACTIONS": "true"})
        self.assertIn("::error::fake", r.stdout)
        stopped = None
        for line in r.stdout.splitlines():
            if stopped is None and line.startswith("::stop-commands::"):
                stopped = "::%s::" % line.split("::")[2]
                self.assertGreater(len(stopped), 30)
            elif line == stopped:
                stopped = None
            elif stopped is None:
                self.assertFalse(line.lstrip().startswith("::"), line)
        self.assertIsNone(stopped)


class Contain(RepoTest):
    """Every process perfgate starts stays perfgate's: none outlives it,
    none writes into the user's tree by a relative path, and the compiler
    is limited as the measuring child is."""

    def test_a_daemon_started_by_user_code_is_ended(self):
        daemon = SERIAL.replace("#include <stddef.h>", """#include <stddef.h>
#include <unistd.h>
#include <stdio.h>""").replace("{\n", """{
    static int started;
    if (!started) {
        started = 1;
        if (fork() == 0) {
            setsid();
            if (fork() == 0)
                execlp("sleep", "sleep", "MARK", (char *)NULL);
            _exit(0);
        }
        FILE *f = fopen("wrote-here.txt", "w");
        if (f)
            fclose(f);
    }
""", 1)
        # A mark of this run's own: a daemon another run left is not ours.
        self.mark = "987.%d" % (os.getpid() * 1000 + int(time.time()) % 1000)
        daemon = daemon.replace("MARK", self.mark)
        self.base_repo()
        self.commit({"src/sum.c": daemon})
        # The harness checks that the repository is untouched: the file
        # written by a relative path lands in perfgate's scratch directory.
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "50%")
        self.assertIn(r.code, (0, 1), r.stderr)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.sleepers():
            time.sleep(0.1)
        self.assertEqual(self.sleepers(), [])

    def test_user_code_cannot_write_results_by_accident(self):
        # A head twice as slow that writes lines shaped like perfgate's own
        # report (a 100x improvement) to fd 3, where perfgate-measure's
        # channel was, and to every other descriptor it did not open.
        forger = TWICE.replace("#include <stddef.h>", """#include <stddef.h>
#include <string.h>
#include <unistd.h>""").replace("{\n", """{
    static int forged;
    if (!forged) {
        static const char lie[] =
            "case 0 100.0 1.0 0 1 0 0 -0.99 -0.98\\n"
            "case 1 100.0 1.0 0 1 0 0 -0.99 -0.98\\n";
        forged = 1;
        for (int fd = 3; fd < 1024; fd++)
            if (write(fd, lie, strlen(lie)) < 0) {
            }
    }
""", 1)
        self.base_repo()
        self.commit({"src/sum.c": forger})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        b = r.bench("sum")
        self.assertEqual(b["status"], "regression", b)
        self.assertGreater(b["change"], 0.3)

    def sleepers(self):
        return processes(lambda cmdline: cmdline == b"sleep\x00%s\x00"
                         % self.mark.encode())

    def fake_compiler(self, body):
        """A compiler that runs `body` for the solution (src/sum.c) and is
        the real one for the problem."""
        cc = os.path.join(self.out, "cc.sh")
        with open(cc, "w") as f:
            f.write('#!/bin/sh\ncase "$*" in *src/sum.c*) ;; '
                    '*) exec cc "$@" ;; esac\n' + body)
        os.chmod(cc, 0o755)
        return cc

    def test_the_compiler_is_limited(self):
        self.base_repo()
        cc = self.fake_compiler("grep 'Max address space' /proc/self/limits"
                                "\nexit 1\n")
        r = self.perfgate("HEAD", "HEAD", env={"CC": cc})
        self.assertEqual(r.bench("sum")["status"], "build_failed")
        log = r.bench("sum")["log"]
        self.assertIn("Max address space", log)
        self.assertNotIn("unlimited", log)

    def test_the_compiler_gets_ten_times_the_timeout(self):
        self.base_repo()
        cc = self.fake_compiler("exec sleep 120\n")
        start = time.monotonic()
        r = self.perfgate("HEAD", "HEAD", "--timeout", "1s", env={"CC": cc})
        self.assertLess(time.monotonic() - start, 100)
        self.assertIn("did not finish src/sum.c within 10 s",
                      r.bench("sum")["message"])


def box_works():
    """Whether bubblewrap can make a box on this machine."""
    if not shutil.which("bwrap"):
        return False
    return subprocess.run(["bwrap", "--ro-bind", "/", "/", "--unshare-all",
                           "--", "true"], capture_output=True).returncode == 0


# The head's build command, which tries everything a hostile pull request
# would: write the base's tree (making the base not build), the runner's
# GITHUB_ENV, a file in $HOME and the user's repository, and reach the
# network.  Each try may fail; the build goes on either way.
ATTACK = """set +e
if [ "$PERFGATE_SIDE" = head ]; then
  echo '#error the head wrote this' >> ../base/lib/sum.c
  echo 'LD_PRELOAD=/tmp/evil.so' >> "$GITHUB_ENV"
  echo pwned > "$HOME/pwned"
  [ -n "$PG_TEST_REPO" ] && echo pwned > "$PG_TEST_REPO/pwned"
  python3 -c 'import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), 3).close()' \
    "$PG_TEST_PORT"
fi
exec make
"""

# A chain of processes, each in a session of its own (setsid), each
# starting the next: deeper than any sweep one level at a time.  The last
# one says so in the tree; every one sleeps for MARK seconds.
CHAIN = """n=$1
if [ "$n" -gt 0 ]; then
  setsid sh chain.sh $((n - 1)) "$2" &
else
  touch deep
fi
exec sleep "$2"
"""


class Box(RepoTest):
    """The revisions' code runs in bubblewrap: it writes its own tree and
    nothing else, reaches no network, and every process it starts ends
    with its run.  Without a box the run says so once, and --sandbox
    require makes that an error."""

    def setUp(self):
        super().setUp()
        self.home = os.path.join(self.tmp, "home")
        os.makedirs(self.home)
        self.github_env = os.path.join(self.out, "github_env")
        open(self.github_env, "w").close()
        self.mark = "986.%d" % (os.getpid() * 1000 + int(time.time()) % 1000)

    def need_box(self):
        if not box_works():
            self.skipTest("bubblewrap cannot make a box here")

    def attack(self, *args, env=None):
        """The attack, with a listener for its connection: the result and
        how many connections reached it."""
        self.commit({"perfgate.yml": PROJECT_CONFIG % ("'sh attack.sh'",
                                                       "build/libsum.a"),
                     "Makefile": MAKEFILE, "lib/add.c": LIB_ADD,
                     "lib/sum.c": LIB_SUM, "attack.sh": ATTACK}, "base")
        self.commit({"lib/sum.c": LIB_SUM + "/* the head */\n"})
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        server.settimeout(0.2)
        full = dict(HOME=self.home, GITHUB_ENV=self.github_env,
                    PG_TEST_PORT=str(server.getsockname()[1]), **(env or {}))
        try:
            r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%",
                              *args, env=full)
            reached = 0
            while True:
                try:
                    server.accept()[0].close()
                    reached += 1
                except OSError:
                    break
        finally:
            server.close()
        return r, reached

    def test_a_build_command_reaches_nothing_outside_its_tree(self):
        self.need_box()
        r, reached = self.attack(env={"PG_TEST_REPO": self.repo})
        b = r.bench()
        self.assertIn(b["status"], ("unchanged", "improvement", "regression"),
                      b.get("message"))
        self.assertEqual(r.json["sandbox"], {"boxed": True})
        with open(self.github_env) as f:
            self.assertEqual(f.read(), "")
        self.assertEqual(os.listdir(self.home), [])
        self.assertEqual(reached, 0)
        # (the harness checked that the repository is untouched)

    def test_without_the_box_the_same_build_reaches_all_of_it(self):
        # The control: the attack works where nothing holds it, so the
        # test above tests the box.
        r, reached = self.attack("--sandbox", "off")
        b = r.bench()
        self.assertEqual(b["status"], "build_failed", b)
        self.assertIn("base side", b["message"])
        with open(self.github_env) as f:
            self.assertIn("LD_PRELOAD", f.read())
        self.assertEqual(os.listdir(self.home), ["pwned"])
        self.assertEqual(reached, 1)
        self.assertFalse(r.json["sandbox"]["boxed"])
        self.assertIn("--sandbox off", r.json["sandbox"]["why_not"])
        self.assertEqual(r.markdown.count("ran outside the box"), 1)

    def chain(self, *args):
        """A build command that leaves a setsid chain of 2,000 processes
        behind: none may outlive the run."""
        self.commit({"perfgate.yml": PROJECT_CONFIG % (
            "'setsid sh chain.sh 2000 %s & i=0; while [ ! -e deep ] && "
            "[ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done; make'"
            % self.mark, "build/libsum.a"),
            "Makefile": MAKEFILE, "lib/add.c": LIB_ADD, "lib/sum.c": LIB_SUM,
            "chain.sh": CHAIN}, "base")
        r = self.perfgate("HEAD", "HEAD", "--noise-floor", "60%", *args,
                          timeout=600)
        self.assertIn(r.code, (0, 1), r.stderr)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.sleepers():
            time.sleep(0.1)
        self.assertEqual(len(self.sleepers()), 0)
        return r

    def sleepers(self):
        return processes(lambda cmdline: cmdline == b"sleep\x00%s\x00"
                         % self.mark.encode())

    def test_a_setsid_chain_of_2000_ends_with_the_run(self):
        self.need_box()
        self.chain()

    def test_a_setsid_chain_of_2000_ends_without_the_box_too(self):
        self.chain("--sandbox", "off")

    def test_a_killed_perfgate_takes_the_box_along(self):
        self.need_box()
        self.commit({"perfgate.yml": PROJECT_CONFIG % (
            "'setsid sleep %s & exec sleep %s'" % (self.mark, self.mark),
            "build/libsum.a")}, "base")
        proc = subprocess.Popen(
            [PERFGATE, "compare", "HEAD", "HEAD"], cwd=self.repo,
            env=dict(os.environ, TMPDIR=self.pgtmp), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(self.sleepers()) < 2:
            time.sleep(0.05)
        self.assertEqual(len(self.sleepers()), 2)
        proc.kill()
        proc.communicate(timeout=30)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.sleepers():
            time.sleep(0.1)
        self.assertEqual(self.sleepers(), [])

    def test_no_box_is_said_once_and_require_refuses(self):
        self.base_repo()
        fake = os.path.join(self.out, "bwrap")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'bwrap: setting up uid map: "
                    "Permission denied' >&2\nexit 1\n")
        os.chmod(fake, 0o755)
        for bwrap, why in ((fake, "setting up uid map: Permission denied"),
                           (os.path.join(self.out, "none"),
                            "bubblewrap is not installed")):
            with self.subTest(bwrap=bwrap):
                r = self.perfgate("HEAD", "HEAD", "--noise-floor", "60%",
                                  env={"PERFGATE_BWRAP": bwrap})
                self.assertEqual(r.code, 0, r.stderr)
                self.assertFalse(r.json["sandbox"]["boxed"])
                self.assertIn(why, r.json["sandbox"]["why_not"])
                self.assertEqual(r.markdown.count("ran outside the box"), 1)
                self.assertEqual(r.stdout.count("ran outside the box"), 1)
                r = self.perfgate("HEAD", "HEAD", "--sandbox", "require",
                                  env={"PERFGATE_BWRAP": bwrap})
                self.assertEqual(r.code, 2, r.stdout)
                self.assertIn("--sandbox require", r.stderr)
                self.assertIn(why, r.stderr)
        r = self.perfgate("HEAD", "HEAD", "--sandbox", "maybe")
        self.assertEqual(r.code, 2)
        self.assertIn("want auto, require or off", r.stderr)


class Config(RepoTest):
    def test_a_case_too_large_for_the_machine_is_a_config_error(self):
        # Before any side runs: it was blamed on the head as a crash.
        for case in ("{n: 1000000000000}", "{n: 4611686018427387904}"):
            with self.subTest(case=case):
                self.commit({"perfgate.yml": CONFIG.replace(
                    "[{n: 20000}, {n: 60000}]", "[{n: 20000}, %s]" % case),
                    "src/sum.c": SERIAL})
                r = self.perfgate("HEAD", "HEAD")
                self.assertEqual(r.code, 2, r.stdout + r.stderr)
                self.assertRegex(r.stderr, r"perfgate\.yml:\d+:\d+: case "
                                 r"'n=\d+' needs about .*; a run may use "
                                 r"[\d.]+ GiB here")

    def test_a_config_made_to_keep_perfgate_busy_is_refused(self):
        self.base_repo()
        cases = {
            "levels of nesting": "version: 1\nbenchmarks: " + "[" * 300000,
            "values": "version: 1\nbenchmarks: [" + "a, " * 200000 + "]\n",
            "aliases": "version: 1\nx: &a [1]\nbenchmarks: [" +
                       "*a, " * 1000 + "]\n",
            "benchmarks": "version: 1\nbenchmarks:\n" + "".join(
                f"  - {{name: b{i}, problem: reduce_sum, sources: "
                f"[src/sum.c]}}\n" for i in range(1001)),
        }
        for what, text in cases.items():
            with self.subTest(what=what):
                self.write("perfgate.yml", text)
                start = time.monotonic()
                r = self.perfgate("HEAD", "HEAD", timeout=120)
                self.assertLess(time.monotonic() - start, 60)
                self.assertEqual(r.code, 2, r.stderr)
                self.assertRegex(r.stderr, r"perfgate\.yml:\d+:\d+: more "
                                           r"than \d+ " + what)


class Reports(RepoTest):
    def test_report_renders_a_saved_result(self):
        self.base_repo()
        self.commit({"src/sum.c": TWICE})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1)
        md = os.path.join(self.out, "again.md")
        proc = subprocess.run([PERFGATE, "report", "--markdown", md,
                               os.path.join(self.out, "result.json")],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        with open(md) as f:
            self.assertEqual(f.read(), r.markdown)

    def test_the_comment_fits_whatever_a_saved_result_holds(self):
        self.base_repo()
        self.commit({"src/sum.c": TWICE})
        r = self.perfgate("HEAD~1", "HEAD")
        bench = r.json["benchmarks"][0]
        for name, edit in (
                ("warnings", lambda d: d["system"].__setitem__(
                    "warnings", ["w%d %s" % (i, "x" * 300)
                                 for i in range(300)])),
                ("shards", lambda d: d.__setitem__(
                    "shards", [{"index": i + 1, "count": 100000,
                                "host": "host-%d" % i, "seconds": 1,
                                "benchmarks": 1} for i in range(100000)])),
                ("culprits", lambda d: d.__setitem__(
                    "benchmarks", [dict(bench, name="b%d" % i, culprit={
                        "commit": "abcdef1234", "subject": "s" * 400,
                        "author": "a" * 100, "candidates": 1})
                        for i in range(400)]))):
            with self.subTest(name=name):
                data = json.loads(json.dumps(r.json))
                edit(data)
                path = os.path.join(self.out, "big-%s.json" % name)
                with open(path, "w") as f:
                    json.dump(data, f)
                md = os.path.join(self.out, "big.md")
                p = subprocess.run([PERFGATE, "report", "--markdown", md,
                                    path], capture_output=True, text=True)
                self.assertIn(p.returncode, (0, 1), p.stderr)
                with open(md, encoding="utf-8") as f:
                    comment = f.read()
                self.assertLess(len(comment), 65536)
                self.assertTrue(comment.startswith("<!-- perfgate -->"))

    def test_github_actions_sets_a_ten_percent_floor(self):
        self.base_repo()
        self.commit({"src/sum.c": SERIAL + "/* again */\n"})
        # No event: the last commit against the one before it.
        r = self.perfgate(env={"GITHUB_ACTIONS": "true"})
        self.assertEqual(r.code, 0, r.stderr)
        self.assertEqual(r.json["head"]["commit"],
                         self.git("rev-parse", "HEAD"))
        self.assertEqual(r.json["base"]["commit"],
                         self.git("rev-parse", "HEAD~1"))
        self.assertEqual(r.json["noise_floor"], 0.10)
        self.assertEqual(r.json["noise_floor_source"], "GITHUB_ACTIONS")
        self.assertIn("GITHUB_ACTIONS", r.markdown)


MATMUL_NAIVE = """#include <stddef.h>
void solution(const float *a, const float *b, float *c, size_t m, size_t n,
              size_t k)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            float s = 0;
            for (size_t p = 0; p < k; p++)
                s += a[i * k + p] * b[p * n + j];
            c[i * n + j] = s;
        }
}
"""

# Another loop order, with fused multiply-adds: just as correct.
MATMUL_IKJ = """#include <math.h>
#include <stddef.h>
void solution(const float *a, const float *b, float *c, size_t m, size_t n,
              size_t k)
{
    for (size_t i = 0; i < m * n; i++)
        c[i] = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t p = 0; p < k; p++)
            for (size_t j = 0; j < n; j++)
                c[i * n + j] = fmaf(a[i * k + p], b[p * n + j], c[i * n + j]);
}
"""

VECTOR_ADD = """#include <stddef.h>
void solution(const float *a, const float *b, float *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}
"""

PROBLEMS_CONFIG = """version: 1
settings: {max_time: 300ms, noise_floor: 90%}
benchmarks:
  - name: mm
    problem: matmul
    sources: [src/mm.c]
    cases: [{m: 33, n: 17, k: 29}, {m: 64, n: 48, k: 40}]
  - name: va
    problem: vector_add
    sources: [src/va.c]
    cases: [{n: 1001}]
"""


class Problems(RepoTest):
    """The built-in problems accept any correct solution, refuse a wrong one."""

    def test_correct_solutions_pass_and_wrong_ones_do_not(self):
        self.commit({"perfgate.yml": PROBLEMS_CONFIG, "src/mm.c": MATMUL_NAIVE,
                     "src/va.c": VECTOR_ADD}, "base")
        self.commit({"src/mm.c": MATMUL_IKJ})
        r = self.perfgate("HEAD~1", "HEAD")
        # Verified and measured (fmaf may be a slow libm call: its speed is
        # not the point here, its correctness is).
        self.assertIn(r.bench("mm")["status"],
                      ("unchanged", "regression", "improvement"), r.stdout)
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
            self.assertEqual(b["status"], "unchanged", (name, b["message"]))
            self.assertGreater(b["cases"][0]["flops"], 0, name)
            self.assertGreater(b["cases"][0]["bytes"], 0, name)

        self.commit(self.sources(wrong=True))
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1)
        for name in LIBRARY:
            b = r.bench(name)
            self.assertEqual((name, b["status"], b["side"]),
                             (name, "incorrect", "head"), b["message"])


# A problem for functions `unsigned long f(const unsigned char *p, size_t n)`
# that must return mul * n + add.  Its check also fails when a library of
# perfgate's own is loaded in the process that runs the user's code.
PROBE_PROBLEM = r"""#define _GNU_SOURCE
#include <dlfcn.h>
#include <perfgate/problem.h>

typedef unsigned long (*probe_fn)(const unsigned char *p, size_t n);

struct state {
    unsigned char *data;
    size_t n;
    unsigned long result, expected;
};

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    if (!s)
        return NULL;
    s->n = (size_t)pg_param(c, "n", 64);
    s->data = pg_alloc(c, s->n);
    s->expected = (unsigned long)pg_param(c, "mul", 3) * s->n +
                  (unsigned long)pg_param(c, "add", 0);
    return s->data ? s : NULL;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    s->result = ((probe_fn)fn)(s->data, s->n);
}

static int verify(void *state, pg_case *c)
{
    static const char *const theirs[] = {
        "git_libgit2_init", "yaml_parser_initialize", "cJSON_Parse",
        "crc32_z", "inflate", NULL};
    struct state *s = state;
    for (int i = 0; theirs[i]; i++)
        if (dlsym(RTLD_DEFAULT, theirs[i]))
            return pg_fail(c, "%s() is loaded beside the user's code",
                           theirs[i]);
    if (s->result != s->expected)
        return pg_fail(c, "returned %lu, expected %lu", s->result,
                       s->expected);
    return 0;
}

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI,
    .name = "probe",
    .signature = "unsigned long f(const unsigned char *p, size_t n)",
    .default_cases = "n=64,mul=3,add=0",
    .setup = setup, .run = run, .verify = verify,
};

PG_EXPORT_PROBLEM(problem)
"""

# Functions named as zlib's, cJSON's, libyaml's and libgit2's, which return
# what only this library's own definitions give: 1 + 3n + 7 from crc32_z,
# 10 * 1000 and 9 * 100000 from the version strings' lengths, and 4242.
NAMESAKES = """#include <stddef.h>
#include <string.h>
unsigned long crc32_z(unsigned long crc, const unsigned char *buf, size_t len)
{
    (void)buf;
    return crc + 3 * len + 7;
}
const char *cJSON_Version(void) { return "user-cjson"; }
const char *yaml_get_version_string(void) { return "user-yaml"; }
int git_libgit2_init(void) { return 4242; }
unsigned long solution(const unsigned char *p, size_t n)
{
    unsigned long r = crc32_z(1, p, n);
    r += 1000 * strlen(cJSON_Version());
    r += 100000 * strlen(yaml_get_version_string());
    return r + (unsigned long)git_libgit2_init();
}
"""
NAMESAKES_ADD = 1 + 7 + 10 * 1000 + 9 * 100000 + 4242

# Base and head each define helper(), differently; each side is right only
# with its own (3n either way).
HELPER_BASE = """#include <stddef.h>
unsigned long helper(unsigned long x) { return 2 * x; }
unsigned long solution(const unsigned char *p, size_t n)
{
    (void)p;
    return helper(n) + n;
}
"""
HELPER_HEAD = """#include <stddef.h>
unsigned long helper(unsigned long x) { return 3 * x; }
unsigned long solution(const unsigned char *p, size_t n)
{
    (void)p;
    return helper(n);
}
"""

# A library with its own rand(), which the C library has too: shipped
# libraries call their own; a plain -shared build calls the first found.
OWN_RAND = """#include <stddef.h>
int rand(void) { return 3; }
unsigned long solution(const unsigned char *p, size_t n)
{
    (void)p;
    return (unsigned long)rand() * n;
}
"""


# Verified and timed: a function of a few ns may read as anything.
MEASURED = ("unchanged", "improvement", "regression")


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


class Ci(RepoTest):
    """In CI, with no revisions given, perfgate compares what the CI system
    says changed: a pull request against its merge base, not against
    whatever the base branch has become."""

    def perfgate(self, *args, **kwargs):
        # These tests pin down which revisions are compared, not a verdict:
        # a floor wide enough that no machine's noise can decide one (they
        # carry no timing label and run beside other tests).
        return super().perfgate("--noise-floor", "60%", *args, **kwargs)

    def pull_request(self):
        """main: A, then B (which makes the function twice as slow);
        feature, from A: C (a comment).  Returns A, B, C."""
        a = self.base_repo()
        self.git("checkout", "-q", "-b", "feature")
        c = self.commit({"src/sum.c": SERIAL + "/* feature */\n"})
        self.git("checkout", "-q", "main")
        b = self.commit({"src/sum.c": TWICE})
        self.git("checkout", "-q", "feature")
        return a, b, c

    def github_env(self, event, name="pull_request"):
        path = os.path.join(self.tmp, "event.json")
        with open(path, "w") as f:
            json.dump(event, f)
        return {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": name,
                "GITHUB_EVENT_PATH": path}

    def pr_event(self, base, head):
        return {"pull_request": {"number": 3, "base": {"sha": base},
                                 "head": {"sha": head}}}

    def test_github_pull_request_is_compared_with_its_merge_base(self):
        a, b, c = self.pull_request()
        r = self.perfgate(env=self.github_env(self.pr_event(b, c)))
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        self.assertEqual(r.json["base"]["commit"], a)
        self.assertEqual(r.json["head"]["commit"], c)
        self.assertEqual(r.json["head"]["rev"], "pull request #3")
        self.assertIn("merge base", r.json["base"]["rev"])
        # B's slowdown landed on main, not in the pull request.
        self.assertEqual(r.bench()["status"], "unchanged")
        # Revisions given by hand win.
        r = self.perfgate(b, c, env=self.github_env(self.pr_event(b, c)))
        self.assertEqual(r.json["base"]["commit"], b)

    def test_shallow_checkout_says_what_to_add(self):
        a, b, c = self.pull_request()
        shallow = os.path.join(self.tmp, "shallow")
        subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch",
                        "feature", "file://" + self.repo, shallow],
                       check=True, capture_output=True)
        r = self.perfgate(cwd=shallow,
                          env=self.github_env(self.pr_event(b, c)))
        self.assertEqual(r.code, 2, r.stdout)
        self.assertIn("GitHub Actions, pull request #3", r.stderr)
        self.assertIn("fetch-depth: 0", r.stderr)

    def test_github_push_compares_with_the_commit_before(self):
        a, b, c = self.pull_request()
        env = self.github_env({"before": a, "after": c}, name="push")
        r = self.perfgate(env=env)
        self.assertEqual((r.json["base"]["commit"], r.json["head"]["commit"]),
                         (a, c))

    def test_gitlab_merge_request(self):
        a, b, c = self.pull_request()
        r = self.perfgate(env={"GITLAB_CI": "true", "CI_COMMIT_SHA": c,
                               "CI_MERGE_REQUEST_DIFF_BASE_SHA": a,
                               "CI_MERGE_REQUEST_IID": "8"})
        self.assertEqual((r.json["base"]["commit"], r.json["head"]["commit"]),
                         (a, c))
        self.assertEqual(r.json["head"]["rev"], "merge request !8")

    def test_jenkins_change_against_the_remote_target_branch(self):
        a, b, c = self.pull_request()
        clone = os.path.join(self.tmp, "clone")
        subprocess.run(["git", "clone", "-q", "--branch", "feature",
                        self.repo, clone], check=True, capture_output=True)
        r = self.perfgate(cwd=clone, env={
            "JENKINS_URL": "https://ci.example.com/", "CHANGE_ID": "4",
            "CHANGE_TARGET": "main", "GIT_COMMIT": c})
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        self.assertEqual((r.json["base"]["commit"], r.json["head"]["commit"]),
                         (a, c))
        self.assertEqual(r.json["base"]["rev"], "merge base with main")

    def test_no_ci_ignores_the_ci_system(self):
        a, b, c = self.pull_request()
        r = self.perfgate("--no-ci", env=self.github_env(self.pr_event(b, c)))
        self.assertEqual(r.json["base"]["commit"], c)
        self.assertTrue(r.json["head"]["worktree"])


# A project's library: the function timed calls into another file.
LIB_ADD = """float pg_add(float a, float b) { return a + b; }
"""
LIB_SUM = """#include <stddef.h>
float pg_add(float a, float b);
void solution(const float *in, float *out, size_t n)
{
    float s = 0;
    for (size_t i = 0; i < n; i++)
        s = pg_add(s, in[i]);
    out[0] = s;
}
"""
MAKEFILE = """CFLAGS ?= -O2
build/libsum.a: lib/add.c lib/sum.c
\tmkdir -p build
\t$(CC) $(CFLAGS) -fPIC -c lib/add.c -o build/add.o
\t$(CC) $(CFLAGS) -fPIC -c lib/sum.c -o build/sum.o
\tar rcs $@ build/add.o build/sum.o
"""
PROJECT_CONFIG = """version: 1
settings: {max_time: 1s, min_rounds: 5}
benchmarks:
  - name: sum
    problem: reduce_sum
    build: %s
    library: %s
    cases: [{n: 20000}]
"""

# A problem whose set-up uses the side's own code: it creates the
# codec's context, and the encoder makes the input that the timed decoder
# reads with that context.
CODEC_PROBLEM = r"""#include <perfgate/problem.h>
typedef void *(*new_fn)(void);
typedef void (*encode_fn)(void *ctx, const unsigned char *in,
                          unsigned char *out, size_t n);
typedef void (*decode_fn)(void *ctx, const unsigned char *in,
                          unsigned char *out, size_t n);
struct state { void *ctx; unsigned char *enc, *out, *want; size_t n; };
static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    new_fn make = (new_fn)pg_lookup(c, "codec_new");
    encode_fn encode = (encode_fn)pg_lookup(c, "encode");
    unsigned char *plain, *enc;
    size_t i;
    if (!make || !encode)
        return NULL;
    s->ctx = make(); /* untimed: the project's own constructor */
    s->n = (size_t)pg_param(c, "n", 0);
    plain = pg_host_alloc(c, s->n);
    enc = pg_host_alloc(c, s->n);
    s->want = plain;
    for (i = 0; i < s->n; i++)
        plain[i] = (unsigned char)pg_random(c);
    encode(s->ctx, plain, enc, s->n); /* untimed: the project's encoder */
    s->enc = pg_alloc_copy(c, enc, s->n);
    s->out = pg_alloc(c, s->n);
    return s->enc && s->out ? s : NULL;
}
static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    ((decode_fn)fn)(s->ctx, s->enc, s->out, s->n);
}
static int verify(void *state, pg_case *c)
{
    struct state *s = state;
    size_t i;
    for (i = 0; i < s->n; i++)
        if (s->out[i] != s->want[i])
            return pg_fail(c, "byte %zu decodes to %d, expected %d", i,
                           s->out[i], s->want[i]);
    return 0;
}
static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI, .name = "codec",
    .signature = "void decode(void *ctx, const unsigned char *in, "
                 "unsigned char *out, size_t n)",
    .default_cases = "n=4096", .setup = setup, .run = run,
    .verify = verify, .side_setup = 1,
};
PG_EXPORT_PROBLEM(problem)
"""
CODEC = """#include <stddef.h>
#include <stdlib.h>
struct codec { unsigned char key; };
void *codec_new(void)
{
    struct codec *c = malloc(sizeof(*c));
    c->key = %s;
    return c;
}
void encode(void *ctx, const unsigned char *in, unsigned char *out, size_t n)
{
    unsigned char k = ((struct codec *)ctx)->key;
    for (size_t i = 0; i < n; i++)
        out[i] = (unsigned char)(in[i] ^ k);
}
void decode(void *ctx, const unsigned char *in, unsigned char *out, size_t n)
{
    unsigned char k = ((struct codec *)ctx)->key ^ %s;
    for (size_t i = 0; i < n; i++)
        out[i] = (unsigned char)(in[i] ^ k);
}
"""


class Projects(RepoTest):
    """Real projects: their own build, sources that follow the revision,
    per-file and link flags, adapters beside the config, and problems that
    set up with the side's own code."""

    def make_project(self, makefile=MAKEFILE):
        return self.commit({
            "perfgate.yml": PROJECT_CONFIG % ("make", "build/libsum.a"),
            "Makefile": makefile, "lib/add.c": LIB_ADD,
            "lib/sum.c": LIB_SUM}, "base")

    def assert_measured(self, b):
        self.assertIn(b["status"], ("unchanged", "regression", "improvement"),
                      b.get("message"))
        self.assertGreater(b["rounds"], 0)

    def test_make_project_in_a_private_copy(self):
        self.make_project()
        # The head is the working tree, with an uncommitted change; its
        # build writes build/ and a stray file, into a copy.
        self.write("lib/sum.c", LIB_SUM + "/* changed */\n")
        self.write("perfgate.yml", PROJECT_CONFIG % (
            "'echo stray > written.txt && make'", "build/libsum.a"))
        r = self.perfgate("--noise-floor", "60%")
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        b = r.bench()
        self.assertEqual(b["status"], "unchanged", b.get("message"))
        self.assertTrue(b["identical_code"])  # a comment changed, not code
        self.assertFalse(os.path.exists(os.path.join(self.repo, "build")))
        self.assertFalse(os.path.exists(os.path.join(self.repo,
                                                     "written.txt")))

    def test_cmake_project(self):
        if not shutil.which("cmake"):
            self.skipTest("no cmake")
        cmakelists = ("cmake_minimum_required(VERSION 3.13)\n"
                      "project(sum C)\n"
                      "add_library(sum STATIC lib/add.c lib/sum.c)\n"
                      "set_target_properties(sum PROPERTIES "
                      "POSITION_INDEPENDENT_CODE ON)\n")
        build = ("'cmake -S . -B out -DCMAKE_BUILD_TYPE=Release >/dev/null "
                 "&& cmake --build out'")
        self.commit({"perfgate.yml": PROJECT_CONFIG % (build, "out/libsum.a"),
                     "CMakeLists.txt": cmakelists, "lib/add.c": LIB_ADD,
                     "lib/sum.c": LIB_SUM}, "base")
        self.commit({"lib/sum.c": TWICE.replace(
            "void solution", "float pg_add(float, float);\nvoid solution")})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        b = r.bench()
        self.assert_measured(b)
        self.assertFalse(b["identical_code"])

    def test_a_pull_request_that_adds_a_file(self):
        config = CONFIG.replace("sources: [src/sum.c]",
                                "sources: ['src/*.c']")
        self.commit({"perfgate.yml": config, "src/sum.c": SERIAL}, "base")
        # The head moves the loop into a new file.
        self.commit({"src/sum.c": "#include <stddef.h>\n"
                                  "float total(const float *, size_t);\n"
                                  "void solution(const float *in, float "
                                  "*out, size_t n)\n{ out[0] = total(in, n);"
                                  " }\n",
                     "src/total.c": "#include <stddef.h>\n"
                                    "float total(const float *in, size_t n)"
                                    "\n{\n    float s = 0;\n    for (size_t "
                                    "i = 0; i < n; i++)\n        s += in[i];"
                                    "\n    return s;\n}\n"})
        for args in (("HEAD~1", "HEAD"), ("HEAD", "HEAD~1")):
            r = self.perfgate(*args, "--noise-floor", "60%")
            self.assert_measured(r.bench())
        # A glob that matches nothing on a side: the benchmark is new there.
        config = CONFIG.replace("sources: [src/sum.c]",
                                "sources: ['kernels/*.c']")
        self.commit({"perfgate.yml": config, "kernels/sum.c": SERIAL})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.bench()["status"], "new")
        self.assertIn("kernels/*.c", r.bench()["message"])

    def test_per_file_flags_link_flags_and_include_globs(self):
        helper = ("#ifndef SCALE\n#error SCALE comes from file_cflags\n"
                  "#endif\nfloat pg_add(float a, float b) "
                  "{ return a + b * SCALE; }\n")
        makefile = ("build/libadd.a: lib/add.c\n\tmkdir -p build\n"
                    "\t$(CC) -O2 -fPIC -DSCALE=1 -c lib/add.c -o build/add.o"
                    "\n\tar rcs $@ build/add.o\n")
        config = """version: 1
settings: {max_time: 1s, min_rounds: 5}
benchmarks:
  - name: flags
    problem: reduce_sum
    sources: [lib/sum.c, lib/scaled.c]
    file_cflags: {lib/scaled.c: [-DSCALE=1]}
    include: ['third_party/*/include']
    cases: [{n: 20000}]
  - name: linked
    problem: reduce_sum
    build: make
    sources: [lib/sum.c]
    ldflags: [-Lbuild, -ladd]
    cases: [{n: 20000}]
"""
        # The include directory is found by a glob.
        scaled = '#include "bias.h"\n' + helper.replace("b * SCALE",
                                                         "b * SCALE + BIAS")
        self.commit({"perfgate.yml": config, "Makefile": makefile,
                     "lib/add.c": helper, "lib/scaled.c": scaled,
                     "third_party/vendored/include/bias.h":
                         "#define BIAS 0\n",
                     "lib/sum.c": LIB_SUM}, "base")
        r = self.perfgate("--aa", "HEAD")
        for name in ("flags", "linked"):
            self.assert_measured(r.bench(name))

    def test_a_flag_list_split_by_yaml_is_refused_with_the_fix(self):
        config = CONFIG.replace("sources: [src/sum.c]",
                                "sources: [src/sum.c]\n"
                                "    cflags: [-O3, -Wl,-Bsymbolic]")
        self.base_repo(config=config)
        r = self.perfgate()
        self.assertEqual(r.code, 2, r.stdout)
        self.assertIn("perfgate.yml:", r.stderr)
        self.assertIn('"-Wl,-Bsymbolic"', r.stderr)

    def test_an_adapter_beside_the_config_serves_both_sides(self):
        impl = ("#include <stddef.h>\nfloat sum_impl(const float *in, "
                "size_t n)\n{\n    float s = 0;\n    for (size_t i = 0; i < n;"
                " i++)\n        s += in[i];\n    return s;\n}\n")
        adapter = ("#include <stddef.h>\nfloat sum_impl(const float *, "
                   "size_t);\nvoid solution(const float *in, float *out, "
                   "size_t n) { out[0] = sum_impl(in, n); }\n")
        config = CONFIG.replace("sources: [src/sum.c]",
                                "sources: [src/impl.c]\n"
                                "    adapters: [perf/adapter.c]")
        self.commit({"perfgate.yml": config, "src/impl.c": impl}, "base")
        # The adapter exists only now: it is the config's, not the
        # revisions', so both sides are built with it.
        self.commit({"perf/adapter.c": adapter,
                     "src/impl.c": impl + "/* head */\n"})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench()
        self.assertEqual(b["status"], "unchanged", b.get("message"))
        self.assertTrue(b["identical_code"])

    def test_a_problem_that_sets_up_with_the_side_s_code(self):
        config = """version: 1
settings: {max_time: 1s, min_rounds: 5}
benchmarks:
  - name: codec
    problem: perf/codec.c
    sources: [src/codec.c]
    symbol: decode
"""
        self.commit({"perfgate.yml": config, "perf/codec.c": CODEC_PROBLEM,
                     "src/codec.c": CODEC % ("0x5a", "0")}, "base")
        # The head changes the format: its own encoder makes its input, so
        # its decoder is right.
        self.commit({"src/codec.c": CODEC % ("0x33", "0")})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        self.assert_measured(r.bench("codec"))
        # A decoder that does not match the encoder is wrong.
        self.commit({"src/codec.c": CODEC % ("0x33", "1")})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.bench("codec")["status"], "incorrect")
        self.assertEqual(r.bench("codec")["side"], "head")
        # A side without the function the set-up looks up is charged with
        # it, by name.
        self.commit({"src/codec.c": "#include <stddef.h>\nvoid *codec_new"
                                    "(void) { return 0; }\nvoid decode(void "
                                    "*c, const unsigned char *i, unsigned "
                                    "char *o, size_t n) { (void)c; (void)i;"
                                    " (void)o; (void)n; }\n"})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench("codec")
        self.assertEqual((b["status"], b["side"]), ("crashed", "head"))
        self.assertIn("no function 'encode'", b["message"])

    def test_the_readme_decompressor_problem(self):
        # The docs' worked example, as written there, on a small codec.
        readme = os.path.join(os.path.dirname(__file__), "..", "..",
                              "docs", "existing-projects.md")
        with open(readme) as f:
            blocks = f.read().split("```c\n")
        problem = [b.split("```")[0] for b in blocks
                   if ".side_setup = 1" in b and "codec_compress" in b]
        self.assertEqual(len(problem), 1)
        codec = ("#include <stddef.h>\n"
                 "size_t codec_compress(const void *src, size_t n, void *dst,"
                 " size_t cap)\n{\n    const unsigned char *s = src;\n"
                 "    unsigned char *d = dst;\n    (void)cap;\n"
                 "    for (size_t i = 0; i < n; i++)\n"
                 "        d[i] = s[i] ^ 0x5a;\n    return n;\n}\n"
                 "size_t codec_decompress(const void *src, size_t n, "
                 "void *dst, size_t cap)\n{\n"
                 "    const unsigned char *s = src;\n"
                 "    unsigned char *d = dst;\n"
                 "    for (size_t i = 0; i < n && i < cap; i++)\n"
                 "        d[i] = s[i] ^ 0x5a;\n    return n;\n}\n")
        config = """version: 1
settings: {max_time: 1s, min_rounds: 5}
benchmarks:
  - name: decompress
    problem: perf/decompress.c
    sources: [src/codec.c]
    symbol: codec_decompress
    cases: [{n: 65536}]
"""
        self.commit({"perfgate.yml": config, "perf/decompress.c": problem[0],
                     "src/codec.c": codec}, "base")
        r = self.perfgate("--aa", "HEAD")
        self.assert_measured(r.bench("decompress"))

    def test_a_problem_for_the_previous_abi_still_loads(self):
        with open(os.path.join(os.path.dirname(__file__), "..", "..",
                               "problems", "reduce_sum.c")) as f:
            old = f.read()
        old = old.replace(".abi = PG_PROBLEM_ABI", ".abi = 2").replace(
            '.name = "reduce_sum"', '.name = "old_sum"')
        config = CONFIG.replace("problem: reduce_sum",
                                "problem: perf/old_sum.c")
        self.base_repo(config=config)
        self.commit({"perf/old_sum.c": old})
        r = self.perfgate("--aa", "HEAD")
        self.assert_measured(r.bench())

    def test_a_failing_build_is_charged_to_its_side(self):
        self.make_project()
        self.commit({"Makefile": "build/libsum.a:\n\t@echo broken >&2; "
                                 "exit 2\n"})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1, r.stdout)
        b = r.bench()
        self.assertEqual((b["status"], b["side"]), ("build_failed", "head"))
        self.assertIn("the build command failed", b["message"])
        self.assertIn("broken", b["log"])
        # The other way round, the head is still checked, alone.
        r = self.perfgate("HEAD", "HEAD~1")
        b = r.bench()
        self.assertEqual((b["status"], b["side"]), ("build_failed", "base"))
        self.assertEqual(r.code, 0, r.stdout)


class Shards(RepoTest):
    """compare --shard K/N deals the benchmarks out deterministically, and
    merge puts the shards of one run back together, refusing what does not
    fit."""

    def setUp(self):
        super().setUp()
        config = "version: 1\nsettings: {max_time: 1s}\nbenchmarks:\n"
        for i in range(5):
            cases = ", ".join("{n: %d}" % (1000 * (j + 1))
                              for j in range(i + 1))
            config += ("  - {name: b%d, problem: reduce_sum, sources: "
                       "[src/sum.c], cases: [%s]}\n" % (i, cases))
        self.first = self.base_repo(config=config)
        self.commit({"src/sum.c": "/* a comment */\n" + SERIAL})
        self.commit({"src/sum.c": "/* another */\n" + SERIAL})

    def shard(self, k, n, *revs):
        r = self.perfgate(*(revs or ("HEAD~1", "HEAD")), "--shard",
                          "%d/%d" % (k, n))
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        self.saved = getattr(self, "saved", 0) + 1
        path = os.path.join(self.tmp, "shard-%d.json" % self.saved)
        with open(path, "w") as f:
            json.dump(r.json, f)
        return path, [b["name"] for b in r.json["benchmarks"]]

    def merge(self, *paths):
        out = os.path.join(self.tmp, "merged.json")
        md = os.path.join(self.tmp, "merged.md")
        p = subprocess.run([PERFGATE, "merge", "--json", out, "--markdown",
                            md, *paths], capture_output=True, text=True)
        merged = None
        if os.path.exists(out):
            with open(out) as f:
                merged = json.load(f)
            os.remove(out)
        return p, merged, md

    def test_shards_cover_every_benchmark_once_and_merge(self):
        paths, names = [], []
        for k in (1, 2, 3):
            path, got = self.shard(k, 3)
            paths.append(path)
            names.append(got)
        # Every benchmark in exactly one shard, balanced by cases (5, 4+1,
        # 3+2), and the same deal every time.
        self.assertEqual(sorted(sum(names, [])),
                         ["b0", "b1", "b2", "b3", "b4"])
        self.assertEqual(names, [["b4"], ["b0", "b3"], ["b1", "b2"]])
        self.assertEqual(self.shard(2, 3)[1], names[1])
        p, merged, md = self.merge(*reversed(paths))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(sorted(b["name"] for b in merged["benchmarks"]),
                         ["b0", "b1", "b2", "b3", "b4"])
        self.assertEqual([s["index"] for s in merged["shards"]], [1, 2, 3])
        self.assertEqual({b["name"]: b["shard"]
                          for b in merged["benchmarks"]}["b4"], 1)
        self.assertEqual(merged["verdict"], "pass")
        with open(md) as f:
            self.assertIn("Measured in shards: 1/3 on", f.read())

    def test_merge_refuses_what_does_not_fit(self):
        one, _ = self.shard(1, 2)
        two, _ = self.shard(2, 2)
        cases = [((one,), "shard 2/2 is missing"),
                 ((one, one, two), "are both shard 1/2")]
        other, _ = self.shard(2, 2, "HEAD~2", "HEAD")
        cases.append(((one, other), "differ in the base commit"))
        three, _ = self.shard(2, 3)
        cases.append(((one, three), "differ in the number of shards"))
        with open(os.path.join(self.repo, "perfgate.yml")) as f:
            self.write("perfgate.yml", f.read() + "# edited\n")
        edited, _ = self.shard(2, 2, "HEAD~1")
        cases.append(((one, edited), "differ in the config"))
        whole = self.perfgate("HEAD~1", "HEAD")
        path = os.path.join(self.tmp, "whole.json")
        with open(path, "w") as f:
            json.dump(whole.json, f)
        cases.append(((path,), "not the result of one shard"))
        for paths, message in cases:
            p, merged, _ = self.merge(*paths)
            self.assertEqual(p.returncode, 2, (paths, p.stdout))
            self.assertIn(message, p.stderr)
            self.assertIsNone(merged)

    def test_merge_refuses_forged_shards(self):
        one, names1 = self.shard(1, 2)
        two, names2 = self.shard(2, 2)

        def forge(path, edit):
            with open(path) as f:
                data = json.load(f)
            edit(data)
            self.saved += 1
            out = os.path.join(self.tmp, "forged-%d.json" % self.saved)
            with open(out, "w") as f:
                json.dump(data, f)
            return out

        def drop(data):
            data["benchmarks"].pop()

        def drop_and_count(data):
            data["benchmarks"].pop()
            data["shards"][0]["benchmarks"] -= 1

        def foreign(data):
            extra = dict(data["benchmarks"][0], name="planted")
            data["benchmarks"].append(extra)
            data["shards"][0]["benchmarks"] += 1

        def twice(data):
            # A benchmark of shard 2's, in shard 1's file, claiming to be
            # shard 2's.
            with open(two) as f:
                theirs = json.load(f)["benchmarks"][0]
            data["benchmarks"].append(dict(theirs, shard=2))
            data["shards"][0]["benchmarks"] += 1

        config = os.path.join(self.repo, "perfgate.yml")
        for paths, args, message in (
                ((forge(one, drop), two), (), "it is not whole"),
                ((forge(one, drop_and_count), two), ("--config", config),
                 "of the config is in no shard"),
                ((forge(one, foreign), two), ("--config", config),
                 "'planted' (shard 1) is not in the config"),
                ((forge(one, twice), two), (), "is in shards 1 and 2")):
            with self.subTest(message=message):
                p = subprocess.run([PERFGATE, "merge", *args, *paths],
                                   capture_output=True, text=True)
                self.assertEqual(p.returncode, 2, p.stdout)
                self.assertIn(message, p.stderr)
        # The whole run, against its config: merged.
        p = subprocess.run([PERFGATE, "merge", "--config", config, one, two],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_last_known_times_balance_the_shards(self):
        # Times from an earlier result: b0, with one case, took longest.
        whole = self.perfgate("HEAD~1", "HEAD").json
        times = {"b0": 9.0, "b1": 1.0, "b2": 1.0, "b3": 1.0}  # b4 unknown
        for b in whole["benchmarks"]:
            b["seconds"] = times.get(b["name"], 0)
        timings = os.path.join(self.tmp, "timings.json")
        with open(timings, "w") as f:
            json.dump(whole, f)
        names = []
        for k in (1, 2):
            r = self.perfgate("HEAD~1", "HEAD", "--shard", "%d/2" % k,
                              "--timings", timings)
            self.assertEqual(r.code, 0, r.stderr)
            names.append([b["name"] for b in r.json["benchmarks"]])
            self.assertTrue(r.json["shards"][0]["balance"]
                            .startswith("timings "))
        # b4 costs its 5 cases at the known 12 s / 10 cases: 6 s; then
        # b0 (9) alone against b4 (6) + b1 + b2 + b3 (3).
        self.assertEqual(names, [["b0"], ["b1", "b2", "b3", "b4"]])
        # Shards dealt from other timings are not of one run.
        path1, _ = self.shard(1, 2)
        r = self.perfgate("HEAD~1", "HEAD", "--shard", "2/2", "--timings",
                          timings)
        path2 = os.path.join(self.tmp, "other.json")
        with open(path2, "w") as f:
            json.dump(r.json, f)
        p, merged, _ = self.merge(path1, path2)
        self.assertEqual(p.returncode, 2)
        self.assertIn("how the benchmarks were dealt", p.stderr)
        # --timings is for shards, and must be a result.
        self.assertEqual(self.perfgate("--timings", timings).code, 2)
        r = self.perfgate("--shard", "1/2", "--timings", self.repo)
        self.assertEqual(r.code, 2)
        self.assertIn("--timings", r.stderr)

    def test_bad_shard_values_are_usage_errors(self):
        for value in ("0/3", "4/3", "3", "1/0", "a/b", "1/3x"):
            r = self.perfgate("--shard", value)
            self.assertEqual(r.code, 2, value)
            self.assertIn("--shard", r.stderr)


class Affected(RepoTest):
    """A benchmark whose build reads the same files on both sides is not
    built or measured; anything that could reach it, however roundabout,
    is."""

    def setUp(self):
        super().setUp()
        config = "version: 1\nsettings: {max_time: 1s}\nbenchmarks:\n"
        files = {}
        for name in ("a", "b", "c"):
            config += ("  - {name: %s, problem: reduce_sum, sources: "
                       "[src/%s.c], include: [inc, lib], "
                       "cases: [{n: 1000}]}\n" % (name, name))
            files["src/%s.c" % name] = '#include "%s.h"\n%s' % (name, SERIAL)
            files["lib/%s.h" % name] = "/* %s */\n" % name
        files["perfgate.yml"] = config
        self.commit(files, "base")

    def statuses(self, r):
        return {b["name"]: "not affected" if b["not_affected"]
                else b["status"] for b in r.json["benchmarks"]}

    def test_only_what_the_change_reaches_is_built(self):
        self.commit({"src/b.c": '#include "b.h"\n' + TWICE})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        st = self.statuses(r)
        self.assertEqual(st["a"], "not affected")
        self.assertEqual(st["c"], "not affected")
        self.assertNotEqual(st["b"], "not affected")
        self.assertGreater(r.bench("b")["rounds"], 0)
        self.assertIn("2 not affected (neither built nor measured): a, c",
                      r.stdout)

    def test_a_header_reaches_only_who_includes_it(self):
        self.commit({"lib/c.h": "/* c, changed */\n"})
        st = self.statuses(self.perfgate("HEAD~1", "HEAD"))
        self.assertEqual(st["a"], "not affected")
        self.assertNotEqual(st["c"], "not affected")

    def test_a_header_shadowed_or_unshadowed_is_seen(self):
        # A new a.h earlier in the include path: a reads another file.
        self.commit({"inc/a.h": "/* a, shadowing */\n"})
        st = self.statuses(self.perfgate("HEAD~1", "HEAD"))
        self.assertNotEqual(st["a"], "not affected")
        self.assertEqual(st["b"], "not affected")
        # And the other way: the shadowing one removed, the old one used
        # again, though no file a reads now has changed.
        self.git("rm", "-q", "inc/a.h")
        self.git("commit", "-q", "-m", "unshadow")
        st = self.statuses(self.perfgate("HEAD~1", "HEAD"))
        self.assertNotEqual(st["a"], "not affected")

    def test_uncommitted_changes_and_self_checks(self):
        self.write("lib/a.h", "/* a, edited */\n")
        st = self.statuses(self.perfgate())
        self.assertNotEqual(st["a"], "not affected")
        self.assertEqual(st["b"], "not affected")
        # A self-check measures everything it is given.
        r = self.perfgate("--aa", "HEAD")
        self.assertFalse(any(b["not_affected"]
                             for b in r.json["benchmarks"]))

    def test_progress_counts_and_time_left_on_a_terminal(self):
        if not shutil.which("script"):
            self.skipTest("no script(1) to give perfgate a terminal")
        self.commit({"src/c.c": '#include "c.h"\n' + TWICE})
        env = dict(os.environ, TMPDIR=self.pgtmp,
                   XDG_CACHE_HOME=os.path.join(self.tmp, "cache"))
        for var in CI_VARIABLES:
            env.pop(var, None)
        p = subprocess.run(["script", "-qec", "%s compare HEAD~1 HEAD "
                            "--noise-floor 60%% >/dev/null" % PERFGATE,
                            "/dev/null"], cwd=self.repo, env=env,
                           capture_output=True, text=True, timeout=300)
        # text=True reads "\r" as a line break, as a terminal shows it.
        lines = p.stdout.replace("\033[K", "").splitlines()
        self.assertTrue(any(line.startswith("[3/3] c: ") and
                            "0 measured, 2 not affected · about " in line
                            for line in lines), p.stdout[-2000:])

    def test_what_perfgate_cannot_see_into_is_built(self):
        with open(os.path.join(self.repo, "perfgate.yml")) as f:
            config = f.read().replace("sources: [src/a.c]",
                                      "sources: [src/a.c], build: 'true'")
        self.write("perfgate.yml", config)
        st = self.statuses(self.perfgate())
        self.assertNotEqual(st["a"], "not affected")  # built: identical code
        self.assertTrue(self.perfgate().bench("a")["identical_code"])
        self.assertEqual(st["b"], "not affected")


# A reduce_sum solution that adds through op() from "sub/op.h".
SUB_OP = """#include <stddef.h>
#include "sub/op.h"
void solution(const float *in, float *out, size_t n)
{
    float s = 0;
    for (size_t i = 0; i < n; i++)
        s = op(s, in[i]);
    out[0] = s;
}
"""
OP_H = "static inline float op(float a, float b) { return a + b; }\n"
# The same op(), 100 times the work (what a shadowing header could do).
SLOW_OP_H = """static inline float op(float a, float b)
{
    volatile float x = b;
    for (int i = 0; i < 100; i++)
        x = x * 1.0f;
    return a + x;
}
"""

# Data pulled into the build by the assembler, which cc -M does not name.
INCBIN = SERIAL + """__asm__(".pushsection .rodata\\n"
        "pg_blob:\\n"
        ".incbin \\"data/blob.bin\\"\\n"
        ".popsection\\n");
"""


class Reach(RepoTest):
    """No benchmark is called "not affected" that a change can reach: every
    kind of input the README lists, and the roundabout ones (a header that
    shadows another from a subdirectory the search passes through or from
    -I in cflags, data pulled in by .incbin, what cflags give the link),
    with the build cache, without it, and with builds in parallel through
    the private cache --no-cache uses."""

    MODES = ([], ["--no-cache", "-j1"], ["--no-cache", "-j2"])

    def reached(self, config, base, change, modes=MODES):
        """Commits `base` with `config`, then `change`; the benchmark must
        be built and measured (or fail to build) in every mode."""
        files = dict(base)
        files["perfgate.yml"] = (
            "version: 1\nsettings: {max_time: 0.2s, min_rounds: 3}\n"
            "benchmarks:\n  - name: sum\n    problem: reduce_sum\n"
            "    cases: [{n: 1000}]\n" + config)
        self.commit(files, "base")
        self.commit(change, "head")
        for mode in modes:
            r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%", *mode)
            self.assertIsNotNone(r.json, r.stderr)
            self.assertFalse(r.bench()["not_affected"],
                             "%s: %s" % (" ".join(mode), r.stdout))

    def test_a_changed_source(self):
        self.reached("    sources: [src/sum.c]\n", {"src/sum.c": SERIAL},
                     {"src/sum.c": TWICE})

    def test_a_changed_header_included_by_a_header(self):
        self.reached("    sources: [src/sum.c]\n    include: [include]\n",
                     {"src/sum.c": SUB_OP,
                      "include/sub/op.h": '#include "inner.h"\n' + OP_H,
                      "include/sub/inner.h": "\n"},
                     {"include/sub/inner.h": "#define INNER 1\n"})

    def test_a_header_that_shadows_from_the_sources_own_directory(self):
        # "sub/op.h" was found under include/; the source's own directory
        # is searched first, and src/sub/ was already there.
        self.reached("    sources: [src/sum.c]\n    include: [include]\n",
                     {"src/sum.c": SUB_OP, "include/sub/op.h": OP_H,
                      "src/sub/README": "other files\n"},
                     {"src/sub/op.h": SLOW_OP_H})

    def test_a_header_that_shadows_through_an_earlier_include(self):
        self.reached("    sources: [src/sum.c]\n"
                     "    include: [first, second]\n",
                     {"src/sum.c": SUB_OP, "second/sub/op.h": OP_H,
                      "first/sub/other.h": "\n"},
                     {"first/sub/op.h": SLOW_OP_H})

    def test_a_header_that_shadows_a_system_one_through_cflags(self):
        for flag in ("-I", "-iquote", "-isystem"):
            with self.subTest(flag=flag):
                self.tearDown()
                self.setUp()
                quoted = flag == "-iquote"
                source = ('#include %s\n' % ('"math.h"' if quoted
                                              else "<math.h>")) + SERIAL
                self.reached("    sources: [src/sum.c]\n"
                             "    cflags: [-O2, %svendor]\n" % flag,
                             {"src/sum.c": source, "vendor/other.h": "\n"},
                             {"vendor/math.h": "#include_next <math.h>\n"
                              "#define PG_SHADOWED 1\n"})

    def test_a_header_in_an_include_flag_given_apart(self):
        self.reached("    sources: [src/sum.c]\n"
                     "    cflags: [-O2, -I, vendor]\n",
                     {"src/sum.c": "#include <math.h>\n" + SERIAL,
                      "vendor/other.h": "\n"},
                     {"vendor/math.h": "#include_next <math.h>\n"})

    def test_a_header_through_file_cflags(self):
        self.reached("    sources: [src/sum.c]\n"
                     "    file_cflags: {src/sum.c: [-Ivendor]}\n",
                     {"src/sum.c": "#include <math.h>\n" + SERIAL,
                      "vendor/other.h": "\n"},
                     {"vendor/math.h": "#include_next <math.h>\n"})

    def test_data_pulled_in_by_incbin(self):
        self.reached("    sources: [src/sum.c]\n",
                     {"src/sum.c": INCBIN, "data/blob.bin": "a" * 64},
                     {"data/blob.bin": "b" * 64})

    def test_an_object_or_library_that_cflags_give_the_link(self):
        for flags in ("[-O2, lib/op.o]", "[-O2, -Llib, \"-l:op.o\"]"):
            with self.subTest(flags=flags):
                self.tearDown()
                self.setUp()
                for side, body in (("base", OP_H), ("head", SLOW_OP_H)):
                    self.write("op.c", body.replace("static inline ", ""))
                    os.makedirs(os.path.join(self.repo, "lib"), exist_ok=True)
                    subprocess.run(["cc", "-O2", "-fPIC", "-c", "op.c", "-o",
                                    "lib/op.o"], cwd=self.repo, check=True)
                    os.remove(os.path.join(self.repo, "op.c"))
                    if side == "base":
                        self.commit({"src/sum.c": SERIAL}, "op")
                self.git("add", "-A")
                self.git("commit", "-q", "-m", "a slower op.o")
                # Only the object differs between the two commits.
                config = ("    sources: [src/sum.c]\n    cflags: %s\n"
                          % flags)
                self.write("perfgate.yml", (
                    "version: 1\nsettings: {max_time: 0.2s}\n"
                    "benchmarks:\n  - name: sum\n    problem: reduce_sum\n"
                    "    cases: [{n: 1000}]\n" + config))
                for mode in self.MODES:
                    r = self.perfgate("HEAD~1", "HEAD", "--noise-floor",
                                      "60%", *mode)
                    self.assertIsNotNone(r.json, r.stderr)
                    self.assertFalse(r.bench()["not_affected"],
                                     "%s: %s" % (" ".join(mode), r.stdout))

    def test_a_response_file_and_an_included_file(self):
        self.reached("    sources: [src/sum.c]\n"
                     "    cflags: [-O2, -include, pre.h]\n",
                     {"src/sum.c": SERIAL, "pre.h": "\n"},
                     {"pre.h": "#define PRE 1\n"})
        self.tearDown()
        self.setUp()
        self.reached("    sources: [src/sum.c]\n    cflags: [\"@flags.txt\"]\n",
                     {"src/sum.c": SERIAL, "flags.txt": "-O2\n"},
                     {"flags.txt": "-O1\n"})

    def test_what_is_unreached_is_still_skipped(self):
        # The other side of the rule: a change nothing reads (a new file in
        # a directory no search passes through) is not measured.
        files = {"src/sum.c": SUB_OP, "include/sub/op.h": OP_H,
                 "perfgate.yml": "version: 1\nbenchmarks:\n  - name: sum\n"
                 "    problem: reduce_sum\n    sources: [src/sum.c]\n"
                 "    include: [include]\n    cases: [{n: 1000}]\n"}
        self.commit(files, "base")
        self.commit({"docs/notes.txt": "nothing to do with it\n",
                     "src/other.c": "int pg_other;\n"}, "head")
        for mode in self.MODES:
            r = self.perfgate("HEAD~1", "HEAD", *mode)
            self.assertTrue(r.bench()["not_affected"], " ".join(mode))


class Cache(RepoTest):
    """Builds are kept by a key of everything they read: a second run takes
    them from the cache, and anything that could change a build, a file it
    reads, its flags, the compiler or the problem, is built again."""

    def setUp(self):
        super().setUp()
        self.cache = os.path.join(self.tmp, "cache", "perfgate")
        self.base_repo()
        self.commit({"src/sum.c": TWICE})

    def built(self, r, name="sum"):
        b = r.bench(name)
        return (b["built"]["base"], b["built"]["head"])

    def entries(self, suffix=".so"):
        found = []
        for root, _, files in os.walk(self.cache):
            found += [os.path.join(root, f) for f in files
                      if f.endswith(suffix) and not f.startswith(".") and
                      not f.endswith(".problem" + suffix)]
        return found

    def test_a_second_run_takes_both_sides_from_the_cache(self):
        first = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        self.assertEqual(self.built(first), ("compiled", "compiled"))
        self.assertEqual(len(self.entries()), 2)
        second = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        self.assertEqual(self.built(second), ("cache", "cache"))
        self.assertEqual(second.bench()["status"], first.bench()["status"])
        self.assertGreater(second.bench()["rounds"], 0)

    def test_a_new_commit_builds_only_its_side(self):
        self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        self.commit({"src/sum.c": LANES})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        self.assertEqual(self.built(r), ("cache", "compiled"))

    def test_an_indirectly_included_header_is_read_again(self):
        self.commit({"src/sum.c": '#include "a.h"\n' + SERIAL,
                     "src/a.h": '#include "b.h"\n', "src/b.h": "\n"})
        self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        # The manifest says what sum.c read: b.h changed, so it is no
        # longer what the cache holds.
        self.write("src/b.h", "#define N 1\n")
        r = self.perfgate("HEAD", "--noise-floor", "60%")
        self.assertFalse(r.bench()["not_affected"])
        self.assertEqual(self.built(r), ("cache", "compiled"))
        # A new header that shadows one it read, in a directory it
        # searched: what the manifest says it read is not enough.
        with open(os.path.join(self.repo, "perfgate.yml")) as f:
            config = f.read()
        self.commit({"perfgate.yml": config.replace(
            "sources: [src/sum.c]",
            "sources: [src/sum.c]\n    include: [inc, src]"),
            "src/a.h": "#include <b.h>\n", "src/b.h": "\n"})
        r = self.perfgate("HEAD", "--noise-floor", "60%")
        self.assertTrue(r.bench()["not_affected"])
        self.write("inc/b.h", "#define N 2\n")
        r = self.perfgate("HEAD", "--noise-floor", "60%")
        self.assertFalse(r.bench()["not_affected"])

    def test_new_flags_are_a_new_build(self):
        self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        with open(os.path.join(self.repo, "perfgate.yml")) as f:
            config = f.read()
        self.write("perfgate.yml", config.replace(
            "sources: [src/sum.c]", "sources: [src/sum.c]\n    cflags: [-O1]"))
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        self.assertEqual(self.built(r), ("compiled", "compiled"))

    def test_another_compiler_is_a_new_build(self):
        cc = os.path.join(self.tmp, "mycc")
        with open(cc, "w") as f:
            f.write("#!/bin/sh\nexec gcc \"$@\"\n")
        os.chmod(cc, 0o755)
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%",
                          env={"CC": cc})
        self.assertEqual(self.built(r), ("compiled", "compiled"))
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%",
                          env={"CC": cc})
        self.assertEqual(self.built(r), ("cache", "cache"))
        compiler = "clang" if shutil.which("clang") else "cc"
        with open(cc, "w") as f:
            f.write("#!/bin/sh\n# another\nexec %s \"$@\"\n" % compiler)
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%",
                          env={"CC": cc})
        self.assertEqual(self.built(r), ("compiled", "compiled"))

    def test_a_changed_problem_is_built_again(self):
        config = ("version: 1\nsettings: {max_time: 200ms}\nbenchmarks:\n"
                  "  - {name: probe, problem: perf/probe.c, sources: "
                  "[src/lib.c], symbol: solution, cases: [{n: 64}]}\n")
        self.commit({"perfgate.yml": config, "perf/probe.c": PROBE_PROBLEM,
                     "src/lib.c": HELPER_BASE})
        r = self.perfgate("--aa", "--noise-floor", "60%")
        self.assertIn(r.bench("probe")["status"], MEASURED)
        # The reference now wants one more: the cached problem would still
        # pass the solution.
        self.write("perf/probe.c", PROBE_PROBLEM.replace(
            "* s->n +", "* s->n + 1 +"))
        r = self.perfgate("--aa", "--noise-floor", "60%")
        self.assertEqual(r.bench("probe")["status"], "incorrect")

    def damage(self, how):
        for path in self.entries():
            with open(path, "r+b") as f:
                data = f.read()
                f.seek(0)
                if how == "flip":
                    f.write(data[:-100] + bytes([data[-100] ^ 1]) + data[-99:])
                else:
                    f.truncate(len(data) // 2)

    def test_a_damaged_entry_is_never_used(self):
        first = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        for how in ("flip", "truncate"):
            self.damage(how)
            r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
            self.assertEqual(self.built(r), ("compiled", "compiled"), how)
            self.assertEqual(r.bench()["status"], first.bench()["status"])
            # Replaced by whole ones.
            r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
            self.assertEqual(self.built(r), ("cache", "cache"), how)

    def test_two_runs_at_once_share_it(self):
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(self.tmp, "cache"))
        for var in CI_VARIABLES:
            env.pop(var, None)
        outs = [os.path.join(self.out, "r%d.json" % i) for i in range(3)]
        procs = [subprocess.Popen(
            [PERFGATE, "compare", "-q", "HEAD~1", "HEAD", "--noise-floor",
             "60%", "--json", out], cwd=self.repo, env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for out in outs]
        for p in procs:
            _, err = p.communicate(timeout=300)
            self.assertIn(p.returncode, (0, 1), err)
        for out in outs:
            with open(out) as f:
                b = json.load(f)["benchmarks"][0]
            self.assertIn(b["status"], MEASURED, b["message"])
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        self.assertEqual(self.built(r), ("cache", "cache"))

    def test_no_cache_keeps_nothing_and_the_bound_holds(self):
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%",
                          "--no-cache")
        self.assertEqual(self.built(r), ("compiled", "compiled"))
        self.assertFalse(os.path.exists(self.cache))
        other = os.path.join(self.tmp, "other")
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%",
                          "--cache-dir", other)
        self.assertEqual(len([f for _, _, fs in os.walk(other) for f in fs
                              if f.endswith(".so") and
                              not f.endswith(".problem.so")]), 2)
        # A bound of 1 byte keeps nothing once the run is over.
        self.perfgate("HEAD~1", "HEAD", "--cache-dir", other,
                      env={"PERFGATE_CACHE_SIZE": "1"})
        self.assertEqual([f for _, _, fs in os.walk(other) for f in fs], [])

    def test_a_cache_dir_that_cannot_be_one_is_a_usage_error(self):
        path = os.path.join(self.tmp, "file")
        with open(path, "w") as f:
            f.write("x")
        r = self.perfgate("HEAD~1", "HEAD", "--cache-dir", path)
        self.assertEqual(r.code, 2, r.stderr)
        self.assertIn("--no-cache", r.stderr)

    def test_parallel_builds_give_the_same_verdicts(self):
        files = {}
        with open(os.path.join(self.repo, "perfgate.yml")) as f:
            config = f.read()
        for name in ("b", "c", "d"):
            config += ("  - {name: %s, problem: reduce_sum, sources: "
                       "[src/%s.c], cases: [{n: 1000}]}\n" % (name, name))
            files["src/%s.c" % name] = SERIAL
        files["perfgate.yml"] = config
        self.commit(files)
        self.commit({"src/c.c": WRONG, "src/d.c": BROKEN})
        runs = [self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%",
                              "--no-cache", "-j", j) for j in ("1", "3")]
        for r in runs:
            st = {b["name"]: b["status"] for b in r.json["benchmarks"]}
            self.assertEqual(st["c"], "incorrect")
            self.assertEqual(st["d"], "build_failed")
            self.assertTrue(r.bench("b")["not_affected"])
            self.assertIn("error", r.bench("d")["log"])
            # With -j3 the workers compiled c's sides into the run's own
            # cache, and said so: the run took them from there, yet
            # they are this run's builds, not an earlier run's.
            self.assertEqual(r.bench("c")["built"],
                             {"base": "compiled", "head": "compiled"})


# The sum with every term passing through the heap: most of its time is
# spent in libc's malloc and free, which it calls.
ALLOCATES = """#include <stdlib.h>
#include <stddef.h>
void *volatile kept;
void solution(const float *in, float *out, size_t n)
{
    float s = 0;
    for (size_t i = 0; i < n; i++) {
        float *t = malloc(sizeof(*t));
        *t = in[i];
        kept = t;
        s += *t;
        free(t);
    }
    out[0] = s;
}
"""


class Profile(RepoTest):
    """compare --profile: where a regression's worst case spent its
    instructions, base and head side by side, from callgrind when it is
    there, and said so when it is not."""

    def setUp(self):
        super().setUp()
        self.base_repo(solution=LANES)
        self.commit({"src/sum.c": SERIAL})

    def profiled(self, base):
        """compare BASE HEAD --profile on a regression: the result, its
        benchmark and its profile; skipped where callgrind cannot run."""
        if not shutil.which("valgrind"):
            self.skipTest("no valgrind")
        r = self.perfgate(base, "HEAD", "--noise-floor", "20%", "--profile")
        b = r.bench()
        self.assertEqual(b["status"], "regression", r.stdout)
        p = b["profile"]
        if "AddressSanitizer" in (p["skipped"] or ""):
            self.skipTest(p["skipped"])
        return r, b, p

    def test_a_regression_is_profiled_on_both_sides(self):
        r, b, p = self.profiled("HEAD~1")
        self.assertEqual((p["tool"], p["unit"]), ("callgrind", "instructions"))
        self.assertIn(p["case"], [c["name"] for c in b["cases"]])
        top = p["functions"][0]
        self.assertEqual(top["function"], "solution")
        self.assertGreater(top["base"], 0)
        self.assertGreater(top["head"], 0)
        # Lines of the user's file, named as in the tree.
        self.assertTrue(p["lines"])
        self.assertTrue(all(l["file"] == "src/sum.c" for l in p["lines"]))
        self.assertIn("Where the time went", r.markdown)
        self.assertIn("where the time went", r.stdout)
        # And from the saved result.
        md = os.path.join(self.out, "again.md")
        subprocess.run([PERFGATE, "report", "--markdown", md,
                        os.path.join(self.out, "result.json")],
                       capture_output=True)
        with open(md) as f:
            self.assertIn("Where the time went", f.read())

    def test_the_profiles_libc_row(self):
        """Work a change moves into libc (malloc, free) is where the user's
        code asked for it: the function's inclusive cost carries it, and a
        row says what was spent outside the user's code."""
        self.commit({"src/sum.c": ALLOCATES})
        r, _, p = self.profiled("HEAD~2")
        top = p["functions"][0]
        self.assertEqual(top["function"], "solution")
        out = p["outside"]
        called = {f["function"]: f for f in out["functions"]}
        self.assertIn("malloc", called, out)
        self.assertIn("free", called, out)
        self.assertTrue(called["malloc"]["object"].startswith("libc"),
                        called["malloc"])
        self.assertIsNone(called["malloc"]["base"])
        # Inclusive is own + calls: here, what solution called outside.
        self.assertAlmostEqual(top["head"], top["head_self"] + out["head"],
                               delta=top["head"] * 0.01)
        # Most of the head's work is outside: its own cost grew far less
        # than all it asked for, as the measured time did.
        self.assertGreater(out["head"], top["head_self"])
        self.assertGreater(top["head"] / top["base"],
                           2 * top["head_self"] / top["base_self"])
        self.assertGreater(top["head"] / top["base"], 4)
        self.assertIn("outside your code", r.stdout)
        self.assertIn("malloc (libc", r.stdout)
        self.assertIn("| outside your code |", r.markdown)
        self.assertIn("| ↳ malloc (libc", r.markdown)
        # The same from the saved result.
        again = subprocess.run([PERFGATE, "report",
                                os.path.join(self.out, "result.json")],
                               capture_output=True, text=True)
        self.assertIn("malloc (libc", again.stdout)

    def test_lines_pair_by_their_text(self):
        """Lines added above the loop move its numbers, not its pairing:
        the same statement meets itself, and shows its text."""
        self.commit({"src/sum.c": "/* a comment\n   of three lines\n */\n" +
                     TWICE})
        r, _, p = self.profiled("HEAD~1")
        rows = [l for l in p["lines"] if l.get("text") == "s += in[i];"]
        self.assertTrue(rows, p["lines"])
        row = rows[0]
        self.assertEqual(row["line"], row["base_line"] + 3, row)
        self.assertGreater(row["base"], 0)
        self.assertGreater(row["head"], 0)
        self.assertIn("(was %d)" % row["base_line"], r.stdout)
        self.assertIn("<code>s += in\\[i\\];</code>", r.markdown)

    def test_without_a_profiler_it_says_so(self):
        # PATH without valgrind: everything else of /usr/bin is there.
        bin_dir = os.path.join(self.tmp, "bin")
        os.makedirs(bin_dir)
        for name in os.listdir("/usr/bin"):
            if not name.startswith("valgrind"):
                os.symlink(os.path.join("/usr/bin", name),
                           os.path.join(bin_dir, name))
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "20%",
                          "--profile", env={"PATH": bin_dir})
        b = r.bench()
        self.assertEqual(b["status"], "regression", r.stdout + r.stderr)
        self.assertIsNone(b["profile"]["tool"])
        self.assertIn("install valgrind", b["profile"]["skipped"])
        self.assertIn("no profile", r.markdown)

    def test_nothing_is_profiled_without_the_option(self):
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "20%")
        self.assertIsNone(r.bench()["profile"])


class Html(RepoTest):
    """--html: one self-contained page, for every benchmark the change
    against the floor and for every case both sides' samples and rounds;
    opened in a real browser where there is one."""

    def setUp(self):
        super().setUp()
        self.base_repo(solution=LANES)
        self.commit({"src/sum.c": SERIAL})
        self.html = os.path.join(self.out, "report.html")

    def charts(self, text):
        return text.count('<svg class="chart"')

    def page_of(self, saved, name):
        """The page `report --html` draws from the result `saved`."""
        path = os.path.join(self.out, name)
        with open(path, "w") as f:
            json.dump(saved, f)
        subprocess.run([PERFGATE, "report", "--html", self.html, path],
                       capture_output=True)
        with open(self.html, encoding="utf-8") as f:
            return f.read()

    def test_a_page_with_every_chart_and_nothing_to_fetch(self):
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "20%",
                          "--html", self.html)
        b = r.bench()
        # Every sample kept, in round order, for the pictures.
        for c in b["cases"]:
            self.assertEqual(len(c["samples"]["base"]), b["rounds"])
            self.assertEqual(len(c["samples"]["head"]), b["rounds"])
            self.assertAlmostEqual(min(c["samples"]["base"]), c["base_ns"],
                                   delta=c["base_ns"] * 0.5 + 5)
        with open(self.html, encoding="utf-8") as f:
            page = f.read()
        # One chart of the change, and two per case.
        self.assertEqual(self.charts(page), 1 + 2 * len(b["cases"]))
        for fetch in ("http:", "https:", "src=", "@import", "url("):
            self.assertNotIn(fetch, page)
        self.assertIn("default-src 'none'", page)
        # Its one script runs by its hash; nothing inline else would.
        self.assertNotIn("script-src 'unsafe-inline'", page)
        script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
        digest = base64.b64encode(
            hashlib.sha256(script.encode()).digest()).decode()
        self.assertIn("script-src 'sha256-%s'" % digest, page)
        # The comment gets a small chart GitHub draws (Mermaid).
        self.assertIn("```mermaid\nxychart-beta", r.markdown)
        self.assertIn('x-axis ["sum"]', r.markdown)
        # Rendered again from the saved result, the same page.
        again = os.path.join(self.out, "again.html")
        p = subprocess.run([PERFGATE, "report", "--html", again,
                            os.path.join(self.out, "result.json")],
                           capture_output=True, text=True)
        self.assertIn(p.returncode, (0, 1), p.stderr)
        with open(again, encoding="utf-8") as f:
            self.assertEqual(self.charts(f.read()), self.charts(page))

    def test_one_stalled_round_does_not_flatten_a_regression(self):
        """A 7x regression with one round stalled 100x: the axis stops at
        the sides' fences (and says so), so base and head stay far apart;
        the charts draw what the headline counts, overhead off."""
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "20%")
        saved = dict(r.json)
        b = saved["benchmarks"][0]
        c = b["cases"][0]
        c["overhead_ns"] = 20.0
        c["samples"] = {"base": [100.0 + i % 3 for i in range(49)] + [10000.0],
                        "head": [700.0 + i % 5 for i in range(50)]}
        c["base_ns"], c["head_ns"] = 80.0, 680.0
        page = self.page_of(saved, "stalled.json")
        chart = re.search(r'<svg class="chart" data-kind="distribution".*?'
                          r'</svg>', page, re.S).group(0)
        xs = {side: [float(x) for x in re.findall(
            r'<rect x="([\d.]+)"[^>]*data-side="%s"' % side, chart)]
            for side in ("base", "head")}
        width = float(re.search(r'width="(\d+)"', chart).group(1))
        self.assertTrue(xs["base"] and xs["head"], chart)
        self.assertGreater(min(xs["head"]) - max(xs["base"]), width / 2)
        self.assertIn("1 sample beyond", page)
        # The heading's times, and the axis starting at the headline's.
        head = re.search(r"<h3>Case [^:]*: ([^<]*?) → ([^:<]*):", page)
        self.assertIsNotNone(head, page)
        ticks = re.findall(r'class="tick" text-anchor="start">([^<]*)<',
                           chart)
        self.assertEqual(ticks[0], head.group(1))
        # The rounds over time: a y axis with three labelled times.
        rounds = re.search(r'data-kind="rounds".*?</svg>', page, re.S).group(0)
        self.assertEqual(len(re.findall(r'text-anchor="end">[^<]*s<',
                                        rounds)), 3, rounds)
        self.assertIn("round 50", rounds)
        # A table of every benchmark at the top, linked to its section.
        self.assertLess(page.index('<table class="summary">'),
                        page.index('<section'))
        self.assertIn('<a href="#b0">sum</a>', page)
        self.assertIn('id="b0"', page)

    def test_what_user_code_says_is_text_not_markup(self):
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "20%")
        saved = dict(r.json)
        saved["benchmarks"][0]["message"] = "<script>alert(1)</script>"
        page = self.page_of(saved, "hostile.json")
        self.assertIn("&lt;script&gt;alert(1)&lt;/script&gt;", page)
        self.assertNotIn("<script>alert", page)

    def test_forged_commit_ids_put_no_link_in_the_comment(self):
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "20%")
        saved = dict(r.json)
        # Ten characters are shown: enough to end the code span and link.
        forged = "a`[a](/x)`"
        saved["base"]["commit"] = forged
        saved["head"]["commit"] = forged
        saved["benchmarks"][0]["culprit"] = {"commit": forged,
                                             "subject": "s", "author": "a"}
        path = os.path.join(self.out, "forged.json")
        with open(path, "w") as f:
            json.dump(saved, f)
        md = os.path.join(self.out, "forged.md")
        p = subprocess.run([PERFGATE, "report", "--markdown", md, path],
                           capture_output=True, text=True)
        self.assertIn(p.returncode, (0, 1), p.stderr)
        with open(md, encoding="utf-8") as f:
            comment = f.read()
        self.assertNotIn("](/x)", comment)
        self.assertNotIn("](/x)", p.stdout)

    def test_it_opens_in_a_browser(self):
        browser = shutil.which("chromium") or shutil.which("chromium-browser")
        if not browser:
            self.skipTest("no chromium (./test.sh installs it)")
        self.perfgate("HEAD~1", "HEAD", "--noise-floor", "20%",
                      "--html", self.html)
        with open(self.html, encoding="utf-8") as f:
            drawn = self.charts(f.read())
        args = [browser, "--headless", "--no-sandbox", "--disable-gpu",
                "--hide-scrollbars", "--user-data-dir=" +
                os.path.join(self.tmp, "profile")]
        url = "file://" + self.html
        dom = subprocess.run(args + ["--enable-logging=stderr", "--v=0",
                                     "--dump-dom", url],
                             capture_output=True, text=True, timeout=120)
        # The page's script ran (it counts the charts it finds) and threw
        # nothing.
        self.assertIn('data-charts="%d"' % drawn, dom.stdout, dom.stderr[-2000:])
        self.assertNotIn("Uncaught", dom.stderr)
        shot = os.path.join(self.out, "report.png")
        subprocess.run(args + ["--window-size=1200,1600",
                               "--screenshot=" + shot, url],
                       capture_output=True, timeout=120, cwd=self.out)
        with open(shot, "rb") as f:
            png = f.read()
        self.assertTrue(png.startswith(b"\x89PNG"))
        # Charts are drawn: far more than a blank page's bytes.
        self.assertGreater(len(png), 30000)


class Desk(RepoTest):
    """What a developer at their desk meets first: git's ranges, "-" for
    standard output, a typo, a log that is not a terminal, --bisect from
    the working tree, and a comment with many benchmarks."""

    def branches(self):
        """main: base (SERIAL) then a README commit; topic: TWICE, from
        base.  Checked out on topic."""
        base = self.base_repo()
        self.git("branch", "-M", "main")
        self.git("checkout", "-q", "-b", "topic")
        topic = self.commit({"src/sum.c": TWICE}, "slower")
        self.git("checkout", "-q", "main")
        self.commit({"README": "main moves on\n"}, "main moves on")
        self.git("checkout", "-q", "topic")
        return base, topic

    def test_ranges_as_git_reads_them(self):
        base, topic = self.branches()
        r = self.perfgate("HEAD~1..HEAD", "--noise-floor", "50%")
        self.assertEqual(r.code, 1, r.stderr)
        self.assertEqual((r.json["base"]["commit"], r.json["head"]["commit"]),
                         (base, topic))
        r = self.perfgate("main...HEAD", "--noise-floor", "50%")
        self.assertEqual((r.json["base"]["commit"], r.json["head"]["commit"]),
                         (base, topic))
        self.assertEqual(r.json["base"]["rev"], "merge base of main and HEAD")
        self.assertNotIn("note", r.json["base"])
        # main... leaves the head the working tree, as every compare does.
        r = self.perfgate("main...", "--noise-floor", "50%")
        self.assertEqual(r.json["base"]["commit"], base)
        self.assertTrue(r.json["head"]["worktree"])
        # main's tip has a commit the branch has not: said, and the merge
        # base offered.
        r = self.perfgate("main", "--noise-floor", "50%")
        self.assertIn("main has 1 commit that the head has not", r.stdout)
        self.assertIn("perfgate compare main...", r.stdout)
        self.assertIn("main has 1 commit", r.json["base"]["note"])
        self.assertIn("main has 1 commit", r.markdown)
        for bad in (["a..b..c"], ["HEAD~1..HEAD", "HEAD"]):
            p = self.perfgate(*bad)
            self.assertEqual(p.code, 2, bad)
            self.assertIn("a range is the only revision", p.stderr)

    def test_a_dash_is_standard_output(self):
        self.base_repo()
        self.commit({"src/sum.c": LANES})
        for option, starts in (("--json", "{"),
                               ("--markdown", "<!-- perfgate -->"),
                               ("--html", "<!DOCTYPE html>")):
            r = self.perfgate("HEAD~1", "HEAD", option, "-",
                              "--noise-floor", "50%")
            self.assertEqual(r.code, 0, r.stderr)
            self.assertTrue(r.stdout.startswith(starts), r.stdout[:200])
            # The table goes to standard error instead.
            self.assertIn("benchmark  base", r.stderr)
            self.assertFalse(os.path.exists(os.path.join(self.repo, "-")))
        self.assertEqual(json.loads(
            self.perfgate("HEAD~1", "HEAD", "--json", "-").stdout)["verdict"],
            "pass")
        r = self.perfgate("HEAD~1", "HEAD", "--json", "-", "--markdown", "-")
        self.assertEqual(r.code, 2)
        self.assertIn("only one output can go to standard output", r.stderr)

    def test_an_output_that_cannot_be_written_stops_it_first(self):
        self.base_repo()
        self.commit({"src/sum.c": LANES})
        nowhere = os.path.join(self.tmp, "no", "such", "dir", "r.html")
        r = self.perfgate("HEAD~1", "HEAD", "--html", nowhere)
        self.assertEqual(r.code, 2, r.stderr)
        self.assertIn("--html '%s' cannot be written: the directory" % nowhere,
                      r.stderr)
        self.assertIn("(checked before any work)", r.stderr)
        self.assertNotIn("[1/1]", r.stderr)
        r = self.perfgate("HEAD~1", "HEAD", "--markdown", self.repo)
        self.assertEqual(r.code, 2, r.stderr)
        self.assertIn("it is a directory", r.stderr)

    def test_a_log_gets_a_line_per_benchmark(self):
        config = CONFIG + """  - name: other
    problem: reduce_sum
    sources: [src/other.c]
    cases: [{n: 20000}]
"""
        self.base_repo(config=config)
        self.commit({"src/other.c": SERIAL}, "other")
        self.commit({"src/sum.c": TWICE})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "50%")
        lines = [l for l in r.stderr.splitlines() if l.startswith("perfgate: [")]
        self.assertEqual(len(lines), 2, r.stderr)
        self.assertTrue(lines[0].startswith(
            "perfgate: [1/2] sum: regression, "), lines)
        self.assertRegex(lines[0], r"regression, (\+[\d.]+%|[\d.]+x slower) "
                         r"\(\+[\d.]+ … \+[\d.]+%\), [\d.]+ s$")
        self.assertEqual(lines[1],
                         "perfgate: [2/2] other: unchanged (not affected)")
        # -q: nothing but the report.
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "50%", "-q")
        self.assertNotIn("perfgate: [", r.stderr)

    def test_one_line_for_a_typo(self):
        for args, said in (
                (["compare", "--jsn", "x"], "unknown option '--jsn' (did you "
                 "mean '--json'?); see 'perfgate compare --help'"),
                (["compare", "--json"], "option '--json' needs a value"),
                (["compare", "-b"], "option '-b' needs a value"),
                (["compare", "-qZ"], "unknown option '-Z'"),
                (["init", "-n"], "perfgate init: option '-n' needs a value"),
                (["report", "--html"], "option '--html' needs a value"),
                (["bisect", "--budjet=1h", "HEAD"], "(did you mean "
                 "'--budget'?)"),
                (["compre"], "'compre' is not a perfgate command (did you "
                 "mean 'compare'?)"),
                (["--verison"], "unknown option '--verison'")):
            p = subprocess.run([PERFGATE, *args], cwd=self.repo,
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 2, args)
            self.assertEqual(p.stdout, "", args)
            self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
            self.assertIn(said, p.stderr)
        p = subprocess.run([PERFGATE, "compare"], cwd=self.repo,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("perfgate init --function", p.stderr)
        self.assertIn("docs/config.md", p.stderr)

    def test_bisect_from_the_working_tree(self):
        base = self.base_repo()
        self.commit({"src/sum.c": LANES}, "faster")
        slower = self.commit({"src/sum.c": TWICE}, "slower")
        self.commit({"README": "docs\n"}, "docs")
        # A clean working tree is HEAD: bisected.
        r = self.perfgate(base, "--bisect", "--noise-floor", "50%")
        self.assertEqual(r.code, 1, r.stderr)
        self.assertEqual(r.bench()["culprit"]["commit"], slower)
        # Uncommitted changes have no history: said, not passed over.
        self.write("src/sum.c", TWICE + "/* edited */\n")
        r = self.perfgate(base, "--bisect", "--noise-floor", "50%")
        self.assertEqual(r.code, 1, r.stderr)
        self.assertIsNone(r.bench()["culprit"])
        self.assertIn("--bisect: not bisected: the head is the working tree "
                      "with uncommitted changes", r.stderr)

    def test_a_comment_with_many_benchmarks_shows_what_moved(self):
        config = "version: 1\nsettings: {max_time: 1s}\nbenchmarks:\n"
        files = {}
        for i in range(16):
            config += ("  - name: b%02d\n    problem: reduce_sum\n"
                       "    sources: [src/b%02d.c]\n    cases: [{n: 4096}]\n"
                       % (i, i))
            files["src/b%02d.c" % i] = SERIAL
        files["perfgate.yml"] = config
        self.commit(files, "base")
        self.commit({"src/b07.c": TWICE})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "50%")
        md = r.markdown
        self.assertEqual(md.count("| **b"), 1, md)
        self.assertIn("| **b07** |", md)
        self.assertIn("✅ 15 not affected (neither built nor measured): "
                      "`b00`, `b01`", md)
        self.assertIn("and 7 more", md)
        self.assertNotIn("+0.0%", md)
        self.assertNotIn("| b00 |", md)  # no per-case rows either
        self.assertLess(len(md.splitlines()), 45, md)
        self.assertIn("15 not affected", r.stdout)

    def test_a_base_fixed_by_the_head_reads_as_such(self):
        self.base_repo(solution=WRONG)
        self.commit({"src/sum.c": SERIAL})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 0, r.stderr)
        self.assertIn("PASS: 1 fixed (broken on the base, right on the head)",
                      r.stdout)
        self.assertNotIn("PASS: 1 incorrect", r.stdout)


class Cli(unittest.TestCase):
    def run_pg(self, *args):
        return subprocess.run([PERFGATE, *args], capture_output=True,
                              text=True)

    def test_help_and_version(self):
        for args in (["--help"], ["compare", "--help"], ["report", "--help"],
                     ["problems", "--help"], ["help", "compare"]):
            p = self.run_pg(*args)
            self.assertEqual(p.returncode, 0, args)
            self.assertIn("usage: perfgate", p.stdout, args)
        p = self.run_pg("--version")
        self.assertEqual(p.returncode, 0)
        self.assertRegex(p.stdout, r"^perfgate \d+\.\d+\.\d+\n$")

    def test_usage_errors_exit_2(self):
        # Each says what was wrong: a check deleted would let its command
        # go on to another error, or none, and the message would differ.
        want_number = "want a number from 4 to 125"
        for args, said in (
                (["frobnicate"], "'frobnicate' is not a perfgate command"),
                (["compare", "--nope"], "unknown option '--nope'"),
                (["compare", "--noise-floor", "5"],
                 "--noise-floor '5': want a percentage above 0%"),
                (["compare", "a", "b", "c"],
                 "at most two revisions, BASE and HEAD"),
                ([], "usage: perfgate"),
                (["compare", "--warning-exit-code", "1"],
                 "--warning-exit-code '1': " + want_number),
                (["compare", "--warning-exit-code", "200"],
                 "--warning-exit-code '200': " + want_number),
                (["report", "--color", "purple", "r.json"],
                 "perfgate report: --color 'purple': want auto, always or "
                 "never"),
                (["merge", "--color", "purple", "r.json"],
                 "perfgate merge: --color 'purple'"),
                (["merge", "--warning-exit-code", "3", "r.json"],
                 "perfgate merge: --warning-exit-code '3': " + want_number),
                (["merge"], "give the shards' results"),
                (["report"], "give the saved result"),
                (["report", "a.json", "b.json"], "one result at a time"),
                (["problems", "x"], "'x': it takes no operands"),
                (["init", "-l", "rust", "x"],
                 "--language 'rust': want c or cuda"),
                (["bisect", "--attempts", "21", "v1"],
                 "--attempts '21': want a number from 1 to 20"),
                (["bisect"], "give the good revision"),
                (["compare", "--shard", "3/2"], "--shard '3/2': want K/N"),
                (["compare", "--timings", "t.json"],
                 "--timings balances shards")):
            p = self.run_pg(*args)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn(said, p.stderr, args)

    def test_one_exit_status_per_failure(self):
        # A file named on the command line that cannot be read, or
        # written, is a usage error (2), found before any work; one that
        # cannot be written later is perfgate failing to do its work (3).
        with tempfile.TemporaryDirectory() as tmp:
            saved = os.path.join(tmp, "r.json")
            with open(saved, "w") as f:
                f.write('{"noise_floor": 0.05, "benchmarks": []}')
            nowhere = os.path.join(tmp, "no", "such", "dir", "out.md")
            p = self.run_pg("report", os.path.join(tmp, "missing.json"))
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("cannot read", p.stderr)
            p = self.run_pg("report", "--markdown", nowhere, saved)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("--markdown '%s' cannot be written: the directory"
                          % nowhere, p.stderr)
            repo = os.path.join(tmp, "repo")
            os.mkdir(repo)
            subprocess.run(["git", "init", "-q", repo], check=True)
            with open(os.path.join(repo, "perf"), "w") as f:
                f.write("a file where init wants a directory\n")
            p = subprocess.run([PERFGATE, "init", "vector_add"], cwd=repo,
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 3, p.stderr)
            self.assertIn("cannot write", p.stderr)

    def test_problems_lists_the_built_ins(self):
        p = self.run_pg("problems")
        self.assertEqual(p.returncode, 0, p.stderr)
        for name in ("matmul", "reduce_sum", "vector_add"):
            self.assertIn(name, p.stdout)
        self.assertIn("void solution(const float *in, float *out, size_t n)",
                      p.stdout)


if __name__ == "__main__":
    unittest.main()
