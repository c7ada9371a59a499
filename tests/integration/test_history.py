#!/usr/bin/env python3
"""perfgate history.

Series: --series on CSV files made here: the change points named by their
commits, in the terminal and as JSON; every file that is not such a table
refused with what is wrong and where; text from the file made safe before
it is shown.  Nothing is timed.

Mainline: perfgate record on throwaway repositories, kept on
refs/perfgate/history and pushed to a bare remote, and perfgate history
over them: a step and a creep found and named, writers united, damaged and
hostile records left out with a note.  The sizes are wide by construction
(a 25% step, five 2% pushes against a 5% floor, each reading well within
it on any machine)."""
import base64
import hashlib
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import PERFGATE, RepoTest, fixture, snapshot  # noqa: E402


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


def check_page(test, page, charts):
    """A history page: `charts` charts, nothing fetched, its one script
    pinned by its hash."""
    test.assertEqual(page.count('<svg class="chart"'), charts)
    for fetch in ("src=", "@import", "url("):
        test.assertNotIn(fetch, page)
    test.assertIn("default-src 'none'", page)
    test.assertNotIn("'unsafe-inline'; script", page.replace(
        "style-src 'unsafe-inline'; script", ""))
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    digest = base64.b64encode(
        hashlib.sha256(script.encode()).digest()).decode()
    test.assertIn("script-src 'sha256-%s'" % digest, page)


def open_page(test, path, fragment, tmp):
    """The page's document once its script ran, in a real browser."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        test.skipTest("no chromium (./test.sh installs it)")
    p = subprocess.run([browser, "--headless", "--no-sandbox",
                        "--disable-gpu", "--user-data-dir=" +
                        os.path.join(tmp, "profile"),
                        "--enable-logging=stderr", "--v=0", "--dump-dom",
                        "file://" + path + fragment],
                       capture_output=True, text=True, timeout=120)
    test.assertNotIn("Uncaught", p.stderr)
    return p.stdout


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

    def test_noise_that_grows_is_said_and_no_step(self):
        # sd 2 for 150 commits, then 10 (the machine got busy): a change of
        # noise at its commit, in the text and the JSON, and no step; the
        # flat column beside it has none.
        rng = random.Random(4)
        rows = ["commit,t,flat"]
        for i in range(300):
            rows.append("c%03d,%.3f,%.3f" % (
                i, 100 + rng.gauss(0, 2 if i < 150 else 10),
                50 + rng.gauss(0, 1)))
        page = os.path.join(self.dir, "h.html")
        p = self.history("--series", self.file("\n".join(rows) + "\n"),
                         "--json", "-", "--html", page)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(page) as f:
            html = f.read()
        self.assertRegex(html, r'<tr class="noise"><td>the noise grew</td>'
                         r'<td><code>c\d{3}</code>')
        self.assertIn('<line class="noise"', html)
        by_name = {s["name"]: s for s in json.loads(p.stdout)["series"]}
        t = by_name["t"]
        self.assertEqual(t["changepoints"], [])
        self.assertEqual(len(t["noise_changes"]), 1, t["noise_changes"])
        nc = t["noise_changes"][0]
        self.assertLessEqual(abs(nc["index"] - 150), 15, nc)
        self.assertEqual(nc["label"], "c%03d" % nc["index"])
        self.assertGreater(nc["sd_after"] / nc["sd_before"], 3, nc)
        self.assertEqual(by_name["flat"]["noise_changes"], [])
        self.assertRegex(p.stderr, r"at c\d{3}: the noise grew, sd [\d.]+ → "
                         r"[\d.]+ \(x[\d.]+\), [\d.]+ times its "
                         r"uncertainty; not a step")

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

    def test_a_creep_in_a_file_under_a_noise_floor(self):
        # Five pushes of +2% (pairs +-0.25%) in 30, levels rising by them:
        # a creep under a 5% floor; none without a floor (a file has
        # none), and none under 15%.
        rng = random.Random(5)
        rows = ["commit,t,t:change,t:change_sd"]
        level = 100.0
        for i in range(30):
            moved = 12 <= i < 17
            level *= 1.02 if moved else 1
            d = ("%.5f" % ((0.02 if moved else 0) + rng.gauss(0, 0.0025))
                 if i else "")
            rows.append("c%d,%.3f,%s,%s" % (i, level * (1 + rng.gauss(
                0, 0.005)), d, "0.0025" if i else ""))
        path = self.file("\n".join(rows) + "\n")
        p = self.history("--series", path, "--json", "-",
                         "--noise-floor", "5%")
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        (creep,) = doc["series"][0]["creeps"]
        self.assertEqual((creep["from_label"], creep["to_label"]),
                         ("c12", "c16"))
        self.assertAlmostEqual(creep["change"], 0.104, delta=0.02)
        self.assertEqual(doc["series"][0]["changepoints"], [])
        self.assertEqual(doc["labels"][:2], ["c0", "c1"])
        self.assertIsNone(doc["series"][0]["change"][0])
        self.assertIn("creep +", p.stderr)
        for args in ((), ("--noise-floor", "15%")):
            p = self.history("--series", path, "--json", "-", *args)
            self.assertEqual(json.loads(p.stdout)["series"][0]["creeps"],
                             [], args)
        p = self.history("--series", path, "--noise-floor", "5")
        self.assertEqual(p.returncode, 2)
        self.assertIn("such as 5%", p.stderr)

    def test_rows_named_by_an_index_or_a_time_and_extremes(self):
        # An index, a time or a date names the rows: not a ramp of a
        # series with a change point at every row.
        rows = "".join("%d,%s\n" % (i, (10 if i < 30 else 20) +
                                     0.1 * ((i * 7) % 5 - 2))
                       for i in range(60))
        for header in ("index,x", "time,x", "timestamp,x", "date,x"):
            with self.subTest(header=header):
                text = header + "\n" + rows
                p = self.history("--series", self.file(text), "--json", "-")
                self.assertEqual(p.returncode, 0, p.stderr)
                r = json.loads(p.stdout)
                self.assertEqual([s["name"] for s in r["series"]], ["x"])
                self.assertEqual(r["labels"][30], "30")
                (cp,) = r["series"][0]["changepoints"]
                self.assertEqual(cp["index"], 30)
        # --label-column names another; one that is not there is said.
        text = "run,x\n" + "".join("r" + row + "\n"
                                   for row in rows.splitlines())
        p = self.history("--series", self.file(text), "--label-column",
                         "run", "--json", "-")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["labels"][30], "r30")
        p = self.history("--series", self.file(text), "--label-column", "id")
        self.assertEqual(p.returncode, 2)
        self.assertIn("has no column 'id' (--label-column)", p.stderr)
        p = self.history("--label-column", "id")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--label-column names a column of the file", p.stderr)
        # The largest finite numbers either way: drawn, not a crash.
        text = "x\n" + "1e308\n-1e308\n" * 10
        p = self.history("--series", self.file(text))
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_what_is_not_such_a_table_is_refused(self):
        cases = [
            ("a,b\n1,2\n3\n", "h.csv:3: 1 field where the header has 2"),
            ('a\n"open\n', "h.csv:2: a quoted field is never closed"),
            ("commit,date\nc1,monday\n", "has no column of numbers"),
            ("x\n", "has a header but no rows"),
            ("", "empty"),
            ("x,x:sd\n1,-1\n2,1\n", "h.csv:2: column 'x:sd': below 0"),
            # A number that is not a finite one, at its line (a quoted
            # cell's line break makes rows and lines part).
            ('n,x\n"a\nb",1\nc,nan\n',
             "h.csv:4: column 'x' holds 'nan', not a finite number"),
            ("x\n1\n1e400\n", "h.csv:3: column 'x' holds '1e400'"),
            ("x\n-inf\n2\n", "h.csv:2: column 'x' holds '-inf'"),
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
        self.assertIn("column 'date' is not a series: it holds "
                      "'2026-01-01' here", p.stderr)
        p = self.history("--series", os.path.join(self.dir, "none.csv"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("cannot read", p.stderr)
        for args, message in [
                (("--series", path, "extra"), "no operands"),
                (("--series", path, "--rev", "main"),
                 "--series reads a file")]:
            p = self.history(*args)
            self.assertEqual(p.returncode, 2)
            self.assertIn(message, p.stderr)
        # Without --series, the records of the repository it runs in.
        p = subprocess.run([PERFGATE, "history"], cwd=self.dir,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("not a git repository", p.stderr)
        p = self.history("--help")
        self.assertEqual(p.returncode, 0)
        self.assertIn("usage: perfgate history", p.stdout)

    def test_a_page_with_a_chart_per_series_that_zooms(self):
        path = self.file(series_csv().replace("flat", "fl<script>at"))
        html = os.path.join(self.dir, "h.html")
        p = self.history("--series", path, "--html", html,
                         "--commit-url", "https://example.org/c/")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(html, encoding="utf-8") as f:
            page = f.read()
        check_page(self, page, 2)
        self.assertIn("fl&lt;script&gt;at", page)
        self.assertNotIn("<script>at", page)
        # The step listed, linked, and marked before its first point.
        self.assertIn('<tr class="cp up"><td>step</td><td><a href='
                      '"https://example.org/c/c018"><code>c018</code>', page)
        self.assertIn('<line class="cp up" x1="17.5"', page)
        self.assertEqual(page.count('<line class="pt"'), 60)
        # Zoomed from the address: both charts at pushes 5 to 12, the
        # commits under the axis those of the ends.
        dom = open_page(self, html, "#zoom=5-12", self.dir)
        self.assertIn('data-charts="2"', dom)
        self.assertEqual(dom.count('data-zoom="5-12"'), 2, dom[-3000:])
        self.assertEqual(dom.count('viewBox="3.5 0 8 '), 2)
        self.assertRegex(dom, r'text-anchor="start">c004<')
        self.assertRegex(dom, r'text-anchor="end">c011<')
        p = self.history("--series", path, "--html", html, "--commit-url",
                         "javascript:alert(1)//")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--commit-url wants an http(s) address", p.stderr)

    def test_text_from_the_file_is_made_safe(self):
        # Names and commits are the file's: an escape sequence or a
        # workflow command in them reaches neither terminal nor CI log.
        text = series_csv().replace("crc", "cr\x1b[2Jc").replace(
            "c018", "\x1b]0;owned\x07c018")
        p = self.history("--series", self.file(text), "--json", "-")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("\x1b", p.stdout + p.stderr)
        self.assertIn("\ufffd", p.stderr)


SPIN = fixture("spin.c")
SPIN_CONFIG = fixture("spin.yml")
REF = "refs/perfgate/history"


class Records:
    """Helpers for perfgate record and history on throwaway repositories
    (a mixin of RepoTest's; no tests of its own)."""

    def spin(self, rounds, comment="", tag=None):
        """spin.c of `rounds`; with a tag, a function after spin() that
        returns it: other code, measured, of spin()'s speed."""
        text = ("/* %s */\n#define ROUNDS %d\n" % (comment, rounds)) + SPIN
        if tag is not None:
            text += ("\n__attribute__((used)) static int spin_tag(void)\n"
                     "{\n    return %d;\n}\n" % tag)
        return text

    def run_pg(self, *args, cwd=None, ok=(0,)):
        """perfgate ARGS in the repository; the repository's state
        afterwards, but for the history's ref, is as before."""
        cwd = cwd or self.repo
        before = snapshot(cwd)
        p = subprocess.run(
            [PERFGATE, *args], cwd=cwd, capture_output=True, text=True,
            timeout=300, env=dict(os.environ, TMPDIR=self.pgtmp,
                                  PERFGATE_MACHINE="test machine"))
        after = snapshot(cwd)
        for state in (before, after):
            state["refs"] = "".join(
                line for line in state["refs"].splitlines(True)
                if not line.endswith("\t%s\n" % REF))
        self.assertEqual(before, after, "perfgate changed the repository")
        self.assertEqual(os.listdir(self.pgtmp), [],
                         "perfgate left temporary files behind")
        self.assertIn(p.returncode, ok, p.stdout + p.stderr)
        return p

    def record(self, *args, cwd=None, ok=(0,)):
        return self.run_pg("record", "-q", "--jobs", "2", *args, cwd=cwd,
                           ok=ok)

    def history(self, *args, cwd=None, ok=(0,)):
        p = self.run_pg("history", "--json", "-", *args, cwd=cwd, ok=ok)
        return p, (json.loads(p.stdout) if p.returncode == 0 else None)

    def files(self, cwd=None):
        return self.git("ls-tree", "-r", "--name-only", REF,
                        cwd=cwd).splitlines()

    def scenario(self):
        """Fifteen commits: a 25% step, then five pushes of about 2% each
        among commits that change nothing (a README, a comment), then two
        that change code but not its speed (measured: the levels after the
        creep rest on more than one record's times).  Returns the commits
        by subject."""
        c = {}
        steps = [("base", {"perfgate.yml": SPIN_CONFIG,
                           "src/spin.c": self.spin(200)}),
                 ("readme 1", {"README": "1\n"}),
                 ("a comment", {"src/spin.c": self.spin(200, "b")}),
                 ("the step", {"src/spin.c": self.spin(250, "b")}),
                 ("readme 2", {"README": "2\n"}),
                 ("creep 1", {"src/spin.c": self.spin(255, "b")}),
                 ("readme 3", {"README": "3\n"}),
                 ("creep 2", {"src/spin.c": self.spin(260, "b")}),
                 ("creep 3", {"src/spin.c": self.spin(265, "b")}),
                 ("readme 4", {"README": "4\n"}),
                 ("creep 4", {"src/spin.c": self.spin(270, "b")}),
                 ("creep 5", {"src/spin.c": self.spin(275, "b")}),
                 ("a function after it",
                  {"src/spin.c": self.spin(275, "b", tag=1)}),
                 ("another comment", {"src/spin.c": self.spin(275, "c", 1)}),
                 ("another function",
                  {"src/spin.c": self.spin(275, "c", tag=2)})]
        for subject, files in steps:
            c[subject] = self.commit(files, subject)
        return c, [s for s, _ in steps]

class Creep(Records, RepoTest):
    """Steps of 2% measured for real: a timing test (ctest's label), run
    alone, never beside other work such as the sanitizer build's suite."""

    def precise_record(self, commit, tries=4):
        """Records `commit` until its interval is as narrow as a record
        asks (+-0.5% on the 5% floor): within its budget of 1 s, a process
        whose code landed badly now and then leaves one wider (+-2 to 5%
        on this 2-core VM), which the history rightly weighs down, and a
        chain of 2% pushes through it falls below a creep's evidence.
        The subject here is what the history makes of 2% pushes measured
        well; perfgate record draws the newest record of a commit."""
        out = os.path.join(self.tmp, "record.json")
        for _ in range(tries):
            self.record("--json", out, commit)
            with open(out) as f:
                (b,) = json.load(f)["benchmarks"]
            lo, hi = b["change_interval"] or (0, 0)
            if hi - lo <= 2 * 0.006:
                break
            time.sleep(1)  # the next is the newer by its second

    def test_a_step_and_a_creep_are_named_and_nothing_else(self):
        c, order = self.scenario()
        for subject in order[1:]:
            self.precise_record(c[subject])
        self.assertEqual(len({f.split("/")[1] for f in self.files()}), 14)
        p, doc = self.history()
        (s,) = doc["series"]
        self.assertEqual(s["name"], "spin")
        self.assertEqual(doc["points"], 14)
        steps = [(cp["label"], cp["subject"]) for cp in s["changepoints"]]
        self.assertEqual(steps, [(c["the step"], "the step")], s)
        self.assertGreater(s["changepoints"][0]["change"], 0.15)
        # The creep's ends are pushes that moved by themselves (about 4
        # of their deviations here): on a machine loaded enough to blur a
        # 2% push, an end push may fall short and the creep be named one
        # push shorter.  Never longer, and never from a push that changed
        # nothing.
        self.assertEqual(len(s["creeps"]), 1, s)
        (creep,) = s["creeps"]
        ends = (c["creep 1"], c["creep 2"]), (c["creep 4"], c["creep 5"])
        self.assertIn(creep["from_label"], ends[0], s)
        self.assertIn(creep["to_label"], ends[1], s)
        self.assertGreater(creep["change"], 0.05)
        text = self.run_pg("history").stdout
        self.assertIn("the step", text)
        self.assertRegex(text, r"creep [12] \.\. creep [45]")


class Mainline(Records, RepoTest):
    def test_records_of_identical_code_cost_nothing(self):
        self.commit({"perfgate.yml": SPIN_CONFIG,
                     "src/spin.c": self.spin(100)}, "base")
        readme = self.commit({"README": "x\n"}, "readme")
        self.record(readme)
        (path,) = self.files()
        self.assertTrue(path.startswith("%s/%s/" % (readme[:2], readme)))
        self.assertTrue(path.endswith(".json"))
        rec = json.loads(self.git("show", "%s:%s" % (REF, path)))
        self.assertEqual(rec["perfgate_record"], 1)
        self.assertEqual(rec["commit"], readme)
        self.assertEqual(rec["machine"]["name"], "test machine")
        for key in ("cpu", "kernel", "compiler"):
            self.assertTrue(rec["machine"][key])
        (b,) = rec["benchmarks"]
        self.assertEqual((b["name"], b["status"], b["untouched"],
                          b["change"]), ("spin", "unchanged", True, 0))
        self.assertIsNone(b["head_ns"])
        # The same commit again: both records kept, and said so.
        self.record(readme)
        self.assertEqual(len(self.files()), 2)
        p, doc = self.history()
        self.assertTrue(any("has 2 records from test machine" in n
                            for n in doc["notes"]), doc["notes"])

    def test_a_step_accepted_on_purpose_says_so(self):
        # A regression its pull request accepted (a Perf-Accepted: trailer)
        # is recorded as accepted, and the history's step says why.
        self.commit({"perfgate.yml": SPIN_CONFIG,
                     "src/spin.c": self.spin(200)}, "base")
        first = self.commit({"README": "1\n"}, "readme 1")
        step = self.commit({"src/spin.c": self.spin(250)},
                           "a deeper hash\n\n"
                           "Perf-Accepted: spin 50% mixes every byte twice\n")
        last = self.commit({"README": "2\n"}, "readme 2")
        for commit in (first, step, last):
            self.record(commit)
        path = [f for f in self.files() if step in f][0]
        (b,) = json.loads(self.git("show", "%s:%s" % (REF, path)))[
            "benchmarks"]
        self.assertEqual(b["status"], "regression")
        self.assertEqual(b["accepted"], "mixes every byte twice")
        p, doc = self.history()
        (cp,) = doc["series"][0]["changepoints"]
        self.assertEqual(cp["label"], step)
        self.assertEqual(cp["accepted"], "mixes every byte twice")
        self.assertIn("accepted on purpose: mixes every byte twice",
                      self.run_pg("history").stdout)
        html = os.path.join(self.tmp, "history.html")
        self.run_pg("history", "--html", html)
        with open(html) as f:
            self.assertIn("accepted on purpose: mixes every byte twice",
                          f.read())

    def rewrite(self, since, edit=None):
        """Main's commits after `since` made again, each with its subject
        reworded (as a rebase that changes no code does), and with the
        files of edit[subject] where given; main moved to the last.
        Returns the new commits by subject."""
        old = self.git("rev-list", "--reverse", "%s..main" % since).split()
        parent, made = since, {}
        for commit in old:
            subject = self.git("log", "-1", "--format=%s", commit)
            self.git("reset", "-q", "--hard", parent)
            self.git("checkout", "-q", commit, "--", ".")
            for path, text in (edit or {}).get(subject, {}).items():
                self.write(path, text)
            self.git("add", "-A")
            self.git("commit", "-q", "--allow-empty", "-m",
                     subject + " (again)")
            parent = made[subject] = self.git("rev-parse", "HEAD")
        return made

    def test_records_of_the_same_code_are_reused_after_a_rebase(self):
        c = {}
        for subject, files in [
                ("base", {"perfgate.yml": SPIN_CONFIG,
                          "src/spin.c": self.spin(200)}),
                ("readme 1", {"README": "1\n"}),
                ("slower", {"src/spin.c": self.spin(300)}),
                ("readme 2", {"README": "2\n"})]:
            c[subject] = self.commit(files, subject)
        for subject in ("readme 1", "slower", "readme 2"):
            self.record(c[subject])
        # Main rebased (reworded): new commits of the same code.  Their
        # records are those of the commits rebased away, said so.
        new = self.rewrite(c["base"])
        p, doc = self.history()
        self.assertEqual(doc["labels"], [new["readme 1"], new["slower"],
                                         new["readme 2"]])
        (s,) = doc["series"]
        self.assertEqual([cp["label"] for cp in s["changepoints"]],
                         [new["slower"]], p.stderr)
        notes = "\n".join(doc["notes"])
        for subject in ("readme 1", "slower", "readme 2"):
            self.assertIn("%s is drawn from the record of %s (test machine)"
                          % (new[subject][:12], c[subject][:12]), notes)
        # Rebased again, "slower" with other code: its record and those
        # after it measured other code, and are not drawn.
        self.git("reset", "-q", "--hard", c["readme 2"])
        new = self.rewrite(c["base"],
                           {"slower": {"src/spin.c": self.spin(310)}})
        p, doc = self.history()
        self.assertEqual(doc["labels"], [new["readme 1"], new["slower"],
                                         new["readme 2"]])
        self.assertEqual(doc["series"][0]["change"], [0, None, None])
        self.assertEqual(doc["series"][0]["changepoints"], [])
        self.assertNotIn(new["slower"][:12], "\n".join(doc["notes"]))
        # Nothing of the code's is left: said, not guessed.
        self.git("reset", "-q", "--hard", c["base"])
        self.commit({"README": "other\n"}, "other")
        p, doc = self.history(ok=(2,))
        self.assertIn("no perfgate record of the last 2 commits", p.stderr)

    def test_two_writers_are_united_and_nothing_is_forced(self):
        c, order = self.scenario()
        remote = os.path.join(self.tmp, "remote.git")
        self.git("clone", "-q", "--bare", self.repo, remote)
        clones = []
        for name in ("a", "b"):
            path = os.path.join(self.tmp, name)
            self.git("clone", "-q", remote, path)
            clones.append(path)
        self.record("--push", "origin", c["creep 1"], cwd=clones[0])
        # b has not seen a's push: it fetches a's records first, unites
        # them with its own, and pushes the union.
        self.record("--push", "origin", c["the step"], cwd=clones[1])
        remote_files = self.git("ls-tree", "-r", "--name-only", REF,
                                cwd=remote).splitlines()
        self.assertEqual(sorted(f.split("/")[1] for f in remote_files),
                         sorted([c["creep 1"], c["the step"]]))
        parents = self.git("log", "--format=%P", "-1", REF, cwd=remote)
        self.assertEqual(len(parents.split()), 2, "not a union")
        # a's own commit is still in the remote's history: nothing forced.
        a_tip = self.git("rev-parse", REF, cwd=clones[0])
        self.git("merge-base", "--is-ancestor", a_tip, REF, cwd=remote)
        # A third clone reads both.
        third = os.path.join(self.tmp, "c")
        self.git("clone", "-q", remote, third)
        self.git("fetch", "-q", "origin", "%s:%s" % (REF, REF), cwd=third)
        p, doc = self.history(cwd=third)
        self.assertEqual(doc["points"], 12)

    def daemon(self, hook):
        """A bare clone of the repository served by git daemon (so that
        git's receive-pack, and its pre-receive `hook`, decide each push);
        its URL."""
        served = os.path.join(self.tmp, "served")
        remote = os.path.join(served, "remote.git")
        self.git("clone", "-q", "--bare", self.repo, remote)
        path = os.path.join(remote, "hooks", "pre-receive")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + hook)
        os.chmod(path, 0o755)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        d = subprocess.Popen(
            ["git", "daemon", "--base-path=" + served, "--export-all",
             "--enable=receive-pack", "--listen=127.0.0.1",
             "--port=%d" % port, "--reuseaddr", served],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(d.wait)
        self.addCleanup(d.terminate)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), 1).close()
                break
            except OSError:
                d.poll()
                self.assertIsNone(d.returncode, "git daemon did not start")
                subprocess.run(["sleep", "0.05"])
        return "git://127.0.0.1:%d/remote.git" % port, remote

    def test_a_refused_push_is_tried_again(self):
        self.commit({"perfgate.yml": SPIN_CONFIG,
                     "src/spin.c": self.spin(100)}, "base")
        head = self.commit({"README": "x\n"}, "readme")
        # The first push is refused (as when another job's push lands
        # first), the second taken.
        url, remote = self.daemon(
            'n=$(cat "$GIT_DIR/tries" 2>/dev/null || echo 0)\n'
            'echo $((n + 1)) > "$GIT_DIR/tries"\n'
            '[ $n -ge 1 ] || { echo busy >&2; exit 1; }\n')
        p = self.run_pg("record", "--jobs", "2", "--push", url)
        self.assertIn("push 1 of 5 failed", p.stderr)
        self.assertIn("pushed %s" % REF, p.stderr)
        with open(os.path.join(remote, "tries")) as f:
            self.assertEqual(f.read().strip(), "2")
        (path,) = self.git("ls-tree", "-r", "--name-only", REF,
                           cwd=remote).splitlines()
        self.assertIn(head, path)
        # A remote that refuses every push: the record stays here.
        with open(os.path.join(remote, "hooks", "pre-receive"), "a") as f:
            f.write("exit 1\n")
        self.commit({"README": "y\n"}, "readme 2")
        p = self.record("--push", url, "--tries", "3", ok=(3,))
        self.assertIn("after 3 tries", p.stderr)
        self.assertEqual(len(self.files()), 2)

    def test_a_push_that_fails_keeps_the_local_record(self):
        self.commit({"perfgate.yml": SPIN_CONFIG,
                     "src/spin.c": self.spin(100)}, "base")
        head = self.commit({"README": "x\n"}, "readme")
        gone = os.path.join(self.tmp, "no-such-remote.git")
        p = self.record("--push", gone, "--tries", "2", ok=(3,))
        self.assertIn("after 2 tries", p.stderr)
        self.assertIn("kept on the local %s" % REF, p.stderr)
        self.assertEqual(len(self.files()), 1)
        self.assertIn(head, self.files()[0])
        p = self.record("--push", "nowhere", ok=(2,))
        self.assertIn("no remote 'nowhere'", p.stderr)

    def plant(self, entries):
        """Adds files (path -> bytes) to the history's ref as a hostile
        writer would: with git's plumbing, straight into the tree."""
        index = os.path.join(self.tmp, "plant-index")
        env = dict(os.environ, GIT_INDEX_FILE=index)

        def git(*args, data=None):
            return subprocess.run(["git", *args], cwd=self.repo, env=env,
                                  input=data, check=True,
                                  capture_output=True).stdout.decode().strip()
        git("read-tree", REF)
        for path, data in entries.items():
            blob = git("hash-object", "-w", "--stdin", data=data)
            git("update-index", "--add", "--cacheinfo",
                "100644,%s,%s" % (blob, path))
        tree = git("write-tree")
        commit = git("commit-tree", tree, "-p", REF, "-m", "planted")
        git("update-ref", REF, commit)
        os.remove(index)

    def test_damaged_and_hostile_records_are_left_out(self):
        self.commit({"perfgate.yml": SPIN_CONFIG,
                     "src/spin.c": self.spin(100)}, "base")
        first = self.commit({"README": "1\n"}, "readme 1")
        head = self.commit({"README": "2\n"}, "readme 2")
        self.record(first)
        self.record(head)
        (good,) = [f for f in self.files() if head in f]
        rec = json.loads(self.git("show", "%s:%s" % (REF, good)))
        future = dict(rec, perfgate_record=7, perfgate="9.0")
        elsewhere = dict(rec, commit=first)
        wild = json.loads(json.dumps(rec))
        wild["benchmarks"][0]["change"] = -7
        dirty = dict(rec, subject="\x1b]0;owned\x07 \u202e")
        strange = dict(rec, kind="verdict")
        blamed = json.loads(json.dumps(rec))
        blamed["kind"] = "check"
        blamed["benchmarks"][0]["culprit"] = {"commit": "HEAD; rm -rf /",
                                              "subject": "x"}
        d = "%s/%s/" % (head[:2], head)
        self.plant({d + "1-garbage.json": b"\x00{not json",
                    d + "2-future.json": json.dumps(future).encode(),
                    d + "3-elsewhere.json": json.dumps(elsewhere).encode(),
                    d + "4-wild.json": json.dumps(wild).encode(),
                    d + "5-dirty.json": json.dumps(dirty).encode(),
                    d + "6-strange.json": json.dumps(strange).encode(),
                    d + "7-blamed.json": json.dumps(blamed).encode(),
                    d + "notes.txt": b"hello",
                    "README": b"not a record",
                    "zz/%s/1-x.json" % head: json.dumps(rec).encode()})
        p, doc = self.history()
        notes = "\n".join(doc["notes"])
        self.assertIn("1-garbage.json: not a perfgate record", notes)
        self.assertIn("a record of format 7 (written by 9.0)", notes)
        self.assertIn("upgrade perfgate", notes)
        self.assertIn("3-elsewhere.json: it records", notes)
        self.assertIn("4-wild.json: \"change\" is missing or out of range",
                      notes)
        self.assertIn('6-strange.json: "kind" is neither "push" nor '
                      '"check"', notes)
        self.assertIn('7-blamed.json: "commit" is not a full commit id',
                      notes)
        self.assertIn("notes.txt: not where a record goes", notes)
        self.assertIn("left out %s:README: not where a record goes" % REF,
                      notes)
        self.assertIn("left out %s:zz: not where a record goes" % REF, notes)
        self.assertEqual(doc["points"], 2)
        # The dirty record was read, made safe; two records of head.
        self.assertIn("has 2 records", notes)
        text = self.run_pg("history").stdout
        self.assertNotIn("\x1b", text)
        self.assertNotIn("\u202e", text)

    def planted(self, pushes):
        """Commits, each with a record planted as perfgate writes them:
        `pushes` holds (base_ns, head_ns, change, status) per push, the
        change's interval +-0.3%.  Returns the commits, the first (a
        record made for real, the template) at 0."""
        self.commit({"perfgate.yml": SPIN_CONFIG,
                     "src/spin.c": self.spin(100)}, "base")
        first = self.commit({"README": "0\n"}, "readme")
        self.record(first)
        (path,) = self.files()
        template = json.loads(self.git("show", "%s:%s" % (REF, path)))
        commits = [first]
        planted = {}
        for i, (base, head, change, status) in enumerate(pushes, 1):
            commits.append(self.commit({"README": "%d\n" % i},
                                       "push %d" % i))
            rec = json.loads(json.dumps(template))
            rec.update(commit=commits[i], parent=commits[i - 1],
                       tree=self.git("rev-parse", commits[i] + "^{tree}"),
                       parent_tree=self.git("rev-parse",
                                            commits[i - 1] + "^{tree}"),
                       subject="push %d" % i)
            b = rec["benchmarks"][0]
            b.pop("untouched", None)
            b.update(status=status, base_ns=base, head_ns=head,
                     change=change, change_lo=change - 0.003,
                     change_hi=change + 0.003)
            if base is None:  # the push's code was its parent's
                b.update(untouched=True, change=0, change_lo=None,
                         change_hi=None)
            planted["%s/%s/1-m.json" % (commits[i][:2], commits[i])] = \
                json.dumps(rec).encode()
        self.plant(planted)
        return commits

    def test_a_push_of_its_parents_code_is_drawn_at_its_level(self):
        # Pushes 2-4 and 7 change nothing the benchmark reads (docs, a
        # comment): recorded at no cost, and drawn at the level before
        # them, marked as carried, not left blank; 4 and 7 have the next
        # push's run's time of their code (its base), so only 2 and 3 are
        # carried.
        pushes = []
        for i in range(1, 11):
            if i in (2, 3, 4, 7):
                pushes.append((None, None, 0.0, "unchanged"))
            else:
                level = 100.0 if i < 6 else 150.0
                pushes.append((level, level, 0.0, "unchanged"))
        pushes[5] = (100.0, 150.0, 0.5, "regression")
        commits = self.planted(pushes)
        page = os.path.join(self.tmp, "history.html")
        p, doc = self.history("--html", page)
        (s,) = doc["series"]
        carried = [i for i, c in enumerate(s["carried"]) if c]
        self.assertEqual(carried, [2, 3])
        for i in carried:
            self.assertEqual(s["values"][i], s["values"][i - 1], i)
        self.assertEqual(s["values"][4], 100.0)
        self.assertEqual(s["values"][7], 150.0)
        # The fit weighed only what was measured: one step, at push 6.
        self.assertEqual([cp["label"] for cp in s["changepoints"]],
                         [commits[6]])
        with open(page) as f:
            html = f.read()
        self.assertEqual(html.count('class="pt carried"'), 2)
        self.assertIn("this push's code was its", html)

    def test_records_that_lie_are_not_drawn(self):
        pushes = [(100.0, 100.0, 0.0, "unchanged")] * 4
        commits = self.planted(pushes)
        gap = self.commit({"README": "gap\n"}, "no record of its own")
        (path,) = [f for f in self.files() if commits[2] in f]
        real = json.loads(self.git("show", "%s:%s" % (REF, path)))
        # Filed under a commit this repository does not have, claiming the
        # code of one it does (which has no record of its own): a forged
        # +900% there, before.
        forged = json.loads(json.dumps(real))
        fake = "f" * 40
        forged.update(commit=fake, parent="e" * 40,
                      tree=self.git("rev-parse", gap + "^{tree}"),
                      parent_tree=self.git("rev-parse",
                                           commits[-1] + "^{tree}"))
        forged["benchmarks"][0].update(base_ns=100.0, head_ns=1000.0,
                                       change=9.0, status="regression")
        # A real commit's record dated ten years ahead, ten times slower:
        # it would outrank the true one, being the newest.
        future = json.loads(json.dumps(real))
        future["when"] = real["when"] + 10 * 365 * 86400
        future["benchmarks"][0].update(base_ns=1000.0, head_ns=1000.0)
        # A record that claims another parent than its commit has.
        moved = json.loads(json.dumps(real))
        moved["parent"] = commits[3]
        # A record too large to read: refused before it is inflated.
        big = b'{"pad": "' + b"x" * (5 << 20) + b'"}'
        self.plant({"ff/%s/1-m.json" % fake: json.dumps(forged).encode(),
                    "%s/%s/2-f.json" % (commits[2][:2], commits[2]):
                        json.dumps(future).encode(),
                    "%s/%s/3-p.json" % (commits[2][:2], commits[2]):
                        json.dumps(moved).encode(),
                    "%s/%s/4-big.json" % (commits[2][:2], commits[2]): big})
        p, doc = self.history()
        notes = "\n".join(doc["notes"])
        self.assertIn("1-m.json: its commit ffffffffffff is not in this "
                      "repository", notes)
        self.assertIn("2-f.json: it is dated in the future", notes)
        self.assertIn("3-p.json: its commit %s has another tree or parent "
                      "than it claims" % commits[2][:12], notes)
        self.assertIn("4-big.json: too large for a record", notes)
        (s,) = doc["series"]
        self.assertEqual(s["changepoints"], [], p.stdout)
        values = [v for v in s["values"] if v is not None]
        self.assertTrue(values and max(values) < 200, values)

    def test_a_creep_is_not_a_step_at_its_first_push(self):
        # Levels that rise over five pushes of +2% each (pairs as tight
        # as perfgate's): the first of them moved 2%, not the 10% the
        # levels after it reach.
        # A 25% step just before, as in the fifteen commits, and each
        # run's times 1.5% apart from the last's (another load).
        pushes, level = [], 100.0
        drift = [0, 0.015, -0.015, 0.01, -0.01, 0.015, 0, -0.015, 0.01,
                 -0.01, 0.015, 0]
        for i in range(1, 13):
            change = 0.02 if i in (4, 6, 7, 9, 10) else 0.0
            status = "unchanged"
            if i == 2:
                change, status = 0.25, "regression"
            base = level * (1 + drift[i - 1])
            pushes.append((base, base * (1 + change), change, status))
            level *= 1 + change
        commits = self.planted(pushes)
        p, doc = self.history()
        (s,) = doc["series"]
        self.assertEqual([cp["label"] for cp in s["changepoints"]],
                         [commits[2]], p.stdout)
        (creep,) = s["creeps"]
        self.assertEqual((creep["from_label"], creep["to_label"]),
                         (commits[4], commits[10]))

    def test_a_step_the_gate_measured_stands_whatever_the_levels(self):
        # Each record is its own run: under load, the absolute times of
        # two runs can disagree with what one interleaved pair saw.  The
        # pair the gate judged a regression is a step all the same.
        pushes = []
        for i in range(1, 9):
            base, change = 100.0 + 0.2 * (i % 3), 0.001 * (i % 2)
            pushes.append((base, base * (1 + change), change, "unchanged"))
        pushes[2] = (100.0, 101.0, 0.25, "regression")  # +1% between runs
        commits = self.planted(pushes)
        p, doc = self.history()
        (s,) = doc["series"]
        steps = [cp["label"] for cp in s["changepoints"]]
        self.assertEqual(steps, [commits[3]], p.stdout)
        self.assertAlmostEqual(s["changepoints"][0]["change"], 0.25,
                               delta=0.001)

    def test_a_step_the_records_show_is_measured_again_and_bisected(self):
        # A 50% step in two commits nobody recorded (a push of several):
        # the levels show it between the last record before and the first
        # after; --confirm measures those two commits again, interleaved,
        # and bisects to the commit that made it.
        # (Each commit's code its own: none is drawn from another's
        # record, which would measure the gap.)
        c = {}
        for i, (subject, rounds) in enumerate([
                ("base", 200), ("a", 201), ("b", 202), ("c", 203), ("d", 204),
                ("slower", 300), ("e", 301), ("f", 302), ("g", 303),
                ("h", 304)]):
            files = {"src/spin.c": self.spin(rounds)}
            if not i:
                files["perfgate.yml"] = SPIN_CONFIG
            c[subject] = self.commit(files, subject)
        for subject in ("a", "b", "c", "d", "f", "g", "h"):
            self.record(c[subject])
        p, doc = self.history()
        (s,) = doc["series"]
        (cp,) = s["changepoints"]
        # (Between d and e nothing was measured: either may be named.)
        self.assertIn(cp["label"], (c["slower"], c["e"]), p.stderr)
        self.assertEqual(cp["state"], "suspected")
        self.assertIn("1 suspected: 'perfgate history --confirm'", p.stderr)
        p, doc = self.history("--confirm", "-j", "2", "--html",
                              os.path.join(self.tmp, "h.html"))
        (cp,) = doc["series"][0]["changepoints"]
        self.assertEqual(cp["state"], "confirmed", p.stderr)
        self.assertEqual((cp["check"]["parent"], cp["check"]["commit"]),
                         (c["d"], c["e"]))
        self.assertGreater(cp["check"]["change"], 0.2)
        self.assertEqual(cp["check"]["culprit"]["commit"], c["slower"])
        self.assertIn("1 measured again", p.stderr)
        self.assertIn("confirmed: measured again %s..%s" % (
            c["d"][:10], c["e"][:10]), p.stderr)
        self.assertIn("bisected to %s slower" % c["slower"][:10], p.stderr)
        with open(os.path.join(self.tmp, "h.html"), encoding="utf-8") as f:
            self.assertIn("bisected to", f.read())
        # Kept on the ref: asked again, nothing is measured.
        p, doc = self.history("--confirm")
        self.assertNotIn("measured again, kept", p.stderr)
        self.assertEqual(doc["series"][0]["changepoints"][0]["state"],
                         "confirmed")

    def test_a_step_that_is_not_there_is_not_confirmed(self):
        # Records that say +25% where the code did not change (a README):
        # measured again, the two sides are the same code.
        pushes = [(100.0, 100.1, 0.001, "unchanged")] * 3 + [
            (100.0, 125.0, 0.25, "regression")] + [
            (125.0, 125.1, 0.001, "unchanged")] * 3
        commits = self.planted(pushes)
        p, doc = self.history("--confirm")
        (cp,) = doc["series"][0]["changepoints"]
        self.assertEqual(cp["label"], commits[4])
        self.assertEqual(cp["state"], "not confirmed", p.stderr)
        self.assertEqual(cp["check"]["parent"], commits[3])
        self.assertEqual(cp["check"]["change"], 0)
        self.assertNotIn("culprit", cp["check"])
        self.assertIn("not confirmed: measured again", p.stderr)
        # Another machine's series is left to that machine.
        p = self.run_pg("history", "--confirm", "--machine", "elsewhere",
                        ok=(2,))
        self.assertIn("no perfgate record", p.stderr)
        for args, message in [(("--push", "origin"), "--push pushes what"),
                              (("--series", "x.csv", "--confirm"),
                               "--series reads a file")]:
            p = self.run_pg("history", *args, ok=(2,))
            self.assertIn(message, p.stderr)

    def test_a_page_draws_every_machine_and_links_commits(self):
        pushes = [(100.0, 100.1, 0.001, "unchanged")] * 3 + [
            (100.0, 125.0, 0.25, "regression")] + [
            (125.0, 125.1, 0.001, "unchanged")] * 3
        commits = self.planted(pushes)
        # The same pushes on a second machine, twice as slow.
        other = {}
        for path in self.files():
            rec = json.loads(self.git("show", "%s:%s" % (REF, path)))
            rec["machine"]["name"] = "arm <runner>"
            for b in rec["benchmarks"]:
                for key in ("base_ns", "head_ns"):
                    if b.get(key) is not None:
                        b[key] *= 2
            other[path.rsplit("/", 1)[0] + "/9-arm.json"] = \
                json.dumps(rec).encode()
        self.plant(other)
        self.git("remote", "add", "origin",
                 "https://someone:SECRET@github.com/owner/repo.git")
        html = os.path.join(self.tmp, "history.html")
        ci = {k: v for k, v in os.environ.items()
              if k not in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY",
                           "CI_PROJECT_URL")}
        with mock.patch.dict(os.environ, ci, clear=True):
            p = self.run_pg("history", "--html", html)
        with open(html, encoding="utf-8") as f:
            page = f.read()
        check_page(self, page, 1)
        self.assertEqual(page.count('<path class="line"'), 2)
        self.assertIn("arm &lt;runner&gt;", page)
        self.assertIn("test machine", page)
        self.assertIn('<a href="https://github.com/owner/repo/commit/%s">'
                      % commits[4], page)
        self.assertNotIn("SECRET", page + p.stdout + p.stderr)
        # The step on both machines, each its own row.
        self.assertEqual(page.count('<tr class="cp up">'), 2, p.stdout)

    def test_a_pull_requests_comment_says_how_main_moved(self):
        pushes = [(100.0, 100.5, 0.005, "unchanged")] * 3 + [
            (100.0, 125.0, 0.25, "regression")] + [
            (125.0, 125.5, 0.004, "unchanged")] * 2
        self.planted(pushes)
        base = self.git("rev-parse", "HEAD")
        self.commit({"src/spin.c": self.spin(101)}, "a pull request")
        md = os.path.join(self.tmp, "comment.md")
        out = os.path.join(self.tmp, "result.json")
        self.run_pg("compare", base, "HEAD", "--json", out, "--markdown", md,
                    "--max-time", "1s", "-q", ok=(0, 1))
        with open(out) as f:
            result = json.load(f)
        main = result["benchmarks"][0]["main"]
        self.assertEqual(main["pushes"], 7)  # the first record, planted six
        expected = 1.005 ** 3 * 1.25 * 1.004 ** 2 - 1
        self.assertAlmostEqual(main["change"], expected, delta=0.002)
        self.assertEqual(main["steps"], 1)
        self.assertEqual(result["main_machine"], "test machine")
        with open(md, encoding="utf-8") as f:
            comment = f.read()
        self.assertRegex(comment, r"Main before the base, over its last 7 "
                         r"recorded pushes \(history on test machine\): "
                         r"spin \+2[78]\.\d% \(1 step\)")
        # Without a history, no such line.
        self.git("update-ref", "-d", REF)
        self.run_pg("compare", base, "HEAD", "--json", out, "--markdown", md,
                    "--max-time", "1s", "-q", ok=(0, 1))
        with open(md, encoding="utf-8") as f:
            self.assertNotIn("Main before the base", f.read())

    def test_counts_are_kept_beside_times_and_read(self):
        # record --measure all keeps each push's instructions beside its
        # time (format 2); history shows that series as its own, with the
        # step where the work grew; a push that changes nothing is carried
        # in both; a record of times alone (format 1, as before) still
        # reads; --measure instructions keeps counts alone; and a pull
        # request's comment says how main moved by the count.
        if not shutil.which("valgrind"):
            self.skipTest("valgrind is not installed")
        c = {}
        for subject, files in [
                ("base", {"perfgate.yml": SPIN_CONFIG,
                          "src/spin.c": self.spin(200)}),
                ("other code", {"src/spin.c": self.spin(200, tag=1)}),
                ("readme", {"README": "1\n"}),
                ("readme 2", {"README": "2\n"}),
                ("the step", {"src/spin.c": self.spin(260, tag=1)}),
                ("times only", {"src/spin.c": self.spin(260, tag=2)}),
                ("counts only", {"src/spin.c": self.spin(260, tag=3)})]:
            c[subject] = self.commit(files, subject)
        for subject in ("other code", "readme", "readme 2", "the step"):
            self.record("--measure", "all", "--counter", "callgrind",
                        c[subject])
            if subject == "other code":
                (path,) = self.files()
                rec = json.loads(self.git("show", "%s:%s" % (REF, path)))
                if "count" not in rec["benchmarks"][0]:
                    # (valgrind cannot run a sanitizer's build)
                    self.skipTest("nothing was counted here")
        self.record(c["times only"])
        self.record("--measure", "instructions", "--counter", "callgrind",
                    c["counts only"])
        formats = sorted(json.loads(self.git("show", "%s:%s" % (REF, f)))
                         ["perfgate_record"] for f in self.files())
        self.assertEqual(formats, [1, 2, 2, 2, 2, 2])
        page = os.path.join(self.tmp, "history.html")
        p, doc = self.history("--html", page)
        times, counts = doc["series"]
        self.assertEqual(times["name"], "spin")
        self.assertNotIn("metric", times)
        self.assertEqual(counts["name"], "spin (instructions)")
        self.assertEqual(counts["metric"], "instructions")
        self.assertEqual(counts["counter"], "callgrind")
        self.assertGreater(counts["floor"], 0)
        v = counts["values"]
        # Other code; a readme (carried); a readme (counted as the step's
        # base); the step; times alone (counted as the next push's base);
        # counts alone.
        self.assertEqual(counts["carried"], [False, True] + [False] * 4)
        self.assertEqual(v[0], v[1])
        self.assertAlmostEqual(v[2] / v[0], 1, delta=0.005)
        self.assertAlmostEqual(v[3] / v[0], 1.25, delta=0.05)
        self.assertAlmostEqual(v[4] / v[3], 1, delta=0.005)
        self.assertAlmostEqual(v[5] / v[3], 1, delta=0.005)
        self.assertEqual([cp["label"] for cp in counts["changepoints"]],
                         [c["the step"]])
        self.assertIsNotNone(times["values"][4])
        self.assertIsNone(times["values"][5])  # counted, not timed
        self.assertIn("spin (instructions)", p.stderr)
        self.assertRegex(p.stderr, r"\d+,\d{3} instr → \d+,\d{3} instr")
        with open(page, encoding="utf-8") as f:
            self.assertIn("<h2>spin (instructions)</h2>", f.read())
        # The comment's line on main: by the count.
        self.commit({"src/spin.c": self.spin(261, tag=3)}, "a pull request")
        md = os.path.join(self.tmp, "comment.md")
        out = os.path.join(self.tmp, "result.json")
        self.run_pg("compare", c["counts only"], "HEAD", "--json", out,
                    "--markdown", md, "--max-time", "1s", "-q", ok=(0, 1))
        with open(out) as f:
            main = json.load(f)["benchmarks"][0]["main"]
        self.assertEqual(main["metric"], "instructions")
        self.assertAlmostEqual(main["change"], v[5] / v[0] - 1, delta=0.01)
        with open(md, encoding="utf-8") as f:
            self.assertRegex(f.read(), r"spin \+2\d\.\d% in instructions "
                                       r"\(1 step\)")

    def test_the_heap_is_a_series_where_it_moved(self):
        # Each record keeps the heap per call; history draws allocations
        # and the peak as series of their own, every change between a
        # push and its parent a step (the heap is counted exactly); and
        # says of a
        # benchmark whose heap never moved that it did not (no series).
        allocs = fixture("allocs.c")
        c = {}
        for subject, files in [
                ("base", {"perfgate.yml": fixture("allocs.yml") +
                          SPIN_CONFIG.split("benchmarks:\n", 1)[1],
                          "src/allocs.c": allocs,
                          "src/spin.c": self.spin(100)}),
                ("spin 1% more", {"src/spin.c": self.spin(101)}),
                ("one allocation more",
                 {"src/allocs.c": "#define EXTRA 24\n" + allocs}),
                ("a larger copy",
                 {"src/allocs.c": "#define EXTRA 24\n#define MORE 64\n" +
                  allocs}),
                ("spin allocates",
                 {"src/spin.c": "#include <stdlib.h>\n#define spin inner\n"
                  + self.spin(101) + "#undef spin\nuint64_t spin(const "
                  "uint8_t *data, size_t len)\n{\n    void *volatile p = "
                  "malloc(16);\n    free(p);\n    return inner(data, len);"
                  "\n}\n"})]:
            c[subject] = self.commit(files, subject)
        for subject in ("spin 1% more", "one allocation more", "a larger copy",
                        "spin allocates"):
            self.record(c[subject])
        kept = [b for path in self.files() for b in json.loads(
            self.git("show", "%s:%s" % (REF, path)))["benchmarks"]
            if "memory" in b]
        if not kept:
            self.skipTest("the heap is not counted here (a sanitizer's "
                          "build)")
        # Up to the larger copy: spin allocates nothing where measured.
        p, doc = self.history("--rev", c["a larger copy"])
        by_name = {s["name"]: s for s in doc["series"]}
        self.assertEqual(sorted(by_name), ["checksum",
                                           "checksum (allocations)",
                                           "checksum (peak heap)", "spin"])
        self.assertIn("the heap per call did not move over these pushes "
                      "(not drawn): spin", doc["notes"])
        page = os.path.join(self.tmp, "history.html")
        p, doc = self.history("--html", page)
        by_name = {s["name"]: s for s in doc["series"]}
        n = by_name["checksum (allocations)"]
        self.assertEqual(n["metric"], "allocations")
        self.assertNotIn("counter", n)
        # The first push (its parent's code here) at the level the next
        # record measured its parent at; each case makes one allocation a
        # call, then two.
        self.assertEqual(n["values"], [2, 4, 4, 4])
        self.assertEqual(n["change"], [0, 1.0, 0, 0])
        self.assertEqual([cp["label"] for cp in n["changepoints"]],
                         [c["one allocation more"]])
        self.assertEqual(n["changepoints"][0]["change"], 1.0)
        peak = by_name["checksum (peak heap)"]
        # The largest case's peak: 4096 bytes, then 4096 + 64.
        self.assertEqual(peak["values"], [4096, 4096, 4160, 4160])
        self.assertEqual([cp["label"] for cp in peak["changepoints"]],
                         [c["a larger copy"]])
        self.assertIn("checksum (allocations)", p.stderr)
        self.assertIn("2 allocs → 4 allocs (+100.0%), counted exactly", p.stderr)
        self.assertIn("4.0 KiB → 4.1 KiB", p.stderr)
        # From none to one allocation a call: a step with no fraction.
        n = by_name["spin (allocations)"]
        self.assertEqual(n["values"], [0, 0, 0, 1])
        self.assertEqual([(cp["label"], cp["change"])
                          for cp in n["changepoints"]],
                         [(c["spin allocates"], None)])
        self.assertIn("0 allocs → 1 alloc, counted exactly", p.stderr)
        self.assertEqual(doc["notes"], [])
        with open(page, encoding="utf-8") as f:
            self.assertIn("<h2>checksum (allocations)</h2>", f.read())

    def test_refusals(self):
        base = self.commit({"perfgate.yml": SPIN_CONFIG,
                            "src/spin.c": self.spin(100)}, "base")
        p = self.record(base, ok=(2,))
        self.assertIn("has no parent", p.stderr)
        p = self.record("--ref", "refs/heads/main", ok=(2,))
        self.assertIn("must be under refs/perfgate/", p.stderr)
        self.assertEqual(self.git("rev-parse", "main"), base)
        p, _ = self.history(ok=(2,))
        self.assertIn("no perfgate record", p.stderr)
        self.assertIn("perfgate record", p.stderr)
        p, _ = self.history("--rev", "nope", ok=(2,))
        self.assertIn("'nope' is not a commit", p.stderr)


if __name__ == "__main__":
    unittest.main()
