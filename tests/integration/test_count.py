#!/usr/bin/env python3
"""perfgate compare --measure instructions|cycles: both sides counted, the
verdict at the count floor; identical work reads exactly 0.

Counts are the same under any load, so these tests assert exact figures.
They count with callgrind (--counter callgrind), which every machine with
valgrind has; the CPU's counter is tried where the machine has one.  Where
neither can count (no valgrind; a perfgate built with AddressSanitizer,
which valgrind cannot run), perfgate says so and the tests skip."""
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (CRASH, HANG, PERFGATE, SERIAL,  # noqa: E402
                     RepoTest, fixture)

SPIN = fixture("spin.c")
SPIN_CONFIG = fixture("spin.yml")


# Code that tells valgrind's simulated CPU from a real one without asking
# valgrind (a client request would have it timed, not counted): valgrind
# preloads its own library into what it runs.
UNDER_VALGRIND = ("#include <stdlib.h>\n#include <string.h>\n"
                  "static int under_valgrind(void)\n{\n"
                  "    const char *p = getenv(\"LD_PRELOAD\");\n"
                  "    return p && strstr(p, \"vgpreload\") != NULL;\n}\n")


def spin(rounds, before=""):
    return before + ("#define ROUNDS %d\n" % rounds) + SPIN


def hardware_counter():
    """Whether this machine counts instructions in hardware (perf stat
    says "<not supported>" where it does not)."""
    if not shutil.which("perf"):
        return False
    p = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u",
                        "true"], capture_output=True, text=True)
    return p.returncode == 0 and "not supported" not in p.stderr \
        and "instructions" in p.stderr


class Count(RepoTest):
    def counted(self, *args, rounds=(200, 204), before="", code=None,
                name="spin"):
        """base with ROUNDS rounds[0], head with rounds[1]; compare with
        ARGS.  Skips where this machine cannot count."""
        self.commit({"perfgate.yml": SPIN_CONFIG,
                     "src/spin.c": spin(rounds[0])}, "base")
        self.commit({"src/spin.c": spin(rounds[1], before)}, "head")
        r = self.perfgate("HEAD~1", "HEAD", *args)
        b = r.bench(name) if r.json else None
        # measure: all's count, or the benchmark itself.
        for k in (b, b and b.get("counted")):
            message = (k or {}).get("message") or ""
            if k and k["status"] == "skipped" and (
                    "valgrind is not installed" in message or
                    "AddressSanitizer" in message):
                self.skipTest(message)
        if code is not None:
            self.assertEqual(r.code, code, r.stdout + r.stderr)
        return r, b

    def test_identical_work_at_another_layout_reads_exactly_zero(self):
        # Another function ahead of it: the library differs, its code
        # lies elsewhere, and the work is the same instruction for
        # instruction.
        r, b = self.counted("--measure", "instructions", "--counter",
                            "callgrind", rounds=(200, 200),
                            before="int other(int x) { return 3 * x; }\n",
                            code=0)
        self.assertEqual(b["metric"], "instructions")
        self.assertEqual(b["unit"], "instructions")
        self.assertEqual(b["counter"], "callgrind")
        self.assertEqual(b["status"], "unchanged")
        self.assertFalse(b["identical_code"])
        self.assertEqual(b["change"], 0)
        self.assertEqual(b["base_ns"], b["head_ns"])
        # Each side's samples are all the same count.
        for side in ("base", "head"):
            samples = b["cases"][0]["samples"][side]
            self.assertGreater(len(samples), 1)
            self.assertEqual(len(set(samples)), 1, samples)
        self.assertIn("instr", r.stdout)
        self.assertIn("counted, with a floor of 1%: spin (instructions "
                      "per call, by callgrind", r.stdout)
        self.assertIn("instr →", r.markdown)
        # The chart's line is at the count floor, and its title says so.
        self.assertIn('Change against the base (%), floor 1%"', r.markdown)
        self.assertEqual(r.json["count_floor"], 0.01)
        # The same code path natively and under callgrind: checked, not
        # marked.
        self.assertIsNone(b["code_path"]["other"], b["code_path"])
        self.assertFalse(b["code_path"]["gates"])
        self.assertNotIn("other path", r.stdout)

    def test_a_counted_self_check_is_held_to_the_count_floor(self):
        # --aa counted: what moves a count without a change of code, held
        # to the count floor (1%), not the time's (5%).
        self.commit({"perfgate.yml": SPIN_CONFIG, "src/spin.c": spin(200)})
        r = self.perfgate("--aa", "HEAD", "--measure", "instructions",
                          "--counter", "callgrind")
        b = r.bench("spin")
        if b["status"] == "skipped":
            self.skipTest(b["message"])
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        self.assertEqual(b["change"], 0)
        self.assertEqual(r.json["aa"]["limit"], 0.005)
        self.assertTrue(r.json["aa"]["trusted"])
        self.assertIn("within half the 1% count floor", r.stdout)
        # measure: all holds each to its own floor, and names the one
        # nearer its floor: the time's (60%) or the count's (1%; a count's
        # interval may be an instruction or two wide).
        r = self.perfgate("--aa", "HEAD", "--measure", "all", "--counter",
                          "callgrind", "--noise-floor", "60%")
        self.assertEqual(r.bench("spin")["counted"]["change"], 0)
        limit = r.json["aa"]["limit"]
        self.assertIn(limit, (0.3, 0.005), r.stdout + r.stderr)
        self.assertIn("within half the 60% floor" if limit == 0.3 else
                      "within half the 1% count floor", r.stdout)

    def test_two_percent_more_work_fails_at_the_count_floor(self):
        r, b = self.counted("--measure", "instructions", "--counter",
                            "callgrind", code=1)
        self.assertEqual(b["status"], "regression")
        self.assertTrue(b["fails_gate"])
        # 200 -> 204 rounds of the chain, beside a sum that did not
        # change: between 1% and 2% more instructions, exactly.
        self.assertGreater(b["change"], 0.01)
        self.assertLess(b["change"], 0.02)
        # A count has no noise: its interval is the change itself, but
        # for the instruction or two at a sample's edges.
        lo, hi = b["change_interval"]
        self.assertAlmostEqual(lo, b["change"], delta=1e-4)
        self.assertAlmostEqual(hi, b["change"], delta=1e-4)
        # Under a 5% count floor the same change passes.
        r = self.perfgate("HEAD~1", "HEAD", "--measure", "instructions",
                          "--counter", "callgrind", "--count-floor", "5%")
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        self.assertEqual(r.bench("spin")["status"], "unchanged")

    def test_a_head_that_asks_valgrind_is_timed_not_counted(self):
        # 20 times the work, but the base's when valgrind runs it: counted,
        # it would read unchanged.  Its code asks valgrind, so it is timed.
        if not os.path.exists("/usr/include/valgrind/valgrind.h"):
            self.skipTest("no valgrind.h (the valgrind package has it)")
        self.commit({"perfgate.yml": SPIN_CONFIG,
                     "src/spin.c": spin(200)}, "base")
        self.commit({"src/spin.c": spin(4000).replace(
            "#include <stdint.h>\n",
            "#include <stdint.h>\n#include <valgrind/valgrind.h>\n").replace(
            "    for (size_t r = 0; r < ROUNDS * len",
            "    size_t rounds = RUNNING_ON_VALGRIND ? 200 : ROUNDS;\n"
            "    for (size_t r = 0; r < rounds * len")},
            "head")
        r = self.perfgate("HEAD~1", "HEAD", "--measure", "instructions",
                          "--counter", "callgrind")
        b = r.bench("spin")
        if b["status"] == "skipped" and (
                "valgrind is not installed" in (b["message"] or "") or
                "AddressSanitizer" in (b["message"] or "")):
            self.skipTest(b["message"])
        self.assertEqual(b["status"], "regression", r.stdout + r.stderr)
        self.assertEqual(r.code, 1)
        self.assertGreater(b["change"], 3)
        self.assertEqual(b["metric"], "time")
        self.assertIn("timed, not counted: the head's code asks valgrind",
                      b["message"])
        # measure: all says the same of its count, and the time stands.
        r = self.perfgate("HEAD~1", "HEAD", "--measure", "all",
                          "--counter", "callgrind")
        b = r.bench("spin")
        self.assertEqual(b["status"], "regression", r.stdout + r.stderr)
        self.assertEqual(b["counted"]["status"], "skipped")
        self.assertIn("asks valgrind", b["counted"]["message"])

    def test_cycles_count_the_memory_too(self):
        r, b = self.counted("--measure", "cycles", "--counter", "callgrind",
                            code=1)
        self.assertEqual(b["metric"], "cycles")
        self.assertEqual(b["status"], "regression")
        # Every instruction is at least a cycle (an L1 hit).
        r2 = self.perfgate("HEAD~1", "HEAD", "--measure", "instructions",
                           "--counter", "callgrind")
        self.assertGreaterEqual(b["head_ns"], r2.bench("spin")["head_ns"],
                                r2.stdout + r2.stderr)
        self.assertIn("cycles", r.stdout)

    def test_all_times_and_counts_and_says_when_they_disagree(self):
        # 2% more work under a 50% noise floor: the time cannot call it,
        # the count does, and the two are set side by side.
        r, b = self.counted("--measure", "all", "--counter", "callgrind",
                            "--noise-floor", "50%", code=1)
        k = b["counted"]
        if k["status"] == "skipped":
            self.skipTest(k["message"])
        self.assertEqual(b["metric"], "time")
        self.assertEqual(b["status"], "unchanged")
        self.assertEqual(k["metric"], "instructions")
        self.assertEqual(k["status"], "regression")
        self.assertTrue(b["fails_gate"])
        self.assertIn("the instructions moved +1.", b["disagreement"])
        self.assertIn("disagree: spin:", r.stdout)
        self.assertIn("  instructions", r.stdout)
        self.assertIn("FAIL: 1 regression", r.stdout)
        self.assertIn("time and count disagree", r.markdown)
        # The report renders again from its JSON, count and all.
        again = subprocess.run(
            [PERFGATE, "report", os.path.join(self.out, "result.json")],
            capture_output=True, text=True)
        self.assertIn("disagree: spin:", again.stdout)
        self.assertIn("  instructions", again.stdout)
        # Identical work at another layout: both unchanged, nothing to
        # disagree about.
        self.commit({"src/spin.c": spin(204, "int other(int x) { return "
                                             "3 * x; }\n")}, "layout")
        r = self.perfgate("HEAD~1", "HEAD", "--measure", "all", "--counter",
                          "callgrind", "--noise-floor", "50%")
        b = r.bench("spin")
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        self.assertEqual(b["counted"]["change"], 0)
        self.assertIsNone(b["disagreement"])

    def test_more_work_that_runs_faster_does_not_fail_on_its_count(self):
        # The head splits the base's one chain of multiply-adds into four
        # that run side by side, each step with a shift and an xor more:
        # some 15% more instructions, in well under half the time (zlib's
        # braided CRC-32 is such a change: +82% instructions, -48% time).
        # The time is what the count stands in for; here it answered.
        four = SPIN.replace(
            "uint64_t h = 0, x = len;",
            "uint64_t h = 0, a = len, b = len + 1, c = len + 2, "
            "d = len + 3;").replace(
            "    for (size_t r = 0; r < ROUNDS * len / 64; r++)\n"
            "        x = x * 0x9E3779B97F4A7C15u + r;\n"
            "    spin_sink = x;",
            "    for (size_t r = 0; r < ROUNDS * len / 256; r++) {\n"
            "        a = (a * 0x9E3779B97F4A7C15u + r) ^ (a >> 29);\n"
            "        b = (b * 0xD6E8FEB86659FD93u + r) ^ (b >> 29);\n"
            "        c = (c * 0x9E3779B97F4A7C15u + r) ^ (c >> 31);\n"
            "        d = (d * 0xD6E8FEB86659FD93u + r) ^ (d >> 31);\n"
            "    }\n"
            "    spin_sink = a ^ b ^ c ^ d;")
        self.assertIn("ROUNDS * len / 256", four)
        self.commit({"perfgate.yml": SPIN_CONFIG,
                     "src/spin.c": spin(200)}, "base")
        self.commit({"src/spin.c": "#define ROUNDS 200\n" + four}, "head")
        r = self.perfgate("HEAD~1", "HEAD", "--measure", "all", "--counter",
                          "callgrind")
        b = r.bench("spin")
        k = b["counted"]
        if k["status"] == "skipped":
            self.skipTest(k["message"])
        self.assertEqual(b["status"], "improvement", r.stdout + r.stderr)
        self.assertEqual(k["status"], "regression", r.stdout + r.stderr)
        self.assertGreater(k["change"], 0.05)
        self.assertLess(b["change"], -0.2)
        self.assertFalse(b["fails_gate"])
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        self.assertIn("moved opposite ways", b["disagreement"])
        self.assertIn("does not fail the gate", b["disagreement"])
        self.assertIn("PASS: 1 improvement", r.stdout)
        self.assertIn("faster in time, not gating", r.markdown)
        # The other way round (less work that runs slower) the time's
        # regression fails, as ever.
        self.commit({"src/spin.c": spin(200)}, "back")
        r = self.perfgate("HEAD~1", "HEAD", "--measure", "all", "--counter",
                          "callgrind")
        b = r.bench("spin")
        self.assertEqual(b["status"], "regression", r.stdout + r.stderr)
        self.assertEqual(b["counted"]["status"], "improvement")
        self.assertTrue(b["fails_gate"])
        self.assertEqual(r.code, 1, r.stdout + r.stderr)

    def test_measure_in_the_config_and_per_benchmark(self):
        config = SPIN_CONFIG.replace(
            "settings:\n", "settings:\n  measure: instructions\n"
            "  counter: callgrind\n  count_floor: 1%\n")
        config += ("  - name: timed\n"
                   "    function: \"uint64_t spin(const uint8_t *data, "
                   "size_t len)\"\n"
                   "    sources: [src/spin.c]\n"
                   "    args: {data: {count: len}}\n"
                   "    cases: [{len: 4096}]\n"
                   "    measure: time\n")
        self.commit({"perfgate.yml": config, "src/spin.c": spin(200)},
                    "base")
        self.commit({"src/spin.c": spin(204)}, "head")
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "50%")
        counted, timed = r.bench("spin"), r.bench("timed")
        if counted["status"] == "skipped":
            self.skipTest(counted["message"])
        self.assertEqual(counted["metric"], "instructions")
        self.assertEqual(counted["status"], "regression")
        self.assertEqual(timed["metric"], "time")
        self.assertNotIn("counter", timed)
        self.assertEqual(timed["status"], "unchanged")
        self.assertEqual(r.code, 1, r.stdout + r.stderr)

    def test_what_cannot_be_counted_says_so(self):
        # The CPU's counter counts no cycles.
        r, b = self.counted("--measure", "cycles", "--counter", "hardware",
                            code=0)
        self.assertEqual(b["status"], "skipped")
        self.assertIn("cycles are estimated by callgrind's cache model",
                      b["message"])
        self.assertIn("not counted", r.stdout)
        if not hardware_counter():
            r = self.perfgate("HEAD~1", "HEAD", "--measure", "instructions",
                              "--counter", "hardware")
            b = r.bench("spin")
            self.assertEqual(b["status"], "skipped")
            self.assertIn("no hardware counter", b["message"])

    def test_bad_values_are_refused(self):
        self.commit({"perfgate.yml": SPIN_CONFIG, "src/spin.c": spin(200)},
                    "base")
        r = self.perfgate("HEAD", "--measure", "speed")
        self.assertEqual(r.code, 2)
        self.assertIn("want time, instructions, cycles or all", r.stderr)
        for key, value, want in (
                ("measure", "speed", "want 'time', 'instructions', "
                 "'cycles' or 'all'"),
                ("counter", "pmu", "want 'auto', 'hardware' or 'callgrind'"),
                ("count_floor", "0%", "'count_floor' must be above 0%")):
            with self.subTest(key=key):
                config = SPIN_CONFIG.replace(
                    "settings:\n", "settings:\n  %s: %s\n" % (key, value))
                self.commit({"perfgate.yml": config}, key)
                r = self.perfgate("HEAD")
                self.assertEqual(r.code, 2, r.stdout + r.stderr)
                self.assertIn(want, r.stderr)

    def test_a_crash_and_a_hang_are_charged_under_callgrind(self):
        config = fixture("config.yml").replace(
            "settings:\n", "settings:\n  measure: instructions\n"
            "  counter: callgrind\n  timeout: 3s\n")
        self.commit({"perfgate.yml": config, "src/sum.c": SERIAL}, "base")
        for name, source, status in (("crash", CRASH, "crashed"),
                                     ("hang", HANG, "timeout")):
            with self.subTest(name):
                self.commit({"src/sum.c": source}, name)
                r = self.perfgate("HEAD~1", "HEAD")
                b = r.bench("sum")
                if "not counted" in (b["message"] or ""):
                    self.skipTest(b["message"])
                self.assertEqual(b["status"], status, b["message"])
                self.assertEqual(b["side"], "head")
                self.assertEqual(r.code, 1)
                self.git("reset", "-q", "--hard", "HEAD~1")

    def test_a_count_on_another_code_path_does_not_gate(self):
        # The function runs spin_native() natively and spin_simulated()
        # under valgrind, as a library that dispatches on the CPU's
        # features would on a CPU with more of them than valgrind's; the
        # head slows the simulated path alone.
        def dispatching(rounds):
            return spin(rounds).replace(
                "uint64_t spin(", "__attribute__((noinline)) static "
                "uint64_t spin_simulated(") + UNDER_VALGRIND + (
                "__attribute__((noinline)) static uint64_t\n"
                "spin_native(const uint8_t *data, size_t len)\n"
                "{\n    uint64_t h = 0;\n"
                "    for (size_t i = 0; i < len; i++)\n"
                "        h += data[i];\n"
                "    for (size_t r = 0; r < 60 * len; r++)\n"
                "        spin_sink = spin_sink * 3 + r;\n"
                "    return h;\n}\n"
                "uint64_t spin(const uint8_t *data, size_t len)\n"
                "{\n    return under_valgrind() ? "
                "spin_simulated(data, len) : spin_native(data, len);\n}\n")
        if not os.path.exists("/usr/include/valgrind/valgrind.h"):
            self.skipTest("valgrind's headers are not installed")
        self.commit({"perfgate.yml": SPIN_CONFIG,
                     "src/spin.c": dispatching(200)}, "base")
        self.commit({"src/spin.c": dispatching(240)}, "head")
        args = ("HEAD~1", "HEAD", "--measure", "instructions", "--counter",
                "callgrind")
        r = self.perfgate(*args)
        b = r.bench("spin")
        if b["status"] == "skipped":
            self.skipTest(b.get("message"))
        self.assertEqual(b["status"], "regression", r.stdout + r.stderr)
        other = b["code_path"]["other"]
        self.assertIn("natively", other)
        self.assertIn("spin_native()", other)
        self.assertIn("spin_simulated()", other)
        self.assertFalse(b["fails_gate"])
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        self.assertIn("other path: spin: counted on another code path",
                      r.stdout)
        self.assertIn("does not gate", r.stdout)
        self.assertIn("PASS: 1 slower as counted, on another code path",
                      r.stdout)
        self.assertIn("🔀 another code path, not gating", r.markdown)
        # What the native run saw, and the simulated CPU.
        self.assertTrue(b["code_path"]["native_cpu"] is not None)
        self.assertTrue(b["code_path"]["simulated_cpu"] is not None)
        # The saved result reads back the same.
        back = subprocess.run(
            [PERFGATE, "report", os.path.join(self.out, "result.json")],
            capture_output=True, text=True)
        self.assertIn("other path: spin", back.stdout, back.stderr)
        # path_check: gate gates on it all the same; off does not look.
        r = self.perfgate(*args, "--path-check", "gate")
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        self.assertTrue(r.bench("spin")["code_path"]["gates"])
        r = self.perfgate(*args, "--path-check", "off")
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        self.assertNotIn("code_path", r.bench("spin"))

    def test_a_branch_taken_only_when_counted_is_said(self):
        # Finding 6's rest: one function that takes its base's loop under
        # valgrind and 60 times the work natively, told apart by valgrind's
        # preloaded library, not by a client request.  The functions are
        # the same on both paths; the instructions are not.
        if not os.path.exists("/usr/include/valgrind/valgrind.h"):
            self.skipTest("valgrind's headers are not installed")

        def branching(rounds):
            return UNDER_VALGRIND + spin(rounds).replace(
                "    for (size_t r = 0; r < ROUNDS * len / 64; r++)\n",
                "    if (!under_valgrind())\n"
                "        for (size_t r = 0; r < 60 * ROUNDS * len / 64; "
                "r++)\n"
                "            x = x * 0x9E3779B97F4A7C15u + r + 1;\n"
                "    else\n"
                "    for (size_t r = 0; r < ROUNDS * len / 64; r++)\n")
        self.commit({"perfgate.yml": SPIN_CONFIG,
                     "src/spin.c": spin(200)}, "base")
        self.commit({"src/spin.c": branching(200)}, "head")
        r = self.perfgate("HEAD~1", "HEAD", "--measure", "instructions",
                          "--counter", "callgrind")
        b = r.bench("spin")
        if b["status"] == "skipped":
            self.skipTest(b.get("message"))
        other = (b.get("code_path") or {}).get("other") or ""
        self.assertIn("the head: natively", other, r.stdout + r.stderr)
        self.assertIn("on instructions of spin() that callgrind never saw "
                      "run (another branch)", other)
        self.assertNotIn("the base", other)
        self.assertIn("other path: spin", r.stdout)

    def test_what_the_count_cannot_see_is_said(self):
        # 300 system calls a call: the kernel's work, which no count sees,
        # is most of the head's time natively (some 70% here; said from
        # 5% on).
        syscalls = spin(200).replace(
            "    return h;\n}",
            "    for (int i = 0; i < 300; i++)\n"
            "        syscall(SYS_getppid);\n    return h;\n}")
        self.commit({"perfgate.yml": SPIN_CONFIG,
                     "src/spin.c": spin(200)}, "base")
        self.commit({"src/spin.c": "#define _GNU_SOURCE\n#include <unistd.h>"
                     "\n#include <sys/syscall.h>\n" + syscalls}, "head")
        r = self.perfgate("HEAD~1", "HEAD", "--measure", "instructions",
                          "--counter", "callgrind")
        b = r.bench("spin")
        if b["status"] == "skipped":
            self.skipTest(b.get("message"))
        uncounted = b["code_path"]["uncounted"]
        self.assertIn("the head spends", uncounted)
        self.assertIn("of its time natively in system calls, which no count "
                      "sees", uncounted)
        self.assertNotIn("the base", uncounted)
        self.assertIn("uncounted: spin: the head spends", r.stdout)
        # The calls were made natively too: not another code path.
        self.assertIsNone(b["code_path"]["other"], b["code_path"])

    def test_code_wrong_natively_alone_is_incorrect(self):
        # Right under valgrind, where it is counted, and wrong natively:
        # the native run of the dispatch check catches it.
        if not os.path.exists("/usr/include/valgrind/valgrind.h"):
            self.skipTest("valgrind's headers are not installed")
        wrong = spin(200).replace("    return h;\n}",
                                  "    return under_valgrind() ? h : h + 1;"
                                  "\n}")
        self.commit({"perfgate.yml": SPIN_CONFIG,
                     "src/spin.c": spin(200)}, "base")
        self.commit({"src/spin.c": UNDER_VALGRIND + wrong}, "head")
        r = self.perfgate("HEAD~1", "HEAD", "--measure", "instructions",
                          "--counter", "callgrind")
        b = r.bench("spin")
        if b["status"] == "skipped":
            self.skipTest(b.get("message"))
        self.assertEqual(b["status"], "incorrect", r.stdout + r.stderr)
        self.assertEqual(b["side"], "head")
        self.assertTrue(b["message"].startswith("natively"), b["message"])
        self.assertEqual(r.code, 1)

    @unittest.skipUnless(hardware_counter(),
                         "no hardware instruction counter on this machine")
    def test_the_cpus_counter_reads_identical_work_as_zero(self):
        r, b = self.counted("--measure", "instructions", "--counter",
                            "hardware", rounds=(200, 200),
                            before="int other(int x) { return 3 * x; }\n",
                            code=0)
        self.assertEqual(b["counter"], "hardware")
        self.assertLess(abs(b["change"]), 0.001)


if __name__ == "__main__":
    unittest.main()
