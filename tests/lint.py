#!/usr/bin/env python3
"""Lint: every shell script (and every shell step of action.yml and of the
CI templates) passes shellcheck; action.yml and every GitHub workflow
template pass action-validator's schema check; C lines changed since the
base (PERFGATE_FORMAT_BASE, else the last commit) follow .clang-format;
every source file in src/ includes banned.h last; no file of src/ includes
a header of a layer above its own, and no two modules include each other,
however indirectly.

  usage: lint.py SOURCE_DIR ACTION_VALIDATOR
"""
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import unittest.mock

try:
    import yaml
except ImportError:  # Debian's python3-yaml is for the system Python
    if os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

ROOT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "."
VALIDATOR = sys.argv[2] if len(sys.argv) > 2 else "action-validator"


def tracked_files():
    p = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True,
                       text=True)
    if p.returncode == 0 and p.stdout:
        return [os.path.join(ROOT, f) for f in p.stdout.split("\n") if f]
    return [os.path.join(d, f) for d, _, fs in os.walk(ROOT)
            for f in fs if "/build" not in d and "/.git" not in d]


def shell_scripts():
    out = []
    for path in tracked_files():
        if not os.path.isfile(path):
            continue
        if path.endswith(".sh"):
            out.append(path)
            continue
        with open(path, "rb") as f:
            first = f.readline()
        if first.startswith(b"#!") and (b"/sh" in first or b"bash" in first):
            out.append(path)
    return out


def workflow_files():
    """action.yml, and every GitHub workflow template."""
    return [os.path.join(ROOT, "action.yml")] + sorted(
        glob.glob(os.path.join(ROOT, "ci", "github", "*.yml")))


def run_blocks(path):
    """The `run:` scripts of a workflow or an action, with their shells."""
    with open(path) as f:
        doc = yaml.safe_load(f)
    steps = []
    if "runs" in doc:
        steps = doc["runs"].get("steps", [])
    for job in (doc.get("jobs") or {}).values():
        steps += job.get("steps", [])
    return [(s.get("name", "?"), s["run"]) for s in steps if "run" in s]


class Lint(unittest.TestCase):
    def test_python_passes_pyflakes(self):
        # Unused imports and variables, undefined names: in the Action's
        # scripts, the CI templates' helpers, the tests and the benchmarks.
        dirs = [os.path.join(ROOT, d) for d in ("action", "ci", "tests",
                                                "bench")]
        p = subprocess.run(["pyflakes3"] + dirs, capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_shell_scripts_pass_shellcheck(self):
        scripts = shell_scripts()
        self.assertIn(os.path.join(ROOT, "bootstrap.sh"), scripts)
        self.assertIn(os.path.join(ROOT, "test.sh"), scripts)
        for path in scripts:
            with self.subTest(script=os.path.relpath(path, ROOT)):
                p = subprocess.run(["shellcheck", path], capture_output=True,
                                   text=True)
                self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_workflow_steps_pass_shellcheck(self):
        for path in workflow_files():
            for name, script in run_blocks(path):
                with self.subTest(file=os.path.relpath(path, ROOT),
                                  step=name):
                    # ${{ ... }} is the runner's, not the shell's.
                    script = script.replace("${{", "${_").replace("}}", "}")
                    with tempfile.NamedTemporaryFile("w", suffix=".sh") as f:
                        f.write("#!/bin/bash\n" + script)
                        f.flush()
                        p = subprocess.run(["shellcheck", "-e", "SC2154",
                                            f.name], capture_output=True,
                                           text=True)
                    self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_action_and_workflows_match_their_schemas(self):
        for path in workflow_files():
            with self.subTest(file=os.path.relpath(path, ROOT)):
                p = subprocess.run([VALIDATOR, path], capture_output=True,
                                   text=True)
                self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_the_readme_workflow_is_the_validated_one(self):
        with open(os.path.join(ROOT, "README.md")) as f:
            readme = f.read()
        with open(os.path.join(ROOT, "ci", "github", "quickstart.yml")) as f:
            workflow = f.read()
        section = readme.split("## Use it on GitHub", 1)[1]
        block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
        self.assertEqual(block, workflow)

    def test_the_workflow_to_paste_is_whole(self):
        """What people paste: named (the fork-safe pair finds the measuring
        workflow by name), one run per pull request, written as people
        write YAML (no flow-style mappings)."""
        path = os.path.join(ROOT, "ci", "github", "quickstart.yml")
        with open(path) as f:
            text = f.read()
        doc = yaml.safe_load(text)
        self.assertEqual(doc["name"], "perfgate")
        self.assertIn("pull_request", doc[True])  # YAML 1.1 reads on: as True
        self.assertIn("github.event.pull_request.number",
                      doc["concurrency"]["group"])
        self.assertIn("cancel-in-progress", doc["concurrency"])
        self.assertEqual(doc["permissions"]["pull-requests"], "write")
        steps = doc["jobs"]["perfgate"]["steps"]
        self.assertTrue(steps[-1]["uses"].startswith("perfgate/perfgate@"))
        self.assertFalse(steps[0]["with"]["persist-credentials"])
        for event in yaml.parse(text):
            if isinstance(event, yaml.MappingStartEvent):
                self.assertFalse(event.flow_style, "a {flow: mapping} at "
                                 "line %d" % (event.start_mark.line + 1))
            if isinstance(event, yaml.SequenceStartEvent) and \
                    event.flow_style:
                self.assertNotIn("steps:", text.split("\n")[
                    event.start_mark.line])

    def test_the_fork_safe_halves_find_each_other(self):
        d = os.path.join(ROOT, "ci", "github")
        docs = {}
        for name in ("perfgate.yml", "perfgate-matrix.yml",
                     "perfgate-comment.yml"):
            with open(os.path.join(d, name)) as f:
                docs[name] = yaml.safe_load(f)
        watched = docs["perfgate-comment.yml"][True]["workflow_run"][
            "workflows"]
        self.assertEqual(watched, [docs["perfgate.yml"]["name"]])
        self.assertEqual(watched, [docs["perfgate-matrix.yml"]["name"]])
        # The result is kept from the fixed path the action writes, not
        # from an output a failed step may not pass on.
        for name in ("perfgate.yml", "perfgate-matrix.yml"):
            text = yaml.safe_dump(docs[name])
            self.assertIn("$RUNNER_TEMP/perfgate.json", text)
            self.assertNotIn("outputs.report-json", text)
        spec = importlib.util.spec_from_file_location(
            "action", os.path.join(ROOT, "action", "action.py"))
        action = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(action)
        with unittest.mock.patch.dict(os.environ, {"RUNNER_TEMP": "/r"}):
            self.assertEqual(action.handed_on("json"), "/r/perfgate.json")

    def test_the_docs_links_lead_somewhere(self):
        """Every relative link of README.md, docs/ and ci/ names a file or
        folder of the tree (the README's pages moved once already)."""
        pages = [os.path.join(ROOT, "README.md"),
                 os.path.join(ROOT, "CONTRIBUTING.md"),
                 os.path.join(ROOT, "ci", "README.md")]
        docs = os.path.join(ROOT, "docs")
        pages += [os.path.join(docs, n) for n in sorted(os.listdir(docs))
                  if n.endswith(".md")]
        for page in pages:
            with open(page) as f:
                text = f.read()
            for target in re.findall(r"\]\(([^)\s]+)\)", text):
                if re.match(r"[a-z]+:", target) or target.startswith("#"):
                    continue
                path = os.path.normpath(os.path.join(
                    os.path.dirname(page), target.split("#")[0]))
                with self.subTest(page=os.path.relpath(page, ROOT),
                                  link=target):
                    self.assertTrue(os.path.exists(path), path)

    def test_the_readme_is_a_front_door(self):
        with open(os.path.join(ROOT, "README.md")) as f:
            lines = f.read().split("\n")
        self.assertLessEqual(len(lines), 300)
        # The two set-up commands, and CI runs exactly those.
        with open(os.path.join(ROOT, ".ci", "run")) as f:
            ci = [l for l in f.read().split("\n")
                  if l and not l.startswith(("#", "set ", "cd "))]
        self.assertEqual(ci, ["./bootstrap.sh", "./test.sh"])
        for command in ci:
            self.assertTrue(any(l.startswith(command + " ") for l in lines),
                            command)

    def test_other_ci_templates_hold_together(self):
        """No offline schema for these: their structure, checked here."""
        ci = os.path.join(ROOT, "ci")
        with open(os.path.join(ci, "gitlab", "perfgate.gitlab-ci.yml")) as f:
            job = yaml.safe_load(f)["perfgate"]
        self.assertTrue(all(isinstance(x, str) for x in job["script"]))
        # A pass with a warning (a case slower under the total) is exit 78,
        # which each system must show as a warning, not a failure.
        self.assertIn("--warning-exit-code 78", " ".join(job["script"]))
        self.assertEqual(job["allow_failure"]["exit_codes"], [78])
        self.assertEqual(str(job["variables"]["GIT_DEPTH"]), "0")
        self.assertEqual(job["image"]["entrypoint"], [""])
        self.assertIn("merge_request_event", job["rules"][0]["if"])
        self.assertEqual(job["artifacts"]["when"], "always")
        self.assert_keeps_builds(job)
        with open(os.path.join(ci, "gitlab",
                               "perfgate-parallel.gitlab-ci.yml")) as f:
            jobs = yaml.safe_load(f)
        shard, merge = jobs["perfgate"], jobs["perfgate-merge"]
        self.assertIsInstance(shard["parallel"], int)
        self.assertIn('--shard "$CI_NODE_INDEX/$CI_NODE_TOTAL"',
                      " ".join(shard["script"]))
        self.assertEqual(merge["needs"], ["perfgate"])
        self.assertIn("perfgate merge", " ".join(merge["script"]))
        self.assertIn("--warning-exit-code 78", " ".join(merge["script"]))
        self.assertEqual(merge["allow_failure"]["exit_codes"], [78])
        self.assert_keeps_builds(shard)
        self.assertIn("$CI_NODE_INDEX", shard["cache"]["key"])
        # A merge request's code writes its own cache alone.
        self.assertIn("$CI_MERGE_REQUEST_IID", shard["cache"]["key"])
        with open(os.path.join(ci, "buildkite", "pipeline.yml")) as f:
            steps = yaml.safe_load(f)["steps"]
        for step in steps:
            self.assertTrue(step["label"])
            script = os.path.join(ROOT, step["command"])
            self.assertTrue(os.access(script, os.X_OK), script)
            self.assertEqual(step["soft_fail"], [{"exit_status": 78}])
            with open(script) as f:
                self.assertIn("--warning-exit-code 78", f.read())
        with open(os.path.join(ci, "azure", "azure-pipelines.yml")) as f:
            azure = yaml.safe_load(f)
        self.assertEqual(azure["steps"][0]["fetchDepth"], 0)
        cache, run = azure["steps"][1], azure["steps"][2]
        self.assertEqual(cache["task"], "Cache@2")
        self.assertIn('--cache-dir "%s"' % cache["inputs"]["path"],
                      run["script"])
        self.assertIn("perfgate compare", run["script"])
        self.assertIn("--warning-exit-code 78", run["script"])
        self.assertIn("result=SucceededWithIssues", run["script"])
        with open(os.path.join(ci, "jenkins", "Jenkinsfile")) as f:
            jenkins = f.read()
        self.assertEqual(jenkins.count("{"), jenkins.count("}"))
        self.assertIn("changeRequest()", jenkins)
        self.assertIn("perfgate compare", jenkins)
        self.assertIn("--warning-exit-code 78", jenkins)
        self.assertIn("status == 78", jenkins)

    def assert_keeps_builds(self, job):
        """A GitLab job keeps perfgate's builds in its cache: the directory
        perfgate keeps them in is the one GitLab saves."""
        self.assertEqual(job["variables"]["XDG_CACHE_HOME"],
                         "$CI_PROJECT_DIR/" + job["cache"]["paths"][0]
                         .rstrip("/"))
        self.assertEqual(job["cache"]["when"], "always")
        self.assertIn("$CI_MERGE_REQUEST_IID", job["cache"]["key"])

    def test_the_validator_rejects_a_broken_action(self):
        with open(os.path.join(ROOT, "action.yml")) as f:
            text = f.read()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "action.yml")
            with open(path, "w") as f:
                f.write(text.replace("using: composite", "using: teleport"))
            p = subprocess.run([VALIDATOR, path], capture_output=True,
                               text=True)
            self.assertNotEqual(p.returncode, 0, p.stdout)


# What each folder of src/ may include, besides include/ (the public ABI):
# its own headers and those of the folders below it (CMakeLists.txt gives
# each folder's target only those include directories; docs/internals.md
# draws the same picture).  The gate's sub-systems are folders of their
# own: result and repo stand on the engine alone, run on result, config
# on neither (it never reaches a child process), report on result, build
# on config and repo; the orchestrators in gate/ see them all, history
# sees the gate, the command line everything.
_ENGINE = {"util", "engine", "cuda"}
_GATE = _ENGINE | {"gate/result", "gate/run", "gate/repo", "gate/config",
                   "gate/report", "gate/build", "gate"}
LAYERS = {
    "util": {"util"},
    "engine": {"util", "engine"},
    "cuda": _ENGINE,
    "measurer": _ENGINE | {"measurer"},
    "gate/result": _ENGINE | {"gate/result"},
    "gate/run": _ENGINE | {"gate/result", "gate/run"},
    "gate/repo": _ENGINE | {"gate/repo"},
    "gate/config": _ENGINE | {"gate/config"},
    "gate/report": _ENGINE | {"gate/result", "gate/report"},
    "gate/build": _ENGINE | {"gate/result", "gate/repo", "gate/config",
                             "gate/build"},
    "gate": _GATE,
    "history": _GATE | {"history"},
    "cli": _GATE | {"history", "cli"},
}


def source_folders(src):
    """Every folder under src that holds .c or .h files, as a path
    relative to src ("gate/build"), sorted."""
    found = []
    for d, _, files in os.walk(src):
        if any(f.endswith((".c", ".h")) for f in files):
            found.append(os.path.relpath(d, src))
    return sorted(found)


def includes_of(src):
    """{path relative to src: [the project headers it includes, as paths
    relative to src, or "include/..." for the public ones]}."""
    headers = {}
    folders = source_folders(src)
    for d in folders:
        for f in sorted(os.listdir(os.path.join(src, d))):
            if f.endswith(".h"):
                headers.setdefault(f, d + "/" + f)
    out = {}
    for d in folders:
        for f in sorted(os.listdir(os.path.join(src, d))):
            if not f.endswith((".c", ".h")):
                continue
            with open(os.path.join(src, d, f)) as fh:
                names = re.findall(r'^\s*#\s*include\s+"([^"]+)"', fh.read(),
                                   re.M)
            found = []
            for name in names:
                if "/" in name:
                    found.append("include/" + name)
                elif os.path.exists(os.path.join(src, d, name)):
                    found.append(d + "/" + name)  # beside it, found first
                elif name in headers:
                    found.append(headers[name])
            out[d + "/" + f] = found
    return out


def layer_violations(graph):
    """["FILE includes HEADER, a layer above it"] for each include that
    looks up (or sideways, into another layer it may not see)."""
    bad = []
    for path, found in sorted(graph.items()):
        layer = os.path.dirname(path)
        for h in found:
            if h.startswith("include/"):
                continue
            if os.path.dirname(h) not in LAYERS.get(layer, {layer}):
                bad.append("src/%s includes %s, which its layer (%s) may not "
                           "see" % (path, h, layer))
    return bad


def module_graph(graph):
    """{module: {modules it includes}}; a module is a .c and its .h."""
    mods = {}
    for path, found in graph.items():
        m = os.path.splitext(path)[0]
        deps = mods.setdefault(m, set())
        for h in found:
            if not h.startswith("include/") and os.path.splitext(h)[0] != m:
                deps.add(os.path.splitext(h)[0])
    return mods


def module_cycles(mods):
    """The groups of modules that reach each other (strongly connected
    components of more than one), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(mods.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(mods):
        if v not in index:
            visit(v)
    return out


def abi_functions(header):
    """Each function problem.h declares, with the ABI its comment (or that
    of the declaration just above it, which it shares) says it came in."""
    found, since, last = [], None, None
    for line in header.splitlines():
        if line.startswith("/*"):
            last = None  # a comment of its own: its own ABI
        m = re.search(r"Since ABI (\d+)", line)
        if m:
            since = m.group(1)
        m = re.match(r"^[a-z_][a-z0-9_ ]*[ *](pg_[a-z_]+)\(", line)
        if m:
            found.append((m.group(1), since or last))
            last, since = since or last, None
    return found


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True,
                          text=True)


# The house's sizes (issue 51): no folder of src/ with more than a quarter
# of its lines, no file over 1,000 lines, no function over 80.  What is
# still over is listed with its size today: it may shrink and leave the
# list, never grow; anything new over a limit fails.
MAX_FOLDER_SHARE = 0.25
MAX_FILE_LINES = 1000
MAX_FUNCTION_LINES = 80
LONG_FILES = {}
LONG_FUNCTIONS = {}


def functions_of(path):
    """[(name, lines)] of the functions defined in a C file as the house
    writes them: the body's braces alone at the start of a line, the name
    the first one followed by '(' in the signature above."""
    with open(path) as f:
        lines = f.read().split("\n")
    found, i = [], 0
    while i < len(lines):
        if lines[i] != "{":
            i += 1
            continue
        k = i
        while k > 0 and lines[k - 1].strip() and not lines[k - 1].startswith(
                ("}", "/*", " *", "#")) and not lines[k - 1].endswith(";"):
            k -= 1
        name = re.search(r"(\w+)\s*\(", " ".join(lines[k:i]))
        end = i + 1
        while end < len(lines) and lines[end] != "}":
            end += 1
        found.append((name.group(1) if name else "?", end - i + 1))
        i = end + 1
    return found


def source_sizes(root):
    """{path: lines} of every .c and .h under src/, paths from root."""
    sizes = {}
    for d, _, files in os.walk(os.path.join(root, "src")):
        for f in files:
            if f.endswith((".c", ".h")):
                path = os.path.join(d, f)
                with open(path) as fh:
                    sizes[os.path.relpath(path, root)] = sum(1 for _ in fh)
    return sizes


class Code(unittest.TestCase):
    def test_each_abi_function_says_its_abi_and_is_exported(self):
        with open(os.path.join(ROOT, "include/perfgate/problem.h")) as f:
            header = f.read()
        with open(os.path.join(ROOT, "src/engine/perfgate.sym")) as f:
            exported = set(re.findall(r"^\s*(pg_[a-z_]+);", f.read(), re.M))
        found = abi_functions(header)
        self.assertGreater(len(found), 10)
        newest = int(re.search(r"#define PG_PROBLEM_ABI (\d+)", header)[1])
        for name, since in found:
            with self.subTest(function=name):
                self.assertIsNotNone(since, "no 'Since ABI N' above it")
                self.assertLessEqual(int(since), newest)
        self.assertEqual({n for n, _ in found}, exported,
                         "problem.h and perfgate.sym differ")

    def test_no_internal_name_reads_like_the_abi(self):
        # A problem's author reads pg_param and pg_alloc in problem.h; an
        # internal pg_case_init or pg_random_token beside them reads as
        # one more function to call.  Internal names keep off the ABI's:
        # its types (pg_case, pg_problem, pg_fn) and the first word of its
        # functions (pg_alloc*, pg_random*, pg_check*, ...).
        with open(os.path.join(ROOT, "include/perfgate/problem.h")) as f:
            header = f.read()
        abi = {n for n, _ in abi_functions(header)}
        types = set(re.findall(r"typedef struct (pg_[a-z_]+)", header))
        types |= set(re.findall(r"\(\*(pg_[a-z_]+)\)", header))
        words = types | {"pg_" + n.split("_")[1] for n in abi}
        self.assertIn("pg_random", words)
        self.assertIn("pg_case", words)
        bad = []
        for path in glob.glob(os.path.join(ROOT, "src/*/*.h")):
            with open(path) as f:
                text = f.read()
            names = re.findall(r"^[a-z_][a-z0-9_ ]*[ *](pg_[a-z0-9_]+)\(",
                               text, re.M)
            names += re.findall(r"^typedef [^;{]*?\b(pg_[a-z0-9_]+)\b",
                                text, re.M)
            names += re.findall(r"^} (pg_[a-z0-9_]+);", text, re.M)
            for name in names:
                if name in abi or name in types:
                    continue
                for w in words:
                    if name == w or name.startswith(w + "_"):
                        bad.append("%s: %s (like the ABI's %s)" % (
                            os.path.relpath(path, ROOT), name, w))
        self.assertEqual(sorted(set(bad)), [])

    def test_changed_lines_follow_clang_format(self):
        # As libgit2 and git keep theirs: a hint for new code, checked on
        # the lines a change touches (and the uncommitted ones), not a
        # rewrite of the tree.
        base = os.environ.get("PERFGATE_FORMAT_BASE", "HEAD~1")
        if git("rev-parse", "--verify", "-q", base + "^{commit}").returncode:
            self.skipTest("no %s to compare with (a shallow clone)" % base)
        p = git("clang-format", "--diff", "--extensions", "c,h,cu", base,
                "--", "src", "include", "problems", "tests", "bench",
                "examples")
        self.assertEqual(p.returncode in (0, 1), True, p.stderr)
        self.assertFalse(p.stdout.startswith("diff"),
                         "lines changed since %s are not formatted as "
                         ".clang-format says; run `git clang-format %s`:\n%s"
                         % (base, base, p.stdout[:4000]))

    def test_the_action_s_build_cache_key_covers_every_source(self):
        # The action caches perfgate's build by a hash of its sources: a
        # change in any folder of src/ must change the key, or a stale
        # perfgate is used.
        with open(os.path.join(ROOT, "action.yml")) as f:
            steps = yaml.safe_load(f)["runs"]["steps"]
        script = [st["run"] for st in steps
                  if st.get("name") == "Hash perfgate's source"][0]
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("CMakeLists.txt", "scripts", "src", "include"):
                src = os.path.join(ROOT, name)
                if os.path.isdir(src):
                    shutil.copytree(src, os.path.join(tmp, name))
                else:
                    shutil.copy(src, tmp)
            out = os.path.join(tmp, "out")

            def key():
                open(out, "w").close()
                subprocess.run(["bash", "--noprofile", "--norc", "-eo",
                                "pipefail", "-c", script], check=True,
                               env=dict(os.environ, GITHUB_ACTION_PATH=tmp,
                                        GITHUB_OUTPUT=out))
                with open(out) as f:
                    return f.read()

            before = key()
            self.assertRegex(before, r"^hash=[0-9a-f]{16}\n$")
            # A file two folders down, as the gate's sub-systems are.
            deep = os.path.join(tmp, "src", "gate", "result", "stats.c")
            self.assertTrue(os.path.isfile(deep))
            with open(deep, "a") as f:
                f.write("/* changed */\n")
            self.assertNotEqual(key(), before)

    def test_banned_h_comes_last(self):
        sources = [f for f in tracked_files()
                   if f.startswith(os.path.join(ROOT, "src", ""))
                   and f.endswith(".c")]
        self.assertGreater(len(sources), 30)
        for path in sources:
            with open(path) as f:
                includes = [line.split()[1] for line in f
                            if line.startswith("#include")]
            with self.subTest(source=os.path.relpath(path, ROOT)):
                self.assertEqual(includes[-1:], ['"banned.h"'])

    def test_no_include_looks_up_a_layer(self):
        graph = includes_of(os.path.join(ROOT, "src"))
        self.assertEqual(set(os.path.dirname(p) for p in graph), set(LAYERS))
        self.assertEqual(layer_violations(graph), [])

    def test_no_two_modules_need_each_other(self):
        cycles = module_cycles(module_graph(includes_of(
            os.path.join(ROOT, "src"))))
        self.assertEqual(cycles, [], "modules that include each other "
                         "(put what both need in a module below them)")

    def test_the_include_checks_find_what_they_look_for(self):
        # A tree of our own: engine/a.c looks up at gate/g.h, gate/g.c and
        # gate/h.c include each other's headers by way of gate/i.h, and
        # util/u.c includes the public header: one violation, one cycle.
        with tempfile.TemporaryDirectory() as tmp:
            files = {"engine/a.c": '#include "a.h"\n#include "g.h"\n',
                     "engine/a.h": "", "gate/g.h": "",
                     "gate/g.c": '#include "g.h"\n#include "h.h"\n',
                     "gate/h.h": '#include "i.h"\n', "gate/h.c": "",
                     "gate/i.h": '#include "g.h"\n',
                     "util/u.c": '#include "perfgate/problem.h"\n'}
            for name, text in files.items():
                os.makedirs(os.path.join(tmp, os.path.dirname(name)),
                            exist_ok=True)
                with open(os.path.join(tmp, name), "w") as f:
                    f.write(text)
            graph = includes_of(tmp)
            self.assertEqual(layer_violations(graph), [
                "src/engine/a.c includes gate/g.h, which its layer (engine) "
                "may not see"])
            self.assertEqual(module_cycles(module_graph(graph)),
                             [["gate/g", "gate/h", "gate/i"]])

    def test_every_integration_test_class_is_run(self):
        # ctest runs a file's classes one by one where CMakeLists.txt names
        # them, or the whole file: a class added and not named would pass
        # unseen.  And every fixture file is used by some test.
        with open(os.path.join(ROOT, "tests/CMakeLists.txt")) as f:
            cmake = f.read()
        integration = os.path.join(ROOT, "tests/integration")
        texts = ""
        for path in sorted(glob.glob(os.path.join(integration, "*.py"))):
            with open(path) as f:
                text = f.read()
            texts += text
            name = os.path.basename(path)
            if not name.startswith("test_") or name + ")" in cmake:
                continue
            for cls in re.findall(
                    r"^class (\w+)\((?:\w+, )*(?:RepoTest|[\w.]*TestCase)\)",
                    text, re.M):
                with self.subTest(test=name, cls=cls):
                    self.assertRegex(cmake, r"\b%s\b" % cls,
                                     "not run by ctest")
        for path in glob.glob(os.path.join(integration, "fixtures", "*")):
            with self.subTest(fixture=os.path.basename(path)):
                self.assertIn('"%s"' % os.path.basename(path), texts)

    def test_the_protocol_s_events_are_documented(self):
        # protocol.h declares every event of perfgate-measure; the table
        # in docs/internals.md describes the same ones, no more.
        with open(os.path.join(ROOT, "src", "engine", "protocol.h")) as f:
            declared = set(re.findall(r'#define PG_EV_[A-Z]+ "([a-z]+)"',
                                      f.read()))
        with open(os.path.join(ROOT, "docs", "internals.md")) as f:
            text = f.read()
        section = text[text.index("## The measuring child's protocol"):]
        end = section.find("\n## ", 4)
        section = section[:end] if end > 0 else section
        documented = set(re.findall(r"^\| `([a-z]+)` \|", section, re.M))
        self.assertGreater(len(declared), 8)
        self.assertEqual(declared, documented)

    def test_no_folder_file_or_function_outgrows_the_house(self):
        sizes = source_sizes(ROOT)
        total = sum(sizes.values())
        folders = {}
        for path, n in sizes.items():
            folders[os.path.dirname(path)] = (
                folders.get(os.path.dirname(path), 0) + n)
        for folder, n in folders.items():
            with self.subTest(folder=folder):
                self.assertLessEqual(n / total, MAX_FOLDER_SHARE)
        for path, n in sizes.items():
            with self.subTest(file=path):
                self.assertLessEqual(n, LONG_FILES.get(path, MAX_FILE_LINES),
                                     "split it where it changes")
        seen = {}
        for path in sizes:
            if path.endswith(".c"):
                for name, n in functions_of(os.path.join(ROOT, path)):
                    seen["%s:%s" % (path, name)] = n
        self.assertGreater(len(seen), 1000)
        for key, n in seen.items():
            with self.subTest(function=key):
                self.assertLessEqual(n, LONG_FUNCTIONS.get(
                    key, MAX_FUNCTION_LINES), "split it into steps")
        # The lists name only what is still over: a file or function
        # brought under its limit (or gone) leaves them.
        for path, n in LONG_FILES.items():
            with self.subTest(listed=path):
                self.assertGreater(sizes.get(path, 0), MAX_FILE_LINES)
        for key in LONG_FUNCTIONS:
            with self.subTest(listed=key):
                self.assertGreater(seen.get(key, 0), MAX_FUNCTION_LINES)

    def test_the_size_checks_find_what_they_look_for(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "t.c")
            with open(path, "w") as f:
                f.write("/* a */\nstatic int\nshort_one(int x)\n{\n"
                        "    return x;\n}\n\nvoid long_one(void)\n{\n" +
                        "    ;\n" * 90 + "}\n")
            self.assertEqual(functions_of(path),
                             [("short_one", 3), ("long_one", 92)])

    def test_the_environment_is_read_in_one_place(self):
        # env.c alone calls getenv; every name the code asks of pg_env is
        # in env.c's list, and docs/cli.md's "Environment" names them all.
        src = os.path.join(ROOT, "src")
        with open(os.path.join(src, "util", "env.c")) as f:
            env_c = f.read()
        body = env_c[env_c.index("pg_env_list[] = {"):]
        body = body[:body.index("NULL};")]
        listed = re.findall(r'^\s*"([A-Z_]+)",', body, re.M)
        self.assertGreater(len(listed), 40)
        self.assertEqual(len(listed), len(set(listed)))
        asked = set()
        for path in tracked_files():
            if not (path.startswith(src + os.sep) and
                    path.endswith((".c", ".h"))):
                continue
            with open(path) as f:
                text = f.read()
            rel = os.path.relpath(path, ROOT)
            if rel not in ("src/util/env.c", "src/util/banned.h"):
                with self.subTest(getenv=rel):
                    self.assertNotRegex(text, r"\bgetenv\s*\)?\s*\(",
                                        "use pg_env (env.h)")
            asked |= set(re.findall(r'pg_env(?:_nonempty)?\("([A-Z_]+)"\)',
                                    text))
        self.assertGreater(len(asked), 20)
        self.assertEqual(asked - set(listed), set(),
                         "asked of pg_env but not in env.c's list")
        with open(os.path.join(ROOT, "docs", "cli.md")) as f:
            doc = f.read()
        section = doc[doc.index("## Environment"):]
        end = section.find("\n## ", 4)
        section = section[:end] if end > 0 else section
        documented = set(re.findall(r"`([A-Z][A-Z_]+)`", section))
        self.assertEqual(set(listed) - documented, set(),
                         "in env.c's list but not in docs/cli.md")
        self.assertEqual(documented - set(listed), set(),
                         "in docs/cli.md's Environment but not read")

    def test_banned_h_refuses_what_it_bans(self):
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "t.c")
            with open(src, "w") as f:
                f.write('#include <string.h>\n#include "banned.h"\n'
                        "void f(char *a) { strcpy(a, \"x\"); }\n")
            p = subprocess.run(["cc", "-c", "-I",
                                os.path.join(ROOT, "src", "util"), src, "-o",
                                os.path.join(tmp, "t.o")],
                               capture_output=True, text=True)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("strcpy_is_banned", p.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
