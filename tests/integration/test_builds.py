"""What is built: benchmarks a change cannot reach are skipped, and builds
are kept in the cache by what they read."""
import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from harness import (BROKEN, CI_VARIABLES, LANES, MEASURED,  # noqa: E402
                     PERFGATE, RepoTest, SERIAL, TWICE, WRONG,
                     fixture)


# A problem for functions `unsigned long f(const unsigned char *p, size_t n)`
# that must return mul * n + add.  Its check also fails when a library of
# perfgate's own is loaded in the process that runs the user's code.
PROBE_PROBLEM = fixture("probe_problem.c")

# Base and head each define helper(), differently; each side is right only
# with its own (3n either way).
HELPER_BASE = fixture("helper_base.c")

# A reduce_sum solution that adds through op() from "sub/op.h".
SUB_OP = fixture("sub_op.c")

OP_H = fixture("op.h")

# The same op(), 100 times the work (what a shadowing header could do).
SLOW_OP_H = fixture("slow_op.h")

# Data pulled into the build by the assembler, which cc -M does not name.
INCBIN = SERIAL + """__asm__(".pushsection .rodata\\n"
        "pg_blob:\\n"
        ".incbin \\"data/blob.bin\\"\\n"
        ".popsection\\n");
"""


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

    def test_a_variable_let_into_the_box_is_in_the_key(self):
        # What the box lets through (--pass-env here; pass_env: as the
        # base's config names it) reaches the compiler as much as $CC does.
        for value, built in (("a", "compiled"), ("a", "cache"),
                             ("b", "compiled")):
            r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%",
                              "--pass-env", "PG_TEST_FLAVOUR",
                              env={"PG_TEST_FLAVOUR": value})
            self.assertEqual(self.built(r), (built, built), value)

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


if __name__ == "__main__":
    unittest.main()
