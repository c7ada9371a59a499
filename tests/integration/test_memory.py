#!/usr/bin/env python3
"""The heap per call (memory: report|gate): each side's allocations, bytes,
peak and leaks, counted exactly with perfgate's counting allocator
preloaded into the process that checks both sides before the timing (or
into a process a side, where there is no such check).

Counts of the heap are the same under any load, so these tests assert
exact figures.  Where the counting library is not built (a perfgate built
with AddressSanitizer, which brings its own allocator), perfgate says so
and the tests skip."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import MEASURED, RepoTest, fixture  # noqa: E402

ALLOCS = fixture("allocs.c")
CONFIG = fixture("allocs.yml")
LENS = (256, 4096)


def allocs(**defines):
    return "".join("#define %s %s\n" % kv for kv in defines.items()) + ALLOCS


class Memory(RepoTest):
    def compare(self, head, *args, code=None):
        """base: the fixture as it is; head: with `head`'s defines;
        compared with ARGS.  Skips where the heap cannot be counted."""
        self.commit({"perfgate.yml": CONFIG, "src/allocs.c": allocs()},
                     "base")
        self.commit({"src/allocs.c": allocs(**head)}, "head")
        r = self.perfgate("HEAD~1", "HEAD", *args)
        b = r.bench("checksum")
        m = b["memory"]
        if m and "not installed" in (m.get("skipped") or ""):
            self.skipTest(m["skipped"])
        self.assertIn(b["status"], MEASURED, r.stdout + r.stderr)
        if code is not None:
            self.assertEqual(r.code, code, r.stdout + r.stderr)
        return r, b, m

    def case(self, b, side, i):
        return b["cases"][i]["memory"][side]

    def test_identical_work_counts_the_same_to_the_byte(self):
        self.commit({"perfgate.yml": CONFIG, "src/allocs.c": allocs()})
        r = self.perfgate("--aa", "HEAD")
        b = r.bench("checksum")
        m = b["memory"]
        if m and "not installed" in (m.get("skipped") or ""):
            self.skipTest(m["skipped"])
        self.assertEqual(m["status"], "unchanged", r.stdout)
        self.assertNotIn("case", m)
        for i, n in enumerate(LENS):
            for side in ("base", "head"):
                u = self.case(b, side, i)
                # One copy of len bytes a call, freed; the harness
                # generated from the prototype asks for nothing.
                self.assertEqual((u["allocs"], u["bytes"], u["peak"],
                                  u["leaked"], u["mapped"]),
                                 (1, n, n, 0, 0), u)
        self.assertIn("memory: the same on both sides", r.stdout)
        self.assertIn("1 alloc, 4.0 KiB, peak 4.0 KiB", r.stdout)

    def test_one_more_allocation_is_named_and_gates_when_asked(self):
        r, b, m = self.compare({"EXTRA": 24})
        self.assertEqual(m["status"], "regression", r.stdout)
        self.assertFalse(m["fails_gate"])
        for i, n in enumerate(LENS):
            base, head = self.case(b, "base", i), self.case(b, "head", i)
            self.assertEqual(head["allocs"] - base["allocs"], 1)
            self.assertEqual(head["bytes"] - base["bytes"], 24)
            self.assertEqual(head["peak"], base["peak"])
        self.assertIn("memory: checksum: +1 allocation, +24 B per call, in "
                      "case len=256: said, not gating", r.stdout)
        self.assertRegex(r.stdout, r"\nchecksum .*; more heap\n")
        self.assertIn("**checksum**: the heap per call: +1 allocation",
                      r.markdown)
        # The time alone decides the exit status here; with memory: gate,
        # the heap fails it.
        html = os.path.join(self.out, "report.html")
        r = self.perfgate("HEAD~1", "HEAD", "--memory", "gate", "--html",
                          html)
        with open(html) as f:
            page = f.read()
        self.assertIn("<b>Heap per call</b>: +1 allocation", page)
        self.assertIn("<td>len=4096</td><td>1 → 2</td><td>4.0 KiB → 4.0 KiB",
                      page)
        m = r.bench("checksum")["memory"]
        self.assertEqual((m["mode"], m["fails_gate"]), ("gate", True))
        self.assertEqual(r.code, 1, r.stdout)
        self.assertIn("fails the gate (memory: gate)", r.stdout)
        # And not at all with memory: off.
        r = self.perfgate("HEAD~1", "HEAD", "--memory", "off")
        self.assertIsNone(r.bench("checksum")["memory"])
        self.assertNotIn("memory:", r.stdout)

    def test_counted_in_the_check_or_apart_alike(self):
        # Split (the default): counted in the process that checks both
        # sides before the timing, the only one the library is preloaded
        # into; no process of its own.
        r, b, m = self.compare({"EXTRA": 24}, "-v")
        preloaded = [line for line in r.stderr.splitlines()
                     if "run: env LD_PRELOAD=" in line]
        self.assertEqual(len(preloaded), 1, r.stderr)
        self.assertIn(".run.check ", preloaded[0])
        self.assertGreater(m["seconds"], 0)
        # Both sides timed in one process: counted apart, one process a
        # side, to the same figures.
        apart = self.perfgate("HEAD~1", "HEAD", "-v",
                              env={"PERFGATE_SPLIT": "0"})
        preloaded = [line for line in apart.stderr.splitlines()
                     if "run: env LD_PRELOAD=" in line]
        self.assertEqual(sorted(p.split(".run.")[1].split()[0]
                                for p in preloaded), ["mem0", "mem1"],
                         apart.stderr)
        for i in range(len(LENS)):
            self.assertEqual(apart.bench("checksum")["cases"][i]["memory"],
                             b["cases"][i]["memory"])

    def test_a_leak_is_named_whatever_the_mode(self):
        r, b, m = self.compare({"LEAK": 16})
        self.assertTrue(m["leak_added"])
        self.assertEqual(m["status"], "regression")
        for i in range(len(LENS)):
            self.assertEqual(self.case(b, "head", i)["leaked"], 16)
            self.assertEqual(self.case(b, "base", i)["leaked"], 0)
        self.assertIn("leaks 16 B per call more", r.stdout)

    def test_a_byte_more_is_said_and_a_larger_peak_gates(self):
        # One byte more of 256: said, within the peak's 5% floor.
        r, b, m = self.compare({"MORE": 1}, "--memory", "gate")
        self.assertEqual(m["status"], "unchanged", r.stdout)
        self.assertEqual(m["case"], "len=256")
        self.assertEqual(self.case(b, "head", 0)["bytes"] -
                         self.case(b, "base", 0)["bytes"], 1)
        self.assertIn("+1 B per call; peak 256 B → 257 B, in case len=256: "
                      "within the floor", r.stdout)
        self.assertFalse(m["fails_gate"])
        # 64 bytes more: a quarter more at 256, beyond it.
        self.commit({"src/allocs.c": allocs(MORE=64)})
        r = self.perfgate("HEAD~2", "HEAD", "--memory", "gate")
        m = r.bench("checksum")["memory"]
        self.assertEqual((m["status"], m["fails_gate"]), ("regression", True))
        self.assertEqual(r.code, 1)

    def test_a_pass_that_fails_is_said_and_the_time_stands(self):
        r, b, m = self.compare({"COUNTED_ABORTS": 1})
        self.assertIn("the head side's pass: ", m["skipped"])
        self.assertIn("SIGABRT", m["skipped"])
        self.assertNotIn("status", m)
        self.assertIsNone(b["cases"][0].get("memory"))
        self.assertIn("memory: checksum: not counted: the head side's pass",
                      r.stdout)

    def test_profile_names_the_line_that_allocates(self):
        # Faster or not, a head with more heap gets its profile: the line
        # whose calls into the allocator differ, from callgrind's calls.
        r, b, m = self.compare({"EXTRA": 24}, "--profile")
        p = b["profile"]
        if p and p.get("skipped") and "valgrind" in p["skipped"]:
            self.skipTest(p["skipped"])
        self.assertEqual(p["case"], m["case"])
        sites = p["alloc_sites"]
        self.assertEqual(len(sites), 1, sites)
        self.assertEqual((sites[0]["function"], sites[0]["file"],
                          sites[0]["object"], sites[0]["base"],
                          sites[0]["head"]),
                         ("checksum", "src/allocs.c", "malloc", None, 1))
        self.assertEqual(sites[0]["text"], "kept = malloc(EXTRA);")
        self.assertIn("allocation sites that differ", r.stdout)
        self.assertIn("src/allocs.c:%d in checksum: malloc, 0 → 1 call" %
                      sites[0]["line"], r.stdout)
        self.assertIn("Allocation sites that differ", r.markdown)

    def test_the_allocator_s_corners_are_counted_and_mappings_said(self):
        r, b, m = self.compare({"ODD": 1, "MAPPED": 1 << 20})
        self.assertIsNone(b["message"])
        for i in range(len(LENS)):
            base, head = self.case(b, "base", i), self.case(b, "head", i)
            # realloc(p, 0) frees; calloc, posix_memalign and the thread's
            # malloc are counted (and glibc's own for the thread).
            self.assertGreaterEqual(head["allocs"] - base["allocs"], 4)
            self.assertEqual(head["leaked"], 0)
            self.assertEqual(head["mapped"], 1 << 20)
        self.assertIn("+1.0 MiB per call mapped outside malloc", r.stdout)


if __name__ == "__main__":
    unittest.main()
