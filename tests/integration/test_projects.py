"""Benchmarks built by a project's own build (make, a library)."""
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from harness import (CONFIG, MEASURED, RepoTest, SERIAL, TWICE,  # noqa: E402
                     fixture)


# A project's library: the function timed calls into another file.
LIB_ADD = fixture("lib_add.c")

LIB_SUM = fixture("lib_sum.c")

MAKEFILE = fixture("Makefile")

PROJECT_CONFIG = fixture("project.yml")

# A problem whose set-up uses the side's own code: it creates the
# codec's context, and the encoder makes the input that the timed decoder
# reads with that context.
CODEC_PROBLEM = fixture("codec_problem.c")

CODEC = fixture("codec.c")


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
        # Built and measured: what the verdict is, on a machine as loaded
        # as the test suite makes it, is not the point.
        self.assertIn(b["status"], MEASURED, b.get("message"))
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

    def archive(self, body):
        """vendor/libop.a, the library a pull request may replace: op()
        with `body`, built here as a vendored archive is committed."""
        src = os.path.join(self.tmp, "op.c")
        obj = os.path.join(self.tmp, "op.o")
        os.makedirs(os.path.join(self.repo, "vendor"), exist_ok=True)
        with open(src, "w") as f:
            f.write("float op(float x)\n{\n%s\n}\n" % body)
        subprocess.run([os.environ.get("CC", "cc"), "-O2", "-fPIC", "-c", src,
                        "-o", obj], check=True)
        out = os.path.join(self.repo, "vendor", "libop.a")
        if os.path.exists(out):
            os.remove(out)
        subprocess.run(["ar", "rcs", out, obj], check=True)
        with open(out, "rb") as f:
            return f.read()

    def test_a_library_named_in_cflags_is_linked_after_the_code(self):
        # -Lvendor -lop: a static archive the pull request replaces with
        # one 100 times slower.  Named before the code it would give
        # nothing to the link (build_failed); after it, both sides are
        # built and the change is measured.
        config = CONFIG.replace("sources: [src/sum.c]",
                                "sources: [src/sum.c]\n"
                                "    cflags: [-Lvendor, -lop]")
        sum_c = ("#include <stddef.h>\nfloat op(float x);\n"
                 "void solution(const float *in, float *out, size_t n)\n"
                 "{\n    float s = 0;\n    for (size_t i = 0; i < n; i++)\n"
                 "        s += op(in[i]);\n    out[0] = s;\n}\n")
        self.archive("    return x;")
        self.commit({"perfgate.yml": config, "src/sum.c": sum_c}, "base")
        self.archive("    volatile float y = x;\n"
                     "    for (int i = 0; i < 100; i++)\n"
                     "        y = y * 1.0f;\n    return y;")
        self.commit({}, "a slower vendored library")
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "50%")
        b = r.bench()
        self.assertEqual(b["status"], "regression", r.stdout + r.stderr)
        self.assertGreater(b["change"], 2)

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

    def test_a_library_renamed_across_history_is_found_by_its_names(self):
        # The base's build makes build/libsum.a, the head's
        # build/libsum_static.a (cmark's name at some commits): a list
        # takes the first each side made, a glob its first match.
        base = self.make_project().strip()
        renamed = MAKEFILE.replace("build/libsum.a:", "build/libsum_static.a:")
        self.commit({"Makefile": renamed, "lib/sum.c": LIB_SUM +
                     "int head_marker(void) { return 1; }\n"})
        for library in ("[build/libsum_static.a, build/libsum.a]",
                        "'build/libsum*.a'"):
            with self.subTest(library=library):
                self.commit({"perfgate.yml": PROJECT_CONFIG % (
                    "make", library)})
                r = self.perfgate(base, "HEAD", "--noise-floor", "60%")
                self.assert_measured(r.bench())

    def test_a_library_no_side_made_blames_neither_and_says_what_was_made(self):
        self.make_project()
        self.commit({"perfgate.yml": PROJECT_CONFIG % (
            "make", "[build/libsum_static.a, build/libcmark.a]"),
            "lib/sum.c": LIB_SUM + "/* h */\n"})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1, r.stdout)
        b = r.bench()
        self.assertEqual((b["status"], b["side"]), ("build_failed", None))
        self.assertIn("both sides fail alike, so not because of this change",
                      b["message"])
        self.assertIn("did not make 'build/libsum_static.a' or "
                      "'build/libcmark.a'; it made build/libsum.a",
                      b["message"])

    def test_a_project_build_runs_once_per_tree(self):
        # The build cache keeps what `make` wrote into each side's tree,
        # by the tree's id: the next run, a self-check's second side and
        # a later head put it back instead of building again.
        base = self.make_project().strip()
        head = self.commit({"lib/sum.c": LIB_SUM + "/* head */\n"}).strip()
        r = self.perfgate(base, head, "--noise-floor", "60%")
        self.assertIn(r.bench()["status"], MEASURED, r.stdout)
        self.assertEqual(r.bench()["project"], {"base": "ran", "head": "ran"})
        r = self.perfgate(base, head, "--noise-floor", "60%")
        self.assertIn(r.bench()["status"], MEASURED, r.stdout)
        self.assertEqual(r.bench()["project"],
                         {"base": "cache", "head": "cache"})
        # Built apart, but the second side of a self-check is one tree.
        r = self.perfgate("--aa", head, "--noise-floor", "60%")
        self.assertIn(r.bench()["status"], MEASURED, r.stdout)
        self.assertEqual(r.bench()["project"],
                         {"base": "cache", "head": "cache"})
        # A new tree is built; the base's is put back.
        self.commit({"lib/sum.c": LIB_SUM + "/* later */\n"})
        r = self.perfgate(base, "HEAD", "--noise-floor", "60%")
        self.assertIn(r.bench()["status"], MEASURED, r.stdout)
        self.assertEqual(r.bench()["project"],
                         {"base": "cache", "head": "ran"})
        # Nothing kept: --no-cache keeps what it built for this run only.
        r = self.perfgate("--no-cache", "--aa", "HEAD",
                          "--noise-floor", "60%")
        self.assertEqual(r.bench()["project"],
                         {"base": "cache", "head": "ran"})

    def test_a_project_build_that_cannot_be_kept_says_why(self):
        self.make_project()
        self.commit({"perfgate.yml": PROJECT_CONFIG % (
            "'mkfifo build.pipe && make'", "build/libsum.a")})
        for _ in range(2):
            r = self.perfgate("--aa", "HEAD", "--noise-floor", "60%")
            self.assertIn(r.bench()["status"], MEASURED, r.stdout)
            self.assertEqual(r.bench()["project"],
                             {"base": "ran", "head": "ran"})
            self.assertIn("is not kept: it made build.pipe, which is "
                          "neither a file", r.stdout)


if __name__ == "__main__":
    unittest.main()
