#!/usr/bin/env python3
"""The steps of perfgate's GitHub Action (action.yml), one subcommand each.

  fetch     make sure the commits to compare are in the clone
  compare   run perfgate compare with the action's inputs
  publish   outputs, job summary and annotations from perfgate's reports
  comment   create or update the pull request's one perfgate comment
  finish    the step's verdict: perfgate's exit status, unless
            fail-on-regression is false and only the gate failed

Inputs come as the action passes them: INPUT_* variables (INPUT_CONFIG,
INPUT_BASE, ...), and GitHub's own (GITHUB_EVENT_PATH, GITHUB_OUTPUT,
GITHUB_STEP_SUMMARY, GITHUB_REPOSITORY, GITHUB_API_URL, RUNNER_TEMP).
Only the standard library: it runs on any runner with a Python 3.
"""
import base64
import glob
import json
import os
import re
import secrets
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

MARKER = "<!-- perfgate -->"
MAX_REPORT = 32 << 20  # a report larger than this is not perfgate's (samples included)
COMMIT_ID = re.compile(r"^[0-9a-fA-F]{40}([0-9a-fA-F]{24})?$")
# The identity GITHUB_TOKEN posts as; a token that can ask (GET /user)
# says its own.
ACTIONS_BOT = "github-actions[bot]"


def env(name, default=""):
    value = os.environ.get(name, "")
    return value if value != "" else default


def inp(name, default=""):
    return env("INPUT_" + name.upper().replace("-", "_"), default)


def truthy(value):
    return value.strip().lower() in ("true", "yes", "1", "on")


def command_text(text, prop=False):
    """Text in a workflow command, escaped as GitHub wants: its message,
    or with `prop` a property's value (which : and , would end)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def notice(kind, message, title=None):
    """A workflow command (::error::, ::warning::)."""
    props = " title=" + command_text(title, prop=True) if title else ""
    print("::%s%s::%s" % (kind, props, command_text(message)), flush=True)


def handed_on(name):
    """A file of the steps' in $RUNNER_TEMP: perfgate.json, .md and .html
    (the reports) and .status (perfgate's exit status), which one step
    leaves for the next; .post.md (the comment post-only renders)."""
    return os.path.join(env("RUNNER_TEMP", "/tmp"), "perfgate." + name)


def write_status(code):
    with open(handed_on("status"), "w") as f:
        f.write("%d\n" % code)


def read_status():
    """The exit status the compare step left; 3 (internal) when none."""
    try:
        with open(handed_on("status")) as f:
            return int(f.read().strip() or "3")
    except (OSError, ValueError):
        return 3


def event():
    path = env("GITHUB_EVENT_PATH")
    if not path:
        return {}
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def git(*args, cwd=None):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True,
                          text=True)


def git_fetch(*args, cwd=None):
    """git fetch, with the token (when there is one) on the command line
    only: the checkout keeps no credentials (persist-credentials: false),
    so that the pull request's code, which runs later, finds none.  The
    header is for the GitHub server alone (as actions/checkout scopes it),
    and the fetch never goes into submodules: a pull request chooses their
    hosts in .gitmodules, and an unscoped header went to them too."""
    token = inp("github-token")
    auth = []
    if token:
        server = os.environ.get("GITHUB_SERVER_URL",
                                "https://github.com").rstrip("/")
        basic = base64.b64encode(("x-access-token:" + token).encode())
        auth = ["-c", "http.%s/.extraheader=AUTHORIZATION: basic %s"
                % (server, basic.decode())]
    return git(*auth, "-c", "fetch.recurseSubmodules=false", "fetch",
               "--no-tags", "--quiet", "--no-recurse-submodules", *args,
               cwd=cwd)


def usable_revision(rev):
    """A revision from an input, as git may be given it: not an option,
    nothing but printable characters, no spaces; at most 255 of them."""
    return (0 < len(rev) < 256 and not rev.startswith("-")
            and all(c.isprintable() and not c.isspace() for c in rev))


def has_commit(rev, cwd):
    return git("rev-parse", "--verify", "--quiet", "--end-of-options",
               rev + "^{commit}", cwd=cwd).returncode == 0


# ---- fetch ----

def wanted_commits(ev, name):
    """The commits perfgate will need: the inputs', or the event's.  The
    event's must be commit ids (it carries what the pull request's author
    wrote); ValueError names the first that is not."""
    if inp("base") or inp("head"):
        wanted = [c for c in (inp("base"), inp("head")) if c]
        for c in wanted:
            if not usable_revision(c):
                raise ValueError("the input %r is not a revision" % c[:60])
        return wanted
    pr = ev.get("pull_request") or {}
    wanted = []
    if name.startswith("pull_request") and pr:
        wanted = [(pr.get("base") or {}).get("sha"),
                  (pr.get("head") or {}).get("sha")]
    elif name == "push" and str(ev.get("before") or "").strip("0"):
        wanted = [ev.get("before"), ev.get("after")]
    for c in wanted:
        if not isinstance(c, str) or not COMMIT_ID.match(c):
            raise ValueError("the event's commit %r is not a commit id"
                             % str(c)[:60])
    return wanted


def fetch_history(cwd):
    """main's history, read only, where there is one: the comment then says
    how main moved before the base.  The local copy follows origin's (this
    job never writes it); none at all is fine."""
    ref = "refs/perfgate/history"
    git_fetch("--", "origin", "+%s:%s" % (ref, ref), cwd=cwd)


def cmd_fetch():
    cwd = inp("working-directory", ".")
    try:
        wanted = wanted_commits(event(), env("GITHUB_EVENT_NAME"))
    except ValueError as e:
        notice("error", "perfgate: %s" % e, title="perfgate")
        return 2
    if inp("mode") != "record":
        fetch_history(cwd)
    shallow = git("rev-parse", "--is-shallow-repository",
                  cwd=cwd).stdout.strip() == "true"
    missing = [c for c in wanted if not has_commit(c, cwd)]
    if not shallow and not missing:
        return 0
    # The merge base may be far back: the whole history, once.
    if shallow:
        print("perfgate: the clone is shallow; fetching its history",
              flush=True)
        git_fetch("--unshallow", "--", "origin", cwd=cwd)
    for rev in [c for c in wanted if not has_commit(c, cwd)]:
        git_fetch("--", "origin", rev, cwd=cwd)
    still = [c for c in wanted if not has_commit(c, cwd)]
    if still or git("rev-parse", "--is-shallow-repository",
                    cwd=cwd).stdout.strip() == "true":
        notice("error", "perfgate cannot fetch the commits to compare (%s). "
               "Add 'fetch-depth: 0' to actions/checkout:\n"
               "  - uses: actions/checkout@v4\n"
               "    with:\n"
               "      fetch-depth: 0" % ", ".join(still or ["history"]),
               title="perfgate")
        return 2
    return 0


# ---- compare ----

def measure_args():
    """The inputs compare and record share, as perfgate's options."""
    args = []
    if inp("config"):
        args += ["--config", inp("config")]
    if inp("noise-floor"):
        args += ["--noise-floor", inp("noise-floor")]
    if inp("max-time"):
        args += ["--max-time", inp("max-time")]
    # A record keeps what it measures: counts too with measure: all.
    if inp("measure"):
        args += ["--measure", inp("measure")]
    # The benchmarks' builds, kept between runs by the step before.
    if not truthy(inp("build-cache", "true")):
        args += ["--no-cache"]
    elif env("PERFGATE_BUILD_CACHE_DIR"):
        args += ["--cache-dir", env("PERFGATE_BUILD_CACHE_DIR")]
    return args


def cmd_compare():
    """Runs perfgate; its exit status goes to $RUNNER_TEMP/perfgate.status."""
    perfgate = env("PERFGATE", "perfgate")
    for name in ("json", "md", "html"):
        if os.path.exists(handed_on(name)):
            os.remove(handed_on(name))
    if inp("merge"):
        return merge_shards(perfgate)
    args = [perfgate, "compare", "--json", handed_on("json"), "--markdown",
            handed_on("md"), "--html", handed_on("html")]
    if inp("shard"):
        args += ["--shard", inp("shard")]
    if truthy(inp("bisect", "false")):
        args += ["--bisect"]
    if inp("inconclusive"):
        args += ["--inconclusive", inp("inconclusive")]
    if inp("memory"):
        args += ["--memory", inp("memory")]
    # Names the workflow lets into the box (a pull request's own config
    # may not add one: it could name a token).
    for name in inp("pass-env").split():
        args += ["--pass-env", name]
    args += measure_args()
    revs = []
    if inp("base"):
        revs = [inp("base")] + ([inp("head")] if inp("head") else [])
    elif inp("head"):
        # A head alone compares with its parent.
        revs = [inp("head") + "~1", inp("head")]
    for rev in revs:
        if not usable_revision(rev):
            notice("error", "perfgate: the input %r is not a revision"
                   % rev[:60], title="perfgate")
            write_status(2)
            return 0
    if revs:
        args += ["--"] + revs
    print("perfgate: " + " ".join(args[1:]), flush=True)
    write_status(subprocess.run(args,
                                cwd=inp("working-directory", ".")).returncode)
    return 0


def merge_shards(perfgate):
    """perfgate merge on the shard results the `merge` glob names."""
    cwd = inp("working-directory", ".")
    files = sorted(glob.glob(os.path.join(cwd, inp("merge"))))
    if not files:
        notice("error", "perfgate: no shard results match %r"
               % inp("merge")[:100], title="perfgate")
        code = 2
    else:
        args = [perfgate, "merge", "--json", handed_on("json"), "--markdown",
                handed_on("md"), "--html", handed_on("html"), "--"] + files
        print("perfgate: merge " + " ".join(files), flush=True)
        code = subprocess.run(args, cwd=cwd).returncode
    write_status(code)
    return 0


# ---- publish ----

def write_output(name, value):
    """name=value to $GITHUB_OUTPUT; a multi-line value between delimiters
    no value can contain (random)."""
    path = env("GITHUB_OUTPUT")
    if not path:
        return
    with open(path, "a") as f:
        if "\n" in value:
            delim = "ghadelimiter_" + secrets.token_hex(16)
            f.write("%s<<%s\n%s\n%s\n" % (name, delim, value, delim))
        else:
            f.write("%s=%s\n" % (name, value))


def cmd_publish():
    json_path, md_path = handed_on("json"), handed_on("md")
    status = read_status()
    report = None
    if os.path.exists(json_path):
        with open(json_path) as f:
            report = json.load(f)
    if report is None:
        write_output("verdict", "error")
        write_output("regressions", "0")
        notice("error", "perfgate could not compare (exit status %d): see "
               "the step's log" % status, title="perfgate")
        return 0
    regressions = sum(1 for b in report["benchmarks"]
                      if b["status"] == "regression")
    write_output("verdict", report["verdict"])
    write_output("regressions", str(regressions))
    write_output("report-json", json_path)
    write_output("report-markdown", md_path)
    summary = env("GITHUB_STEP_SUMMARY")
    if summary and os.path.exists(md_path):
        with open(md_path) as f, open(summary, "a") as out:
            out.write(f.read() + "\n")
    for b in report["benchmarks"]:
        slower = b.get("slower_case")
        if isinstance(slower, dict) and isinstance(slower.get("change"),
                                                   (int, float)):
            notice("warning", "the total is %s, but case %s is %+.1f%% "
                   "slower (noise floor %.0f%%); 'gate: cases' fails the "
                   "gate on any case" % (
                       b["status"], slower.get("name"),
                       100 * slower["change"], 100 * report["noise_floor"]),
                   title="perfgate: %s case slower" % b["name"])
        # perfgate says which benchmarks fail the gate (a broken base, for
        # one, does not): its rule is not written again here.
        if not b.get("fails_gate"):
            continue
        if b["status"] == "regression":
            message = "%+.1f%% slower (noise floor %.0f%%)" % (
                100 * b["change"], 100 * report["noise_floor"])
        else:
            message = b.get("message") or b["status"]
        notice("error", message, title="perfgate: %s %s" % (b["name"],
                                                            b["status"]))
    return 0


def cmd_finish():
    status = read_status()
    if status == 1 and not truthy(inp("fail-on-regression", "true")):
        print("perfgate: the gate failed; fail-on-regression is false, so "
              "the step passes", flush=True)
        return 0
    return status


# ---- comment ----

class SameHostRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to the API's own scheme, host and port: the
    token is in a header, and urllib would send it anywhere."""

    def __init__(self, origin):
        super().__init__()
        self.origin = origin

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if origin_of(newurl) != self.origin:
            raise urllib.error.HTTPError(
                req.full_url, code, "redirected to another host; not "
                "followed with the token", headers, fp)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def origin_of(url):
    u = urllib.parse.urlsplit(url)
    return (u.scheme, u.hostname, u.port)


class Api:
    def __init__(self, token):
        self.base = env("GITHUB_API_URL", "https://api.github.com").rstrip("/")
        self.token = token
        self.origin = origin_of(self.base)
        self.opener = urllib.request.build_opener(
            SameHostRedirects(self.origin))

    def call(self, method, url, body=None):
        if not url.startswith("http"):
            url = self.base + url
        if origin_of(url) != self.origin:
            # A Link header may name any URL: the token stays home.
            raise ValueError("the API pointed to another host")
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Authorization", "Bearer " + self.token)
        req.add_header("Accept", "application/vnd.github+json")
        req.add_header("X-GitHub-Api-Version", "2022-11-28")
        req.add_header("User-Agent", "perfgate-action")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        with self.opener.open(req, timeout=30) as resp:
            payload = resp.read()
            return (json.loads(payload) if payload else None,
                    resp.headers.get("Link", ""))

    def identity(self):
        """Who this token posts as: its user, or GITHUB_TOKEN's bot (whose
        installation token may not ask); the input comment-author wins."""
        if inp("comment-author"):
            return inp("comment-author")
        try:
            me, _ = self.call("GET", "/user")
            if isinstance(me, dict) and isinstance(me.get("login"), str):
                return me["login"]
        except (urllib.error.URLError, OSError, ValueError):
            pass
        return ACTIONS_BOT


def next_page(link):
    for part in link.split(","):
        if 'rel="next"' in part:
            return part.split(";")[0].strip().strip("<>")
    return None


def pr_number():
    ev = event()
    number = (ev.get("pull_request") or {}).get("number")
    if number is None and (ev.get("issue") or {}).get("pull_request"):
        number = ev["issue"]["number"]
    return str(number) if number is not None else ""


def run_pull_request(api, repo):
    """post-only: the pull request whose run made the report, learned from
    the workflow_run event and the API, never from the report's run.  A
    fork's pull request is not in workflow_run.pull_requests: it is the
    open pull request whose head is the run's repository, branch and
    commit.  ValueError when none, or more than one, matches."""
    run = event().get("workflow_run") or {}
    sha = run.get("head_sha") or ""
    branch = run.get("head_branch") or ""
    head_repo = (run.get("head_repository") or {}).get("full_name") or ""
    if run.get("event") != "pull_request":
        raise ValueError("the run was not for a pull request")
    if not COMMIT_ID.match(sha) or not branch or head_repo.count("/") != 1:
        raise ValueError("the workflow_run event names no head commit, "
                         "branch and repository")
    url = "/repos/%s/pulls?state=open&per_page=100&head=%s" % (
        repo, urllib.parse.quote("%s:%s" % (head_repo.split("/")[0],
                                            branch), safe=":"))
    found = []
    while url:
        pulls, link = api.call("GET", url)
        for p in pulls or []:
            head = p.get("head") or {}
            if (head.get("sha") == sha and
                    (head.get("repo") or {}).get("full_name") == head_repo and
                    (p.get("base") or {}).get("repo", {}).get(
                        "full_name", repo) == repo):
                found.append(p.get("number"))
        url = next_page(link)
    if len(found) != 1 or not isinstance(found[0], int):
        raise ValueError("%d open pull requests have %s:%s at %s as their "
                         "head" % (len(found), head_repo, branch, sha[:12]))
    return str(found[0])


def render(json_path):
    """post-only: the comment, rendered here by perfgate from the run's
    JSON result (with perfgate's own escaping), never markdown the run
    wrote.  ValueError when the result is not perfgate's."""
    if os.path.getsize(json_path) > MAX_REPORT:
        raise ValueError("larger than %d bytes" % MAX_REPORT)
    md = handed_on("post.md")
    p = subprocess.run([env("PERFGATE", "perfgate"), "report", "--markdown",
                        md, "--", json_path], capture_output=True, text=True)
    # 0 and 1 are the saved verdict's; anything else, a bad file.
    if p.returncode not in (0, 1):
        raise ValueError("perfgate report refused it: %s"
                         % (p.stderr.strip().splitlines() or ["?"])[-1][:200])
    with open(md, encoding="utf-8") as f:
        return f.read()


def find_comment(api, repo, number, me):
    """The pull request's perfgate comment: written by this identity and
    starting with the marker.  Anyone can write the marker."""
    url = "/repos/%s/issues/%s/comments?per_page=100" % (repo, number)
    while url:
        comments, link = api.call("GET", url)
        for c in comments or []:
            if ((c.get("user") or {}).get("login") == me and
                    (c.get("body") or "").startswith(MARKER)):
                return c
        url = next_page(link)
    return None


def cmd_comment():
    post_only = inp("mode") == "post-only"
    repo = env("GITHUB_REPOSITORY")
    token = inp("github-token") or env("GITHUB_TOKEN")
    if not repo or not token:
        notice("warning", "perfgate: no comment posted: no GITHUB_REPOSITORY "
               "or token")
        return 0
    api = Api(token)
    try:
        if post_only:
            number = run_pull_request(api, repo)
            body = render(inp("report-json"))
        else:
            number = pr_number()
            if not number:
                print("perfgate: not a pull request; no comment", flush=True)
                return 0
            with open(handed_on("md"), encoding="utf-8") as f:
                body = f.read()
        if not number.isdigit() or not body.startswith(MARKER):
            raise ValueError("not a perfgate comment for a pull request")
    except (OSError, ValueError, urllib.error.URLError) as e:
        notice("warning", "perfgate: no comment posted: %s"
               % str(e).replace(token, "***"))
        return 0
    try:
        existing = find_comment(api, repo, number, api.identity())
        if existing:
            api.call("PATCH", "/repos/%s/issues/comments/%d"
                     % (repo, existing["id"]), {"body": body})
            print("perfgate: updated the comment on #%s" % number, flush=True)
        else:
            api.call("POST", "/repos/%s/issues/%s/comments" % (repo, number),
                     {"body": body})
            print("perfgate: commented on #%s" % number, flush=True)
    except (urllib.error.URLError, OSError, ValueError, KeyError,
            TypeError) as e:
        # The verdict stands; only the comment is lost.  (The token is in
        # a header, never in a message.)
        notice("warning", "perfgate: the pull request comment could not be "
               "posted (%s); the verdict is in the job summary%s"
               % (str(e).replace(token, "***"), why_refused(e, repo)))
    return 0


def why_refused(e, repo):
    """What to do about a refused comment: a fork's pull request gets a
    read-only token, which no setting of this workflow can change."""
    if not isinstance(e, urllib.error.HTTPError) or e.code not in (403, 404):
        return ""
    head = ((event().get("pull_request") or {}).get("head") or {})
    fork = (head.get("repo") or {}).get("full_name")
    said = ("this pull request comes from a fork (%s), whose token is "
            "read-only" % fork if fork and fork != repo else
            "the token may not write to pull requests (permissions: "
            "pull-requests: write), or the pull request comes from a fork, "
            "whose token is read-only")
    return ("; %s. For forks, replace this workflow with the fork-safe "
            "pair in perfgate's ci/github/ (perfgate.yml measures, "
            "perfgate-comment.yml comments): see docs/ci.md" % said)


# ---- record ----

# The most commits of one push that are recorded (the newest).
RECORD_MAX = 20


def pushed_commits(cwd):
    """The commits to record, oldest first: the head input alone, else
    the push's commits along the first-parent line (the newest
    RECORD_MAX), else HEAD."""
    if inp("head"):
        if not usable_revision(inp("head")):
            raise ValueError("the input %r is not a revision"
                             % inp("head")[:60])
        return [inp("head")]
    ev = event()
    before, after = ev.get("before"), ev.get("after")
    if (env("GITHUB_EVENT_NAME") == "push" and isinstance(before, str)
            and isinstance(after, str) and COMMIT_ID.match(before)
            and COMMIT_ID.match(after) and before.strip("0")):
        out = git("rev-list", "--first-parent", "--reverse",
                  "%s..%s" % (before, after), cwd=cwd)
        commits = out.stdout.split() if out.returncode == 0 else []
        if commits:
            return commits[-RECORD_MAX:]
    return ["HEAD"]


def cmd_record():
    """perfgate record for each pushed commit; the first failure's exit
    status, after trying them all."""
    cwd = inp("working-directory", ".")
    perfgate = env("PERFGATE", "perfgate")
    try:
        commits = pushed_commits(cwd)
    except ValueError as e:
        notice("error", "perfgate: %s" % e, title="perfgate")
        return 2
    args = [perfgate, "record"] + measure_args()
    status = 0
    for commit in commits:
        print("perfgate: " + " ".join(args[1:] + ["--", commit]), flush=True)
        code = subprocess.run(args + ["--", commit], cwd=cwd).returncode
        status = status or code
    return status


def cmd_push():
    """Pushes refs/perfgate/history to origin: fetched, united with what
    other jobs pushed, never forced."""
    args = [env("PERFGATE", "perfgate"), "record", "--push", "origin",
            "--push-only"]
    return subprocess.run(args, cwd=inp("working-directory", ".")).returncode


def main(argv):
    steps = {"fetch": cmd_fetch, "compare": cmd_compare,
             "publish": cmd_publish, "comment": cmd_comment,
             "finish": cmd_finish, "record": cmd_record, "push": cmd_push}
    if len(argv) != 2 or argv[1] not in steps:
        print("usage: action.py " + "|".join(steps), file=sys.stderr)
        return 2
    return steps[argv[1]]()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
