#!/usr/bin/env python3
"""Benchmarks declared by their prototype (perfgate.yml's `function:`):
no problem file, the head checked against the base, inputs made by the
side's own functions.  The functions here are small stand-ins of our own
with the prototypes of real ones (zlib's adler32_z, LZ4's decompressor, a
float reduction, a word counter)."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import MEASURED, PERFGATE, RepoTest  # noqa: E402

CHECKSUM = """#include <stddef.h>
unsigned long adler32_z(unsigned long adler, const unsigned char *buf,
                        size_t len)
{
    unsigned long a = adler & 0xffff, b = adler >> 16;
    for (size_t i = 0; i < len; i++) {
        a = (a + buf[i]) % 65521;
        b = (b + a) % 65521;
    }
    return (b << 16) | a;
}
"""

ADLER = ('function: "unsigned long adler32_z(unsigned long adler, '
         'const unsigned char *buf, size_t len)"')

SUMS = """#include <stddef.h>
float sum(const float *x, int n)
{
    float s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}
void scale(float *out, const float *in, size_t n, float k)
{
    for (size_t i = 0; i < n; i++)
        out[i] = in[i] * k;
}
"""

# Run-length coding: a stand-in for a compressor and its decompressor.
CODEC = """#include <stddef.h>
int rle_compress(const char *src, char *dst, int n, int cap)
{
    int i = 0, o = 0;
    while (i < n) {
        int j = i;
        while (j < n && j - i < 255 && src[j] == src[i])
            j++;
        if (o + 2 > cap)
            return -1;
        dst[o++] = (char)(j - i);
        dst[o++] = src[i];
        i = j;
    }
    return o;
}
int rle_decompress(const char *src, char *dst, int srclen, int cap)
{
    int o = 0;
    for (int i = 0; i + 1 < srclen; i += 2) {
        int k = (unsigned char)src[i];
        if (o + k > cap)
            return -1;
        for (int j = 0; j < k; j++)
            dst[o++] = src[i + 1];
    }
    return o;
}
"""

UNRLE = """  - name: unrle
    function: "int rle_decompress(const char *src, char *dst, int srclen, int cap)"
    helpers: ["int rle_compress(const char *src, char *dst, int n, int cap)"]
    sources: [codec.c]
    args: {src: {count: 2*n, from: "rle_compress(raw, src, n, 2*n)", with: {raw: {count: n, fill: text}}}, srclen: src, dst: {count: n}, cap: n}
    cases: [{n: 4096}, {n: 20000}]
"""


def config(*benchmarks, max_time="0.3s"):
    return ("version: 1\nsettings: {max_time: %s}\nbenchmarks:\n" % max_time
            + "".join(benchmarks))


def adler(extra="", cases="[{len: 64}, {len: 4096}]"):
    return ("  - name: adler\n    %s\n    sources: [adler.c]\n"
            "    args: {adler: 1, buf: {count: len}}\n"
            "    cases: %s\n%s" % (ADLER, cases, extra))


class Functions(RepoTest):
    """A function gated from its prototype: measured as a problem file's
    would be, and its head checked against its base."""

    def test_a_slowdown_is_found_and_a_rewrite_passes(self):
        self.commit({"perfgate.yml": config(adler()), "adler.c": CHECKSUM},
                    "base")
        # The same sums three times over: three times the work.
        twice = CHECKSUM.replace(
            "    unsigned long a = adler & 0xffff, b = adler >> 16;\n"
            "    for (size_t i = 0; i < len; i++) {",
            "    volatile unsigned long sink;\n"
            "    unsigned long a = 0, b = 0;\n"
            "    for (int round = 0; round < 3; round++) {\n"
            "    a = adler & 0xffff, b = adler >> 16;\n"
            "    for (size_t i = 0; i < len; i++) {").replace(
            "    return (b << 16) | a;",
            "    sink = a;\n    }\n    (void)sink;\n"
            "    return (b << 16) | a;")
        self.assertNotEqual(twice, CHECKSUM)
        self.commit({"adler.c": twice})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "30%")
        b = r.bench("adler")
        self.assertEqual(b["status"], "regression", r.stdout)
        self.assertEqual(r.code, 1, r.stdout)
        # Right and no slower: passes, and is checked.
        same = CHECKSUM.replace("i++", "i += 1")
        self.commit({"adler.c": same})
        r = self.perfgate("HEAD~2", "HEAD", "--noise-floor", "60%")
        b = r.bench("adler")
        self.assertIn(b["status"], MEASURED, r.stdout)
        self.assertEqual(r.code, 0, r.stdout)
        self.assertNotIn("checked", b)

    def test_a_wrong_result_fails_naming_both_values(self):
        self.commit({"perfgate.yml": config(adler()), "adler.c": CHECKSUM},
                    "base")
        self.commit({"adler.c": CHECKSUM.replace(
            "return (b << 16) | a;", "return (b << 16) | (a ^ (len > 100));")})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench("adler")
        self.assertEqual(b["status"], "incorrect", r.stdout)
        self.assertEqual(b["side"], "head")
        self.assertIn("len=4096", b["message"])
        self.assertRegex(b["message"], r"adler32_z\(\) returned \d+, base \d+")
        self.assertEqual(r.code, 1)

    def test_an_output_element_left_unwritten_fails(self):
        bench = ("  - name: scale\n    function: \"void scale(float *out, "
                 "const float *in, size_t n, float k)\"\n"
                 "    sources: [sums.c]\n    args: {out: {count: n}, in: "
                 "{count: n, range: [1, 10]}, k: 2.5}\n"
                 "    cases: [{n: 1000}]\n")
        self.commit({"perfgate.yml": config(bench), "sums.c": SUMS}, "base")
        self.commit({"sums.c": SUMS.replace("i < n; i++)\n        out",
                                            "i + 1 < n; i++)\n        out")})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench("scale")
        self.assertEqual(b["status"], "incorrect", r.stdout)
        self.assertRegex(b["message"], r"out\[999\] = nan, base [0-9.]+")

    def test_floats_within_the_tolerance_pass_and_beyond_it_fail(self):
        def bench(check):
            return ("  - name: sum\n    function: \"float sum(const float *x, "
                    "int n)\"\n    sources: [sums.c]\n    args: {x: {count: "
                    "n}}\n%s    cases: [{n: 1000}, {n: 100000}]\n" % check)
        pairs = SUMS.replace(
            "    float s = 0;\n    for (int i = 0; i < n; i++)\n"
            "        s += x[i];\n    return s;",
            "    float s = 0, t = 0;\n    int i;\n"
            "    for (i = 0; i + 1 < n; i += 2) {\n"
            "        s += x[i];\n        t += x[i + 1];\n    }\n"
            "    if (i < n)\n        s += x[i];\n    return s + t;")
        for check, head, want in (
                ("", pairs, "incorrect"),          # exact by default
                ("    check: {rel: 1e-3, abs: 1e-3}\n", pairs, "measured"),
                ("    check: {rel: 1e-3, abs: 1e-3}\n",
                 SUMS.replace("return s;", "return s * 1.01f;"),
                 "incorrect")):
            with self.subTest(check=check, want=want):
                self.tearDown()
                self.setUp()
                self.commit({"perfgate.yml": config(bench(check)),
                             "sums.c": SUMS}, "base")
                self.commit({"sums.c": head})
                r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
                b = r.bench("sum")
                if want == "measured":
                    self.assertIn(b["status"], MEASURED, r.stdout)
                else:
                    self.assertEqual(b["status"], want, r.stdout)
                    self.assertRegex(b["message"],
                                     r"sum\(\) returned [-0-9.e]+, base")

    def test_a_decompressor_gets_its_own_sides_compressed_input(self):
        self.commit({"perfgate.yml": config(UNRLE), "codec.c": CODEC}, "base")
        # A faster decompressor, and a compressor that makes other (still
        # valid) output: each side decompresses what its compressor made.
        faster = CODEC.replace(
            "        for (int j = 0; j < k; j++)\n"
            "            dst[o++] = src[i + 1];",
            "        __builtin_memset(dst + o, src[i + 1], (size_t)k);\n"
            "        o += k;").replace("j - i < 255", "j - i < 200")
        self.commit({"codec.c": faster})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        b = r.bench("unrle")
        self.assertIn(b["status"], MEASURED, r.stdout)
        # One byte short: caught.
        short = CODEC.replace("return o;\n}\n", "return o - (o > 4096);\n}\n")
        self.commit({"codec.c": CODEC[:CODEC.index("int rle_decompress")]
                     + short[short.index("int rle_decompress"):]})
        r = self.perfgate("HEAD~2", "HEAD")
        b = r.bench("unrle")
        self.assertEqual(b["status"], "incorrect", r.stdout)
        self.assertIn("rle_decompress() returned", b["message"])

    def test_a_side_without_the_helper_is_charged_with_it(self):
        self.commit({"perfgate.yml": config(UNRLE), "codec.c": CODEC}, "base")
        self.commit({"codec.c": CODEC.replace("int rle_compress(",
                                              "int rle_pack(")})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench("unrle")
        self.assertEqual(b["side"], "head", r.stdout)
        # Where the call is written, and what to do.
        self.assertRegex(b["message"], r"perfgate\.yml:8:\d+: from: no "
                         r"function 'rle_compress' on this side")
        self.assertEqual(r.code, 1)

    def test_check_none_and_a_new_function_say_they_are_unchecked(self):
        self.commit({"perfgate.yml": config(adler("    check: none\n")),
                     "adler.c": CHECKSUM}, "base")
        self.commit({"adler.c": CHECKSUM.replace("return (b << 16) | a;",
                                                 "return a;")})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        b = r.bench("adler")
        self.assertIn(b["status"], MEASURED, r.stdout)
        self.assertIs(b["checked"], False)
        self.assertIn("unchecked: check: none", b["message"])
        # New on the head: measured, and said unchecked.
        self.git("rm", "-q", "adler.c")
        self.commit({"perfgate.yml": config(adler())}, "no adler")
        self.commit({"adler.c": CHECKSUM})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench("adler")
        self.assertEqual(b["status"], "new", r.stdout)
        self.assertIn("unchecked: nothing to compare with", b["message"])
        self.assertEqual(r.code, 0)
        # A base whose file lacks the function: the same.
        self.commit({"adler.c": "int unused;\n"}, "no function")
        self.commit({"adler.c": CHECKSUM})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench("adler")
        self.assertIn("unchecked: nothing to compare with", b["message"])
        self.assertEqual(r.code, 0)

    def test_check_against_a_reference_of_the_repository(self):
        ref = CHECKSUM.replace("adler32_z(", "adler32_slow(")
        wrong = CHECKSUM.replace("% 65521;\n        b", "% 65520;\n        b")
        self.commit({"perfgate.yml": config(adler(
            "    check: reference adler32_slow\n")),
            "adler.c": wrong + ref}, "base")
        # Base and head equally wrong: the base cannot tell, the reference
        # can.
        self.commit({"adler.c": wrong.replace("i++", "i += 1") + ref})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench("adler")
        self.assertEqual(b["status"], "incorrect", r.stdout)
        self.assertIn("adler32_slow", b["message"])

    def test_each_fill_keeps_its_promise(self):
        # The head returns what the base does only while the input is what
        # its fill promises; -1 otherwise.
        body = """#include <stddef.h>
long first(const %s *x, size_t n)
{
    long bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= !(%s);
    return HEAD && bad ? -1 : (long)x[0];
}
"""
        for fill, elem, ok in (
                ("fill: text", "char",
                 "(x[i] >= 'a' && x[i] <= 'z') || x[i] == ' ' || "
                 "x[i] == '\\n'"),
                ("fill: zeros", "int", "x[i] == 0"),
                ("fill: ascending", "int", "x[i] == (int)i"),
                ("range: [-3, 7]", "int", "x[i] >= -3 && x[i] <= 7"),
                ("range: [0.5, 2]", "double", "x[i] >= 0.5 && x[i] <= 2"),
                ("file: data.bin", "char",
                 "x[i] == \"perfgate\"[i % 8]")):
            with self.subTest(fill=fill):
                self.tearDown()
                self.setUp()
                bench = ("  - name: first\n    function: \"long first(const "
                         "%s *x, size_t n)\"\n    sources: [f.c]\n"
                         "    args: {x: {count: n, %s}}\n"
                         "    cases: [{n: 1000}]\n" % (elem, fill))
                self.commit({"perfgate.yml": config(bench),
                             "data.bin": "perfgate",
                             "f.c": "#define HEAD 0\n" + body % (elem, ok)},
                            "base")
                self.commit({"f.c": "#define HEAD 1\n" + body % (elem, ok)})
                r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
                self.assertIn(r.bench("first")["status"], MEASURED,
                              r.stdout)
                # And a broken promise is seen.
                self.commit({"f.c": "#define HEAD 1\n" + body % (
                    elem, "x[i] == 12345")})
                r = self.perfgate("HEAD~2", "HEAD")
                self.assertEqual(r.bench("first")["status"], "incorrect",
                                 r.stdout)

    def test_work_formulas_give_throughput(self):
        self.commit({"perfgate.yml": config(adler("    work: {bytes: len}\n")),
                     "adler.c": CHECKSUM}, "base")
        self.commit({"adler.c": CHECKSUM.replace(
            "{\n    unsigned long a", "{\n    if (len == 12345)\n"
            "        return 0;\n    unsigned long a")})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%")
        b = r.bench("adler")
        self.assertIn(b["status"], MEASURED, r.stdout)
        self.assertEqual([c.get("bytes") for c in b["cases"]], [64, 4096],
                        json.dumps(b["cases"]))


    def test_a_function_too_short_to_time_alone_is_timed_in_batches(self):
        # A hash of 8 bytes, a nanosecond or two: below what the harness's
        # own 3 ns around each call lets this machine resolve, alone; in
        # batches of 1000, resolved, and reported per call of it.
        mix = ("#include <stdint.h>\n#include <stddef.h>\n"
               "uint64_t mix64(const void *p, size_t len)\n{\n"
               "    const unsigned char *b = p;\n    uint64_t h = len;\n"
               "    for (size_t i = 0; i < len; i++)\n"
               "        h = (h ^ b[i]) * 0x100000001b3ULL;\n"
               "    return h;\n}\n")
        bench = ('  - name: mix\n    function: "uint64_t mix64(const void '
                 '*p, size_t len)"\n    sources: [mix.c]\n'
                 '    args: {p: {count: len}}\n    cases: [{len: 8}]\n%s')
        self.commit({"perfgate.yml": config(bench % ""), "mix.c": mix})
        self.commit({"mix.c": mix + "int head_marker(void) { return 1; }\n"})
        alone = self.perfgate("HEAD~1", "HEAD").bench("mix")
        self.assertTrue(alone["cases"][0]["resolved"] is False or
                        alone["status"] == "unresolved", alone)
        self.assertNotIn("batch", alone)
        self.commit({"perfgate.yml": config(bench % "    batch: 1000\n")})
        r = self.perfgate("HEAD~2", "HEAD")
        b = r.bench("mix")
        self.assertIn(b["status"], MEASURED, r.stdout)
        self.assertTrue(b["cases"][0]["resolved"], b)
        self.assertEqual(b["batch"], 1000)
        self.assertEqual(b["calls"]["base"] % 1000, 0)
        # Per call of the function: well under the microsecond a batch
        # of 1000 takes.
        self.assertLess(b["cases"][0]["base_ns"], 200)
        self.assertIn("mix: times per call of the function; each timed "
                      "call made 1000 of them (batch: 1000)", r.stdout)


# A renderer that returns a new string the caller frees (the shape of
# cmark_markdown_to_html), one that returns an array of a length it writes
# out, and their own free function.
RENDER = """#include <stdlib.h>
#include <string.h>
static size_t freed;
char *render(const char *text, size_t len, int options)
{
    char *out = malloc(2 * len + 16), *o = out;
    if (!out)
        return NULL;
    memcpy(o, "<p>", 3);
    o += 3;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (options && c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        *o++ = c;
    }
    memcpy(o, "</p>", 5);
    return out;
}
void render_free(char *p)
{
    freed++;
    free(p);
}
int *squares(int n, size_t *count)
{
    int *v = malloc((size_t)n * sizeof(int) + 1);
    for (int i = 0; i < n; i++)
        v[i] = i * i;
    *count = (size_t)n;
    return v;
}
"""

RENDER_FN = ('  - name: render\n    function: "char *render(const char *text, '
             'size_t len, int options)"\n    sources: [render.c]\n'
             '    args: {text: {count: len, fill: text}, options: 1}\n'
             '    cases: [{len: 64}, {len: 4096}]\n')


class OwnedResults(RepoTest):
    """A function that returns memory its caller frees (returns:): its
    result compared by content and freed, by free() or the side's own
    function, outside the clock or inside it."""

    def test_a_string_is_compared_by_content_and_freed(self):
        self.commit({"perfgate.yml": config(RENDER_FN + "    returns: {free: "
                                            "free}\n"),
                     "render.c": RENDER}, "base")
        r = self.perfgate("--aa", "HEAD")
        self.assertIn(r.bench("render")["status"], MEASURED, r.stdout)
        # A head whose string differs in one byte is wrong, by content.
        self.commit({"render.c": RENDER.replace('"</p>", 5', '"</P>", 5')})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench("render")
        self.assertEqual(b["status"], "incorrect", r.stdout)
        self.assertRegex(b["message"],
                         r"render\(\)'s result\[\d+\] = 80, base 112")
        # One byte longer: its length differs.
        self.commit({"render.c": RENDER.replace('"</p>", 5', '"</p>\\n", 6')})
        r = self.perfgate("HEAD~2", "HEAD")
        self.assertRegex(r.bench("render")["message"],
                         r"render\(\) returned \d+ bytes, base \d+")

    def test_a_free_function_the_side_lacks_is_charged_to_it(self):
        self.commit({"perfgate.yml": config(
            RENDER_FN + "    returns: {free: render_free}\n"),
            "render.c": RENDER}, "base")
        self.commit({"render.c": RENDER.replace("void render_free",
                                                "void render_release")})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench("render")
        self.assertEqual(b["side"], "head", r.stdout)
        self.assertEqual(r.code, 1)
        self.assertIn("returns: no function 'render_free' on this side",
                      b["message"])

    def test_a_project_archive_that_exports_nothing(self):
        # cmark's static library is built -fvisibility=hidden: its
        # functions, the free function among them, are in no dynamic
        # symbol table, and are found in the side's own.
        build = ("cc -O2 -fPIC -fvisibility=hidden -c render.c -o render.o"
                 " && ar rcs librender.a render.o")
        bench = RENDER_FN.replace("    sources: [render.c]\n",
                                  "    build: %s\n    library: librender.a"
                                  "\n" % build)
        self.commit({"perfgate.yml": config(
            bench + "    returns: {free: render_free}\n"),
            "render.c": RENDER}, "base")
        self.commit({"render.c": RENDER.replace('"</p>", 5', '"</P>", 5')})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench("render")
        self.assertEqual(b["status"], "incorrect", r.stdout)
        self.assertIn("result[", b["message"])
        r = self.perfgate("--aa", "HEAD~1")
        self.assertIn(r.bench("render")["status"], MEASURED, r.stdout)

    def test_init_writes_returns_and_the_entry_runs(self):
        self.commit({"render.c": RENDER}, "base")
        p = subprocess.run([PERFGATE, "init", "--function",
                            "char *render(const char *text, size_t len, "
                            "int options)", "--sources", "render.c"],
                           cwd=self.repo, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("returns: {free: free}", p.stdout)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "init")
        r = self.perfgate("--aa", "--max-time", "0.3s")
        self.assertIn(r.bench("render")["status"], MEASURED, r.stdout)

    def test_an_array_whose_length_the_call_writes_out(self):
        bench = ('  - name: squares\n    function: "int *squares(int n, '
                 'size_t *count)"\n    sources: [render.c]\n'
                 '    args: {count: {count: 1}}\n    cases: [{n: 1000}]\n'
                 '    returns: {length: count, free: free}\n')
        self.commit({"perfgate.yml": config(bench), "render.c": RENDER},
                    "base")
        self.commit({"render.c": RENDER.replace("v[i] = i * i;",
                                                "v[i] = i * i + (i == 999);")})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench("squares")
        self.assertEqual(b["status"], "incorrect", r.stdout)
        self.assertIn("squares()'s result[999] = 998002, base 998001",
                      b["message"])
        # By an expression of the case instead, and memory nobody frees.
        self.commit({"perfgate.yml": config(bench.replace(
            "{length: count, free: free}", "{length: n - 1, free: none}"))})
        r = self.perfgate("HEAD~2", "HEAD~1")
        self.assertIn(r.bench("squares")["status"], MEASURED, r.stdout)


class Freeing(RepoTest):
    """Owned results freed on every path a long run takes.  It needs the
    calls of a real run (hundreds a process), so it is a timing test: the
    sanitizer's slow allocator makes too few, and hides malloc's figures
    from the function."""

    def test_results_are_freed_however_long_it_runs(self):
        # 64 MiB more a call, never touched (malloc maps each apart, so
        # it costs address space, not memory), and the function aborts
        # once 64 of them are alive in its process: five times what its
        # batches kept at most (13, on the 2-core machine), and what a
        # leak reaches in 64 calls, of the hundreds each measuring process
        # makes.
        big = RENDER.replace("#include <string.h>\n",
                             "#include <string.h>\n#include <malloc.h>\n"
                             ).replace(
            "    char *out = malloc(2 * len + 16), *o = out;",
            "    if ((mallinfo2().hblkhd >> 26) > 64)\n"
            "        abort();\n"
            "    char *out = malloc(2 * len + 16 + ((size_t)64 << 20)), "
            "*o = out;")
        self.assertIn("abort", big)
        for how in ("{free: free}", "{free: render_free}",
                    "{free: free, timed: true}"):
            with self.subTest(returns=how):
                self.commit({"perfgate.yml": config(
                    RENDER_FN + "    returns: %s\n" % how,
                    max_time="1s"), "render.c": big})
                r = self.perfgate("--aa", "HEAD")
                b = r.bench("render")
                self.assertIn(b["status"], MEASURED, r.stdout)
                # Enough calls in each process for a leak to abort.
                self.assertGreater(b["calls"]["base"],
                                   64 * b["processes"], b)


# A header the shape of xxhash.h: its own typedef of a stdint type,
# attribute macros around the declaration, a struct's typedef.
HASH_H = """#ifndef HASH_H
#define HASH_H
#include <stddef.h>
#include <stdint.h>
%s
#if defined(__GNUC__)
#  define H_API __attribute__((visibility("default")))
#  define H_PURE __attribute__((pure))
#else
#  define H_API
#  define H_PURE
#endif
typedef uint64_t h64_t;
typedef struct h_state_s h_state_t;
H_API H_PURE h64_t h_mix(const void *input, size_t length);
H_API int h_update(h_state_t *state, const void *input, size_t length);
#endif
"""

HASH_C = """#include "hash.h"
h64_t h_mix(const void *input, size_t length)
{
    const unsigned char *p = input;
    h64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < length; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}
"""

H_MIX = ("  - name: mix\n    function: %s\n    header: %s\n"
         "    sources: [src/hash.c]\n    include: [include]\n"
         "    args: {input: {count: length}}\n    cases: [{length: 16}]\n"
         "    batch: 100\n")


class Headers(RepoTest):
    """A function named, its declaration read from the project's header
    (header:), its typedefs down to C's types; and batch:'s slices."""

    def files(self, extra=""):
        return {"include/hash.h": HASH_H % extra, "src/hash.c": HASH_C}

    def test_a_function_named_from_its_header(self):
        files = self.files()
        files["perfgate.yml"] = config(H_MIX % ("h_mix", "include/hash.h"))
        self.commit(files, "base")
        r = self.perfgate("--aa", "HEAD")
        b = r.bench("mix")
        self.assertIn(b["status"], MEASURED, r.stdout)
        self.assertEqual(b["batch"], 100)
        # Checked like any other: a head that hashes differently is wrong.
        self.commit({"src/hash.c": HASH_C.replace("1099511628211ULL",
                                                  "1099511628213ULL")})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench("mix")
        self.assertEqual(b["status"], "incorrect", r.stdout)
        self.assertRegex(b["message"], r"h_mix\(\) returned \d+, base \d+")

    def test_a_prototype_in_the_header_s_own_types(self):
        files = self.files()
        files["perfgate.yml"] = config(H_MIX % (
            '"H_API h64_t h_mix(const void *input, size_t length)"',
            "include/hash.h"))
        self.commit(files, "base")
        r = self.perfgate("--aa", "HEAD")
        self.assertIn(r.bench("mix")["status"], MEASURED, r.stdout)

    def test_a_header_the_project_build_generates_part_of(self):
        # hash.h includes config.h, which only the build makes.
        files = self.files('#include "config.h"')
        files["perfgate.yml"] = config(H_MIX.replace(
            "    include: [include]\n",
            "    include: [include]\n    build: 'printf \"#define "
            "H_CONFIG 1\\\\n\" > include/config.h'\n") % (
                "h_mix", "include/hash.h"))
        self.commit(files, "base")
        r = self.perfgate("--aa", "HEAD")
        self.assertIn(r.bench("mix")["status"], MEASURED,
                      r.stdout + r.stderr)

    def test_each_call_of_a_batch_gets_the_next_slice(self):
        # The input counts up across the batch's slices, so each call's
        # first element is another; a function that sees the first slice
        # ten times running aborts (as a batch on one slice would make
        # it).
        first = ("#include <stdint.h>\n#include <stddef.h>\n#include "
                 "<stdlib.h>\nstatic int zeros;\n"
                 "uint32_t first(const uint32_t *p, size_t n)\n{\n"
                 "    zeros = p[0] == 0 ? zeros + 1 : 0;\n"
                 "    if (zeros >= 10)\n        abort();\n"
                 "    return p[0] + (uint32_t)n;\n}\n")
        bench = ('  - name: first\n    function: "uint32_t first(const '
                 'uint32_t *p, size_t n)"\n    sources: [first.c]\n'
                 '    args: {p: {count: n, fill: ascending}}\n'
                 '    cases: [{n: 8}]\n    batch: 50\n')
        self.commit({"perfgate.yml": config(bench), "first.c": first})
        r = self.perfgate("--aa", "HEAD")
        self.assertIn(r.bench("first")["status"], MEASURED, r.stdout)
        self.commit({"perfgate.yml": config(bench.replace("batch: 50",
                                                          "batch: 1"))})
        r = self.perfgate("--aa", "HEAD")
        self.assertEqual(r.bench("first")["status"], "crashed", r.stdout)

    def test_what_the_header_cannot_give_is_an_error_at_its_line(self):
        for function, header, extra, want in (
                ("h_mixx", "include/hash.h", "",
                 "include/hash.h declares no function 'h_mixx' (did you "
                 "mean 'h_mix'?)"),
                ("h_mix", "hash.h", "",
                 "header: hash.h is in neither side's tree: give its path "
                 "from the repository's root, such as include/hash.h"),
                ("h_mix", "include/hash.h", '#include "nowhere.h"',
                 "header: include/hash.h does not preprocess"),
                ("h_update", "include/hash.h", "",
                 "is a struct, which perfgate cannot make up"),
                ("h_mix", "../hash.h", "",
                 "header: the header's path in the repository")):
            with self.subTest(function=function, header=header):
                files = self.files(extra)
                files["perfgate.yml"] = config(H_MIX % (function, header))
                self.commit(files)
                r = self.perfgate("HEAD")
                self.assertEqual(r.code, 2, r.stdout + r.stderr)
                self.assertIn(want, r.stderr)
                self.assertRegex(r.stderr, r"perfgate\.yml:\d+:\d+: ")
        files = self.files()
        files["perfgate.yml"] = config(H_MIX.replace(
            "    header: %s\n", "") % "h_mix")
        self.commit(files)
        r = self.perfgate("HEAD")
        self.assertEqual(r.code, 2, r.stderr)
        self.assertIn("function: 'h_mix' is a name without its prototype: "
                      "add header:", r.stderr)


class FunctionInit(RepoTest):
    """perfgate init --function: an entry that compare runs as written,
    or a problem file that fails until its verify() is written."""

    def init(self, *args):
        return subprocess.run([PERFGATE, "init", *args], cwd=self.repo,
                              capture_output=True, text=True)

    def test_the_entry_runs_as_written(self):
        self.commit({"adler.c": CHECKSUM}, "base")
        p = self.init("--function", ADLER[len("function: \""):-1],
                      "--sources", "adler.c", "--name", "adler")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("perfgate compare", p.stdout)
        with open(os.path.join(self.repo, "perfgate.yml")) as f:
            text = f.read()
        # The size parameter is the cases'; the other scalar is a TODO.
        self.assertIn("buf: {count: len}", text)
        self.assertIn("adler: 0  # TODO", text)
        self.assertIn("cases: [{len: 64}", text)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "init")
        self.commit({"adler.c": CHECKSUM.replace(
            "return (b << 16) | a;", "return (b << 16) | (a ^ 1);")})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.bench("adler")["status"], "incorrect", r.stdout)

    def test_a_problem_file_fails_until_it_is_written(self):
        self.commit({"adler.c": CHECKSUM}, "base")
        p = self.init("--function", ADLER[len("function: \""):-1],
                      "--sources", "adler.c", "--problem")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.exists(
            os.path.join(self.repo, "perf", "adler32_z.c")))
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "init")
        r = self.perfgate("--aa")
        b = r.bench("adler32_z")
        self.assertEqual(b["status"], "incorrect", r.stdout)
        self.assertIn("verify() is not written yet", b["message"])

    def test_the_example_problem_file_passes(self):
        # examples/problem: the quickstart's checksum (its src/checksum.c)
        # with a problem file of its own, what function: does written out.
        root = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
        files = {}
        for name in ("adler32.c", "perfgate.yml"):
            with open(os.path.join(root, "examples", "problem", name)) as f:
                files[name] = f.read()
        with open(os.path.join(root, "examples", "quickstart", "src",
                               "checksum.c")) as f:
            files["src/checksum.c"] = f.read()
        self.commit(files, "base")
        r = self.perfgate("--aa", "--max-time", "0.5s")
        # Checked and measured against itself: unchanged, or, on a machine
        # too busy for the floor in half a second (the sanitizer's run),
        # inconclusive; never a label on identical code.
        self.assertIn(r.bench("checksum")["status"],
                      ("unchanged", "inconclusive"), r.stdout + r.stderr)

    def test_bad_uses_say_what_to_write(self):
        for args, want in (
                (("--function", "int f(struct s *p)", "--sources", "f.c"),
                 "problem file"),
                (("--function", "int f(int n)"), "--sources"),
                (("--sources", "f.c"), "--function")):
            with self.subTest(args=args):
                p = self.init(*args)
                self.assertEqual(p.returncode, 2, p.stdout)
                self.assertIn(want, p.stderr)
                self.assertFalse(os.path.exists(
                    os.path.join(self.repo, "perfgate.yml")))


class FunctionErrors(RepoTest):
    """A function benchmark the config gets wrong: an error at its line
    and column that says what to write, before anything is built."""

    def check(self, bench, want, files=None, line=None):
        files = dict(files or {})
        files.update({"perfgate.yml": config(bench), "adler.c": CHECKSUM})
        self.commit(files, "base")
        r = self.perfgate("HEAD")
        self.assertEqual(r.code, 2, r.stdout + r.stderr)
        self.assertIn(want, r.stderr)
        self.assertRegex(r.stderr, r"perfgate\.yml:%s:\d+: " %
                         (line if line else r"\d+"))
        return r.stderr

    def test_a_prototype_that_does_not_parse(self):
        self.check("  - name: x\n    function: \"int f(struct s *p)\"\n"
                   "    sources: [adler.c]\n    cases: [{n: 1}]\n",
                   "problem file", line=5)

    def test_a_parameter_without_a_value(self):
        self.check("  - name: x\n    " + ADLER + "\n    sources: [adler.c]\n"
                   "    args: {adler: 1}\n    cases: [{n: 1}]\n",
                   "parameter 'buf' (const unsigned char *) needs a value")
        self.check("  - name: x\n    " + ADLER + "\n    sources: [adler.c]\n"
                   "    args: {adler: 1, buf: {count: n}}\n"
                   "    cases: [{n: 1}]\n",
                   "parameter 'len' (size_t) needs a value")

    def test_an_unknown_name_in_a_count(self):
        err = self.check("  - name: x\n    " + ADLER + "\n"
                         "    sources: [adler.c]\n"
                         "    args: {adler: 1, buf: {count: 2*size}}\n"
                         "    cases: [{len: 1}]\n",
                         "unknown name 'size' (it may name: len)", line=7)
        # The column points at the name, inside the expression.
        self.assertIn("perfgate.yml:7:37:", err)

    def test_a_parameter_the_prototype_lacks(self):
        self.check("  - name: x\n    " + ADLER + "\n    sources: [adler.c]\n"
                   "    args: {adler: 1, bufer: {count: len}}\n"
                   "    cases: [{len: 1}]\n",
                   "'bufer' is not a parameter of adler32_z (did you mean "
                   "'buf'?)")

    def test_a_file_missing_or_outside_the_repository(self):
        base = ("  - name: x\n    " + ADLER + "\n    sources: [adler.c]\n"
                "    args: {adler: 1, buf: {count: len, file: %s}}\n"
                "    cases: [{len: 1}]\n")
        self.check(base % "nothere.bin", "file 'nothere.bin' not found")
        self.tearDown()
        self.setUp()
        with open(os.path.join(self.tmp, "secret"), "w") as f:
            f.write("secret")
        self.check(base % "../secret", "leads outside the repository")

    def test_a_call_to_an_undeclared_helper(self):
        self.check(UNRLE.replace("    helpers: [\"int rle_compress(const char "
                                 "*src, char *dst, int n, int cap)\"]\n", ""),
                   "from: 'rle_compress' is not declared",
                   {"codec.c": CODEC})

    def test_a_count_too_large_for_the_machine(self):
        self.check("  - name: x\n    " + ADLER + "\n    sources: [adler.c]\n"
                   "    args: {adler: 1, buf: {count: len}}\n"
                   "    cases: [{len: 1}, {len: 1000000000000000}]\n",
                   "more memory than this machine has")
        self.tearDown()
        self.setUp()
        self.check("  - name: x\n    " + ADLER + "\n    sources: [adler.c]\n"
                   "    args: {adler: 1, buf: {count: len*len*len}}\n"
                   "    cases: [{len: 10000000}]\n",
                   "overflows")

    def test_a_scalar_given_a_buffer_and_a_pointer_a_number(self):
        self.check("  - name: x\n    " + ADLER + "\n    sources: [adler.c]\n"
                   "    args: {adler: 1, buf: 64, len: 64}\n"
                   "    cases: [{n: 1}]\n",
                   "'buf' is a pointer (const unsigned char *): give it a "
                   "buffer")

    def test_returns_misused(self):
        for extra, want in (
                ("", "render returns a pointer: say what it points to with "
                     "returns: {free: free}"),
                ("    returns: {free: 12}\n", "free: the function that frees"),
                ("    returns: {free: free, size: 3}\n",
                 "unknown key 'size' in 'returns'"),
                ("    returns: {free: none, timed: true}\n",
                 "free: none frees nothing"),
                ("    returns: {timed: maybe}\n",
                 "'timed' must be true or false"),
                ("    returns: {free: free}\n    batch: 8\n",
                 "returns: and batch: do not go together"),
                ("    returns: {length: nope}\n", "nope")):
            with self.subTest(extra=extra):
                self.check(RENDER_FN + extra, want,
                           files={"render.c": RENDER})
        self.check("  - name: x\n    " + ADLER + "\n    sources: [adler.c]\n"
                   "    args: {adler: 1, buf: {count: len}}\n"
                   "    cases: [{len: 1}]\n    returns: {free: free}\n",
                   "returns: is for a function that returns a pointer, and "
                   "adler32_z returns unsigned long: delete it", line=9)
        self.check('  - name: x\n    function: "int *squares(int n, size_t '
                   '*count)"\n    sources: [render.c]\n'
                   '    args: {count: {count: 1}}\n    cases: [{n: 1}]\n'
                   '    returns: {free: free}\n',
                   "returns: squares returns int *, not a string: give its "
                   "length in elements", files={"render.c": RENDER})

    def test_a_batch_that_is_not_a_count_of_calls(self):
        for bad in ("0", "-3", "many", "2000000"):
            with self.subTest(batch=bad):
                self.check(adler("    batch: %s\n" % bad),
                           "'batch' must be a whole number of calls from 1 "
                           "to 1000000", line=9)
        # A slice for every call of a batch: 1000 slices of 64 MiB are
        # more than any machine here has.
        self.check(adler("    batch: 1000\n", cases="[{len: 67108864}]"),
                   "a slice for each call of a batch: make the case or "
                   "batch: smaller")
        r = self.check("  - name: s\n    problem: reduce_sum\n"
                       "    sources: [adler.c]\n    batch: 4\n",
                       "'batch' belongs to a benchmark declared by its "
                       "'function'", line=7)
        self.assertIn("'batch'", r)

    def test_problem_and_function_together(self):
        self.check("  - name: x\n    problem: reduce_sum\n    " + ADLER +
                   "\n    sources: [adler.c]\n    cases: [{n: 1}]\n",
                   "give 'problem' or 'function', not both")


if __name__ == "__main__":
    unittest.main()
