"""The command line: usage errors and what they say, help, the config file,
symlinks, and text from user code made safe."""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from harness import (CONFIG, LANES, MEASURED, PERFGATE, RepoTest,  # noqa: E402
                     SERIAL)


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

    def test_bad_accept_entries_say_what_to_write(self):
        for entry, want in (
                ("{benchmark: summ, up_to: 8%, why: w}",
                 "perfgate.yml:11:17: 'accept' names benchmark 'summ', which "
                 "perfgate.yml does not have (did you mean 'sum'?)"),
                ("{up_to: 8%, why: w}", "names no benchmark"),
                ("{benchmark: sum, why: w}", "needs 'up_to'"),
                ("{benchmark: sum, up_to: 8%}", "needs 'why'"),
                ("{benchmark: sum, up_to: 0%, why: w}", "'up_to' must be"),
                ("{benchmark: sum, up_to: 8%, why: w, until: 2027-02-30}",
                 "'until' must be a day as YYYY-MM-DD"),
                ("{benchmark: sum, up_to: 8%, why: w, until: soon}",
                 "'until' must be a day as YYYY-MM-DD")):
            with self.subTest(entry=entry):
                self.base_repo(config=CONFIG + "accept:\n  - %s\n" % entry)
                r = self.perfgate()
                self.assertEqual(r.code, 2, r.stdout)
                self.assertIn(want, r.stderr)
        self.base_repo(config=CONFIG + "accept:\n  - {benchmark: sum, "
                       "up_to: 8%, why: w}\n  - {benchmark: sum, up_to: 9%, "
                       "why: v}\n")
        r = self.perfgate()
        self.assertIn("a second 'accept' entry for benchmark 'sum'", r.stderr)

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


class Unreadable(RepoTest):
    """A file the object database cannot give (a partial clone, a broken
    mirror) is left out of its side's tree and said; what no build reads
    cannot fail the run, and a build that reads it says why it failed."""

    def lose(self, path):
        """Removes the loose object of `path` at HEAD from the repository."""
        blob = self.git("rev-parse", "HEAD:" + path).strip()
        os.remove(os.path.join(self.repo, ".git", "objects", blob[:2],
                               blob[2:]))

    def test_a_file_no_build_reads_is_skipped_with_a_warning(self):
        self.base_repo()
        self.commit({"src/sum.c": LANES, "tests/vectors.h": "int v[] = {1};\n"})
        self.lose("tests/vectors.h")
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        self.assertIn(r.code, (0, 1), r.stderr)
        self.assertIn(r.bench()["status"], MEASURED)
        said = " ".join(r.json["system"]["warnings"])
        self.assertIn("tests/vectors.h", said)
        self.assertIn("head (HEAD): 1 file could not be read", said)
        self.assertIn("tests/vectors.h", r.stderr + r.stdout)

    def test_paths_no_build_reads_are_left_out_unsaid(self):
        # skip_paths: the lost file is never checked out, so nothing is
        # said of it, and a project build on such a tree is kept.
        config = CONFIG.replace(
            "settings:\n", "settings:\n  skip_paths: [tests, 'data/*.bin']\n")
        self.assertIn("skip_paths", config)
        self.base_repo(config=config)
        self.commit({"src/sum.c": LANES, "tests/vectors.h": "int v[] = {1};\n",
                     "data/big.bin": "x" * 100, "data/keep.txt": "kept\n"})
        self.lose("tests/vectors.h")
        self.lose("data/big.bin")
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        self.assertIn(r.code, (0, 1), r.stderr)
        self.assertIn(r.bench()["status"], MEASURED)
        said = " ".join(r.json["system"]["warnings"])
        self.assertNotIn("could not be read", said)
        # A bad pattern is refused at its line.
        self.commit({"perfgate.yml": CONFIG.replace(
            "settings:\n", "settings:\n  skip_paths: [../up]\n")})
        r = self.perfgate("HEAD")
        self.assertEqual(r.code, 2, r.stdout)
        self.assertIn("skip_paths: '../up' is not a path in the repository",
                      r.stderr)

    def test_a_build_that_reads_it_fails_saying_so(self):
        self.base_repo()
        self.commit({"src/sum.c": '#include "vec.h"\n' + LANES,
                     "src/vec.h": "#define N 1\n"})
        self.lose("src/vec.h")
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench()
        self.assertEqual((b["status"], b["side"]), ("build_failed", "head"))
        self.assertIn("could not give, src/vec.h", b["message"])


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
        # The front page leads with what a new user runs first.
        p = self.run_pg("--help")
        self.assertLess(p.stdout.index("start here:"),
                        p.stdout.index("when the gate fails:"))
        self.assertIn("perfgate init --function 'PROTOTYPE'", p.stdout)
        self.assertLess(p.stdout.index("  init "), p.stdout.index("  bisect "))
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


if __name__ == "__main__":
    unittest.main()
