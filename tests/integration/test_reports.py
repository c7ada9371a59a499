"""perfgate report, the HTML page and --profile."""
import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from harness import (CONFIG, LANES, PERFGATE, RepoTest, SERIAL, TWICE,  # noqa: E402
                     fixture)


# The sum with every term passing through the heap: most of its time is
# spent in libc's malloc and free, which it calls.
ALLOCATES = fixture("allocates.c")


def render(out, data, name):
    """`perfgate report --markdown` of `data` saved as NAME.json in `out`:
    the process, and the comment it wrote."""
    path = os.path.join(out, name + ".json")
    with open(path, "w") as f:
        json.dump(data, f)
    md = os.path.join(out, name + ".md")
    p = subprocess.run([PERFGATE, "report", "--markdown", md, path],
                       capture_output=True, text=True)
    with open(md, encoding="utf-8") as f:
        return p, f.read()


class Reports(RepoTest):
    def test_report_renders_a_saved_result(self):
        self.base_repo()
        self.commit({"src/sum.c": TWICE})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1)
        md = os.path.join(self.out, "again.md")
        proc = subprocess.run([PERFGATE, "report", "--markdown", md,
                               os.path.join(self.out, "result.json")],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        with open(md) as f:
            self.assertEqual(f.read(), r.markdown)

    def test_the_comment_fits_whatever_a_saved_result_holds(self):
        self.base_repo()
        self.commit({"src/sum.c": TWICE})
        r = self.perfgate("HEAD~1", "HEAD")
        bench = r.json["benchmarks"][0]
        for name, edit in (
                ("warnings", lambda d: d["system"].__setitem__(
                    "warnings", ["w%d %s" % (i, "x" * 300)
                                 for i in range(300)])),
                ("shards", lambda d: d.__setitem__(
                    "shards", [{"index": i + 1, "count": 100000,
                                "host": "host-%d" % i, "seconds": 1,
                                "benchmarks": 1} for i in range(100000)])),
                ("culprits", lambda d: d.__setitem__(
                    "benchmarks", [dict(bench, name="b%d" % i, culprit={
                        "commit": "abcdef1234", "subject": "s" * 400,
                        "author": "a" * 100, "candidates": 1})
                        for i in range(400)]))):
            with self.subTest(name=name):
                data = json.loads(json.dumps(r.json))
                edit(data)
                path = os.path.join(self.out, "big-%s.json" % name)
                with open(path, "w") as f:
                    json.dump(data, f)
                md = os.path.join(self.out, "big.md")
                p = subprocess.run([PERFGATE, "report", "--markdown", md,
                                    path], capture_output=True, text=True)
                self.assertIn(p.returncode, (0, 1), p.stderr)
                with open(md, encoding="utf-8") as f:
                    comment = f.read()
                self.assertLess(len(comment), 65536)
                self.assertTrue(comment.startswith("<!-- perfgate -->"))

    def test_a_run_whose_own_noise_passes_half_the_floor_says_so(self):
        self.base_repo()
        self.commit({"src/sum.c": TWICE})
        r = self.perfgate("HEAD~1", "HEAD")
        said = "this run's own noise was more than half the floor"
        # The same result saved with its interval narrowed to ±1% says
        # nothing; widened past half the floor (±6% against 5%), it says
        # so. (As measured, the interval depends on the machine's load.)
        data = json.loads(json.dumps(r.json))
        b = data["benchmarks"][0]
        b["change_interval"] = [b["change"] - 0.01, b["change"] + 0.01]
        for c in b["cases"]:
            c["change_interval"] = [c["change"] - 0.01, c["change"] + 0.01]
        p, comment = render(self.out, data, "quiet")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertNotIn(said, p.stdout + comment)
        b["change_interval"] = [b["change"] - 0.06, b["change"] + 0.06]
        p, comment = render(self.out, data, "noisy")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(said, p.stdout)
        self.assertIn("sum's interval spans ±6.0% against a 5% floor",
                      p.stdout)
        self.assertIn(said, comment)

    def test_a_benchmark_with_a_floor_of_its_own(self):
        self.base_repo(config=CONFIG.replace(
            "    sources: [src/sum.c]",
            "    sources: [src/sum.c]\n    noise_floor: 40%"))
        self.commit({"src/sum.c": TWICE})
        r = self.perfgate("HEAD~1", "HEAD")
        b = r.bench()
        self.assertEqual(b["noise_floor"], 0.4, r.stdout)
        self.assertIn("sum: held to a floor of its own, 40%", r.stdout)
        # The command's --noise-floor outranks it.
        flag = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "5%")
        self.assertNotIn("noise_floor", flag.bench())
        # A self-check holds its noise to the benchmark's floor: half of
        # 40%, not of the run's 5%.
        aa = self.perfgate("--aa")
        self.assertAlmostEqual(aa.json["aa"]["limit"], 0.2, places=9)

    def test_github_actions_sets_a_ten_percent_floor(self):
        self.base_repo()
        self.commit({"src/sum.c": SERIAL + "/* again */\n"})
        # No event: the last commit against the one before it.
        r = self.perfgate(env={"GITHUB_ACTIONS": "true"})
        self.assertEqual(r.code, 0, r.stderr)
        self.assertEqual(r.json["head"]["commit"],
                         self.git("rev-parse", "HEAD"))
        self.assertEqual(r.json["base"]["commit"],
                         self.git("rev-parse", "HEAD~1"))
        self.assertEqual(r.json["noise_floor"], 0.10)
        self.assertEqual(r.json["noise_floor_source"], "GITHUB_ACTIONS")
        self.assertIn("GITHUB_ACTIONS", r.markdown)


class Html(RepoTest):
    """--html: one self-contained page, for every benchmark the change
    against the floor and for every case both sides' samples and rounds;
    opened in a real browser where there is one."""

    def setUp(self):
        super().setUp()
        self.base_repo(solution=LANES)
        self.commit({"src/sum.c": SERIAL})
        self.html = os.path.join(self.out, "report.html")

    def charts(self, text):
        return text.count('<svg class="chart"')

    def page_of(self, saved, name):
        """The page `report --html` draws from the result `saved`."""
        path = os.path.join(self.out, name)
        with open(path, "w") as f:
            json.dump(saved, f)
        subprocess.run([PERFGATE, "report", "--html", self.html, path],
                       capture_output=True)
        with open(self.html, encoding="utf-8") as f:
            return f.read()

    def test_a_page_with_every_chart_and_nothing_to_fetch(self):
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "20%",
                          "--html", self.html)
        b = r.bench()
        # Every sample kept, in round order, for the pictures.
        for c in b["cases"]:
            self.assertEqual(len(c["samples"]["base"]), b["rounds"])
            self.assertEqual(len(c["samples"]["head"]), b["rounds"])
            self.assertAlmostEqual(min(c["samples"]["base"]), c["base_ns"],
                                   delta=c["base_ns"] * 0.5 + 5)
        with open(self.html, encoding="utf-8") as f:
            page = f.read()
        # One chart of the change, and two per case.
        self.assertEqual(self.charts(page), 1 + 2 * len(b["cases"]))
        for fetch in ("http:", "https:", "src=", "@import", "url("):
            self.assertNotIn(fetch, page)
        self.assertIn("default-src 'none'", page)
        # Its one script runs by its hash; nothing inline else would.
        self.assertNotIn("script-src 'unsafe-inline'", page)
        script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
        digest = base64.b64encode(
            hashlib.sha256(script.encode()).digest()).decode()
        self.assertIn("script-src 'sha256-%s'" % digest, page)
        # The comment gets a small chart GitHub draws (Mermaid).
        self.assertIn("```mermaid\nxychart-beta", r.markdown)
        self.assertIn('x-axis ["sum"]', r.markdown)
        # Rendered again from the saved result, the same page.
        again = os.path.join(self.out, "again.html")
        p = subprocess.run([PERFGATE, "report", "--html", again,
                            os.path.join(self.out, "result.json")],
                           capture_output=True, text=True)
        self.assertIn(p.returncode, (0, 1), p.stderr)
        with open(again, encoding="utf-8") as f:
            self.assertEqual(self.charts(f.read()), self.charts(page))

    def test_one_stalled_round_does_not_flatten_a_regression(self):
        """A 7x regression with one round stalled 100x: the axis stops at
        the sides' fences (and says so), so base and head stay far apart;
        the charts draw what the headline counts, overhead off."""
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "20%")
        saved = dict(r.json)
        b = saved["benchmarks"][0]
        c = b["cases"][0]
        c["overhead_ns"] = 20.0
        c["samples"] = {"base": [100.0 + i % 3 for i in range(49)] + [10000.0],
                        "head": [700.0 + i % 5 for i in range(50)]}
        c["base_ns"], c["head_ns"] = 80.0, 680.0
        page = self.page_of(saved, "stalled.json")
        chart = re.search(r'<svg class="chart" data-kind="distribution".*?'
                          r'</svg>', page, re.S).group(0)
        xs = {side: [float(x) for x in re.findall(
            r'<rect x="([\d.]+)"[^>]*data-side="%s"' % side, chart)]
            for side in ("base", "head")}
        width = float(re.search(r'width="(\d+)"', chart).group(1))
        self.assertTrue(xs["base"] and xs["head"], chart)
        self.assertGreater(min(xs["head"]) - max(xs["base"]), width / 2)
        self.assertIn("1 sample beyond", page)
        # The heading's times, and the axis starting at the headline's.
        head = re.search(r"<h3>Case [^:]*: ([^<]*?) → ([^:<]*):", page)
        self.assertIsNotNone(head, page)
        ticks = re.findall(r'class="tick" text-anchor="start">([^<]*)<',
                           chart)
        self.assertEqual(ticks[0], head.group(1))
        # The rounds over time: a y axis with three labelled times.
        rounds = re.search(r'data-kind="rounds".*?</svg>', page, re.S).group(0)
        self.assertEqual(len(re.findall(r'text-anchor="end">[^<]*s<',
                                        rounds)), 3, rounds)
        self.assertIn("round 50", rounds)
        # A table of every benchmark at the top, linked to its section.
        self.assertLess(page.index('<table class="summary">'),
                        page.index('<section'))
        self.assertIn('<a href="#b0">sum</a>', page)
        self.assertIn('id="b0"', page)

    def test_what_user_code_says_is_text_not_markup(self):
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "20%")
        saved = dict(r.json)
        saved["benchmarks"][0]["message"] = "<script>alert(1)</script>"
        page = self.page_of(saved, "hostile.json")
        self.assertIn("&lt;script&gt;alert(1)&lt;/script&gt;", page)
        self.assertNotIn("<script>alert", page)

    def test_forged_commit_ids_put_no_link_in_the_comment(self):
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "20%")
        saved = dict(r.json)
        # Ten characters are shown: enough to end the code span and link.
        forged = "a`[a](/x)`"
        saved["base"]["commit"] = forged
        saved["head"]["commit"] = forged
        saved["benchmarks"][0]["culprit"] = {"commit": forged,
                                             "subject": "s", "author": "a"}
        p, comment = render(self.out, saved, "forged")
        self.assertIn(p.returncode, (0, 1), p.stderr)
        self.assertNotIn("](/x)", comment)
        self.assertNotIn("](/x)", p.stdout)

    def test_it_opens_in_a_browser(self):
        browser = shutil.which("chromium") or shutil.which("chromium-browser")
        if not browser:
            self.skipTest("no chromium (./test.sh installs it)")
        self.perfgate("HEAD~1", "HEAD", "--noise-floor", "20%",
                      "--html", self.html)
        with open(self.html, encoding="utf-8") as f:
            drawn = self.charts(f.read())
        args = [browser, "--headless", "--no-sandbox", "--disable-gpu",
                "--hide-scrollbars", "--user-data-dir=" +
                os.path.join(self.tmp, "profile")]
        url = "file://" + self.html
        dom = subprocess.run(args + ["--enable-logging=stderr", "--v=0",
                                     "--dump-dom", url],
                             capture_output=True, text=True, timeout=120)
        # The page's script ran (it counts the charts it finds) and threw
        # nothing.
        self.assertIn('data-charts="%d"' % drawn, dom.stdout, dom.stderr[-2000:])
        self.assertNotIn("Uncaught", dom.stderr)
        shot = os.path.join(self.out, "report.png")
        subprocess.run(args + ["--window-size=1200,1600",
                               "--screenshot=" + shot, url],
                       capture_output=True, timeout=120, cwd=self.out)
        with open(shot, "rb") as f:
            png = f.read()
        self.assertTrue(png.startswith(b"\x89PNG"))
        # Charts are drawn: far more than a blank page's bytes.
        self.assertGreater(len(png), 30000)


class Profile(RepoTest):
    """compare --profile: where a regression's worst case spent its
    instructions, base and head side by side, from callgrind when it is
    there, and said so when it is not."""

    def setUp(self):
        super().setUp()
        self.base_repo(solution=LANES)
        self.commit({"src/sum.c": SERIAL})

    def profiled(self, base):
        """compare BASE HEAD --profile on a regression: the result, its
        benchmark and its profile; skipped where callgrind cannot run."""
        if not shutil.which("valgrind"):
            self.skipTest("no valgrind")
        r = self.perfgate(base, "HEAD", "--noise-floor", "20%", "--profile")
        b = r.bench()
        self.assertEqual(b["status"], "regression", r.stdout)
        p = b["profile"]
        if "AddressSanitizer" in (p["skipped"] or ""):
            self.skipTest(p["skipped"])
        return r, b, p

    def test_a_regression_is_profiled_on_both_sides(self):
        r, b, p = self.profiled("HEAD~1")
        self.assertEqual((p["tool"], p["unit"]), ("callgrind", "instructions"))
        self.assertIn(p["case"], [c["name"] for c in b["cases"]])
        top = p["functions"][0]
        self.assertEqual(top["function"], "solution")
        self.assertGreater(top["base"], 0)
        self.assertGreater(top["head"], 0)
        # Lines of the user's file, named as in the tree.
        self.assertTrue(p["lines"])
        self.assertTrue(all(l["file"] == "src/sum.c" for l in p["lines"]))
        self.assertIn("Where the time went", r.markdown)
        self.assertIn("where the time went", r.stdout)
        # And from the saved result.
        md = os.path.join(self.out, "again.md")
        subprocess.run([PERFGATE, "report", "--markdown", md,
                        os.path.join(self.out, "result.json")],
                       capture_output=True)
        with open(md) as f:
            self.assertIn("Where the time went", f.read())

    def test_the_profiles_libc_row(self):
        """Work a change moves into libc (malloc, free) is where the user's
        code asked for it: the function's inclusive cost carries it, and a
        row says what was spent outside the user's code."""
        self.commit({"src/sum.c": ALLOCATES})
        r, _, p = self.profiled("HEAD~2")
        top = p["functions"][0]
        self.assertEqual(top["function"], "solution")
        out = p["outside"]
        called = {f["function"]: f for f in out["functions"]}
        self.assertIn("malloc", called, out)
        self.assertIn("free", called, out)
        self.assertTrue(called["malloc"]["object"].startswith("libc"),
                        called["malloc"])
        self.assertIsNone(called["malloc"]["base"])
        # Inclusive is own + calls: here, what solution called outside.
        self.assertAlmostEqual(top["head"], top["head_self"] + out["head"],
                               delta=top["head"] * 0.01)
        # Most of the head's work is outside: its own cost grew far less
        # than all it asked for, as the measured time did.
        self.assertGreater(out["head"], top["head_self"])
        self.assertGreater(top["head"] / top["base"],
                           2 * top["head_self"] / top["base_self"])
        self.assertGreater(top["head"] / top["base"], 4)
        self.assertIn("outside your code", r.stdout)
        self.assertIn("malloc (libc", r.stdout)
        self.assertIn("| outside your code |", r.markdown)
        self.assertIn("| ↳ malloc (libc", r.markdown)
        # The same from the saved result.
        again = subprocess.run([PERFGATE, "report",
                                os.path.join(self.out, "result.json")],
                               capture_output=True, text=True)
        self.assertIn("malloc (libc", again.stdout)

    def test_lines_pair_by_their_text(self):
        """Lines added above the loop move its numbers, not its pairing:
        the same statement meets itself, and shows its text."""
        self.commit({"src/sum.c": "/* a comment\n   of three lines\n */\n" +
                     TWICE})
        r, _, p = self.profiled("HEAD~1")
        rows = [l for l in p["lines"] if l.get("text") == "s += in[i];"]
        self.assertTrue(rows, p["lines"])
        row = rows[0]
        self.assertEqual(row["line"], row["base_line"] + 3, row)
        self.assertGreater(row["base"], 0)
        self.assertGreater(row["head"], 0)
        self.assertIn("(was %d)" % row["base_line"], r.stdout)
        self.assertIn("<code>s += in\\[i\\];</code>", r.markdown)

    def test_without_a_profiler_it_says_so(self):
        # PATH without valgrind: everything else of /usr/bin is there.
        bin_dir = os.path.join(self.tmp, "bin")
        os.makedirs(bin_dir)
        for name in os.listdir("/usr/bin"):
            if not name.startswith("valgrind"):
                os.symlink(os.path.join("/usr/bin", name),
                           os.path.join(bin_dir, name))
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "20%",
                          "--profile", env={"PATH": bin_dir})
        b = r.bench()
        self.assertEqual(b["status"], "regression", r.stdout + r.stderr)
        self.assertIsNone(b["profile"]["tool"])
        self.assertIn("install valgrind", b["profile"]["skipped"])
        self.assertIn("no profile", r.markdown)

    def test_nothing_is_profiled_without_the_option(self):
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "20%")
        self.assertIsNone(r.bench()["profile"])


if __name__ == "__main__":
    unittest.main()
