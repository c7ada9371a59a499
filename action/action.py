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
import json
import os
import secrets
import subprocess
import sys
import urllib.error
import urllib.request

MARKER = "<!-- perfgate -->"
MAX_REPORT = 1 << 20  # a report larger than this is not perfgate's


def env(name, default=""):
    value = os.environ.get(name, "")
    return value if value != "" else default


def inp(name, default=""):
    return env("INPUT_" + name.upper().replace("-", "_"), default)


def truthy(value):
    return value.strip().lower() in ("true", "yes", "1", "on")


def notice(kind, message, title=None):
    """A workflow command (::error::, ::warning::), escaped as GitHub wants."""
    message = (message.replace("%", "%25").replace("\r", "%0D")
               .replace("\n", "%0A"))
    props = ""
    if title:
        props = " title=" + (title.replace("%", "%25").replace("\r", "%0D")
                             .replace("\n", "%0A").replace(":", "%3A")
                             .replace(",", "%2C"))
    print("::%s%s::%s" % (kind, props, message), flush=True)


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


def has_commit(sha, cwd):
    return git("cat-file", "-e", sha + "^{commit}", cwd=cwd).returncode == 0


# ---- fetch ----

def wanted_commits(ev, name):
    """The commits perfgate will need, from the event."""
    if inp("base") or inp("head"):
        return [c for c in (inp("base"), inp("head")) if c]
    pr = ev.get("pull_request") or {}
    if name.startswith("pull_request") and pr:
        return [pr.get("base", {}).get("sha"), pr.get("head", {}).get("sha")]
    if name == "push":
        before = ev.get("before") or ""
        if before.strip("0"):
            return [before, ev.get("after")]
    return []


def cmd_fetch():
    cwd = inp("working-directory", ".")
    ev = event()
    wanted = [c for c in wanted_commits(ev, env("GITHUB_EVENT_NAME")) if c]
    shallow = git("rev-parse", "--is-shallow-repository",
                  cwd=cwd).stdout.strip() == "true"
    missing = [c for c in wanted if not has_commit(c, cwd)]
    if not shallow and not missing:
        return 0
    # The merge base may be far back: the whole history, once.
    if shallow:
        print("perfgate: the clone is shallow; fetching its history",
              flush=True)
        git("fetch", "--no-tags", "--quiet", "--unshallow", "origin", cwd=cwd)
    for sha in [c for c in wanted if not has_commit(c, cwd)]:
        git("fetch", "--no-tags", "--quiet", "origin", sha, cwd=cwd)
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

def cmd_compare():
    """Runs perfgate; its exit status goes to $RUNNER_TEMP/perfgate.status."""
    tmp = env("RUNNER_TEMP", "/tmp")
    perfgate = env("PERFGATE", "perfgate")
    json_path = os.path.join(tmp, "perfgate.json")
    md_path = os.path.join(tmp, "perfgate.md")
    for p in (json_path, md_path):
        if os.path.exists(p):
            os.remove(p)
    args = [perfgate, "compare", "--json", json_path, "--markdown", md_path]
    if inp("config"):
        args += ["--config", inp("config")]
    if inp("noise-floor"):
        args += ["--noise-floor", inp("noise-floor")]
    if inp("max-time"):
        args += ["--max-time", inp("max-time")]
    if inp("base"):
        args.append(inp("base"))
        if inp("head"):
            args.append(inp("head"))
    elif inp("head"):
        # A head alone compares with its parent.
        args += [inp("head") + "~1", inp("head")]
    print("perfgate: " + " ".join(args[1:]), flush=True)
    code = subprocess.run(args, cwd=inp("working-directory", ".")).returncode
    with open(os.path.join(tmp, "perfgate.status"), "w") as f:
        f.write("%d\n" % code)
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


FAILING = ("regression", "incorrect", "crashed", "timeout", "build_failed")


def cmd_publish():
    tmp = env("RUNNER_TEMP", "/tmp")
    json_path = os.path.join(tmp, "perfgate.json")
    md_path = os.path.join(tmp, "perfgate.md")
    try:
        with open(os.path.join(tmp, "perfgate.status")) as f:
            status = int(f.read().strip() or "3")
    except (OSError, ValueError):
        status = 3
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
        if b["status"] not in FAILING:
            continue
        if b["status"] != "regression" and b.get("side") == "base":
            continue  # a broken base does not fail the gate
        if b["status"] == "regression":
            message = "%+.1f%% slower (noise floor %.0f%%)" % (
                100 * b["change"], 100 * report["noise_floor"])
        else:
            message = b.get("message") or b["status"]
        notice("error", message, title="perfgate: %s %s" % (b["name"],
                                                            b["status"]))
    return 0


def cmd_finish():
    try:
        with open(os.path.join(env("RUNNER_TEMP", "/tmp"),
                               "perfgate.status")) as f:
            status = int(f.read().strip() or "3")
    except (OSError, ValueError):
        status = 3
    if status == 1 and not truthy(inp("fail-on-regression", "true")):
        print("perfgate: the gate failed; fail-on-regression is false, so "
              "the step passes", flush=True)
        return 0
    return status


# ---- comment ----

class Api:
    def __init__(self, token):
        self.base = env("GITHUB_API_URL", "https://api.github.com").rstrip("/")
        self.token = token

    def call(self, method, url, body=None):
        if not url.startswith("http"):
            url = self.base + url
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Authorization", "Bearer " + self.token)
        req.add_header("Accept", "application/vnd.github+json")
        req.add_header("X-GitHub-Api-Version", "2022-11-28")
        req.add_header("User-Agent", "perfgate-action")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=30) as resp:
            payload = resp.read()
            return (json.loads(payload) if payload else None,
                    resp.headers.get("Link", ""))


def next_page(link):
    for part in link.split(","):
        if 'rel="next"' in part:
            return part.split(";")[0].strip().strip("<>")
    return None


def pr_number():
    if inp("pr-number"):
        return inp("pr-number")
    ev = event()
    number = (ev.get("pull_request") or {}).get("number")
    if number is None and (ev.get("issue") or {}).get("pull_request"):
        number = ev["issue"]["number"]
    return str(number) if number is not None else ""


def cmd_comment():
    number = pr_number()
    if not number:
        print("perfgate: not a pull request; no comment", flush=True)
        return 0
    if not number.isdigit():
        notice("warning", "perfgate: the pull request number %r is not a "
               "number; no comment" % number[:40])
        return 0
    repo = env("GITHUB_REPOSITORY")
    token = inp("github-token") or env("GITHUB_TOKEN")
    path = inp("report-markdown") or os.path.join(env("RUNNER_TEMP", "/tmp"),
                                                  "perfgate.md")
    try:
        if os.path.getsize(path) > MAX_REPORT:
            raise ValueError("larger than %d bytes" % MAX_REPORT)
        with open(path, encoding="utf-8") as f:
            body = f.read()
        if not body.startswith(MARKER):
            raise ValueError("not a perfgate comment")
    except (OSError, ValueError) as e:
        notice("warning", "perfgate: no comment posted: the report %s: %s"
               % (path, e))
        return 0
    if not repo or not token:
        notice("warning", "perfgate: no comment posted: no GITHUB_REPOSITORY "
               "or token")
        return 0
    api = Api(token)
    try:
        url = "/repos/%s/issues/%s/comments?per_page=100" % (repo, number)
        existing = None
        while url and existing is None:
            comments, link = api.call("GET", url)
            for c in comments:
                if MARKER in (c.get("body") or ""):
                    existing = c
                    break
            url = next_page(link)
        if existing:
            api.call("PATCH", "/repos/%s/issues/comments/%d"
                     % (repo, existing["id"]), {"body": body})
            print("perfgate: updated the comment on #%s" % number, flush=True)
        else:
            api.call("POST", "/repos/%s/issues/%s/comments" % (repo, number),
                     {"body": body})
            print("perfgate: commented on #%s" % number, flush=True)
    except (urllib.error.URLError, OSError, ValueError, KeyError) as e:
        # The verdict stands; only the comment is lost.  (The token is in
        # a header, never in a message.)
        notice("warning", "perfgate: the pull request comment could not be "
               "posted (%s); the verdict is in the job summary"
               % str(e).replace(token, "***"))
    return 0


def main(argv):
    steps = {"fetch": cmd_fetch, "compare": cmd_compare,
             "publish": cmd_publish, "comment": cmd_comment,
             "finish": cmd_finish}
    if len(argv) != 2 or argv[1] not in steps:
        print("usage: action.py " + "|".join(steps), file=sys.stderr)
        return 2
    return steps[argv[1]]()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
