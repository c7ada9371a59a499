"""CI: the revisions each system says changed, and shards merged."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from harness import (PERFGATE, RepoTest, SERIAL, TWICE)  # noqa: E402


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


if __name__ == "__main__":
    unittest.main()
