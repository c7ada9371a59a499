#!/usr/bin/env python3
"""Posts perfgate's markdown report as the merge request's one perfgate
note, updated in place on every pipeline (found by its hidden marker and
its author: the token's own user).

  usage: note.py REPORT.md

GitLab's variables give the merge request (CI_API_V4_URL, CI_PROJECT_ID,
CI_MERGE_REQUEST_IID); PERFGATE_GITLAB_TOKEN is a project access token with
the api scope (a masked CI/CD variable).  A failure to post is a warning:
the job's verdict is perfgate's.  Only the standard library.
"""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

MARKER = "<!-- perfgate -->"


def call(method, url, token, body=None):
    data = urllib.parse.urlencode({"body": body}).encode() if body else None
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("PRIVATE-TOKEN", token)
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read() or b"null"), resp.headers


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    api = os.environ.get("CI_API_V4_URL", "").rstrip("/")
    project = os.environ.get("CI_PROJECT_ID", "")
    iid = os.environ.get("CI_MERGE_REQUEST_IID", "")
    token = os.environ.get("PERFGATE_GITLAB_TOKEN", "")
    if not iid:
        print("perfgate: not a merge request pipeline; no note")
        return 0
    if not (api and project.isdigit() and iid.isdigit() and token):
        print("perfgate: warning: no note posted: set PERFGATE_GITLAB_TOKEN "
              "(a project access token with the api scope)")
        return 0
    with open(argv[1], encoding="utf-8") as f:
        body = f.read()
    notes = "%s/projects/%s/merge_requests/%s/notes" % (api, project, iid)
    try:
        # Anyone can write the marker: the note must also be this token's
        # (a project access token is a bot user of its own).
        me, _ = call("GET", "%s/user" % api, token)
        page, existing = "1", None
        while page and existing is None:
            found, headers = call("GET", "%s?per_page=100&page=%s"
                                  % (notes, page), token)
            existing = next((n for n in found
                             if (n.get("author") or {}).get("id") == me["id"]
                             and (n.get("body") or "").startswith(MARKER)),
                            None)
            page = headers.get("X-Next-Page")
            if page and not page.isdigit():
                raise ValueError("a next page that is not a number")
        if existing:
            call("PUT", "%s/%d" % (notes, existing["id"]), token, body)
            print("perfgate: updated the note on !%s" % iid)
        else:
            call("POST", notes, token, body)
            print("perfgate: noted on !%s" % iid)
    except (urllib.error.URLError, OSError, ValueError, KeyError,
            TypeError) as e:
        print("perfgate: warning: the merge request note could not be "
              "posted (%s)" % str(e).replace(token, "***"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
