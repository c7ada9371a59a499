"""The README's quickstart, run exactly as written."""
import json
import os
import re
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


class Quickstart(unittest.TestCase):
    def test_readme_quickstart_works_as_written(self):
        with open(os.path.join(ROOT, "README.md")) as f:
            readme = f.read()
        block = re.search(r"<!-- quickstart -->\n```sh\n(.*?)```", readme,
                          re.S)
        self.assertIsNotNone(block, "no quickstart block in README.md")
        script = block.group(1)
        # The README builds into ./build; the test runs the binary ctest built.
        perfgate = os.environ["PERFGATE"]
        script = script.replace("PERFGATE=$PWD/build/perfgate",
                                "PERFGATE=" + perfgate)
        with tempfile.TemporaryDirectory() as home:
            env = dict(os.environ, HOME=home, GIT_AUTHOR_NAME="a",
                       GIT_AUTHOR_EMAIL="a@example.com", GIT_COMMITTER_NAME="a",
                       GIT_COMMITTER_EMAIL="a@example.com")
            for var in ("GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE",
                        "TF_BUILD", "JENKINS_URL"):
                env.pop(var, None)
            proc = subprocess.run(["bash", "-e", "-c", script], cwd=ROOT,
                                  env=env, capture_output=True, text=True,
                                  timeout=600)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            self.assertIn("PASS", proc.stdout)
            self.assertIn("gate failed: exit 1", proc.stdout)
            demo = os.path.join(home, "perfgate-demo")
            with open(os.path.join(demo, "result.json")) as f:
                result = json.load(f)
            status = {b["name"]: b["status"] for b in result["benchmarks"]}
            self.assertEqual(status["sum"], "regression")
            self.assertEqual(status["checksum"], "unchanged")
            self.assertTrue(result["head"]["dirty"])
            with open(os.path.join(demo, "comment.md")) as f:
                self.assertTrue(f.read().startswith("<!-- perfgate -->"))
            # The README's sample output is the same compare: its words
            # are what perfgate prints today (the figures vary).
            sample = re.search(r"```\n\$ perfgate compare HEAD~1\n(.*?)```",
                               readme, re.S).group(1)
            printed = proc.stdout
            for line in sample.splitlines():
                if line.startswith(("base ", "head ", "sum ", "  n=")) or \
                        not line:
                    continue
                if line.startswith("benchmark"):
                    self.assertIn(line.split(), [l.split() for l in
                                                 printed.splitlines()])
                else:
                    self.assertIn(line + "\n", printed)

    def test_bootstraps_demo_as_it_runs_it(self):
        """bootstrap.sh ends with scripts/demo.sh build/perfgate: a path
        relative to the clone, which the demo must keep across its cd."""
        relative = os.path.relpath(os.environ["PERFGATE"], ROOT)
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, TMPDIR=tmp)
            for var in ("GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE",
                        "TF_BUILD", "JENKINS_URL"):
                env.pop(var, None)
            proc = subprocess.run(["sh", "scripts/demo.sh", relative],
                                  cwd=ROOT, env=env, capture_output=True,
                                  text=True, timeout=600)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            self.assertIn("PASS: 2 unchanged", proc.stdout)
            self.assertIn("FAIL: 1 regression, 1 unchanged", proc.stdout)
            self.assertEqual(os.listdir(tmp), [])
        with open(os.path.join(ROOT, "bootstrap.sh")) as f:
            self.assertIn("scripts/demo.sh build/perfgate", f.read())


if __name__ == "__main__":
    unittest.main()
