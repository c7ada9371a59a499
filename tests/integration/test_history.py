#!/usr/bin/env python3
"""perfgate history --series on CSV files made here: the change points
named by their commits, in the terminal and as JSON; every file that is not
such a table refused with what is wrong and where; text from the file made
safe before it is shown.  Nothing is timed."""
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import PERFGATE  # noqa: E402


def series_csv(n=30, step_at=18, size=6.0, seed=4):
    """A header and n rows: commit, date, crc (a step of `size` sd at
    `step_at`), flat (noise only)."""
    rng = random.Random(seed)
    rows = ["commit,date,crc,flat"]
    for i in range(n):
        crc = 100 + rng.gauss(0, 1) + (size if i >= step_at else 0)
        rows.append("c%03d,2026-01-%02d,%.4f,%.4f" % (
            i, i % 28 + 1, crc, 50 + rng.gauss(0, 0.5)))
    return "\n".join(rows) + "\n"


class Series(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def file(self, text, name="h.csv"):
        path = os.path.join(self.dir, name)
        with open(path, "w", newline="") as f:
            f.write(text)
        return path

    def history(self, *args, stdin=None):
        return subprocess.run([PERFGATE, "history", *args], input=stdin,
                              capture_output=True, text=True, timeout=60)

    def test_a_step_is_named_by_its_commit(self):
        path = self.file(series_csv())
        p = self.history("--series", path, "--json", "-")
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        by_name = {s["name"]: s for s in doc["series"]}
        self.assertEqual(set(by_name), {"crc", "flat"})
        self.assertEqual(doc["points"], 30)
        cps = by_name["crc"]["changepoints"]
        self.assertEqual(len(cps), 1, cps)
        self.assertEqual((cps[0]["index"], cps[0]["label"]), (18, "c018"))
        self.assertAlmostEqual(cps[0]["change"], 0.06, delta=0.015)
        self.assertEqual(by_name["flat"]["changepoints"], [])
        # The text (on stderr with --json -): a chart and the change point
        # by its commit; the date column said to be no series.
        self.assertRegex(p.stderr, r"crc +[▁▂▃▄▅▆▇█]{30}  1 change point")
        self.assertIn("at c018: ", p.stderr)
        self.assertIn("no change point", p.stderr)
        self.assertIn("not series (not all numbers): date", p.stderr)

    def test_one_series_and_standard_input(self):
        p = self.history("--series", "-", "-b", "flat", stdin=series_csv())
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("1 series of 30 points", p.stdout)
        self.assertNotIn("crc", p.stdout)

    def test_paired_changes_find_a_small_step(self):
        # Two sd at point 12 of 16: the values alone do not show it; the
        # pairs (as perfgate records them) do, at its commit.
        rng = random.Random(9)
        rows = ["commit,t,t:change,t:change_sd"]
        for i in range(16):
            t = 100 + rng.gauss(0, 1) + (2 if i >= 12 else 0)
            d = ((0.02 if i == 12 else 0) + rng.gauss(0, 0.002)) if i else ""
            rows.append("c%d,%.4f,%s,%s" % (i, t, d, "0.002" if i else ""))
        path = self.file("\n".join(rows) + "\n")
        alone = self.history("--series", path, "--json", "-", "-b", "t")
        # (Without the pair columns the same values are read afresh.)
        values = self.file("\n".join(r.split(",", 2)[0] + "," +
                                     r.split(",")[1] for r in rows) + "\n",
                           "values.csv")
        bare = self.history("--series", values, "--json", "-")
        self.assertEqual(alone.returncode, 0, alone.stderr)
        cps = json.loads(alone.stdout)["series"][0]["changepoints"]
        self.assertEqual([c["label"] for c in cps], ["c12"])
        self.assertEqual(json.loads(bare.stdout)["series"][0]["changepoints"],
                         [])

    def test_what_is_not_such_a_table_is_refused(self):
        cases = [
            ("a,b\n1,2\n3\n", "h.csv:3: 1 field where the header has 2"),
            ('a\n"open\n', "h.csv:2: a quoted field is never closed"),
            ("commit,date\nc1,monday\n", "has no column of numbers"),
            ("x\n", "has a header but no rows"),
            ("", "empty"),
            ("x,x:sd\n1,-1\n2,1\n", "column 'x:sd', row 1: below 0"),
            ("x,x:change\n1,\n2,0.1\n", "paired changes need both"),
            ("x,x:sd\n1,fast\n2,1\n", "column 'x:sd' is standard deviations"),
            (",".join("s%d" % i for i in range(10001)) + "\n" +
             ",".join("1" for i in range(10001)) + "\n",
             "has 10001 columns; perfgate reads at most 10000"),
        ]
        for text, message in cases:
            with self.subTest(text=text[:40]):
                p = self.history("--series", self.file(text))
                self.assertEqual(p.returncode, 2, p.stdout)
                self.assertIn(message, p.stderr)
                self.assertEqual(p.stdout, "")
        path = self.file(series_csv())
        p = self.history("--series", path, "-b", "crc32")
        self.assertEqual(p.returncode, 2)
        self.assertIn("has no column 'crc32' (did you mean 'crc'?)", p.stderr)
        p = self.history("--series", path, "-b", "date")
        self.assertIn("column 'date' is not a series: row 1 holds "
                      "'2026-01-01'", p.stderr)
        p = self.history("--series", os.path.join(self.dir, "none.csv"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("cannot read", p.stderr)
        for args, message in [((), "give the series: --series FILE.csv"),
                              (("--series", path, "extra"), "no operands")]:
            p = self.history(*args)
            self.assertEqual(p.returncode, 2)
            self.assertIn(message, p.stderr)
        p = self.history("--help")
        self.assertEqual(p.returncode, 0)
        self.assertIn("usage: perfgate history", p.stdout)

    def test_text_from_the_file_is_made_safe(self):
        # Names and commits are the file's: an escape sequence or a
        # workflow command in them reaches neither terminal nor CI log.
        text = series_csv().replace("crc", "cr\x1b[2Jc").replace(
            "c018", "\x1b]0;owned\x07c018")
        p = self.history("--series", self.file(text), "--json", "-")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("\x1b", p.stdout + p.stderr)
        self.assertIn("\ufffd", p.stderr)


if __name__ == "__main__":
    unittest.main()
