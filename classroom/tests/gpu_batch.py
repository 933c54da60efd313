#!/usr/bin/env python3
"""The grader's GPU items, in one batch, on a machine with a GPU (they cannot run in `make test`
on a machine without one). From the top folder, after `make SMS=90 all`:

    GRADE_SEED=777 classroom/tests/gpu_batch.py OUTDIR            (the cases below)
    GRADE_SEED=777 classroom/tests/gpu_batch.py --class OUTDIR    (make grade-class of ten)
    classroom/tests/gpu_batch.py --dry-run [--build] OUTDIR        (anywhere: no GPU run)

grades, with `make grade`'s grader in this one process (what is the same for every case is
made once), a few cases at a time (GPU_BATCH_JOBS, default 4: their correctness runs share the
GPU, and each speed measurement runs alone, build/grade/gpu.lock):
  - chapters 02-08 and the radix sort as the course has them: every item full marks, the
    n > 2^31 case included (the speed item compares the course's chapter with itself: about
    25, or "noisy");
  - the default starter's copy of each: 0 for correctness and for the build (a stub is still
    there), not an honesty failure, and no run hangs (each stub fails fast);
  - two bugs planted in a student part of each single-pass chapter (06, 07, and 08's contest),
    which must lose every correctness item, the sanitizers and the speed (a wrong output takes
    them); one that only slows chapter 07's look-back down (20 us before every window), which
    must lose speed points only; and a call counter in chapter 08's launcher that skips most
    launches at the speed item's sizes, which must lose the speed (the harness checks every
    launch); the same for the radix sort's digit scan (its driver checks every timed sort).
--class writes a class of ten chapter-07 submissions in OUTDIR/class07 (the course's file three
times, the starter's twice, the tile drawn another way, a copy of the course's with a name
changed, and the three chapter-07 plants: two wrong, one slow) and grades it with `make
grade-class` (three at a time on 16 cores), printing the time and each row; it checks that the
right ones score full marks and the wrong ones lose what they must.
--dry-run writes the starter and every planted file, checks that each plant applies and that
each case passes the honesty gate or is refused as expected (compiling for the gate with nvcc:
no GPU needed), and prints the cases and the commands it would run; --build also builds each
case with the course's flags. GRADE_CASES=REGEX grades only the cases whose name it finds
("course's 07", "starter's 07", "plant double-count (ch 7)"). It writes OUTDIR/summary.csv and
prints one line per case: the case, its seconds, `as expected` or `UNEXPECTED`, the scores, and
under it where the seconds went (the grader's phases, each item's runs added up). The cases go
longest first (longest_first()).
Exit status 1 if any case is unexpected.
"""
import concurrent.futures
import csv
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import kit  # noqa: E402

ROOT = kit.ROOT
CORRECTNESS = ("self-test battery", "stress", "in place", "hidden vectors")
WRONG = {"self-test battery", "stress", "in place", "hidden vectors", "sanitizers", "speed"}

# (chapter, name, source, [(old, new)], items that must lose points)
PLANTS = [
    (6, "prefix-without-predecessor", "06_chained_scan/chained_scan.cu",
     [("(uint32_t)(exclusive + aggregate));", "(uint32_t)aggregate);")], WRONG),
    (6, "waits-two-back", "06_chained_scan/chained_scan.cu",
     [("load_descriptor(&descriptors[chunk - 1])",
       "load_descriptor(&descriptors[chunk > 1 ? chunk - 2 : 0])")], WRONG),
    (7, "double-count", "07_decoupled_lookback/decoupled_lookback.cu",
     [("const unsigned needed = prefix_lanes ? (prefix_lanes ^ (prefix_lanes - 1)) : FULL_MASK;",
       "const unsigned needed = FULL_MASK;")], WRONG),
    (7, "every-tile-a-prefix", "07_decoupled_lookback/decoupled_lookback.cu",
     [("store_descriptor(&descriptors[tile], pack_descriptor(TILE_AGGREGATE, aggregate));",
       "store_descriptor(&descriptors[tile], pack_descriptor(TILE_PREFIX, aggregate));")], WRONG),
    # chapter 08, the speed contest (the whole file is the student's): its look-back's two ways
    # to be wrong, which every correctness item, the sanitizers and the speed must catch
    (8, "double-count-08", "08_memcpy_speed/memcpy_speed.cu",
     [("const unsigned needed = prefix_lanes ? (prefix_lanes ^ (prefix_lanes - 1)) : FULL_MASK;",
       "const unsigned needed = FULL_MASK;")], WRONG),
    (8, "prefix-without-aggregate-08", "08_memcpy_speed/memcpy_speed.cu",
     [("pack_descriptor(TILE_PREFIX, exclusive_prefix + aggregate));",
       "pack_descriptor(TILE_PREFIX, exclusive_prefix));")], WRONG),
    (7, "slow-look-back", "07_decoupled_lookback/decoupled_lookback.cu",
     [("        const long long predecessor = window_last - lane;",
       "        __nanosleep(20000); /* planted: 20 us before every window */\n"
       "        const long long predecessor = window_last - lane;")],
     {"speed"}),
    # chapter 08's launcher skipping 22 of every 23 launches at the speed item's sizes (a call
    # counter; issue 22's gamer review, hole 4): the harness checks every launch, so speed is 0
    (8, "call-counter-08", "08_memcpy_speed/memcpy_speed.cu",
     [("    const size_t tiles = tile_count(n);\n    if (tiles == 0)\n        return;\n"
       "    if (tiles > 0x7fffffffu",
       "    const size_t tiles = tile_count(n);\n    if (tiles == 0)\n        return;\n"
       "    static unsigned long long calls; /* planted */\n"
       "    if (n > ((size_t)1 << 26) - 4096 && n <= ((size_t)1 << 26) && ++calls % 23 != 0)\n"
       "        return;\n    if (tiles > 0x7fffffffu")],
     {"speed"}),
    # the radix sort's digit scan skipping most of its calls at the speed item's sizes once the
    # first sort (which the program checks on the host) is done: every timed sort is checked on
    # the GPU (sort_driver.cu, count_unsorted()), so speed is 0 (the gaming review of 2026-12-04)
    ("radix", "call-counter-radix", "classroom/radix_sort/radix_sort.cu",
     [("    const size_t tiles = scan_tiles(m);\n    if (tiles == 0)\n        return;\n",
       "    const size_t tiles = scan_tiles(m);\n    if (tiles == 0)\n        return;\n"
       "    static unsigned long long calls; /* planted */\n"
       "    if (m > RADIX * (((size_t)1 << 25) / TILE_KEYS) && ++calls > 4 && calls % 23 != 0)\n"
       "        return;\n")],
     {"speed"}),
]


_GRADER = {}


def grade(number, student, out):
    """One case, graded in this process (as make grade-class grades its students: the grader's
    harnesses, the course's baselines and the hidden vectors are made once for the batch, not
    once per case, and no two cases race on them)."""
    t = time.time()
    os.environ.setdefault("GRADE_JOBS", "4")
    import grade as grader  # noqa: E402
    import runs  # noqa: E402
    with runs._LOCK:
        if not _GRADER:
            runs.grade_seed()  # read once, and out of the environment of what the grader starts
            _GRADER.update(env=runs.course_env(), gpu=runs.gpu_status())
    os.makedirs(out, exist_ok=True)
    try:
        result = grader.grade(number, student, out, _GRADER["gpu"], _GRADER["env"])
    except Exception as e:  # one case's failure must not stop the batch
        return None, time.time() - t, f"{type(e).__name__}: {e}"
    return result, time.time() - t, ""


def scores(result):
    """Item (short name) -> (score, max, status): the gates as (0, 0, passed/failed)."""
    out = {}
    for t in result["tests"]:
        name = re.split(r" \(| against|:", t["name"])[0]
        gate = result["extra_data"].get("gates", {}).get(t["name"])
        out[name] = (t["score"], t["max_score"], gate or result["extra_data"]["status"][t["name"]])
    return out


def full(s):
    return all(v[2] in ("graded", "passed") and v[0] == v[1] or
               (k == "speed" and (v[2] == "noisy" or v[0] >= 0.9 * v[1])) for k, v in s.items())


def stubbed(s):
    return all(v[0] == 0 for k, v in s.items() if k in CORRECTNESS) and s["build"][0] == 0 and \
        s["honesty"][2] != "failed"


def cases(out):
    """(name, chapter, student path, expectation, item set) of every case, the files written."""
    chapters = [(f, n) for f, n, _ in kit.assignments() if n != 1 and (n == "radix" or n <= 8)]
    copy = os.path.join(out, "starter")
    if not os.path.isdir(copy):
        subprocess.run([sys.executable, os.path.join(kit.KIT, "starter.py"), copy], check=True)
    found = [(f"course's {folder}", n, os.path.join(ROOT, folder), full, None)
             for folder, n in chapters]
    found += [(f"starter's {folder}", n, os.path.join(copy, folder), stubbed, None)
              for folder, n in chapters]
    for n, name, src, edits, losers in PLANTS:
        text = open(os.path.join(ROOT, src)).read()
        for old, new in edits:
            if old not in text:
                found.append((f"plant {name} (ch {n})", n, None, None, f"no longer applies: {old[:50]}"))
                break
            text = text.replace(old, new)
        else:
            path = os.path.join(out, "plant_" + name, os.path.basename(src))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").write(text)
            found.append((f"plant {name} (ch {n})", n, path, losers, None))
    only = re.compile(os.environ.get("GRADE_CASES", ""))
    return [c for c in found if only.search(c[0])]


def dry_run(out, build):
    """Every case written and put through the honesty gate (and, with build, the build)."""
    import items  # noqa: E402
    import runs  # noqa: E402
    import submission  # noqa: E402
    env = runs.course_env()
    bad = 0
    for name, n, path, expect, problem in cases(out):
        if problem:
            print(f"{name:<40} UNEXPECTED: the plant {problem}")
            bad += 1
            continue
        folder, sources = next((f, s) for f, k, s in kit.assignments() if k == n)
        find = lambda s: runs.find_source(path, s)
        work = os.path.join(out, "dry", re.sub(r"\W+", "_", name))
        p = submission.prepare(env, items.CHAPTERS[n], folder, sources, find, work)
        said = "; ".join(p["reasons"]) or ("not written: " + ", ".join(p["stubs"]) if p["stubs"]
                                           else "passed")
        ok = not p["reasons"] and p["decided"] and (bool(p["stubs"]) == name.startswith("starter"))
        line = f"{name:<40} gate: {said[:90]}"
        if ok and build:
            b = runs.Build(env, items.CHAPTERS[n], folder, sources, p["graded"], work)
            ok = b.build() and b.harness_gpu() is not None
            line += "; built, with its harness" if ok else "; BUILD FAILED: " + runs.tail(b.log, 3)
        print(("" if ok else "UNEXPECTED ") + line, flush=True)
        bad += not ok
    print(f"gpu batch (dry run): {len(cases(out))} cases, {bad} unexpected; run it on a GPU with "
          f"`GRADE_SEED=777 classroom/tests/gpu_batch.py {out}`")
    return 1 if bad else 0


def class_of_ten(out):
    """--class: ten chapter-07 submissions graded by make grade-class; 0 when each row is as
    expected."""
    klass = os.path.join(out, "class07")
    os.makedirs(klass, exist_ok=True)
    src = "07_decoupled_lookback/decoupled_lookback.cu"
    course = open(os.path.join(ROOT, src)).read()
    plants = {name: (edits, losers) for n, name, s, edits, losers in PLANTS if n == 7}
    subs = {f"course_{k}": (course, "full") for k in (1, 2, 3)}
    copy = os.path.join(out, "starter")
    if not os.path.isdir(copy):
        subprocess.run([sys.executable, os.path.join(kit.KIT, "starter.py"), copy], check=True)
    starter_text = open(os.path.join(copy, src)).read()
    subs.update({f"starter_{k}": (starter_text, "zero") for k in (1, 2)})
    subs["tile_draw_inc"] = (course.replace("tile_id = atomicAdd(next_tile, 1u);",
                                            "tile_id = atomicInc(next_tile, 0xffffffffu);"), "full")
    for name, (edits, losers) in plants.items():
        text = course
        for old, new in edits:
            text = text.replace(old, new)
        subs["plant_" + name.replace("-", "_")] = (text, losers)
    subs["renamed"] = (course.replace("window_last", "nearest_window"), "full")  # in look-back
    for name, (text, _) in subs.items():
        os.makedirs(os.path.join(klass, name), exist_ok=True)
        open(os.path.join(klass, name, os.path.basename(src)), "w").write(text)
    start = time.time()
    r = subprocess.run([sys.executable, os.path.join(kit.KIT, "grade.py"), "class", "7", klass,
                        os.path.join(out, "grades07")], cwd=ROOT, capture_output=True, text=True)
    seconds = time.time() - start
    print(r.stdout[-4000:] + r.stderr[-2000:])
    bad = 0
    rows = {}
    path = os.path.join(out, "grades07", "grades.csv")
    if os.path.isfile(path):
        rows = {row["student"]: row for row in csv.DictReader(open(path))}
    for name, (_, expect) in subs.items():
        row = rows.get(name, {})
        score = float(row.get("score") or -1)
        if expect == "full":
            ok = score >= 60 and row.get("status", "").startswith("ok")
        elif expect == "zero":
            ok = score == 0
        else:
            ok = (score <= 5) if "self-test battery" in expect else (55 <= score < 80)
        bad += not ok
        print(f"{name:<28} {'as expected' if ok else 'UNEXPECTED'}: {row.get('score')} of "
              f"{row.get('max_score')}: {row.get('status', '(no row)')[:100]}")
    print(f"grade-class of {len(subs)} chapter-07 submissions: {seconds:.0f} s, {bad} unexpected")
    return 1 if bad or r.returncode else 0


def longest_first(case):
    """The batch's order: the cases that run every item to its end first (the course's, and the
    plants that lose only the speed), then the plants whose wrong outputs stop the sanitizers
    and the speed early, then the starters (seconds each), so that no long case starts last."""
    name, _, _, expect, _ = case
    if name.startswith("starter's"):
        return 2
    return 1 if expect == WRONG else 0


def timing(result):
    """The grader's seconds of a case (results.json's extra_data.seconds): its phases, then each
    item's runs added up (they run side by side)."""
    s = result["extra_data"].get("seconds", {})
    return ", ".join(f"{k} {v:.0f}" for k, v in s.get("phases", {}).items()) + "; runs: " + \
        ", ".join(f"{re.split(r' [(]| against|:', k)[0]} {v:.0f}"
                  for k, v in s.get("items", {}).items())


def main(argv):
    flags = [a for a in argv if a.startswith("--")]
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 1:
        print(__doc__)
        return 2
    out = os.path.abspath(args[0])
    os.makedirs(out, exist_ok=True)
    if "--dry-run" in flags:
        return dry_run(out, "--build" in flags)
    if "--class" in flags:
        return class_of_ten(out)
    rows, unexpected, start = [], 0, time.time()
    todo = sorted(cases(out), key=longest_first)

    def one(case):
        name, n, path, expect, problem = case
        if problem:
            return case, None, 0.0, problem
        return (case,) + grade(n, path, os.path.join(out, re.sub(r"\W+", "_", name)))

    jobs = int(os.environ.get("GPU_BATCH_JOBS", "4"))
    sys.path.insert(0, os.path.join(ROOT, "classroom"))
    import sandbox  # noqa: E402
    sandbox.stop_on_signals()  # stopped by `timeout`, it takes its runs with it
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        # each case's line as soon as it is graded (a batch cut short still says what it did)
        for done in concurrent.futures.as_completed([pool.submit(one, c) for c in todo]):
            (name, n, path, expect, problem), result, seconds, err = done.result()
            if result is None:
                got, ok = "the grader failed: " + (err.strip().splitlines() or ["no result"])[-1], False
            else:
                s = scores(result)
                got = "; ".join(f"{k} {v[0]:g}/{v[1]:g}" + ("" if v[2] == "graded" else f" ({v[2]})")
                                for k, v in s.items())
                ok = expect(s) if callable(expect) else \
                    {k for k, v in s.items() if v[2] in ("graded", "partial") and v[0] < v[1]} == expect
            unexpected += not ok
            spent = timing(result) if result else ""
            print(f"{name:<40} {seconds:6.0f} s  {'as expected' if ok else 'UNEXPECTED'}: {got}"
                  + (f"\n{'':<40} seconds: {spent}" if spent else ""), flush=True)
            rows.append([name, f"{seconds:.0f}", "as expected" if ok else "UNEXPECTED", got,
                         spent])
    with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
        csv.writer(f).writerows([["case", "seconds", "verdict", "scores", "where the seconds went"]]
                                + rows)
    print(f"gpu batch: {len(rows)} cases, {unexpected} unexpected, {time.time() - start:.0f} s "
          f"({jobs} at a time); {os.path.join(out, 'summary.csv')}")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
