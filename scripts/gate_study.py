#!/usr/bin/env python3
"""How often `--fail-if-slower` fails two benches of one binary (false failures) and how often it
catches a planted slowdown (detections), on real bench folders (issue 46, item 6).

For every unordered pair (A, B) of the folders given (each with a runs.csv), it runs
`shootout report A/runs.csv --baseline B/runs.csv --fail-if-slower PCT --out TMP` and counts exit
code 3: a false failure, when the folders are benches of one binary (or of builds that measure
the same way). Then for each pair and each of a few formats it writes a copy of A's runs.csv with
that format's timings multiplied by 1 + SLOW (its ser_, de_ and de_all_ batch, percentile, mean
and total ns columns; A/A twins' and controls' rows are left as they are) and counts exit code 3
against B (detected), and exit 3 with a regression line naming that format (named).
Exit codes other than 0 and 3 (a refused gate, an error) are counted apart and the first of
each printed.

Usage: python3 scripts/gate_study.py DIR DIR [DIR...] [--shootout PATH] [--pct 10,20]
           [--slow 0.1,0.15,0.3] [--formats raw,sbe,...] [--fail-on ranking|all]
  --shootout PATH  the binary (default: $CARGO_TARGET_DIR/release/shootout, else
                   target/release/shootout)
  --pct LIST       the gate's percents (default 10)
  --slow LIST      the planted slowdowns, as fractions (default 0.1,0.15,0.3)
  --formats LIST   the formats slowed (default: 4 evenly spaced in the sorted list of A's
                   formats)"""
import argparse
import csv
import itertools
import os
import subprocess
import sys
import tempfile

SIDES = ("ser", "de", "de_all")
STATS = ("p50", "p90", "p99", "p999", "p9999", "max", "mean", "total")
TIMED = {f"{s}_batch_ns" for s in SIDES} | {f"{s}_{t}_ns" for s in SIDES for t in STATS}


def parse():
    ap = argparse.ArgumentParser(usage=__doc__.split("Usage: ")[1])
    ap.add_argument("dirs", nargs="+")
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    ap.add_argument("--shootout", default=os.path.join(target, "release", "shootout"))
    ap.add_argument("--pct", default="10")
    ap.add_argument("--slow", default="0.1,0.15,0.3")
    ap.add_argument("--formats", default="")
    ap.add_argument("--fail-on", default="ranking", choices=["ranking", "all"])
    args = ap.parse_args()
    if len(args.dirs) < 2:
        ap.error("give at least two bench folders")
    for d in args.dirs:
        if not os.path.isfile(os.path.join(d, "runs.csv")):
            ap.error(f"{d}: no runs.csv")
    if not os.access(args.shootout, os.X_OK):
        ap.error(f"{args.shootout}: no such binary (build it, or pass --shootout PATH)")
    args.pct = [float(x) for x in args.pct.split(",") if x]
    args.slow = [float(x) for x in args.slow.split(",") if x]
    args.formats = [x for x in args.formats.split(",") if x]
    return args


def formats_of(path):
    """The formats of a runs.csv, sorted, twins and controls left out."""
    with open(path, newline="") as f:
        return sorted({r["format"] for r in csv.DictReader(f) if not r.get("twin_of")})


def spread(formats, n=4):
    """`n` formats at evenly spaced places of `formats`."""
    if len(formats) <= n:
        return formats
    return [formats[round(i * (len(formats) - 1) / (n - 1))] for i in range(n)]


def slowed(src, dst, fmt, factor):
    """`src` with every timing of `fmt`'s own rows multiplied by `factor`, written to `dst`."""
    with open(src, newline="") as f:
        reader = csv.DictReader(f)
        header, rows = reader.fieldnames, list(reader)
    changed = 0
    for row in rows:
        if row["format"] != fmt or row.get("twin_of"):
            continue
        changed += 1
        for col in TIMED & set(header):
            cell = row[col]
            if not cell:
                continue
            x = float(cell) * factor
            # Whole nanoseconds stay whole (the percentile and total columns are integers).
            row[col] = repr(x) if "." in cell or "e" in cell.lower() else str(round(x))
    with open(dst, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header)
        w.writeheader()
        w.writerows(rows)
    return changed


def gate(args, new, old, pct, tmp):
    """`shootout report NEW --baseline OLD --fail-if-slower PCT`: (exit code, output)."""
    out = os.path.join(tmp, "out")
    cmd = [args.shootout, "report", new, "--baseline", old, "--fail-if-slower", str(pct),
           "--fail-on", args.fail_on, "--out", out]
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


class Tally:
    def __init__(self):
        self.hits, self.named, self.total, self.other = 0, 0, 0, {}

    def add(self, code, text, fmt=None):
        self.total += 1
        if code == 3:
            self.hits += 1
            if fmt and any(l.startswith(f"regression: {fmt} ") for l in text.splitlines()):
                self.named += 1
        elif code != 0:
            self.other.setdefault(code, text.strip().splitlines()[-1:] or [""])

    def notes(self):
        return [f"exit {c}: {t[0]}" for c, t in self.other.items()]


def main():
    args = parse()
    pairs = list(itertools.combinations(args.dirs, 2))
    false = {pct: Tally() for pct in args.pct}
    found = {(pct, s): Tally() for pct in args.pct for s in args.slow}
    with tempfile.TemporaryDirectory() as tmp:
        for a, b in pairs:
            new, old = os.path.join(a, "runs.csv"), os.path.join(b, "runs.csv")
            for pct in args.pct:
                false[pct].add(*gate(args, new, old, pct, tmp))
            for fmt in args.formats or spread(formats_of(new)):
                for s in args.slow:
                    planted = os.path.join(tmp, "planted.csv")
                    if not slowed(new, planted, fmt, 1 + s):
                        print(f"note: {a} has no rows of {fmt}", file=sys.stderr)
                        continue
                    for pct in args.pct:
                        found[(pct, s)].add(*gate(args, planted, old, pct, tmp), fmt)
    print(f"{len(args.dirs)} benches, {len(pairs)} pairs, --fail-on {args.fail_on}")
    print(f"{'PCT':>5} {'SLOW':>6} {'false failures':>15} {'detected':>10} {'named':>10}")
    for pct in args.pct:
        f = false[pct]
        for s in args.slow:
            d = found[(pct, s)]
            print(f"{pct:>5g} {s:>6g} {f'{f.hits}/{f.total}':>15} {f'{d.hits}/{d.total}':>10} "
                  f"{f'{d.named}/{d.total}':>10}")
    for t in [*false.values(), *found.values()]:
        for n in t.notes():
            print(f"note: {n}")


if __name__ == "__main__":
    main()
