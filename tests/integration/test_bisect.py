#!/usr/bin/env python3
"""perfgate bisect on throwaway repositories: the first slower commit of a
range, found by halves, with commits that cannot be measured skipped."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (BROKEN, PERFGATE, SERIAL, TWICE,  # noqa: E402
                     RepoTest, snapshot)


class Bisect(RepoTest):
    def history(self, n=16, culprit=8, broken=()):
        """GOOD, then n commits; from commit `culprit` (0-based) on, the
        function does twice the work; the commits in `broken` do not
        build.  Returns GOOD and the commits, oldest first."""
        good = self.base_repo()
        commits = []
        for i in range(n):
            if i in broken:
                source = BROKEN
            elif culprit is not None and i >= culprit:
                source = TWICE
            else:
                source = SERIAL
            commits.append(self.commit({"src/sum.c": source,
                                        "NOTES": "commit %d\n" % i},
                                       "commit %d" % i))
        return good, commits

    def bisect(self, *args):
        before = snapshot(self.repo)
        out = os.path.join(self.out, "bisect.json")
        if os.path.exists(out):
            os.remove(out)
        p = subprocess.run([PERFGATE, "bisect", "--noise-floor", "50%",
                            "--json", out, *args], cwd=self.repo,
                           capture_output=True, text=True, timeout=600,
                           env=dict(os.environ, TMPDIR=self.pgtmp))
        self.assertEqual(snapshot(self.repo), before,
                         "perfgate changed the repository")
        self.assertEqual(os.listdir(self.pgtmp), [],
                         "perfgate left temporary files behind")
        result = None
        if os.path.exists(out):
            with open(out) as f:
                result = json.load(f)
        return p, result

    def test_a_culprit_in_the_middle_of_16_commits(self):
        good, commits = self.history(16, culprit=8)
        p, r = self.bisect(good, commits[-1])
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(r["result"], "found")
        self.assertEqual(r["culprit"]["commit"], commits[8])
        self.assertEqual(r["culprit"]["subject"], "commit 8")
        self.assertIn("perfgate test", r["culprit"]["author"])
        self.assertEqual(r["benchmarks"], ["sum"])
        # BAD, then at most 5 probes between the ends.
        self.assertEqual(r["probes"][0]["commit"], commits[-1])
        self.assertLessEqual(len(r["probes"]) - 1, 5)
        outcomes = {q["index"]: q["outcome"] for q in r["probes"]}
        for index, outcome in outcomes.items():
            self.assertEqual(outcome, "slower" if index >= 8 else
                             "not slower", (index, r["probes"]))
        change = r["culprit"]["benchmarks"][0]["change"]
        self.assertGreater(change, 0.5)
        self.assertIn("First slower: " + commits[8], p.stdout)
        self.assertIn("commit 8", p.stdout)

    def test_the_first_or_the_last_commit(self):
        for culprit in (0, 7):
            with self.subTest(culprit=culprit):
                self.tearDown()
                self.setUp()
                good, commits = self.history(8, culprit=culprit)
                p, r = self.bisect(good, commits[-1])
                self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
                self.assertEqual(r["culprit"]["commit"], commits[culprit])
                self.assertEqual(r["candidates"][0]["commit"],
                                 commits[culprit])

    def test_a_commit_that_does_not_build_is_skipped(self):
        good, commits = self.history(16, culprit=10, broken=(7,))
        p, r = self.bisect(good, commits[-1])
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(r["result"], "found")
        self.assertEqual(r["culprit"]["commit"], commits[10])
        skipped = [q for q in r["probes"] if q["outcome"] == "skipped"]
        self.assertEqual([q["commit"] for q in skipped], [commits[7]])
        self.assertEqual(skipped[0]["benchmarks"][0]["status"],
                         "build_failed")

    def test_a_commit_whose_tree_is_refused_is_skipped(self):
        # Commit 2 is followed by one whose tree has an entry named .git,
        # which perfgate never writes; the rest are the same trees again.
        good, commits = self.history(8, culprit=5)

        def git(*args, text=None):
            return subprocess.run(["git", *args], cwd=self.repo, check=True,
                                  capture_output=True, text=True,
                                  input=text).stdout.strip()
        blob = git("hash-object", "-w", "--stdin", text="x\n")
        listing = git("ls-tree", commits[2] + "^{tree}")
        hostile = git("mktree", text=listing + "\n100644 blob %s\t.git\n"
                      % blob)
        parent = git("commit-tree", hostile, "-p", commits[2], "-m",
                     "a .git entry")
        chain = commits[:3] + [parent]
        for c in commits[3:]:
            parent = git("commit-tree", c + "^{tree}", "-p", parent, "-m",
                         git("log", "-1", "--format=%s", c))
            chain.append(parent)
        git("update-ref", "refs/heads/main", parent)
        p, r = self.bisect(good, parent)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(r["culprit"]["commit"], chain[6])
        skipped = [q for q in r["probes"] if q["outcome"] == "skipped"]
        self.assertEqual([q["commit"] for q in skipped], [chain[3]])
        self.assertIn("refusing tree entry '.git'", skipped[0]["why"])
        self.assertRegex(p.stdout, r"skipped +\(refusing tree entry '\.git'")

    def test_a_skipped_commit_next_to_the_culprit_leaves_two(self):
        good, commits = self.history(16, culprit=10, broken=(9,))
        p, r = self.bisect(good, commits[-1])
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(r["result"], "range")
        self.assertEqual([c["commit"] for c in r["candidates"]],
                         [commits[9], commits[10]])
        self.assertIn("one of 2", p.stdout)

    def test_the_budget_stops_it_with_what_is_left(self):
        # A budget spent by the first probe (BAD): no other starts, and the
        # answer is every commit not told apart, said as such.
        good, commits = self.history(8, culprit=4)
        p, r = self.bisect("--budget", "1ms", good, commits[-1])
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertTrue(r["budget_spent"])
        self.assertEqual(len(r["probes"]), 1)
        self.assertEqual(r["result"], "range")
        self.assertEqual([c["commit"] for c in r["candidates"]], commits)
        self.assertIn("one of 8", p.stdout)
        self.assertIn("(--budget) was spent", p.stdout)
        p = subprocess.run([PERFGATE, "bisect", "--budget", "soon", good],
                           cwd=self.repo, capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--budget 'soon'", p.stderr)

    def test_no_regression_in_the_range(self):
        good, commits = self.history(6, culprit=None)
        p, r = self.bisect(good, commits[-1])
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertEqual(r["result"], "no_regression")
        self.assertIsNone(r["culprit"])
        self.assertEqual(len(r["probes"]), 1)
        self.assertIn("No regression", p.stdout)

    def test_a_merge_in_the_range(self):
        good = self.base_repo()
        self.git("checkout", "-q", "-b", "feature")
        slower = self.commit({"src/sum.c": TWICE}, "slower")
        self.commit({"NOTES": "feature\n"}, "feature notes")
        self.git("checkout", "-q", "main")
        before = self.commit({"README": "main\n"}, "main moves on")
        self.git("merge", "-q", "--no-ff", "-m", "merge feature", "feature")
        merge = self.git("rev-parse", "HEAD")
        after = self.commit({"README": "main again\n"}, "after the merge")
        # First parents: the merge is the commit that brought it.
        p, r = self.bisect(good, after)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(r["commits"], 3)
        self.assertEqual(r["culprit"]["commit"], merge)
        self.assertNotEqual(merge, before)
        # Every parent: the commit on the branch.
        p, r = self.bisect("--all-parents", good, after)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(r["commits"], 5)
        self.assertEqual(r["culprit"]["commit"], slower)

    def test_git_s_range_good_dot_dot_bad(self):
        good, commits = self.history(8, culprit=3)
        p, r = self.bisect("%s..%s" % (good, commits[-1]))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(r["culprit"]["commit"], commits[3])
        # An empty BAD is HEAD, as in git.
        p, r = self.bisect(good + "..")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(r["culprit"]["commit"], commits[3])
        # A merge base's range is not a bisect's: said, with the way.
        p, _ = self.bisect(good + "..." + commits[-1])
        self.assertEqual(p.returncode, 2)
        self.assertIn("git merge-base", p.stderr)
        p, _ = self.bisect("%s..%s" % (good, commits[-1]), commits[-1])
        self.assertEqual(p.returncode, 2)
        self.assertIn("give GOOD..BAD, or GOOD [BAD]", p.stderr)

    def test_revisions_that_do_not_make_a_range(self):
        good, commits = self.history(2, culprit=1)
        for args in ([commits[-1], good], [good, good], ["nope"], []):
            p, _ = self.bisect(*args)
            self.assertEqual(p.returncode, 2, (args, p.stderr))
            self.assertIn("perfgate", p.stderr)
        p, _ = self.bisect(good, commits[-1], "-b", "nosuch")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no benchmark 'nosuch'", p.stderr)

    def test_help(self):
        p = subprocess.run([PERFGATE, "bisect", "--help"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0)
        self.assertIn("usage: perfgate bisect", p.stdout)
        self.assertIn("exit status", p.stdout)


if __name__ == "__main__":
    unittest.main()
