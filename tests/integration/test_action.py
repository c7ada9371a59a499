"""The GitHub Action's steps (action.yml -> action/action.py), run as the
action runs them, against a fake pull-request event, a shallow clone, and a
loopback server standing in for GitHub's REST API."""
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (CI_VARIABLES, CONFIG, PERFGATE, SERIAL, TWICE,  # noqa
                     RepoTest)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
ACTION = os.path.join(ROOT, "action", "action.py")
TOKEN = "ghs_secretTOKENvalue1234567890"
MARKER = "<!-- perfgate -->"
BOT = "github-actions[bot]"


class FakeGitHub(http.server.ThreadingHTTPServer):
    """Issue comments: list (paginated), create, update; every request is
    recorded."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.comments = []  # {"id", "body", "user": {"login"}}
        self.requests = []
        self.fail = False
        self.page_size = 100
        self.next_id = 1000
        self.poster = BOT    # who the token posts as
        self.user = None     # GET /user: None answers 403, as for
        #                      GITHUB_TOKEN's installation token
        self.pulls = []      # open pull requests, as GET .../pulls lists
        self.redirect = None  # a URL every comments GET is sent to
        self.link_to = None   # a URL the comments GET names as next

    def start(self):
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return "http://127.0.0.1:%d" % self.server_address[1]


class JsonHandler(http.server.BaseHTTPRequestHandler):
    """Every method to handle_any(); JSON replies."""

    def log_message(self, *args):
        pass

    def reply(self, code, body=None, headers=()):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PATCH(self):
        self.handle_any("PATCH")

    def do_PUT(self):
        self.handle_any("PUT")


class Handler(JsonHandler):
    def handle_any(self, method):
        srv = self.server
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        srv.requests.append({"method": method, "path": self.path,
                             "auth": self.headers.get("Authorization"),
                             "body": body})
        if srv.fail:
            return self.reply(srv.fail, {"message": "boom"})
        if self.path == "/user" and method == "GET":
            if srv.user is None:
                return self.reply(403, {"message": "Resource not accessible "
                                        "by integration"})
            return self.reply(200, {"login": srv.user})
        if self.path.startswith("/repos/o/r/pulls?") and method == "GET":
            query = urllib.parse.parse_qs(self.path.split("?", 1)[1])
            owner, _, branch = query["head"][0].partition(":")
            return self.reply(200, [
                p for p in srv.pulls
                if p["head"]["repo"]["full_name"].split("/")[0] == owner and
                p["head"]["ref"] == branch])
        m = re.match(r"^/repos/o/r/issues/(\d+)/comments(\?.*)?$", self.path)
        if m and method == "GET" and srv.redirect:
            return self.reply(302, None, [("Location", srv.redirect)])
        if m and method == "GET" and srv.link_to:
            return self.reply(200, [], [("Link", '<%s>; rel="next"'
                                         % srv.link_to)])
        if m and method == "GET":
            page = int((re.search(r"[?&]page=(\d+)", self.path) or
                        re.match("(1)", "1")).group(1))
            size = srv.page_size
            chunk = srv.comments[(page - 1) * size:page * size]
            headers = []
            if page * size < len(srv.comments):
                headers.append(("Link", '<%s/repos/o/r/issues/%s/comments?'
                                'per_page=%d&page=%d>; rel="next"' % (
                                    "http://127.0.0.1:%d" %
                                    srv.server_address[1], m.group(1), size,
                                    page + 1)))
            return self.reply(200, chunk, headers)
        if m and method == "POST":
            srv.next_id += 1
            srv.comments.append({"id": srv.next_id, "body": body["body"],
                                 "user": {"login": srv.poster}})
            return self.reply(201, srv.comments[-1])
        m = re.match(r"^/repos/o/r/issues/comments/(\d+)$", self.path)
        if m and method == "PATCH":
            for c in srv.comments:
                if c["id"] == int(m.group(1)):
                    c["body"] = body["body"]
                    return self.reply(200, c)
        return self.reply(404, {"message": "Not Found"})


def action_steps(mode="full"):
    """The action.py steps action.yml runs in `mode`, in order: a step
    whose condition names mode: record runs in that mode only, or in
    every other."""
    with open(os.path.join(ROOT, "action.yml")) as f:
        blocks = f.read().split("\n    - name:")
    steps = []
    for block in blocks:
        m = re.search(r'action\.py" (\w+)', block)
        if not m:
            continue
        cond = re.search(r"\n      if: (.*)", block)
        cond = cond.group(1) if cond else ""
        if "inputs.mode == 'record'" in cond:
            wanted = mode == "record"
        elif "inputs.mode != 'record'" in cond:
            wanted = mode != "record"
        else:
            wanted = True
        if wanted:
            steps.append(m.group(1))
    return steps


class Action(RepoTest):
    def setUp(self):
        super().setUp()
        self.server = FakeGitHub()
        self.api = self.server.start()
        self.runner_temp = os.path.join(self.tmp, "runner")
        os.makedirs(self.runner_temp)
        self.output = os.path.join(self.tmp, "github_output")
        self.summary = os.path.join(self.tmp, "step_summary")

    def tearDown(self):
        self.server.shutdown()
        self.server.server_close()
        super().tearDown()

    def pull_request(self, head_source=SERIAL + "/* feature */\n",
                     history=False):
        """main: A, then B; feature from A: C.  A shallow clone of C, as
        actions/checkout makes it, in self.checkout.  With `history`, A
        is a second commit of main, recorded by perfgate record."""
        a = self.base_repo(config=CONFIG.replace("max_time: 1s",
                                                 "max_time: 1s"))
        if history:
            a = self.commit({"src/sum.c": SERIAL + "/* main */\n"})
            p = subprocess.run([PERFGATE, "record", "-q", a], cwd=self.repo,
                               capture_output=True, text=True, timeout=300,
                               env=dict(os.environ, TMPDIR=self.pgtmp))
            self.assertEqual(p.returncode, 0, p.stderr)
        self.git("checkout", "-q", "-b", "feature")
        c = self.commit({"src/sum.c": head_source})
        self.git("checkout", "-q", "main")
        b = self.commit({"README": "main moves on\n"})
        self.checkout = os.path.join(self.tmp, "checkout")
        subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch",
                        "feature", "file://" + self.repo, self.checkout],
                       check=True, capture_output=True)
        return a, b, c

    def event(self, base, head, number=7):
        path = os.path.join(self.tmp, "event.json")
        with open(path, "w") as f:
            json.dump({"pull_request": {"number": number,
                                        "base": {"sha": base},
                                        "head": {"sha": head}}}, f)
        return path

    def step(self, name, event_path, inputs=None, name_of_event=None):
        env = dict(os.environ)
        for var in CI_VARIABLES:
            env.pop(var, None)
        env.update({
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": name_of_event or "pull_request",
            "GITHUB_EVENT_PATH": event_path,
            "GITHUB_OUTPUT": self.output,
            "GITHUB_STEP_SUMMARY": self.summary,
            "GITHUB_REPOSITORY": "o/r",
            "GITHUB_API_URL": self.api,
            "RUNNER_TEMP": self.runner_temp,
            "PERFGATE_BUILD_CACHE_DIR": os.path.join(self.runner_temp,
                                                     "perfgate-builds"),
            "XDG_CACHE_HOME": os.path.join(self.tmp, "xdg"),
            "PERFGATE": PERFGATE,
            "TMPDIR": self.pgtmp,
            "INPUT_WORKING_DIRECTORY": self.checkout,
            "INPUT_GITHUB_TOKEN": TOKEN,
            "INPUT_FAIL_ON_REGRESSION": "true",
        })
        env.update(inputs or {})
        p = subprocess.run([sys.executable, ACTION, name], env=env,
                           capture_output=True, text=True, timeout=600)
        self.assertNotIn(TOKEN, p.stdout + p.stderr)
        return p

    def run_action(self, event_path, inputs=None, name_of_event=None):
        """Every step action.yml runs; the last one's result (the
        verdict), and all the output."""
        log = ""
        result = None
        mode = (inputs or {}).get("INPUT_MODE", "full")
        for name in action_steps(mode):
            result = self.step(name, event_path, inputs, name_of_event)
            log += result.stdout + result.stderr
            if result.returncode != 0 and name != "finish":
                break
        return result, log

    def outputs(self):
        """$GITHUB_OUTPUT parsed as GitHub does (name=value and
        name<<DELIM ... DELIM)."""
        out = {}
        with open(self.output) as f:
            lines = f.read().split("\n")
        i = 0
        while i < len(lines):
            line = lines[i]
            if "<<" in line and "=" not in line.split("<<")[0]:
                name, delim = line.split("<<", 1)
                end = lines.index(delim, i + 1)
                out[name] = "\n".join(lines[i + 1:end])
                i = end + 1
            elif "=" in line:
                name, value = line.split("=", 1)
                out[name] = value
                i += 1
            else:
                i += 1
        return out

    def test_the_action_runs_these_steps(self):
        self.assertEqual(action_steps(),
                         ["fetch", "compare", "publish", "comment", "finish"])
        self.assertEqual(action_steps("record"), ["fetch", "record", "push"])

    def test_a_push_to_main_is_recorded_commit_by_commit_and_pushed(self):
        a = self.base_repo()
        b = self.commit({"README": "one\n"}, "readme")
        c = self.commit({"src/sum.c": SERIAL + "/* two */\n"}, "comment")
        remote = os.path.join(self.tmp, "remote.git")
        self.git("clone", "-q", "--bare", self.repo, remote)
        self.checkout = os.path.join(self.tmp, "checkout")
        subprocess.run(["git", "clone", "-q", "--depth", "1",
                        "file://" + remote, self.checkout],
                       check=True, capture_output=True)
        path = os.path.join(self.tmp, "push.json")
        with open(path, "w") as f:
            json.dump({"before": a, "after": c}, f)
        # measure: all reaches the records (the pushes change no code the
        # benchmark reads: kept as unchanged, counted or not, at no cost).
        result, log = self.run_action(path, {"INPUT_MODE": "record",
                                             "INPUT_MEASURE": "all"},
                                      name_of_event="push")
        self.assertEqual(result.returncode, 0, log)
        self.assertIn("pushed refs/perfgate/history to origin", log)
        files = self.git("ls-tree", "-r", "--name-only",
                         "refs/perfgate/history", cwd=remote).split()
        self.assertEqual(sorted(f.split("/")[1] for f in files),
                         sorted([b, c]))
        for f in files:
            rec = json.loads(self.git("show", "refs/perfgate/history:" + f,
                                      cwd=remote))
            self.assertEqual(rec["perfgate_record"], 2)
            self.assertEqual(rec["benchmarks"][0]["count"]["metric"],
                             "instructions")
        self.assertEqual(self.server.requests, [])

    def test_pull_request_from_a_shallow_checkout(self):
        # main keeps a history: the job fetches it, read only, and the
        # comment says how main moved before the base.
        a, b, c = self.pull_request(history=True)
        result, log = self.run_action(self.event(b, c))
        self.assertEqual(result.returncode, 0, log)
        self.assertIn("the clone is shallow", log)
        out = self.outputs()
        self.assertEqual(out["verdict"], "pass")
        self.assertEqual(out["regressions"], "0")
        with open(out["report-json"]) as f:
            report = json.load(f)
        # Against the merge base, A, not main's tip, B.
        self.assertEqual(report["base"]["commit"], a)
        self.assertEqual(report["head"]["commit"], c)
        self.assertEqual(report["noise_floor"], 0.10)
        with open(self.summary) as f:
            self.assertIn(MARKER, f.read())
        posts = [r for r in self.server.requests if r["method"] == "POST"]
        self.assertEqual(len(posts), 1)
        self.assertEqual(posts[0]["path"], "/repos/o/r/issues/7/comments")
        self.assertEqual(posts[0]["auth"], "Bearer " + TOKEN)
        self.assertTrue(posts[0]["body"]["body"].startswith(MARKER))
        self.assertIn("Main before the base, over its last 1 recorded "
                      "push", posts[0]["body"]["body"])

    def test_a_regression_fails_updates_the_comment_and_annotates(self):
        a, b, c = self.pull_request()
        self.run_action(self.event(b, c))
        # The pull request gets a slow commit; the same comment is updated.
        self.git("checkout", "-q", "feature")
        d = self.commit({"src/sum.c": TWICE})
        subprocess.run(["git", "fetch", "-q", "origin", "feature"],
                       cwd=self.checkout, check=True, capture_output=True)
        subprocess.run(["git", "checkout", "-q", d], cwd=self.checkout,
                       check=True, capture_output=True)
        result, log = self.run_action(self.event(b, d))
        self.assertEqual(result.returncode, 1, log)
        self.assertIn("::error title=perfgate%3A sum regression::", log)
        self.assertEqual(self.outputs()["verdict"], "fail")
        self.assertEqual(self.outputs()["regressions"], "1")
        self.assertEqual(len(self.server.comments), 1)
        self.assertIn("regression", self.server.comments[0]["body"])
        methods = [r["method"] for r in self.server.requests]
        self.assertEqual(methods.count("POST"), 1)
        self.assertEqual(methods.count("PATCH"), 1)
        # fail-on-regression: false lets the step pass.
        finish = self.step("finish", self.event(b, d),
                           {"INPUT_FAIL_ON_REGRESSION": "false"})
        self.assertEqual(finish.returncode, 0)

    def test_the_comment_is_found_on_a_later_page(self):
        self.server.page_size = 30
        self.server.comments = [{"id": i, "body": "hello %d" % i,
                                 "user": {"login": "someone"}}
                                for i in range(1, 71)]
        self.server.comments.insert(50, {"id": 500,
                                         "body": MARKER + "\nold report",
                                         "user": {"login": BOT}})
        a, b, c = self.pull_request()
        result, log = self.run_action(self.event(b, c))
        self.assertEqual(result.returncode, 0, log)
        patches = [r for r in self.server.requests if r["method"] == "PATCH"]
        self.assertEqual([p["path"] for p in patches],
                         ["/repos/o/r/issues/comments/500"])
        gets = [r for r in self.server.requests if r["method"] == "GET"
                and "/comments" in r["path"]]
        self.assertEqual(len(gets), 2)

    def test_a_push_compares_with_the_commit_before_and_does_not_comment(self):
        a, b, c = self.pull_request()
        path = os.path.join(self.tmp, "push.json")
        with open(path, "w") as f:
            json.dump({"before": a, "after": c}, f)
        result, log = self.run_action(path, name_of_event="push")
        self.assertEqual(result.returncode, 0, log)
        with open(self.outputs()["report-json"]) as f:
            report = json.load(f)
        self.assertEqual((report["base"]["commit"], report["head"]["commit"]),
                         (a, c))
        self.assertIn("not a pull request; no comment", log)
        self.assertEqual(self.server.requests, [])

    def test_a_case_slower_under_a_better_total_is_a_warning(self):
        self.checkout = self.repo
        report = {"verdict": "pass", "noise_floor": 0.1, "benchmarks": [
            {"name": "crc", "status": "improvement", "change": -0.5,
             "slower_case": {"name": "n=64", "change": 1.9}}]}
        with open(os.path.join(self.runner_temp, "perfgate.json"), "w") as f:
            json.dump(report, f)
        with open(os.path.join(self.runner_temp, "perfgate.status"),
                  "w") as f:
            f.write("0")
        p = self.step("publish", self.event("a" * 40, "b" * 40))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("::warning title=perfgate%3A crc case slower::the "
                      "total is improvement, but case n=64 is +190.0%25 slower",
                      p.stdout)
        self.assertNotIn("::error", p.stdout)

    def test_shards_measured_apart_and_merged(self):
        a, b, c = self.pull_request()
        self.run_action(self.event(b, c))  # fetches the merge base
        shards = os.path.join(self.tmp, "shards")
        os.makedirs(shards)
        for k in (1, 2):
            p = self.step("compare", self.event(b, c),
                          {"INPUT_SHARD": "%d/2" % k})
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            shutil.copy(os.path.join(self.runner_temp, "perfgate.json"),
                        os.path.join(shards, "shard-%d.json" % k))
        result, log = self.run_action(self.event(b, c), {
            "INPUT_MERGE": os.path.join(shards, "*.json")})
        self.assertEqual(result.returncode, 0, log)
        self.assertIn("perfgate: merge", log)
        with open(self.outputs()["report-json"]) as f:
            report = json.load(f)
        self.assertEqual([s["index"] for s in report["shards"]], [1, 2])
        self.assertEqual([x["name"] for x in report["benchmarks"]], ["sum"])
        self.assertIn("Measured in shards", self.server.comments[-1]["body"])
        # Nothing to merge is an error, said so.
        result, log = self.run_action(self.event(b, c), {
            "INPUT_MERGE": os.path.join(self.tmp, "none", "*.json")})
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("no shard results match", log)

    def test_builds_are_kept_between_runs_unless_told_not_to(self):
        a, b, c = self.pull_request()
        built = []
        for inputs in ({}, {}, {"INPUT_BUILD_CACHE": "false"}):
            result, log = self.run_action(self.event(b, c), inputs)
            self.assertEqual(result.returncode, 0, log)
            with open(self.outputs()["report-json"]) as f:
                bench = json.load(f)["benchmarks"][0]
            built.append((bench["built"]["base"], bench["built"]["head"]))
        self.assertEqual(built, [("compiled", "compiled"), ("cache", "cache"),
                                 ("compiled", "compiled")])
        # The page the action uploads is written where it uploads it from.
        page = os.path.join(self.runner_temp, "perfgate.html")
        with open(page, encoding="utf-8") as f:
            self.assertIn("Identical code", f.read())
        with open(os.path.join(ROOT, "action.yml")) as f:
            self.assertRegex(f.read(), r"uses: actions/upload-artifact@v4\n"
                             r"(?:.*\n){2}\s+path: \$\{\{ runner.temp \}\}"
                             r"/perfgate.html")
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "xdg")))
        # The directory actions/cache keeps is the one perfgate is given.
        with open(os.path.join(ROOT, "action.yml")) as f:
            text = f.read()
        kept = re.findall(r"uses: actions/cache/(restore|save)@v4\n\s+with:"
                          r"\n\s+path: (.+)\n(?:\s+#.*\n)*\s+key: "
                          r"(perfgate-builds-.+)", text)
        given = re.search(r"PERFGATE_BUILD_CACHE_DIR: (.+)", text)
        self.assertEqual([k[0] for k in kept], ["restore", "save"],
                         "action.yml keeps no build cache")
        self.assertEqual({k[1] for k in kept}, {given.group(1)})
        # What is restored is what is saved, and only pushes to the
        # default branch save: a pull request's code never writes a cache
        # that another run starts from.
        self.assertEqual(kept[0][2], kept[1][2])
        save = text[text.index("actions/cache/save@v4") - 600:]
        self.assertRegex(save, r"github.event_name == 'push' && "
                         r"github.ref_name == "
                         r"github.event.repository.default_branch")
        self.assertNotIn("run_id", text)

    def test_the_commit_that_made_it_slower_is_named(self):
        a = self.base_repo()
        self.git("checkout", "-q", "-b", "feature")
        self.commit({"NOTES": "one\n"}, "notes")
        slower = self.commit({"src/sum.c": TWICE}, "twice the work")
        c = self.commit({"NOTES": "two\n"}, "more notes")
        self.checkout = os.path.join(self.tmp, "checkout")
        subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch",
                        "feature", "file://" + self.repo, self.checkout],
                       check=True, capture_output=True)
        result, log = self.run_action(self.event(a, c), {
            "INPUT_BISECT": "true", "INPUT_NOISE_FLOOR": "50%"})
        self.assertEqual(result.returncode, 1, log)
        with open(self.outputs()["report-json"]) as f:
            bench = json.load(f)["benchmarks"][0]
        self.assertEqual(bench["culprit"]["commit"], slower)
        body = self.server.comments[-1]["body"]
        self.assertIn("first slower at commit %s" % slower[:10], body)
        self.assertIn("twice the work", body)
        # And from the saved result, as the fork-safe pair renders it.
        md = os.path.join(self.tmp, "again.md")
        subprocess.run([PERFGATE, "report", "--markdown", md,
                        self.outputs()["report-json"]], capture_output=True)
        with open(md) as f:
            self.assertIn("first slower at commit %s" % slower[:10],
                          f.read())

    def test_pass_env_reaches_perfgate_as_its_flag(self):
        a, b, c = self.pull_request()
        argv = os.path.join(self.tmp, "argv")
        wrapper = os.path.join(self.tmp, "perfgate-wrapper")
        with open(wrapper, "w") as f:
            f.write('#!/bin/sh\nprintf "%%s\\n" "$@" > \'%s\'\n'
                    'exec \'%s\' "$@"\n' % (argv, PERFGATE))
        os.chmod(wrapper, 0o755)
        p = self.step("compare", self.event(b, c),
                      {"INPUT_PASS_ENV": " CCACHE_DIR  PG_TEST_X ",
                       "PERFGATE": wrapper})
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(argv) as f:
            words = f.read().split("\n")
        at = words.index("--pass-env")
        self.assertEqual(words[at:at + 4],
                         ["--pass-env", "CCACHE_DIR", "--pass-env",
                          "PG_TEST_X"])

    def test_a_failed_post_is_a_warning(self):
        a, b, c = self.pull_request()
        self.server.fail = 500
        result, log = self.run_action(self.event(b, c))
        self.assertEqual(result.returncode, 0, log)
        self.assertIn("::warning::perfgate: the pull request comment could "
                      "not be posted", log)
        self.assertEqual(self.outputs()["verdict"], "pass")

    def test_a_fork_refused_a_comment_is_pointed_to_the_pair(self):
        a, b, c = self.pull_request()
        path = self.event(b, c)
        with open(path) as f:
            ev = json.load(f)
        ev["pull_request"]["head"]["repo"] = {"full_name": "someone/r"}
        with open(path, "w") as f:
            json.dump(ev, f)
        self.server.fail = 403
        result, log = self.run_action(path)
        self.assertEqual(result.returncode, 0, log)
        self.assertIn("HTTP Error 403", log)
        self.assertIn("comes from a fork (someone/r)", log)
        self.assertIn("fork-safe pair in perfgate's ci/github/", log)
        self.assertEqual(self.outputs()["verdict"], "pass")

    def test_a_commit_that_cannot_be_fetched(self):
        a, b, c = self.pull_request()
        result, log = self.run_action(self.event("f" * 40, c))
        self.assertEqual(result.returncode, 2, log)
        self.assertIn("fetch-depth: 0", log)

    def test_a_marker_in_someone_elses_comment_is_left_alone(self):
        # Anyone can write the marker; perfgate edits only its own comment.
        self.server.comments = [
            {"id": 1, "body": MARKER + "\nI am perfgate, trust me",
             "user": {"login": "mallory"}},
            {"id": 2, "body": "see " + MARKER, "user": {"login": BOT}}]
        a, b, c = self.pull_request()
        result, log = self.run_action(self.event(b, c))
        self.assertEqual(result.returncode, 0, log)
        self.assertEqual([r["method"] for r in self.server.requests
                          if r["method"] != "GET"], ["POST"])
        self.assertEqual(self.server.comments[0]["body"],
                         MARKER + "\nI am perfgate, trust me")
        # A token that can say who it is (a user's): its login decides.
        self.server.user = "mallory"
        self.assertEqual(self.step("comment", self.event(b, c)).returncode, 0)
        self.assertEqual([r["path"] for r in self.server.requests
                          if r["method"] == "PATCH"],
                         ["/repos/o/r/issues/comments/1"])

    def _other_server(self):
        other = FakeGitHub()
        url = other.start()
        self.addCleanup(other.server_close)
        self.addCleanup(other.shutdown)
        return other, url

    def test_the_token_does_not_follow_a_redirect_or_link_elsewhere(self):
        a, b, c = self.pull_request()
        other, url = self._other_server()
        self.server.redirect = url + "/repos/o/r/issues/7/comments"
        result, log = self.run_action(self.event(b, c))
        self.assertIn("redirected to another host", log)
        self.server.redirect = None
        self.server.link_to = url + "/repos/o/r/issues/7/comments?page=2"
        p = self.step("comment", self.event(b, c))
        self.assertIn("another host", p.stdout)
        self.assertEqual(other.requests, [])

    def test_the_token_header_is_for_the_github_server_only(self):
        # A remote on another host, as a submodule's is (its host is the
        # pull request's to choose in .gitmodules): git asks it, and the
        # fetch's token header must not go along.
        a, b, c = self.pull_request()
        other, url = self._other_server()
        subprocess.run(["git", "remote", "set-url", "origin",
                        url + "/o/r.git"], cwd=self.checkout, check=True)
        self.step("fetch", self.event(b, c))
        self.assertNotEqual(other.requests, [])
        self.assertEqual([r for r in other.requests if r["auth"]], [])

    def test_options_are_not_revisions(self):
        a, b, c = self.pull_request()
        pwned = os.path.join(self.tmp, "pwned")
        evil = "--upload-pack=touch " + pwned
        for inputs, ev in (({"INPUT_BASE": evil}, self.event(b, c)),
                           ({}, self.event(evil, c)),
                           ({}, self.event(b, "HEAD~1"))):
            with self.subTest(inputs=inputs):
                p = self.step("fetch", ev, inputs)
                self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
                self.assertIn("::error", p.stdout)
        p = self.step("compare", self.event(b, c), {"INPUT_BASE": evil})
        with open(os.path.join(self.runner_temp, "perfgate.status")) as f:
            self.assertEqual(f.read().strip(), "2")
        self.assertFalse(os.path.exists(pwned))

    def run_event(self, sha, branch="feature", repo="fork/r"):
        path = os.path.join(self.tmp, "workflow_run.json")
        with open(path, "w") as f:
            json.dump({"workflow_run": {
                "event": "pull_request", "head_sha": sha,
                "head_branch": branch, "pull_requests": [],
                "head_repository": {"full_name": repo}}}, f)
        return path

    def pull(self, number, sha, branch="feature", repo="fork/r"):
        return {"number": number, "head": {"sha": sha, "ref": branch,
                                           "repo": {"full_name": repo}},
                "base": {"repo": {"full_name": "o/r"}}}

    def post_only(self, event_path, report, extra=None):
        path = os.path.join(self.tmp, "report.json")
        with open(path, "w") as f:
            f.write(report if isinstance(report, str) else json.dumps(report))
        inputs = {"INPUT_MODE": "post-only", "INPUT_REPORT_JSON": path,
                  # What the measuring run may try to say: never read.
                  "INPUT_PR_NUMBER": "1", "INPUT_REPORT_MARKDOWN": path}
        inputs.update(extra or {})
        return self.step("comment", event_path, inputs,
                         name_of_event="workflow_run")

    def saved_result(self):
        """A real result, with a benchmark name made to inject markdown."""
        self.base_repo()
        r = self.perfgate("HEAD", "HEAD", "--noise-floor", "50%")
        result = dict(r.json)
        result["benchmarks"][0]["name"] = (
            "x</summary>\n\n## PASS <img src=x onerror=alert(1)>")
        result["benchmarks"][0]["status"] = "regression"
        return result

    def test_post_only_finds_the_pull_request_and_renders_the_result(self):
        self.checkout = self.repo
        result = self.saved_result()
        sha = "a" * 40
        self.server.pulls = [self.pull(12, "b" * 40),
                             self.pull(13, sha),
                             self.pull(14, sha, repo="other/r")]
        p = self.post_only(self.run_event(sha), result)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("commented on #13", p.stdout)
        body = self.server.comments[0]["body"]
        self.assertTrue(body.startswith(MARKER))
        # Rendered by perfgate, escaped: the injection is text.
        self.assertNotIn("<img", body)
        self.assertNotIn("\n## PASS", body)
        posts = [r["path"] for r in self.server.requests
                 if r["method"] == "POST"]
        self.assertEqual(posts, ["/repos/o/r/issues/13/comments"])

    def test_post_only_refuses_what_does_not_match(self):
        self.checkout = self.repo
        result = self.saved_result()
        sha = "a" * 40
        cases = {
            "no pull request has that head": ([self.pull(13, "c" * 40)],
                                              self.run_event(sha), result),
            "two have it": ([self.pull(13, sha), self.pull(15, sha)],
                            self.run_event(sha), result),
            "not perfgate's result": ([self.pull(13, sha)],
                                      self.run_event(sha),
                                      MARKER + "\n# all good"),
            "not a pull request's run": ([self.pull(13, sha)],
                                         self.run_event("not-a-sha"), result),
        }
        for what, (pulls, ev, report) in cases.items():
            with self.subTest(what=what):
                self.server.pulls = pulls
                p = self.post_only(ev, report)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertIn("::warning::perfgate: no comment posted",
                              p.stdout)
        self.assertEqual([r for r in self.server.requests
                          if r["method"] in ("POST", "PATCH")], [])


class FakeGitLab(http.server.ThreadingHTTPServer):
    def __init__(self):
        super().__init__(("127.0.0.1", 0), GitLabHandler)
        self.notes = [{"id": i, "body": "note %d" % i,
                       "author": {"id": 5}} for i in range(1, 131)]
        self.requests = []
        self.me = 77  # the token's bot user


class GitLabHandler(JsonHandler):
    """Merge request notes: list (X-Next-Page), create, update."""

    def handle_any(self, method):
        srv = self.server
        length = int(self.headers.get("Content-Length") or 0)
        form = urllib.parse.parse_qs(self.rfile.read(length).decode())
        srv.requests.append((method, self.path,
                             self.headers.get("PRIVATE-TOKEN")))
        base = "/api/v4/projects/42/merge_requests/9/notes"
        if method == "GET" and self.path == "/api/v4/user":
            return self.reply(200, {"id": srv.me, "username": "bot"})
        if method == "GET" and self.path.startswith(base + "?"):
            page = int(re.search(r"[?&]page=(\d+)", self.path).group(1))
            chunk = srv.notes[(page - 1) * 100:page * 100]
            more = page * 100 < len(srv.notes)
            return self.reply(200, chunk, [("X-Next-Page",
                                            str(page + 1) if more else "")])
        if method == "POST" and self.path == base:
            srv.notes.append({"id": 9000 + len(srv.notes),
                              "body": form["body"][0],
                              "author": {"id": srv.me}})
            return self.reply(201, srv.notes[-1])
        m = re.match(base + r"/(\d+)$", self.path)
        if method == "PUT" and m:
            for n in srv.notes:
                if n["id"] == int(m.group(1)):
                    n["body"] = form["body"][0]
                    return self.reply(200, n)
        return self.reply(404, {"message": "404 Not Found"})


class GitLabNote(unittest.TestCase):
    """ci/gitlab/note.py against a loopback GitLab API."""

    def setUp(self):
        self.server = FakeGitLab()
        threading.Thread(target=self.server.serve_forever,
                         daemon=True).start()
        self.tmp = tempfile.mkdtemp()
        self.report = os.path.join(self.tmp, "perfgate.md")

    def tearDown(self):
        self.server.shutdown()
        self.server.server_close()
        shutil.rmtree(self.tmp)

    def note(self, text, **env):
        with open(self.report, "w") as f:
            f.write(text)
        full = dict(os.environ, CI_API_V4_URL="http://127.0.0.1:%d/api/v4"
                    % self.server.server_address[1], CI_PROJECT_ID="42",
                    CI_MERGE_REQUEST_IID="9", PERFGATE_GITLAB_TOKEN=TOKEN)
        full.update(env)
        p = subprocess.run([sys.executable, os.path.join(
            ROOT, "ci", "gitlab", "note.py"), self.report], env=full,
            capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn(TOKEN, p.stdout + p.stderr)
        return p.stdout

    def test_created_once_then_updated(self):
        self.assertIn("noted on !9", self.note(MARKER + "\nfirst\n"))
        self.assertIn("updated the note", self.note(MARKER + "\nsecond\n"))
        ours = [n for n in self.server.notes if MARKER in n["body"]]
        self.assertEqual([n["body"] for n in ours], [MARKER + "\nsecond\n"])
        self.assertTrue(all(r[2] == TOKEN for r in self.server.requests))

    def test_a_marker_in_someone_elses_note_is_left_alone(self):
        self.server.notes[3]["body"] = MARKER + "\nfake verdict: pass"
        self.assertIn("noted on !9", self.note(MARKER + "\nfirst\n"))
        self.assertEqual(self.server.notes[3]["body"],
                         MARKER + "\nfake verdict: pass")
        self.assertIn("updated the note", self.note(MARKER + "\nsecond\n"))
        self.assertEqual(self.server.notes[-1]["body"], MARKER + "\nsecond\n")

    def test_no_token_is_a_warning(self):
        out = self.note(MARKER, PERFGATE_GITLAB_TOKEN="")
        self.assertIn("warning", out)
        self.assertEqual(self.server.requests, [])


GITLAB_CI_LOCAL = os.path.join(ROOT, "build", "tools", "node_modules", ".bin",
                               "gitlab-ci-local")


class GitLabLocal(unittest.TestCase):
    """The GitLab templates as GitLab runs them: gitlab-ci-local (a real
    client of the .gitlab-ci.yml format: rules, variables, parallel, needs,
    artifacts, allow_failure) with its shell executor, perfgate on PATH in
    place of the image, and note.py against a loopback GitLab API."""

    def setUp(self):
        if not os.access(GITLAB_CI_LOCAL, os.X_OK) or not shutil.which("rsync"):
            self.skipTest("no gitlab-ci-local (./test.sh installs it)")
        self.server = FakeGitLab()
        threading.Thread(target=self.server.serve_forever,
                         daemon=True).start()
        self.tmp = tempfile.mkdtemp()
        self.repo = os.path.join(self.tmp, "repo")
        shutil.copytree(os.path.join(ROOT, "examples", "quickstart"),
                        self.repo)
        os.makedirs(os.path.join(self.repo, "ci", "gitlab"))
        shutil.copy(os.path.join(ROOT, "ci", "gitlab", "note.py"),
                    os.path.join(self.repo, "ci", "gitlab"))
        self.bin = os.path.join(self.tmp, "bin")
        os.mkdir(self.bin)
        os.symlink(PERFGATE, os.path.join(self.bin, "perfgate"))

    def tearDown(self):
        self.server.shutdown()
        self.server.server_close()
        shutil.rmtree(self.tmp)

    def git(self, *args):
        return subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@localhost",
             *args], cwd=self.repo, check=True, capture_output=True,
            text=True).stdout.strip()

    def pipeline(self, template, change):
        """Commits `template` (its image taken out: the shell executor runs
        the job on this machine), a base and `change` to src/sum.c; runs
        the merge request pipeline."""
        import yaml
        with open(os.path.join(ROOT, "ci", "gitlab", template)) as f:
            jobs = yaml.safe_load(f)
        for job in jobs.values():
            self.assertEqual(job.pop("image")["name"],
                             "ghcr.io/perfgate/perfgate:1")
        with open(os.path.join(self.repo, "ci", "gitlab", template),
                  "w") as f:
            yaml.safe_dump(jobs, f, sort_keys=False)
        with open(os.path.join(self.repo, ".gitlab-ci.yml"), "w") as f:
            f.write("include:\n  - local: ci/gitlab/%s\n" % template)
        self.git("init", "-q", "-b", "main")
        self.git("add", "-A")
        self.git("commit", "-qm", "base")
        base = self.git("rev-parse", "HEAD")
        path = os.path.join(self.repo, "src", "sum.c")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(change(text))
        self.git("commit", "-qam", "the merge request")
        env = {k: v for k, v in os.environ.items() if k not in CI_VARIABLES}
        env.update(PATH=self.bin + os.pathsep + os.environ["PATH"],
                   HOME=self.tmp)
        variables = {
            "CI_PIPELINE_SOURCE": "merge_request_event",
            "CI_MERGE_REQUEST_DIFF_BASE_SHA": base,
            "CI_MERGE_REQUEST_IID": "9", "CI_PROJECT_ID": "42",
            "CI_API_V4_URL": "http://127.0.0.1:%d/api/v4"
                             % self.server.server_address[1],
            "PERFGATE_GITLAB_TOKEN": TOKEN}
        args = [GITLAB_CI_LOCAL, "--shell-executor-no-image"]
        for k, v in variables.items():
            args += ["--variable", "%s=%s" % (k, v)]
        p = subprocess.run(args, cwd=self.repo, env=env, capture_output=True,
                           text=True, timeout=600)
        self.assertNotIn(TOKEN, p.stdout + p.stderr)
        return p

    def result(self):
        with open(os.path.join(self.repo, "perfgate.json")) as f:
            return json.load(f)

    def notes(self):
        return [n["body"] for n in self.server.notes if MARKER in n["body"]]

    def test_a_regression_fails_the_job_and_is_noted(self):
        p = self.pipeline("perfgate.gitlab-ci.yml",
                          lambda t: t.replace("LANES 8", "LANES 1"))
        out = p.stdout + p.stderr
        # gitlab-ci-local's summary: the job's own status, as GitLab shows
        # it (its exit status is not the job's).
        self.assertRegex(out, r"\n FAIL +perfgate\s*\n")
        self.assertIn("(merge request !9)", out)
        self.assertEqual(self.result()["verdict"], "fail")
        notes = self.notes()
        self.assertEqual(len(notes), 1, out)
        self.assertIn("this change fails the gate", notes[0])

    def test_no_change_passes_the_job(self):
        p = self.pipeline("perfgate.gitlab-ci.yml",
                          lambda t: t + "/* a comment */\n")
        out = p.stdout + p.stderr
        self.assertRegex(out, r"\n PASS +perfgate\s*\n")
        self.assertEqual(self.result()["verdict"], "pass")
        self.assertIn("no regression", self.notes()[0])

    def test_the_parallel_template_measures_in_shares_and_merges(self):
        p = self.pipeline("perfgate-parallel.gitlab-ci.yml",
                          lambda t: t.replace("LANES 8", "LANES 1"))
        out = p.stdout + p.stderr
        for k in (1, 2, 3):
            self.assertRegex(out, r"PASS +perfgate: \[%d/3\]" % k)
            self.assertTrue(os.path.exists(os.path.join(
                self.repo, "perfgate-shard-%d.json" % k)))
        self.assertRegex(out, r"FAIL +perfgate-merge")
        merged = self.result()
        self.assertEqual(merged["verdict"], "fail")
        self.assertEqual(len(merged["shards"]), 3)
        self.assertIn("this change fails the gate", self.notes()[0])


if __name__ == "__main__":
    unittest.main()
