"""Helpers for perfgate's integration tests.

Each test builds a throwaway git repository, runs the real perfgate binary
on it, and checks the JSON result and exit status, as a user would see them.
Every run also checks that the repository's HEAD, index, refs, config and
working tree are byte-for-byte the same afterwards.
"""
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import unittest

PERFGATE = os.environ.get("PERFGATE", "perfgate")
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "fixtures")


def fixture(name):
    """The text of tests/integration/fixtures/NAME: the C sources, problems,
    configs and scripts the tests commit into their repositories."""
    with open(os.path.join(FIXTURES, name)) as f:
        return f.read()


# reduce_sum solutions whose costs are known by construction.  The serial
# loop is latency-bound (one float add after another); "twice" does that
# work twice; "lanes" splits it over four independent chains.
SERIAL = fixture("serial.c")

TWICE = fixture("twice.c")

LANES = fixture("lanes.c")

WRONG = fixture("wrong.c")

CRASH = fixture("crash.c")

HANG = fixture("hang.c")

EXITS = fixture("exits.c")

BROKEN = fixture("broken.c")

CONFIG = fixture("config.yml")


# Verified and timed: a function of a few ns may read as anything, or get
# no label (too short to resolve, or its interval still on both sides of
# the floor when the budget ran out).
MEASURED = ("unchanged", "improvement", "regression", "inconclusive",
            "unresolved")


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


def snapshot(repo):
    """What perfgate must never change in the user's repository."""
    def git(*args):
        return subprocess.run(["git", "-C", repo, *args], check=True,
                              capture_output=True, text=True).stdout

    state = {
        "head": git("rev-parse", "HEAD"),
        "symbolic": git("symbolic-ref", "-q", "HEAD"),
        "refs": git("for-each-ref"),
        "status": git("status", "--porcelain", "--ignored"),
        "stash": git("stash", "list"),
    }
    for name in ("index", "config", "HEAD", "packed-refs"):
        p = os.path.join(repo, ".git", name)
        if os.path.exists(p):
            with open(p, "rb") as f:
                state[".git/" + name] = hashlib.sha256(f.read()).hexdigest()
    files = {}
    for root, dirs, names in os.walk(repo):
        dirs[:] = [d for d in dirs if d != ".git"]
        for n in names:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                st = os.stat(p)
                files[os.path.relpath(p, repo)] = (
                    hashlib.sha256(f.read()).hexdigest(), st.st_mode,
                    st.st_mtime_ns)
    state["files"] = files
    return state


class Result:
    def __init__(self, proc, json_path):
        self.code = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.json = None
        if os.path.exists(json_path):
            with open(json_path) as f:
                self.json = json.load(f)

    def bench(self, name="sum"):
        for b in self.json["benchmarks"]:
            if b["name"] == name:
                return b
        raise KeyError(name)


# The variables perfgate detects a CI system by (src/gate/repo/ci.c).
CI_VARIABLES = ("GITHUB_ACTIONS", "GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH",
                "GITHUB_SHA", "GITLAB_CI", "BUILDKITE", "TF_BUILD",
                "JENKINS_URL")


class RepoTest(unittest.TestCase):
    """A test case with a fresh repository in self.repo."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pg-test-")
        self.repo = os.path.join(self.tmp, "repo")
        self.out = os.path.join(self.tmp, "out")
        # perfgate's own temporaries go here, so that a test can see that
        # none are left behind.
        self.pgtmp = os.path.join(self.tmp, "pgtmp")
        for d in (self.repo, self.out, self.pgtmp):
            os.makedirs(d)
        # Every perfgate a test starts keeps its builds in the test's own
        # cache, never the user's.
        self.saved_xdg = os.environ.get("XDG_CACHE_HOME")
        os.environ["XDG_CACHE_HOME"] = os.path.join(self.tmp, "cache")
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "test@example.com")
        self.git("config", "user.name", "perfgate test")
        self.git("config", "commit.gpgsign", "false")

    def tearDown(self):
        if self.saved_xdg is None:
            os.environ.pop("XDG_CACHE_HOME", None)
        else:
            os.environ["XDG_CACHE_HOME"] = self.saved_xdg
        shutil.rmtree(self.tmp, ignore_errors=True)

    def git(self, *args, cwd=None):
        return subprocess.run(["git", *args], cwd=cwd or self.repo, check=True,
                              capture_output=True, text=True).stdout.strip()

    def write(self, path, text):
        full = os.path.join(self.repo, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)

    def commit(self, files, message="change"):
        for path, text in files.items():
            self.write(path, text)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def perfgate(self, *args, cwd=None, timeout=300, env=None):
        """Runs perfgate compare ARGS; checks the repository is untouched."""
        before = snapshot(self.repo)
        json_path = os.path.join(self.out, "result.json")
        md_path = os.path.join(self.out, "comment.md")
        for p in (json_path, md_path):
            if os.path.exists(p):
                os.remove(p)
        # Each test has a build cache of its own, cold at its start.
        full_env = dict(os.environ, TMPDIR=self.pgtmp,
                        XDG_CACHE_HOME=os.path.join(self.tmp, "cache"))
        # Whatever CI runs these tests, perfgate must not take its
        # revisions from it (tests that want CI set these themselves).
        for var in CI_VARIABLES:
            full_env.pop(var, None)
        full_env.update(env or {})
        # Builds ahead in parallel or one by one is decided by the CPUs
        # this process may use: pinned, so that no test's path depends on
        # the machine (tests of -j itself give their own).
        if not any(a == "-j" or a.startswith(("-j", "--jobs"))
                   for a in args):
            args = ("--jobs", "2", *args)
        proc = subprocess.run(
            [PERFGATE, "compare", "--json", json_path, "--markdown", md_path,
             *args], cwd=cwd or self.repo, capture_output=True, text=True,
            timeout=timeout, env=full_env)
        after = snapshot(self.repo)
        self.assertEqual(before, after, "perfgate changed the repository")
        self.assertEqual(os.listdir(self.pgtmp), [],
                         "perfgate left temporary files behind")
        res = Result(proc, json_path)
        if os.path.exists(md_path):
            with open(md_path) as f:
                res.markdown = f.read()
        return res

    def base_repo(self, solution=SERIAL, config=CONFIG):
        return self.commit({"perfgate.yml": config, "src/sum.c": solution},
                           "base")
