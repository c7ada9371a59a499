"""What perfgate decides, on code whose costs are known by construction:
verdicts and the measuring engine."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from harness import (CONFIG, LANES, MEASURED, RepoTest,  # noqa: E402
                     SERIAL, TWICE, WRONG, fixture)


# A problem whose set-ups differ in placement only: the same list of n
# nodes, the same values in the same order of traversal, laid out in memory
# in order by one set-up and shuffled by the next.  Walking it costs the
# same work either way, and several times the time when shuffled.
PLACEMENT_PROBLEM = fixture("placement_problem.c")

WALK = fixture("walk.c")

# Allocates and frees 300 KiB of state on every call; its sum is one too
# large in a call whose free gave the heap back to the system.
ONESHOT = fixture("oneshot.c")


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

    def test_a_budget_too_short_for_a_label_is_inconclusive(self):
        """A --max-time in which no measuring process can see its code's
        placements twice (a round of two 4 ms calls against a share of
        2.5 ms) gives no label: inconclusive, saying why, passing the
        gate by default, failing it under inconclusive: fail."""
        config = CONFIG.replace("cases: [{n: 20000}, {n: 60000}]",
                                "cases: [{n: 4000000}]")
        self.base_repo(config=config)
        self.commit({"src/sum.c": SERIAL + "int sum_revision(void) "
                                           "{ return 2; }\n"})
        r = self.perfgate("HEAD~1", "HEAD", "--max-time", "10ms")
        self.assertEqual(r.code, 0, r.stderr)
        b = r.bench()
        self.assertEqual(b["status"], "inconclusive")
        self.assertEqual(b["stop"], "too_few_rounds")
        self.assertEqual(b["inconclusive"], "pass")
        self.assertFalse(b["fails_gate"])
        self.assertGreaterEqual(b["processes"], 2)
        self.assertEqual(r.json["counts"]["inconclusive"], 1)
        self.assertIn("sum: inconclusive: the budget ran out", r.stdout)
        self.assertIn("PASS: 1 inconclusive", r.stdout)
        # Above the comment's fold: before the table.
        self.assertLess(r.markdown.index("inconclusive: the budget"),
                        r.markdown.index("| Benchmark |"))
        r = self.perfgate("HEAD~1", "HEAD", "--max-time", "10ms",
                          "--inconclusive", "fail")
        self.assertEqual(r.code, 1, r.stdout)
        self.assertTrue(r.bench()["fails_gate"])
        self.assertEqual(r.json["verdict"], "fail")
        # The same from the config, per benchmark.
        self.commit({"perfgate.yml": config.replace(
            "    problem: reduce_sum",
            "    problem: reduce_sum\n    inconclusive: fail")})
        r = self.perfgate("HEAD~2", "HEAD", "--max-time", "10ms")
        self.assertEqual(r.code, 1, r.stdout)
        self.assertEqual(r.bench()["inconclusive"], "fail")

    def test_a_call_that_allocates_meets_a_settled_heap(self):
        """A head that allocates its state on every call, as one-shot APIs
        do, finds the allocator settled: its free never gives the heap back
        to the system to be faulted in again on the next call, whatever the
        measuring process did before (issue 48: zlib-ng's compress2 read
        60-300 us a call slower in perfgate than outside it)."""
        self.base_repo()
        self.commit({"src/sum.c": ONESHOT})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench()
        self.assertIn(b["status"], MEASURED, r.stdout + r.stderr)
        self.assertIsNone(b["side"], r.stdout)

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


    def test_a_regression_accepted_on_purpose_passes(self):
        # Twice the work: +100%.  An accept: entry up to 150% lets it
        # through, said everywhere; one up to 50% does not; one that ran
        # out says so and accepts nothing.
        def accept(up_to, until="2999-12-31"):
            return CONFIG + ('accept:\n  - {benchmark: sum, up_to: %s, '
                             'why: "bounds checks", until: %s}\n'
                             % (up_to, until))
        self.base_repo()
        self.commit({"src/sum.c": TWICE, "perfgate.yml": accept("150%")})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench()
        self.assertEqual(r.code, 0, r.stdout)
        self.assertEqual(b["status"], "regression")
        self.assertFalse(b["fails_gate"])
        self.assertTrue(b["accept"]["accepted"])
        self.assertEqual(b["accept"]["why"], "bounds checks")
        self.assertIn("1 accepted (slower on purpose", r.stdout)
        self.assertIn("1 accepted (slower on purpose", r.markdown)
        self.assertIn("sum: +", r.stdout)
        self.assertIn("accepted (accept: up to 150% until 2999-12-31, "
                      "\"bounds checks\")", r.stdout)
        self.commit({"perfgate.yml": accept("50%")})
        r = self.perfgate("HEAD~2", "HEAD")
        self.assertEqual(r.code, 1, r.stdout)
        self.assertFalse(r.bench()["accept"]["accepted"])
        self.assertIn("is more than its accept: entry allows", r.stdout)
        self.commit({"perfgate.yml": accept("150%", "2020-01-31")})
        r = self.perfgate("HEAD~3", "HEAD")
        self.assertEqual(r.code, 1, r.stdout)
        self.assertNotIn("accept", r.bench())
        self.assertIn("accept: the entry for sum ran out on 2020-01-31",
                      " ".join(r.json["system"]["warnings"]))


    def test_a_trailer_of_the_pull_request_accepts_a_regression(self):
        # Perf-Accepted: in a commit between the sides accepts as an
        # accept: entry does, said with the commit; one that allows less
        # fails; a benchmark the config lacks, or a trailer that does not
        # read, stops the run at once, saying what to write.
        self.base_repo()
        slower = self.commit({"src/sum.c": TWICE}, "twice the work\n\n"
                             "Perf-Accepted: sum 150% bounds checks\n")
        self.commit({"README": "x\n"}, "a later commit")
        r = self.perfgate("HEAD~2", "HEAD")
        b = r.bench()
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        self.assertEqual(b["status"], "regression")
        self.assertTrue(b["accept"]["accepted"])
        self.assertEqual(b["accept"]["from"], slower[:12])
        self.assertEqual(b["accept"]["why"], "bounds checks")
        self.assertIn("1 accepted (slower on purpose", r.markdown)
        self.assertIn("accepted (Perf-Accepted: in %s up to 150%%, "
                      "\"bounds checks\")" % slower[:12], r.stdout)
        # Outside the range (the base is the accepted commit), nothing.
        self.commit({"src/sum.c": SERIAL}, "back")
        self.commit({"src/sum.c": TWICE}, "twice again")
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1, r.stdout)
        self.assertNotIn("accept", r.bench())
        # The newest trailer for a benchmark is the one that holds (the
        # range from the base has both).
        self.git("commit", "-q", "--allow-empty", "-m",
                 "narrower\n\nperf-accepted: sum 50% only bounds checks")
        r = self.perfgate("HEAD~5", "HEAD")
        self.assertEqual(r.code, 1, r.stdout)
        self.assertFalse(r.bench()["accept"]["accepted"])
        self.assertIn("is more than its Perf-Accepted: trailer allows",
                      r.stdout)
        for trailer, said in (
                ("Perf-Accepted: summ 10% typo", "(did you mean 'sum'?)"),
                ("Perf-Accepted: sum lots why", "BENCHMARK UP_TO% WHY"),
                ("Perf-Accepted: sum 10%", "BENCHMARK UP_TO% WHY")):
            self.git("commit", "-q", "--allow-empty", "-m",
                     "x\n\n" + trailer)
            r = self.perfgate("HEAD~1", "HEAD")
            self.assertEqual(r.code, 2, r.stdout + r.stderr)
            self.assertIn(said, r.stderr)
            self.git("reset", "-q", "--hard", "HEAD~1")


    def test_a_label_of_the_pull_request_accepts_a_regression(self):
        # The pull request's label perf-accepted (set by those who may
        # triage it) accepts any slowdown of the benchmark it names, in
        # place of a trailer that allowed less; naming no benchmark of the
        # config stops the run.
        self.base_repo()
        base = self.git("rev-parse", "HEAD")
        head = self.commit({"src/sum.c": TWICE}, "twice\n\n"
                           "Perf-Accepted: sum 5% not enough\n")

        def run(label):
            event = os.path.join(self.tmp, "event.json")
            with open(event, "w") as f:
                json.dump({"pull_request": {
                    "number": 5, "base": {"sha": base},
                    "head": {"sha": head},
                    "labels": [{"name": "docs"}, {"name": label}]}}, f)
            return self.perfgate(env={
                "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request",
                "GITHUB_EVENT_PATH": event, "GITHUB_SHA": head})

        r = run("perf-accepted: sum")
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        self.assertEqual(r.bench()["accept"]["from"], "perf-accepted")
        self.assertIn("accepted (the pull request's label "
                      "'perf-accepted: sum')", r.stdout)
        r = run("bug")
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        self.assertIn("is more than its Perf-Accepted: trailer allows",
                      r.stdout)
        r = run("perf-accepted: sun")
        self.assertEqual(r.code, 2, r.stdout + r.stderr)
        self.assertIn("label 'perf-accepted: sun' names benchmark 'sun'",
                      r.stderr)


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
        # Each cold sample first streams twice the last-level cache out:
        # on a VM with a large one, a round takes most of a second, and
        # the rule wants every placement measured twice before a label.
        # A budget that a 2x slowdown cannot miss; it stops when clear.
        self.base_repo(config=CONFIG.replace(
            "problem: reduce_sum", "problem: reduce_sum\n    cache: cold")
            .replace("max_time: 1s", "max_time: 60s"))
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


if __name__ == "__main__":
    unittest.main()
