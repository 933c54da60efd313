#!/usr/bin/env python3
"""The grader's GPU items, in one batch, on a machine with a GPU (they cannot run in `make test`
on a machine without one). From the top folder, after `make SMS=90 all`:

    GRADE_SEED=777 classroom/tests/gpu_batch.py OUTDIR

grades, with `make grade`'s grader:
  - chapters 02-08 and the radix sort as the course has them: every item full marks (the speed
    item compares the course's chapter with itself: about 25, or "noisy");
  - the default starter's copy of each: 0 for correctness and for the build (a stub is still
    there), and no run hangs (each stub must fail fast: chapters 06 and 07 included);
  - two bugs planted in a student part of each single-pass chapter (06, 07, and 08's contest),
    which must lose every correctness item and the speed (0 when an output is wrong), and one
    that only slows chapter 07's look-back down (20 us before every window), which must lose
    speed points only, and a call counter in chapter 08's launcher that skips most launches at
    the speed item's sizes, which must lose the speed (the harness checks every launch).
GRADE_CASES=REGEX grades only the cases whose name it finds ("course's 07", "starter's 07",
"plant double-count (ch 7)"). It writes OUTDIR/summary.csv and prints one line per case: the
case, what was expected, what happened, and `as expected` or `UNEXPECTED`. Exit status 1 if any case is unexpected.
"""
import csv
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import kit  # noqa: E402

ROOT = kit.ROOT
CORRECTNESS = ("self-test battery", "stress", "in place", "hidden vectors")

# (chapter, name, source, [(old, new)], items that must lose points)
PLANTS = [
    (6, "prefix-without-predecessor", "06_chained_scan/chained_scan.cu",
     [("(uint32_t)(exclusive + aggregate));", "(uint32_t)aggregate);")],
     {"self-test battery", "stress", "in place", "hidden vectors", "speed"}),
    (6, "waits-two-back", "06_chained_scan/chained_scan.cu",
     [("load_descriptor(&descriptors[chunk - 1])", "load_descriptor(&descriptors[chunk > 1 ? chunk - 2 : 0])")],
     {"self-test battery", "stress", "in place", "hidden vectors", "speed"}),
    (7, "double-count", "07_decoupled_lookback/decoupled_lookback.cu",
     [("const unsigned needed = prefix_lanes ? (prefix_lanes ^ (prefix_lanes - 1)) : FULL_MASK;",
       "const unsigned needed = FULL_MASK;")],
     {"self-test battery", "stress", "in place", "hidden vectors", "speed"}),
    (7, "every-tile-a-prefix", "07_decoupled_lookback/decoupled_lookback.cu",
     [("store_descriptor(&descriptors[tile], pack_descriptor(TILE_AGGREGATE, aggregate));",
       "store_descriptor(&descriptors[tile], pack_descriptor(TILE_PREFIX, aggregate));")],
     {"self-test battery", "stress", "in place", "hidden vectors", "speed"}),
    # chapter 08, the speed contest (the whole file is the student's): its look-back's two ways
    # to be wrong, which every correctness item and the speed must catch
    (8, "double-count-08", "08_memcpy_speed/memcpy_speed.cu",
     [("const unsigned needed = prefix_lanes ? (prefix_lanes ^ (prefix_lanes - 1)) : FULL_MASK;",
       "const unsigned needed = FULL_MASK;")],
     {"self-test battery", "stress", "in place", "hidden vectors", "speed"}),
    (8, "prefix-without-aggregate-08", "08_memcpy_speed/memcpy_speed.cu",
     [("pack_descriptor(TILE_PREFIX, exclusive_prefix + aggregate));",
       "pack_descriptor(TILE_PREFIX, exclusive_prefix));")],
     {"self-test battery", "stress", "in place", "hidden vectors", "speed"}),
    (7, "slow-look-back", "07_decoupled_lookback/decoupled_lookback.cu",
     [("        const long long predecessor = window_last - lane;",
       "        __nanosleep(20000); /* planted: 20 us before every window */\n"
       "        const long long predecessor = window_last - lane;")],
     {"speed"}),
    # chapter 08's launcher skipping 22 of every 23 launches at the speed item's sizes (a call
    # counter; issue 22's gamer review, hole 4): the harness checks every launch, so speed is 0
    (8, "call-counter-08", "08_memcpy_speed/memcpy_speed.cu",
     [("    const size_t tiles = tile_count(n);\n    if (tiles == 0)\n        return;\n    if (tiles > 0x7fffffffu",
       "    const size_t tiles = tile_count(n);\n    if (tiles == 0)\n        return;\n"
       "    static unsigned long long calls; /* planted */\n"
       "    if (n > ((size_t)1 << 26) - 4096 && n <= ((size_t)1 << 26) && ++calls % 23 != 0)\n"
       "        return;\n    if (tiles > 0x7fffffffu")],
     {"speed"}),
]


def grade(number, student, out):
    t = time.time()
    r = subprocess.run([sys.executable, os.path.join(kit.KIT, "grade.py"), "one", str(number),
                        student, out], cwd=ROOT, capture_output=True, text=True)
    path = os.path.join(out, "results.json")
    if r.returncode or not os.path.isfile(path):
        return None, time.time() - t, r.stdout[-2000:] + r.stderr[-2000:]
    return json.load(open(path)), time.time() - t, ""


def scores(result):
    return {t["name"].split(" (")[0].split(":")[0].replace("speed against the course's chapter, "
                                                          "interleaved in one process", "speed")
            .replace("speed against cub", "speed"): (t["score"], t["max_score"],
                                                      result["extra_data"]["status"][t["name"]])
            for t in result["tests"] if t["name"] in result["extra_data"]["status"]}


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    out = os.path.abspath(sys.argv[1])
    os.makedirs(out, exist_ok=True)
    rows, unexpected = [], 0

    def report(case, expect, result, seconds, err):
        nonlocal unexpected
        if result is None:
            got, ok = "the grader failed: " + err.strip().splitlines()[-1] if err.strip() else "no result", False
        else:
            s = scores(result)
            got = "; ".join(f"{k} {v[0]:g}/{v[1]:g}" + ("" if v[2] == "graded" else f" ({v[2]})")
                            for k, v in s.items())
            ok = expect(s)
        unexpected += not ok
        print(f"{case:<40} {seconds:6.0f} s  {'as expected' if ok else 'UNEXPECTED'}: {got}", flush=True)
        rows.append([case, f"{seconds:.0f}", "as expected" if ok else "UNEXPECTED", got])

    def full(s):
        return all(v[2] == "graded" and v[0] == v[1] or (k == "speed" and v[2] == "noisy") or
                   (k == "speed" and v[0] >= 0.9 * v[1]) for k, v in s.items())

    chapters = [(f, n) for f, n, _ in kit.assignments() if n != 1 and (n == "radix" or n <= 8)]
    only = re.compile(os.environ.get("GRADE_CASES", ""))  # a regex: only the cases it finds

    def wanted(case):
        return bool(only.search(case))

    for folder, n in chapters:
        if not wanted(f"course's {folder}"):
            continue
        r, sec, err = grade(n, os.path.join(ROOT, folder), os.path.join(out, f"course_{n}"))
        report(f"course's {folder}", full, r, sec, err)
    copy = os.path.join(out, "starter")
    if not os.path.isdir(copy):
        subprocess.run([sys.executable, os.path.join(kit.KIT, "starter.py"), copy], check=True)
    for folder, n in chapters:
        if not wanted(f"starter's {folder}"):
            continue
        r, sec, err = grade(n, os.path.join(copy, folder), os.path.join(out, f"starter_{n}"))
        report(f"starter's {folder}", lambda s: all(
            v[0] == 0 for k, v in s.items() if k in CORRECTNESS) and s["build"][0] == 0, r, sec, err)
    for n, name, src, edits, losers in PLANTS:
        if not wanted(f"plant {name} (ch {n})"):
            continue
        text = open(os.path.join(ROOT, src)).read()
        for old, new in edits:
            if old not in text:
                print(f"{name}: the plant no longer applies ({old[:50]})")
                unexpected += 1
                break
            text = text.replace(old, new)
        else:
            path = os.path.join(out, "plant_" + name, os.path.basename(src))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").write(text)
            r, sec, err = grade(n, path, os.path.join(out, "graded_" + name))
            report(f"plant {name} (ch {n})", lambda s, losers=losers: {
                k for k, v in s.items() if v[2] == "graded" and v[0] < v[1]} == losers, r, sec, err)
    with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
        csv.writer(f).writerows([["case", "seconds", "verdict", "scores"]] + rows)
    print(f"gpu batch: {len(rows)} cases, {unexpected} unexpected; {os.path.join(out, 'summary.csv')}")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
