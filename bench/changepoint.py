#!/usr/bin/env python3
"""Precision and recall of `perfgate history`'s change points on labelled
series.  See docs/history.md.

    python3 bench/changepoint.py [--perfgate build/perfgate] [--out FILE]

Each row is SERIES series of one kind and length, made here with a seeded
generator: a level of 100 plus noise, and the true change points known by
construction.  They go through `perfgate history --series FILE.csv --json`
itself (one CSV of SERIES columns per row), once with the noise estimated
from the series and once with each point's standard deviation given (a
NAME:sd column, as perfgate's own per-push intervals would give it).

The noise's unit is the standard deviation of its normal core: a "2 sd"
step is twice that.  Noise shapes: normal; spiky (the normal core plus,
on one point in ten, an upward spike of exponential size averaging 6 sd,
as timings on a busy machine); t3 (Student's t with 3 degrees of freedom,
scaled to the same median absolute deviation as the normal core: heavy
tails both ways); banded (the core plus a second level 3 sd up on 30% of
the points, at random: code whose speed depends on alignment).

A change point found within two points of a true one is a hit (each true
one counts once); precision is hits over all found, recall hits over all
true.  A creep (five pushes in a row, each 0.6 sd) is found when a change
point falls in it or within two points of it.

Then the creep rule itself, on the inputs with paired changes (creeps are
found from pairs): under a 5% floor (`--noise-floor 5%`; the values' sd is 1%),
five pushes in a row of 1%, 2% or 3% each, scored as creeps found (a hit
overlaps the true pushes, give or take two); and pure noise and a single
8% step (a step, never a creep), scored as series with any creep.
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
LEVEL = 100.0
TOLERANCE = 2
CREEP_FLOOR = 0.05
# What the detector is given, and its title in the tables.
MODES = [("values", "values alone, the noise estimated from the series"),
         ("sd", "values and each point's sd (NAME:sd)"),
         (1.0, "values and paired changes, the pairs as noisy as the "
               "values"),
         (0.25, "values and paired changes, the pairs a quarter as noisy "
                "(perfgate's own history)"),
         (0.1, "values and paired changes, the pairs a tenth as noisy "
               "(records measured to perfgate record's precision, whose "
               "times still move with each process's luck)")]


def t3(rng):
    # Student's t, 3 degrees of freedom: normal / sqrt(chi2_3 / 3); its
    # median absolute deviation is 0.7649, the normal's 0.6745.
    chi = sum(rng.gauss(0, 1) ** 2 for _ in range(3)) / 3
    return rng.gauss(0, 1) / math.sqrt(chi) * (0.6745 / 0.7649)


NOISES = {
    "normal": lambda rng: rng.gauss(0, 1),
    "spiky": lambda rng: rng.gauss(0, 1) + (
        rng.expovariate(1 / 6.0) if rng.random() < 0.1 else 0),
    "t3": t3,
    "banded": lambda rng: rng.gauss(0, 1) + (3 if rng.random() < 0.3 else 0),
}


def make(kind, n, size, noise, rng):
    """A series and its truths: a list of (first, last) index ranges."""
    x = [LEVEL for _ in range(n)]
    truths = []
    sign = rng.choice((-1, 1))
    if kind == "step":
        at = rng.randint(n // 4, n - n // 4)
        for i in range(at, n):
            x[i] += sign * size
        truths.append((at, at))
    elif kind == "fixed":
        # A regression, fixed later: up at a, back at b, both steps.
        a = rng.randint(max(2, n // 5), n // 2)
        b = rng.randint(a + max(3, n // 5), n - 2)
        for i in range(a, b):
            x[i] += size
        truths += [(a, a), (b, b)]
    elif kind == "creep":
        at = rng.randint(n // 4, n - n // 4 - 5)
        for k in range(5):
            for i in range(at + k, n):
                x[i] += size / 5
        truths.append((at, at + 4))
    return x, truths


def measure(level, noise, ratio, rng):
    """What is measured of the true levels: each point with its noise,
    and (ratio not None) each point's paired change against the one
    before, its noise `ratio` times the points' (as fractions)."""
    x = [v + NOISES[noise](rng) for v in level]
    if ratio is None:
        return x, None
    d = [float("nan")] + [
        level[i] / level[i - 1] - 1 + NOISES[noise](rng) * ratio / LEVEL
        for i in range(1, len(level))]
    return x, d


def score(found, truths):
    used = [False] * len(truths)
    hits = 0
    for f in found:
        for k, (lo, hi) in enumerate(truths):
            if not used[k] and lo - TOLERANCE <= f <= hi + TOLERANCE:
                used[k] = True
                hits += 1
                break
    return hits, len(found), len(truths)


def score_ranges(found, truths):
    """Creeps: a found range that overlaps a true one (widened by the
    tolerance) is a hit."""
    used = [False] * len(truths)
    hits = 0
    for a, b in found:
        for k, (lo, hi) in enumerate(truths):
            if not used[k] and a <= hi + TOLERANCE and b >= lo - TOLERANCE:
                used[k] = True
                hits += 1
                break
    return hits, len(found), len(truths)


def run_row(perfgate, tmp, kind, n, size, noise, series, seed, mode,
            floor=0):
    """One row: `series` series through perfgate.  mode: "values" (the
    noise estimated), "sd" (each point's sd given), or a ratio: pairs
    given too, their noise that ratio of the points'.  With a floor (a
    fraction), the creeps found under it are scored, not the change
    points."""
    rng = random.Random("%s/%d/%s/%s/%d" % (kind, n, size, noise, seed))
    made = [make(kind, n, size, noise, rng) for _ in range(series)]
    ratio = mode if isinstance(mode, float) else None
    seen = [measure(level, noise, ratio, rng) for level, _ in made]
    path = os.path.join(tmp, "row.csv")
    with open(path, "w") as f:
        header = ["commit"]
        for k in range(series):
            header.append("s%d" % k)
            if mode != "values":
                header.append("s%d:sd" % k)
            if ratio is not None:
                header += ["s%d:change" % k, "s%d:change_sd" % k]
        f.write(",".join(header) + "\n")
        for i in range(n):
            row = ["c%d" % i]
            for x, d in seen:
                row.append("%.6f" % x[i])
                if mode != "values":
                    row.append("1")
                if ratio is not None:
                    row += ["" if i == 0 else "%.8f" % d[i],
                            "" if i == 0 else "%.8f" % (ratio / LEVEL)]
            f.write(",".join(row) + "\n")
    args = ["--noise-floor", "%g%%" % (floor * 100)] if floor else []
    t0 = time.monotonic()
    out = subprocess.run([perfgate, "history", "--series", path, "--json",
                          "-", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, check=True)
    seconds = time.monotonic() - t0
    result = json.loads(out.stdout)
    hits = found = truths = with_any = with_step = 0
    for (_, tr), s in zip(made, result["series"]):
        if floor:  # the creeps are scored
            got = [(c["from"], c["to"]) for c in s["creeps"]]
            h, f, t = score_ranges(got, tr)
            # A step reported in a series whose pushes are each within the
            # floor is false (its pushes make a creep).
            with_step += bool(s["changepoints"])
        else:
            got = [c["index"] for c in s["changepoints"]]
            h, f, t = score(got, tr)
        hits, found, truths = hits + h, found + f, truths + t
        with_any += bool(got)
    return {"kind": kind, "n": n, "size": size, "noise": noise,
            "mode": mode, "series": series, "hits": hits,
            "found": found, "truths": truths, "with_any": with_any,
            "with_step": with_step, "seconds": seconds, "floor": floor}


def fmt_ratio(num, den):
    return "%.2f" % (num / den) if den else "-"


def table(rows, title, kinds):
    lines = ["", "### " + title, ""]
    lens = sorted({r["n"] for r in rows})
    lines.append("| series | noise | size | " +
                 " | ".join("n=%d P / R" % n for n in lens) + " |")
    lines.append("|---|---|---|" + "---|" * len(lens))
    keys = []
    for r in rows:
        k = (r["kind"], r["noise"], r["size"])
        if r["kind"] in kinds and k not in keys:
            keys.append(k)
    for k in keys:
        cells = []
        for n in lens:
            r = [r for r in rows if (r["kind"], r["noise"], r["size"]) == k
                 and r["n"] == n]
            if not r:
                cells.append("")
                continue
            r = r[0]
            if r["kind"] == "noise" or (r.get("floor") and
                                        r["kind"] == "step"):
                cells.append("%d of %d with any" % (r["with_any"],
                                                    r["series"]))
            else:
                cells.append("%s / %s" % (fmt_ratio(r["hits"], r["found"]),
                                          fmt_ratio(r["hits"], r["truths"])))
                if r.get("floor") and r["kind"] == "creep":
                    cells[-1] += ", %d with a step" % r["with_step"]
        if k[0] == "noise":
            size = "-"
        elif rows[0].get("floor"):
            size = ("5 x %g%%" % (k[2] / 5) if k[0] == "creep"
                    else "%g%%" % k[2])
        else:
            size = "%g sd" % k[2]
        lines.append("| %s | %s | %s | %s |" % (k[0], k[1], size,
                                                " | ".join(cells)))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--perfgate", default=os.path.join(ROOT, "build",
                                                       "perfgate"))
    ap.add_argument("--series", type=int, default=200,
                    help="series per row (200)")
    ap.add_argument("--lengths", default="10,20,30,50")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true",
                    help="a smoke run: few series, two lengths")
    ap.add_argument("--out", help="also write the tables to this file")
    ap.add_argument("--json", help="write every row as JSON")
    a = ap.parse_args()
    lengths = [int(v) for v in a.lengths.split(",")]
    if a.quick:
        a.series, lengths = 10, [10, 30]
    plan = []
    for noise in NOISES:
        plan.append(("noise", 0, noise))
        for size in (2, 3, 5):
            plan.append(("step", size, noise))
        plan.append(("fixed", 3, noise))
        plan.append(("creep", 3, noise))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for mode, _ in MODES:
            for kind, size, noise in plan:
                for n in lengths:
                    rows.append(run_row(a.perfgate, tmp, kind, n, size, noise,
                                        a.series, a.seed, mode))
    lines = ["# perfgate history: change points on labelled series",
             "", "%d series per cell; P / R: precision / recall; noise "
             "rows: series with any change point found." % a.series]
    for mode, what in MODES:
        part = [r for r in rows if r["mode"] == mode]
        lines += table(part, "Pure noise, " + what, ("noise",))
        lines += table(part, "Steps, " + what, ("step", "fixed", "creep"))
    # Creeps: pushes each within a 5% floor (1 sd of the values is 1%),
    # whose changes add up beyond it; pairs needed.
    creep_rows = []
    creep_plan = []
    for noise in NOISES:
        creep_plan.append(("noise", 0, noise))
        creep_plan.append(("step", 8, noise))
        for size in (5, 10, 15):
            creep_plan.append(("creep", size, noise))
    with tempfile.TemporaryDirectory() as tmp:
        for mode, _ in MODES:
            if not isinstance(mode, float):
                continue
            for kind, size, noise in creep_plan:
                for n in lengths:
                    creep_rows.append(run_row(a.perfgate, tmp, kind, n, size,
                                              noise, a.series, a.seed, mode,
                                              CREEP_FLOOR))
    lines += ["", "## Creeps under a %g%% floor" % (CREEP_FLOOR * 100), "",
              "Rows: pure noise, and a step of 8% (beyond the floor: a "
              "step, never a creep): series with any creep found; five "
              "pushes in a row of 1%, 2% or 3% each: precision / recall of "
              "the creeps found (a hit overlaps the true pushes, give or "
              "take two), and the series where a step was reported too "
              "(false: every push is within the floor)."]
    for mode, what in MODES:
        part = [r for r in creep_rows if r["mode"] == mode]
        if part:
            lines += table(part, "Creeps, " + what,
                           ("noise", "step", "creep"))
    rows += creep_rows
    secs = max(r["seconds"] for r in rows)
    lines += ["", "Slowest call of perfgate history: %.2f s (%d series of "
              "up to %d points)." % (secs, a.series, max(lengths))]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
