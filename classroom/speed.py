"""The speed item (classroom/grade.py; its rule is in items.py's docstring): the share of a
same-run memcpy (the radix sort: of cub::DeviceRadixSort) that the student's scan reaches,
against the course's chapter in the same process, each measurement's size and counts of
launches drawn from a secret, every launch's output checked by the harness's judge.
"""
import math
import os
import random

import runs
from runs import max_n, run, tail
from sandbox import judge_env


def speed_draw(seed, seed_set, attempt, largest):
    """(n, rounds, reps, warm-up launches) of one speed measurement, drawn from a secret: from
    GRADE_SEED when the instructor set it (the same grade again gives the same draw), else from
    the operating system's randomness (the default seed is public). n is 2^26 (or `largest`)
    less up to 4095, so that neither the size nor the count of launches is one a launcher can
    wait for."""
    rng = random.Random(f"{seed}/speed/{attempt}" if seed_set else os.urandom(16))
    n = largest - rng.randrange(0, 4096) if largest > 8192 else largest
    return n, rng.randrange(6, 10), rng.randrange(15, 26), rng.randrange(2, 7)


def speed(b, cfg, it, made, sb, seed, seed_set):
    """The speed item: the share of a same-run memcpy, the student's against the course's;
    full marks at 0.9x the course's share or more, proportional below. A measurement whose
    memcpy times spread more than GRADE_SPREAD_PCT across its rounds is repeated, and after
    GRADE_RUNS tries reported as noisy, not scored. Each try draws its size and its counts of
    launches (speed_draw()); the harness checks every launch's output."""
    limit = float(os.environ.get("GRADE_SPREAD_PCT", "5"))
    tries = int(os.environ.get("GRADE_RUNS", "3"))
    largest = min(1 << 26, max_n() or (1 << 26))
    if cfg.get("radix"):
        if made.reference is None:
            it["output"] = "the course's radix sort did not build:\n" + tail(made.reference_log, 12)
            return
        measure = lambda n, rounds, reps, warmup: radix_speed(b, n, made.reference, sb)
    else:
        h = made.harness
        if h is None:
            it["output"] = "the speed harness did not build:\n" + tail(b.log, 20)
            return
        measure = lambda n, rounds, reps, warmup: harness_speed(h, cfg, n, rounds,
                                                                 reps, warmup, sb, seed)
    lines = []
    for attempt in range(1, tries + 1):
        n, rounds, reps, warmup = speed_draw(seed, seed_set, attempt, largest)
        m, out = measure(n, rounds, reps, warmup)
        if m is None:
            it["output"] = "the measurement failed:\n" + tail(out, 12)
            return
        lines.append(f"try {attempt}: yours {m['student_pct']:.1f} %, the course's "
                     f"{m['reference_pct']:.1f} % of {m['what']}; spread of {m['what']} across "
                     f"rounds {m['spread']:.1f} %")
        if not m["right"]:
            it["output"] = "\n".join(lines) + ("\nyour output was wrong in the timed run"
                                               + (f" ({m['wrong']})" if m.get("wrong") else "")
                                               + ": 0")
            return
        if m["spread"] <= limit:
            ratio = m["student_pct"] / m["reference_pct"] if m["reference_pct"] > 0 else 0
            it["score"] = round(25 * max(0.0, min(1.0, ratio / 0.9)), 2)
            it["output"] = "\n".join(lines) + (
                f"\nyours / the course's = {ratio:.3f}; full marks from 0.9 up: "
                f"{it['score']:g} of 25 (n = {n}, variant {cfg['speed']}"
                + (f", {m['checked']} launches each, every output checked" if m.get("checked")
                   else "") + ")")
            return
    it.update(status="noisy", max_score=0, score=0.0,
              output="\n".join(lines) + f"\nNOISY: the spread stayed above {limit:g} % in {tries} "
                     f"tries, so the speed is not scored (the grade is partial); grade it again "
                     f"on a quieter GPU")


def harness_speed(h, cfg, n, rounds, reps, warmup, sb, seed):
    """One measurement: (the harness's verdict as numbers, or None; the output). The verdict is
    the one `speed:` line with the run's token (sandbox.Sandbox.harness()), every number finite."""
    if not sb.intact(h):
        return None, "the grader's speed harness changed while your code ran"
    status, out, said = sb.harness([h, "--speed", cfg["speed"], "-n", str(n), "--rounds",
                                    str(rounds), "--reps", str(reps), "--warmup", str(warmup)],
                                   seed, f"speed/{n}/{rounds}/{reps}/{warmup}",
                                   env=judge_env(cfg), alone=True)
    lines = [v[len("speed: "):] for v in said if v.startswith("speed: ")]
    if len(lines) != 1:
        return None, out + (f"\n(the harness's speed verdict came {len(lines)} times)" if lines
                            else "\n(no speed verdict from the harness)")
    try:
        kv = dict(p.split("=", 1) for p in lines[0].split())
        nums = {k: float(kv[k]) for k in ("student_pct", "reference_pct", "memcpy_spread_pct")}
        wrong = int(kv.get("student_wrong_blocks", "0"))
    except (KeyError, ValueError):
        return None, out + "\n(the harness's speed verdict could not be read)"
    if not all(math.isfinite(v) for v in nums.values()):
        return None, out + "\n(the harness's speed verdict holds a number that is not finite)"
    return {"student_pct": nums["student_pct"], "reference_pct": nums["reference_pct"],
            "spread": nums["memcpy_spread_pct"], "what": "memcpy",
            "checked": int(kv.get("launches_checked", "0")),
            "wrong": (f"{wrong} blocks of the output check found wrong elements in the "
                      f"{kv.get('launches_checked')} timed and warm-up launches") if wrong else "",
            "right": kv.get("student_right") == "1" and status == 0}, out


def radix_speed(b, n, ref_run, sb):
    """The radix sort: the student's program times its sort and CUB's, interleaved, in one run;
    the course's program does the same in another; both as a share of CUB."""
    import csv
    results = []
    for binary in (b.run, ref_run):
        if binary == ref_run and not sb.intact(ref_run):
            return None, "the course's radix sort program changed while your code ran"
        if binary == b.run:
            status, out = sb.run([binary, "-n", str(n), "--csv"], alone=True)
        else:
            with runs.gpu_lock(True):
                status, out = run([binary, "-n", str(n), "--csv"])
        rows = [l for l in out.splitlines() if l and not l.startswith("#")]
        if status != 0 or len(rows) < 2:
            return None, out
        table = list(csv.DictReader(rows))
        mine = next((r for r in table if r.get("variant") == "radix-sort"), None)
        if not mine:
            return None, out
        results.append(mine)
    s, r = results
    try:
        nums = [float(x) for x in (s["pct_cub"], r["pct_cub"], s["cub_spread_pct"],
                                   r["cub_spread_pct"])]
    except (KeyError, TypeError, ValueError):
        return None, "the --csv rows could not be read"
    if not all(math.isfinite(v) for v in nums):
        return None, "a number of the --csv rows is not finite"
    return {"student_pct": nums[0], "reference_pct": nums[1], "spread": max(nums[2], nums[3]),
            "what": "cub::DeviceRadixSort", "right": s.get("check") == "ok"}, ""
