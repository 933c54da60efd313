#!/usr/bin/env python3
"""The work-sharing judge's timing, measured: does it pass the course's own chapter-01 part and
flag a serial one, on an idle machine and on a crowded one? Its runs on an H200 host
(docs/experiments/runs_2026-12-04e) set the last two thresholds of
classroom/grader/share_rule.h, and the kit's test replays them through it
(classroom/tests/judge_cases.py).

    python3 docs/experiments/share_timing.py [--rounds R] [--load K,K,...] [--cases C,...] OUT.csv

(Under `taskset -c 0-7` it times on 8 CPUs: the judge and the part see only those.)

Builds chapter 01's harness (classroom/grader/harness_cpu.c) with the course's part, with
the second gaming review's T2 (a serial scan whose other threads touch their pages, spin and
rewrite them: only the timing can catch it) and with review 0412h's R6L (a serial part whose
thread outside OpenMP finishes each timed scan after the part returns: never shared; R6L_cpu,
against a judge built without its looks at what runs beside the team, is never shared either)
and R6V (one thread scanning with AVX-512 while the others read
ahead of it: the page witnesses flag it, the timing says whether it reaches 0.7 of the
yardstick) and review 0412i's R7F (the course's part with a thread outside OpenMP that sleeps
for good: its timing may say shared, the judge's look must not), as the kit's test builds them
(judge_cases.py),
and runs each through the grader's sandbox R times on 3, 4 and 7 OpenMP threads, with K
processes of load beside it for each K of --load (0 is an idle machine; each load process is
`dd if=/dev/zero of=/dev/null bs=64M`, memory and CPU, outside the run (another user, or
another session), so the judge does not void its rounds for it, as for the other suites of
make test). Each row: the case,
the threads, the load, the judge's timings (GRADE_SHARE_DEBUG=1: its serial scan in ms, the
yardstick's speed-up in its fastest and median rounds, the part's in its fastest) and its
verdict on the work sharing. Needs `make` (build/common) first; run it on a machine with at
least 8 cores and nothing else running for the idle rows.
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "classroom"))
sys.path.insert(0, os.path.join(ROOT, "classroom", "tests"))
import items  # noqa: E402
import judge_cases  # noqa: E402
import kit  # noqa: E402
import runs  # noqa: E402
import sandbox  # noqa: E402

DEBUG = re.compile(r"share: T=(\d+) serial ([\d.]+) ms, yardstick x([\d.]+) \(median round "
                   r"x([\d.]+)\), part x([\d.]+); (\d+) rounds void")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--load", default="0,8,16")
    ap.add_argument("--cases", default="course,T2,R6L,R6V,R7F",
                    help="which of the cases to run (comma-separated)")
    ap.add_argument("--min-cpus", default="", help="GRADE_TIMING_MIN_CPUS (a smoke test on a "
                    "small machine: the judge then times where the yardstick cannot gain 2x)")
    a = ap.parse_args()
    loads = [int(k) for k in a.load.split(",")]
    tmp = tempfile.mkdtemp(prefix="share_timing_")
    harness_o, r = judge_cases.harness_object(kit, tmp)
    nolook_o, r2 = judge_cases.harness_object(kit, tmp, look=False)
    if r.returncode or r2.returncode:
        sys.exit(f"share_timing: the harness did not build:\n{r.stderr}{r2.stderr}")
    made = {name: judge_cases.build(kit, tmp, name, body,
                                    nolook_o if name.endswith("_cpu") else harness_o)
            for name, body in (
                ("course", None), ("T2", judge_cases.cheat("T2_touch_rewrite_spin")),
                ("R6L", judge_cases.cheat("R6L_lazy_completion")),
                ("R6L_cpu", judge_cases.cheat("R6L_lazy_completion")),
                ("R6V", judge_cases.cheat("R6V_simd_prefetch")),
                ("R7F", judge_cases.cheat("R7F_sleeper")))
            if name in a.cases.split(",")}
    if not all(made.values()):
        sys.exit(f"share_timing: a harness did not build: {made}")
    for h in made.values():
        runs.trust(h)
    sb = sandbox.Sandbox(os.path.join(tmp, "work"), list(made.values()), [], False)
    print(f"share_timing: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}",
          flush=True)
    rows = []
    try:
        for load in loads:
            hogs = [subprocess.Popen(["dd", "if=/dev/zero", "of=/dev/null", "bs=64M",
                                      "count=100000000"], stderr=subprocess.DEVNULL)
                    for _ in range(load)]
            try:
                for r in range(a.rounds):
                    for name, h in made.items():
                        for threads in (3, 4, 7):
                            env = items.omp_env(threads, GRADE_SEGMENT="0", GRADE_SHARE_DEBUG="1",
                                              GRADE_TIMING_MIN_CPUS=a.min_cpus)
                            status, out, said = sb.harness([h, "--self-test", "-n", "70000"],
                                                           4242 + r, f"{name}/{threads}/{load}/{r}",
                                                           env=env)
                            share = [v for v in said if v.startswith(items.SHARE_VERDICTS)]
                            m = DEBUG.search(out)
                            row = dict(case=name, threads=threads, load=load, repeat=r,
                                       serial_ms=m.group(2) if m else "",
                                       yard_best=m.group(3) if m else "",
                                       yard_median=m.group(4) if m else "",
                                       part_best=m.group(5) if m else "",
                                       rounds_void=m.group(6) if m else "",
                                       verdict=(share[0] if len(share) == 1 else
                                                f"{len(share)} verdicts")[:800])
                            rows.append(row)
                            print(",".join(str(v) for v in row.values()), flush=True)
            finally:
                for p in hogs:
                    p.kill()
                    p.wait()
    finally:
        sb.close()
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    kinds = (("flagged", "ONE THREAD"), ("shared", "threads shared"),
             ("too slow to tell", "work sharing not decided here: too slow to tell"),
             ("too few threads", "work sharing not decided here: too few threads to tell"),
             ("not timed", "work sharing not decided"), ("other", ""))

    def kind(verdict):  # a thread beside the team, else the first kind whose words begin it
        if "beside its main thread and its idle OpenMP workers" in verdict:
            return "threads beside"
        return next(k for k, p in kinds if verdict.startswith(p))
    for name in made:
        for load in loads:
            these = [kind(r["verdict"]) for r in rows if r["case"] == name and r["load"] == load]
            print(f"share_timing: {name}, load {load}: {len(these)} runs: " +
                  ", ".join(f"{k} {these.count(k)}" for k in [k for k, _ in kinds[:4]] +
                            ["threads beside", "not timed", "other"]
                            if k != "other" or "other" in these))
    wrong = [r for r in rows if (r["case"] == "course" and
                                 (r["verdict"].startswith("ONE THREAD") or
                                  kind(r["verdict"]) == "threads beside"))
             or (r["case"] != "course" and r["verdict"].startswith("threads shared"))]
    print(f"share_timing: {len(rows)} runs, {len(wrong)} wrong verdicts (the course's part "
          f"flagged or seen with a thread beside its team, or a serial part passed; the others "
          f"are neither); {a.out}")
    return 1 if wrong else 0

if __name__ == "__main__":
    sys.exit(main())
