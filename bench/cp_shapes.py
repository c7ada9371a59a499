#!/usr/bin/env python3
"""`perfgate history` on the shapes real benchmark histories have:
periodic, two-level, noise that grows, outliers, and steps among them.
See docs/history.md ("Against Otava").

    python3 bench/cp_shapes.py [--perfgate build/perfgate] [--series 20]
    python3 bench/cp_shapes.py --manifest DIR

The first form makes its own series, with generators of ours for the
kinds of pattern in Apache Otava's labelled test data (otava-test-data):
constant; normal noise (sd 5); uniform noise (90 to 110); one outlier (+50);
a step (+20); a regression and its fix (+30 for a fifth of the series);
banding (each point 100 or 105 at random: a benchmark with two modes);
a variance change (sd 2, then 10); a phase change (a sine of amplitude 10
and period 20 whose phase jumps a quarter turn); three steps of +10.  Each
basic kind at 50 and 500 points, plain and with normal noise of sd 2, 5
and 10 added; then every pair of the kinds with structure (outlier, step,
regression, banding, variance, three steps) added together, with noise of
sd 5.  Where a change happens is drawn at random for each series (the
data set puts it in the middle), and each row is SERIES series with
their own noise.

The second form scores the data set itself: DIR is what `otava-gen
generate --output-dir DIR` writes (a manifest.json and one CSV per series,
with its `index` column).

Scoring, as the data set's benchmark guide scores a detector: a change
point found within two points of a true one matches it (each true one
once; level shifts first); precision is matched over all found, against
every labelled change (steps, a regression's two ends, an outlier, a
variance or phase change); level recall is the level shifts (steps and a
regression's ends) matched over all of them; "false" counts the series
with at least one change point that matches nothing.  perfgate reports a
change of the noise's scale as its own kind ("noise_changes", not a step):
those are scored apart: the labelled variance changes found within two
points and within ten (a change of scale shows only over several points),
and the series with one where no variance change is labelled.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOLERANCE = 2
LEVEL = ("step", "regression_start", "regression_end")
BASIC = ["constant", "noise_normal", "noise_uniform", "outlier", "step",
         "regression_fix", "banding", "variance_change", "phase_change",
         "multiple_changes"]
PAIRED = ["outlier", "step", "regression_fix", "banding", "variance_change",
          "multiple_changes"]


def shape(kind, n, rng):
    """The pattern's departure from a level of 100, and its labels: a list
    of (index, type)."""
    x = [0.0] * n
    labels = []
    mid = lambda: rng.randint(n // 4, n - n // 4)
    if kind == "noise_normal":
        x = [rng.gauss(0, 5) for _ in range(n)]
    elif kind == "noise_uniform":
        x = [rng.uniform(-10, 10) for _ in range(n)]
    elif kind == "outlier":
        at = mid()
        x[at] = 50.0
        labels.append((at, "outlier"))
    elif kind == "step":
        at = mid()
        x[at:] = [20.0] * (n - at)
        labels.append((at, "step"))
    elif kind == "regression_fix":
        span = max(10, n // 5)
        a = rng.randint(n // 5, n - span - n // 10)
        x[a:a + span] = [30.0] * span
        labels += [(a, "regression_start"), (a + span, "regression_end")]
    elif kind == "banding":
        x = [5.0 if rng.random() < 0.5 else 0.0 for _ in range(n)]
    elif kind == "variance_change":
        at = mid()
        x = [rng.gauss(0, 2 if i < at else 10) for i in range(n)]
        labels.append((at, "variance"))
    elif kind == "phase_change":
        at = mid()
        x = [10 * math.sin(2 * math.pi * i / 20 +
                           (math.pi / 2 if i >= at else 0)) for i in range(n)]
        labels.append((at, "phase"))
    elif kind == "multiple_changes":
        q = n // 4
        jitter = max(1, n // 20)
        at = [k * q + rng.randint(-jitter, jitter) for k in (1, 2, 3)]
        for a in at:
            for i in range(a, n):
                x[i] += 10.0
            labels.append((a, "step"))
    return x, labels


def make(kinds, n, noise, rng):
    x = [100.0] * n
    labels = []
    for k in kinds:
        d, lab = shape(k, n, rng)
        x = [a + b for a, b in zip(x, d)]
        labels += lab
    if noise:
        x = [v + rng.gauss(0, noise) for v in x]
    return x, sorted(labels)


def match(found, labels, types, tolerance=TOLERANCE):
    """How many found points match a label of `types`, (level shifts
    first), and how many of the level labels were matched."""
    left = sorted((l for l in labels if l[1] in types),
                  key=lambda l: l[1] not in LEVEL)
    hit = level = 0
    for f in found:
        near = [l for l in left if abs(l[0] - f) <= tolerance]
        if near:
            best = min(near, key=lambda l: (abs(l[0] - f), l[1] not in LEVEL))
            left.remove(best)
            hit += 1
            level += best[1] in LEVEL
    return hit, level


def detect(perfgate, tmp, columns):
    """perfgate history on one CSV of these columns: per column, the
    change points' indices and the noise changes' indices."""
    path = os.path.join(tmp, "s.csv")
    out = os.path.join(tmp, "s.json")
    n = max(len(c) for c in columns)
    with open(path, "w") as f:
        f.write("index," + ",".join("s%d" % i for i in range(len(columns))))
        f.write("\n")
        for i in range(n):
            f.write("%d," % i + ",".join(
                repr(c[i]) if i < len(c) else "" for c in columns) + "\n")
    t0 = time.monotonic()
    r = subprocess.run([perfgate, "history", "--series", path, "--json",
                        out], capture_output=True, text=True)
    secs = time.monotonic() - t0
    if r.returncode not in (0, 1):
        sys.exit("perfgate history failed (%d): %s" % (r.returncode,
                                                       r.stderr))
    with open(out) as f:
        doc = json.load(f)
    res = []
    for s in doc["series"]:
        res.append(([c["index"] for c in s["changepoints"]],
                    [c["index"] for c in s["noise_changes"]]))
    return res, secs


def tally(acc, found, noise, labels):
    hit, level = match(found, labels, LEVEL + ("outlier", "variance",
                                               "phase"))
    acc["noise_hit"] += match(noise, labels, ("variance",))[0]
    acc["noise_near"] += match(noise, labels, ("variance",), 10)[0]
    variances = sum(1 for l in labels if l[1] == "variance")
    acc["variances"] += variances
    acc["noise_false"] += bool(noise) and not variances
    acc["found"] += len(found)
    acc["hit"] += hit
    acc["level"] += level
    acc["levels"] += sum(1 for l in labels if l[1] in LEVEL)
    acc["false"] += hit < len(found)
    acc["series"] += 1


def ratio(a, b):
    return "%.2f" % (a / b) if b else "-"


def noise_found(a):
    if not a["variances"]:
        return "-"
    return "%s / %s" % (ratio(a["noise_hit"], a["variances"]),
                        ratio(a["noise_near"], a["variances"]))


def report(groups, title):
    keys = ("series", "found", "hit", "level", "levels", "false",
            "noise_hit", "noise_near", "variances", "noise_false")
    total = {k: 0 for k in keys}
    lines = ["", "## " + title, "",
             "| kind | series | precision | level recall | series with a "
             "false change point | variance changes found (2 / 10 points) "
             "| series with a noise change, none labelled |",
             "|---|---|---|---|---|---|---|"]
    for name, a in groups.items():
        for k in keys:
            total[k] += a[k]
        lines.append("| %s | %d | %s | %s | %d | %s | %d |" % (
            name, a["series"], ratio(a["hit"], a["found"]),
            ratio(a["level"], a["levels"]), a["false"],
            noise_found(a), a["noise_false"]))
    lines.append("| **all** | %d | **%s** | **%s** | %d | %s | %d |" % (
        total["series"], ratio(total["hit"], total["found"]),
        ratio(total["level"], total["levels"]), total["false"],
        noise_found(total), total["noise_false"]))
    return lines


def new_acc():
    return {k: 0 for k in ("series", "found", "hit", "level", "levels",
                           "false", "noise_hit", "noise_near", "variances",
                           "noise_false")}


def ours(a, tmp):
    rng = random.Random(a.seed)
    plan = []
    for kind in BASIC:
        for n in (50, 500):
            for noise in (0, 2, 5, 10):
                plan.append((kind, (kind,), n, noise))
    for i, k1 in enumerate(PAIRED):
        for k2 in PAIRED[i + 1:]:
            for n in (50, 500):
                plan.append(("pairs", (k1, k2), n, 5))
    groups = {}
    slowest = 0
    for name, kinds, n, noise in plan:
        made = [make(kinds, n, noise, rng) for _ in range(a.series)]
        res, secs = detect(a.perfgate, tmp, [m[0] for m in made])
        slowest = max(slowest, secs)
        acc = groups.setdefault(name, new_acc())
        for (x, labels), (found, noise) in zip(made, res):
            tally(acc, found, noise, labels)
    lines = report(groups, "Our generators, %d series per kind, length and "
                   "noise (seed %d)" % (a.series, a.seed))
    lines += ["", "Slowest call: %.2f s (%d series of up to 500 points)."
              % (slowest, a.series)]
    return lines


def manifest(a, tmp):
    with open(os.path.join(a.manifest, "manifest.json")) as f:
        entries = json.load(f)
    groups = {}
    for e in entries:
        values = []
        with open(os.path.join(a.manifest, e["filename"])) as f:
            head = f.readline().strip().split(",")
            col = head.index("value")
            for line in f:
                values.append(float(line.split(",")[col]))
        gen = e["generator"]
        name = "pairs" if gen.startswith("combine") else gen.split("+")[0]
        labels = list(zip(e["change_point_indices"],
                          e["change_point_types"]))
        res, _ = detect(a.perfgate, tmp, [values])
        tally(groups.setdefault(name, new_acc()), res[0][0], res[0][1],
              labels)
    return report(groups, "Otava's labelled test data (%d series)" %
                  len(entries))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--perfgate", default=os.path.join(ROOT, "build",
                                                       "perfgate"))
    ap.add_argument("--series", type=int, default=20,
                    help="series per row of our generators (20)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--manifest", metavar="DIR",
                    help="score the series otava-gen wrote to DIR instead")
    ap.add_argument("--out", help="also write the table to this file")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        lines = manifest(a, tmp) if a.manifest else ours(a, tmp)
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
