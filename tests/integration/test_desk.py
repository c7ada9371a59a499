"""perfgate at a developer's desk: compare HEAD~1, the working tree, -q."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from harness import (CONFIG, LANES, PERFGATE, RepoTest, SERIAL,  # noqa: E402
                     TWICE, WRONG)


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
        # Given the other way round: the merge base would be the head
        # itself, so the advice is to swap them.
        r = self.perfgate("HEAD", "HEAD~1", "--noise-floor", "50%")
        self.assertIn("HEAD~1 is an ancestor of HEAD: the 1 commit between "
                      "them is measured backwards", r.stdout)
        self.assertIn("perfgate compare HEAD~1 HEAD", r.stdout)
        self.assertNotIn("...", r.json["base"]["note"])
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


if __name__ == "__main__":
    unittest.main()
