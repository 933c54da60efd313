"""The judge of chapter 01's harness (classroom/grader/verdict.h): verdicts come from a process
that never runs the student's code, so a part that forges them from inside its own process is not
believed (test_kit.py's quick tier calls main()). Each case is a part of the second gaming review
(cheats/*.body, from /work/helpers/gamer2_subs: its README says what each does), linked with the
harness as the grader links it and run through the grader's sandbox with a fresh token:

  - the course's own part: the in-place battery passed, the threads shared the work, and the
    n > 2^31 path at a small n (GRADE_BIG=70001) right;
  - T1b: a serial scan that looks for the token in its own memory and forges "threads shared"
    and "in place passed": no forged line counts, the work sharing is not "shared";
  - T5: no scan at all, forged verdicts then _exit(0): the in-place battery fails, and the
    out-of-place one (the self-test item's evidence: its own last line is the program's word);
  - T6 at a small n (its n > 2^31 test lowered to n > 60000): a forged "big: ... right" and
    _exit(0) before any check: the judge says WRONG;
  - T2 (a serial scan whose other threads touch their pages, spin and rewrite them): wherever the
    judge decides (the course's scan gains 2x), it is flagged or not decided; elsewhere the judge
    says it could not time it (docs/instructor.md); never shared;
  - the third gaming review (cheats/G3*.body): C_selfkill, a wrong part that SIGKILLs itself in
    the harness, fails (never "interrupted"), and the grader notes the kill; B_boxclaim, a serial
    scan whose grandchild rewrites the witnesses' claim in the judge's box to "shared", is not
    "shared"; A_thief, a serial scan whose grandchild keeps every descriptor (the judge's pipe
    too) and steals the verdict lines from the harness's stdout, finds none there, and does not
    hold the judge past the child's end; a part that opens /proc/<judge>/mem and its verdict file
    and PTRACE_ATTACHes it is refused each (the judge is undumpable, and of another user than
    root where the grader runs as root: docs/instructor.md says what is left as root);
    S_stop, a grandchild that stops and continues the judge while it times, is flagged;
  - the fourth gaming review (cheats/G4*.body): S02, a serial part that pins its judge to one CPU,
    and S08 (--all), one that lowers its judge's RLIMIT_NOFILE, fail the work sharing as
    tampering; S05 (--all), spinning grandchildren, void the judge's timing rounds; S04 (--all),
    a part that tells the judge's timed calls by their pointers and size, finds none;
  - the reviews of 2026-12-04 (cheats/R5*, --all): serial parts whose threads spin 20 ms after
    every call and end before the judge looks again (R5V), or sleep at its first look and spin
    while its yardstick runs (R5C): their rounds are void, and the finding says so; one that
    pins the judge's worker threads to one CPU (R5A) fails as tampering.
Where the judge cannot time the threaded variant (fewer than 3 CPUs), no run is "shared": the
course's part says "not decided here".
Two checks need no run: the judge's rule (share_rule.h) on the timings an H200 gave the course's
part and T2 (docs/experiments/runs_2026-12-04e), and what the student and the instructor read of
its verdicts (items.judge_work_sharing()).
"""
import concurrent.futures
import csv
import os
import re
import subprocess
import time
import unittest.mock

HERE = os.path.dirname(os.path.abspath(__file__))


def harness_object(kit, tmp, look=True):
    """Chapter 01's harness compiled on its own, as the grader links it (`look` False: without
    the judge's look at what a part left running, JUDGE_LEFT_BEHIND, to test the checks behind
    it): (the object's path, the compiler's CompletedProcess)."""
    harness_o = os.path.join(tmp, "judge_harness.o" if look else "judge_harness_nolook.o")
    r = subprocess.run(["gcc", "-std=c11", "-O2", "-fopenmp"] +
                       ([] if look else ["-DJUDGE_LEFT_BEHIND=0"]) + [
                        "-I" + os.path.join(kit.ROOT, "common"),
                        "-I" + os.path.join(kit.KIT, "grader"), "-c",
                        os.path.join(kit.KIT, "grader", "harness_cpu.c"), "-o", harness_o],
                       capture_output=True, text=True)
    return harness_o, r


def cheat(name):
    """cheats/NAME.body as it runs here. The reviews' parts told a graded run by GRADE_FD or
    GRADE_VERDICT_FD, which the student's code no longer sees (verdict.h): here they do what they
    do in a graded run in every run."""
    return open(os.path.join(HERE, "cheats", name + ".body")).read().replace(
        'my_getenv("GRADE_FD")', "my_getenv").replace('getenv("GRADE_FD")', "1").replace(
        'getenv("GRADE_VERDICT_FD")', '"3"')


def build(kit, tmp, name, body, harness_o):
    """Chapter 01 with `body` as its part three-steps, linked with the harness object: a path.
    A cheat whose file cheats/NAME.tail exists has that text appended to the chapter's file (a
    function the part calls, which a part itself cannot hold)."""
    root = kit.ROOT
    course = open(os.path.join(root, "01_cpu_serial", "cpu_serial.c")).read()
    text = course if body is None else kit.replace_parts(course, {"three-steps": body},
                                                         "cpu_serial.c")
    tails = [f for f in os.listdir(os.path.join(HERE, "cheats"))
             if f.endswith(".tail") and f.split("_")[0] == name.split("_")[0]]
    for f in tails:
        text += open(os.path.join(HERE, "cheats", f)).read()
    src = os.path.join(tmp, "judge_" + name, "01_cpu_serial", "cpu_serial.c")
    os.makedirs(os.path.dirname(src), exist_ok=True)
    open(src, "w").write(text)
    common = os.path.join(root, "build", "common")
    renamed = os.path.join(tmp, "judge_selftest.o")
    flags = ["gcc", "-std=c11", "-O2", "-fopenmp", "-I" + os.path.join(root, "common")]
    if not os.path.isfile(renamed):
        subprocess.run(["objcopy", "--redefine-sym", "self_test_run=course_self_test_run",
                        os.path.join(common, "selftest.o"), renamed], check=True)
    out = os.path.join(tmp, "judge_" + name, "harness")
    r = subprocess.run(flags + ["-I" + os.path.join(root, "01_cpu_serial"), src, harness_o,
                                renamed] + [os.path.join(common, o + ".o") for o in
                                            ("cli", "data", "io", "report")] +
                       ["-o", out, "-lgomp", "-lm"], capture_output=True, text=True)
    return out if r.returncode == 0 else None


# After the course's part: print the grader's variables the part can see, once.
ENV_SHOWN = r"""
        static int shown;
#pragma omp critical
        if (!shown) {
            extern char **environ;
            shown = 1;
            printf("env: shown\n");
            for (char **e = environ; *e; ++e)
                if ((*e)[0] == 'G' && (*e)[1] == 'R' && (*e)[2] == 'A' && (*e)[3] == 'D' &&
                    (*e)[4] == 'E' && (*e)[5] == '_')
                    printf("env: %.40s\n", *e);
        }
"""


def build_plain(kit, tmp, name, body):
    """Chapter 01 with `body` as its part three-steps, as the course builds it (no harness)."""
    root = kit.ROOT
    course = open(os.path.join(root, "01_cpu_serial", "cpu_serial.c")).read()
    text = course if body is None else kit.replace_parts(course, {"three-steps": body},
                                                         "cpu_serial.c")
    src = os.path.join(tmp, "plain_" + name, "cpu_serial.c")
    os.makedirs(os.path.dirname(src), exist_ok=True)
    open(src, "w").write(text)
    common = os.path.join(root, "build", "common")
    out = os.path.join(tmp, "plain_" + name, "run")
    r = subprocess.run(["gcc", "-std=c11", "-O2", "-fopenmp", "-I" + os.path.join(root, "common"),
                        "-I" + os.path.join(root, "01_cpu_serial"), src] +
                       [os.path.join(common, o + ".o") for o in
                        ("cli", "data", "io", "report", "selftest")] +
                       ["-o", out, "-lgomp", "-lm"], capture_output=True, text=True)
    return out if r.returncode == 0 else None


def default_threads(kit, tmp, check, sb):
    """The fourth gaming review's S01: a part right only when OMP_NUM_THREADS was set by hand
    fails the self-test item, which also runs the program with no OpenMP variable (the default
    thread count, as a student runs it); the course's part passes it (the class the kit's test
    grades: reports_and_class())."""
    import items  # noqa: E402
    s01 = build_plain(kit, tmp, "G4S01", open(os.path.join(HERE, "cheats",
                                                           "G4S01_diesel_procs.body")).read())
    if not s01:
        check("the self-test as a student runs it: S01 builds", False, str(s01))
        return
    envs = items.self_test_envs({"cpu": True}, [("OMP_NUM_THREADS=3", items.omp_env(3))])
    ok, said = items.runs_of([s01, "--self-test", "-n", "70000"], envs,
                             r"^self-test passed: \d+ passed, 0 failed$", sb)
    many = len(os.sched_getaffinity(0)) >= 2  # on one CPU S01 is right by default too
    check("S01 (gamer4): a part right only when OMP_NUM_THREADS is set fails the self-test item "
          "(one run with no OpenMP variable, as a student runs it)",
          not many or (not ok and "OMP_NUM_THREADS unset (the default, as you run it): FAILED"
                       in said), said[-500:])


def replay_rule(kit, tmp, check):
    """The judge's rule (share_rule.h) on the timings an H200 gave the course's part and T2
    (docs/experiments/runs_2026-12-04e: share_timing.py idle and beside load, and grade-class
    in make test): the course's part never flagged, T2 never shared, and the findings as many
    as when the thresholds were set from these timings (a change of the rule shows here; the
    timings cannot test thresholds chosen from them)."""
    exe = os.path.join(tmp, "share_rule_replay")
    r = subprocess.run(["gcc", "-std=c11", "-O2", "-I" + os.path.join(kit.KIT, "grader"),
                        os.path.join(HERE, "share_rule_replay.c"), "-o", exe],
                       capture_output=True, text=True)
    runs_dir = os.path.join(kit.ROOT, "docs", "experiments", "runs_2026-12-04e")
    rows = [row for f in sorted(os.listdir(runs_dir)) if f.endswith(".csv")
            for row in csv.DictReader(open(os.path.join(runs_dir, f))) if row["yard_median"]]
    said = subprocess.run([exe], input="".join(
        f"{row['threads']} {row['yard_median']} {row['part_best']}\n" for row in rows),
        capture_output=True, text=True).stdout.split() if not r.returncode else []
    found = {case: [int(f) for row, f in zip(rows, said) if row["case"] == case]
             for case in ("course", "T2")}
    counts = {case: {k: v.count(k) for k in (1, 0, -1, -2, -3) if k in v}
              for case, v in found.items()}
    # 1 flagged, 0 shared, -1 not timed, -2 too slow to tell, -3 too few threads to tell
    expected = {"course": {0: 15, -1: 42, -3: 6}, "T2": {1: 11, -1: 42, -2: 3, -3: 1}}
    check(f"the judge's rule (share_rule.h) on {len(rows)} kept H200 timings: the course's part "
          f"never flagged, T2 (a serial scan) never shared, and each finding as often as when "
          f"the thresholds were set", r.returncode == 0 and len(said) == len(rows) and
          1 not in found["course"] and 0 not in found["T2"] and counts == expected,
          f"{r.stderr[-400:]} findings (1 flagged, 0 shared, -1 not timed, -2 too slow, -3 too "
          f"few threads): {counts}, expected {expected}")


def share_texts(kit, check):
    """What the student and the instructor read of the judge's verdicts on the work sharing
    (items.judge_work_sharing()), on verdicts written in the harness's format (its words are
    checked in harness_cpu.c; no run here reaches "too slow to tell": the judge does not decide
    on fewer than 3 idle CPUs), and which run's verdict wins when the runs of 3, 4 and 7 threads
    disagree."""
    import items  # noqa: E402
    harness = open(os.path.join(kit.KIT, "grader", "harness_cpu.c")).read()
    witnesses = (" (the program's own witnesses saw no one thread do the scan, but they run in "
                 "its process, where a part can fool them)")
    not_timed = ("work sharing not decided here: not timed here: on 3 threads the course's own "
                 "scan ran only 0.94x as fast as one thread's serial scan (2.4 ms) in its median "
                 "round (1.00x in its fastest); the judge needs 2.0x (more idle cores than this "
                 "machine gave it)" + witnesses)
    few = ("work sharing not decided here: too few threads to tell: on 4 threads the threaded "
           "variant ran 1.41x as fast as the judge's serial scan (11.8 ms) in its fastest round, "
           "the course's own scan 2.14x (2.01x in its median round); the judge says 'shared' only "
           "on 7 threads or more" + witnesses)
    slow = ("work sharing not decided here: too slow to tell: on 7 threads the threaded variant "
            "ran 1.21x as fast as the judge's serial scan (15.5 ms) in its fastest round, the "
            "course's own scan 3.38x (2.43x in its median round); 'shared' needs 1.70x (0.7 of "
            "the course's own scan's gain in its median round)" + witnesses)
    shared = ("threads shared the work: on 7 threads the threaded variant ran 2.92x as fast as "
              "the judge's serial scan (7.1 ms) in its fastest round, the course's own scan "
              "2.53x (2.33x in its median round); 2 other round(s) void: the program's processes "
              "ran while the judge timed its own scans")
    flagged = ("ONE THREAD: on 4 threads the threaded variant ran 0.99x as fast as the judge's "
               "serial scan (9.4 ms) in its fastest round, the course's own scan 2.73x (2.53x in "
               "its median round) (the judge's timing)")
    beside = ("work sharing not decided here: on 7 threads the threaded variant ran 2.92x as "
              "fast as the judge's serial scan (7.1 ms) in its fastest round, the course's own "
              "scan 2.53x (2.33x in its median round); the judge does not call it shared: the "
              "program had 1 thread(s) beside its main thread and its idle OpenMP workers "
              "through a turn of the judge's, from the part's return to the next call (a thread "
              "OpenMP did not start: a part may start threads only through OpenMP); read the "
              "part" + witnesses)
    envs = [(f"OMP_NUM_THREADS={t}", {}) for t in (3, 4, 7)]
    found = {}
    for name, runs_said in (("slow", (not_timed, few, slow)), ("not timed", (not_timed, few,
                                                                               not_timed)),
                            ("shared", (not_timed, few, shared)),
                            ("flagged and shared", (not_timed, flagged, shared)),
                            ("slow and shared", (not_timed, slow, shared)),
                            ("beside", (not_timed, slow, beside))):
        found[name] = {}
        items.judge_work_sharing([[v] for v in runs_said], envs, found[name])
    s, n, p, b = found["slow"], found["not timed"], found["shared"], found["beside"]
    check("the work sharing's texts: a part the judge timed and found too slow beside the "
          "course's scan is partial, no deduction, the student told its timings and the "
          "threshold, the instructor to read the part; one it could not decide says so (the "
          "instructor's note from the run of most threads); a shared one passes; a run that "
          "flags fails the part whatever the others say, and one shared run passes it; one "
          "with threads beside its team after it returned is partial, the student told the "
          "counts, the instructor what an honest part would show",
          s.get("partial") and s.get("status_gate") is None and
          s["output"].startswith("not decided: on 7 threads your threaded variant ran about "
                                 "1.2x") and "from about 1.7x, 0.7 of" in s["output"] and
          "2.43" not in s["output"] and "witnesses" not in s["output"] and
          "read the part" in s["instructor"] and
          n.get("partial") and n["output"].startswith("not run here") and
          "on 3 threads" in n["instructor"] and "Regrade it on a quiet" in n["instructor"] and
          p.get("status_gate") == "passed" and "2.92x" in p["output"] and
          "void" not in p["output"] and "2 other round(s) void" in p.get("instructor", "") and
          found["flagged and shared"].get("status_gate") == "failed" and
          found["slow and shared"].get("status_gate") == "passed" and
          b.get("partial") and b.get("status_gate") is None and
          b["output"].startswith("not decided: after your threaded variant returned, the "
                                 "grader saw what looked like a thread") and
          "a regrade usually finds the thread again" in b["instructor"] and
          all(w in harness for w in ('"too slow to tell: "', "'shared' needs %.2fx (%.1f of the "
                                     "course's own scan's gain", '"too few threads to tell: "',
                                     '"work sharing not decided here: %s',
                                     '; the judge does not call it shared: the program had %d "')),
          str(found))


def main(kit, tmp, check, full=False):
    """The quick tier's cases; `full` (test_kit.py --all) adds the third gaming review's parts
    that start processes, probe the judge or stop it (G3B, G3A, G3P, G3S: about 10 s more)."""
    import items  # noqa: E402
    import runs  # noqa: E402
    import sandbox  # noqa: E402
    root = kit.ROOT
    harness_o, r = harness_object(kit, tmp)
    check("the judge: chapter 01's harness builds", r.returncode == 0, r.stderr[-800:])
    if r.returncode:
        return
    replay_rule(kit, tmp, check)
    share_texts(kit, check)
    body = {n: cheat(n)
            for n in ("T1b_token_getenv", "T5_forge_exit", "T6_big_forge", "T2_touch_rewrite_spin",
                      "G3C_selfkill", "G4S02_affinity") +
            (("G3B_boxclaim", "G3A_thief", "G3P_ptrace", "G3S_stop", "G4S08_prlimit_judge",
              "G4S05_grandchild_hogs", "G4S04_timed_detect", "R5V_vanishing_threads",
              "R5A_pin_workers", "R5C_sleepers", "R6L_lazy_completion", "R7F_sleeper",
              "R7S_spawner", "R7N_nested_honest", "R7P_predict", "R7W_turn_worker")
             if full else ())}
    body["T6_small"] = body["T6_big_forge"].replace("n > ((size_t)1 << 31)", "n > 60000")
    if full:
        # R6L's thread scans nine tenths, not half: on 2 CPUs the tail is often done before
        # the judge woke, inside the part's time (neither void nor wrong: timed_as_serial()
        # accepts it), and a tail the judge missed from its start would show the part at 2x
        # and more
        body["R6L_lazy_completion"] = body["R6L_lazy_completion"].replace(
            "const size_t half = n / 2;", "const size_t half = n / 10;")
    # G3S began at the judge's first timed call, known by its n then (2^22 less up to 4095),
    # which the timed calls no longer have: here from the battery's first large call on
    if full:
        body["G3S_stop"] = body["G3S_stop"].replace("n > (1u << 22) - 4096 && n <= (1u << 22)",
                                                    "n >= (1u << 20)")
    body["G4S02_affinity"] += ENV_SHOWN  # and what the student's code sees of the environment
    nolook_o = None
    cases = {"course": None, "T1b": body["T1b_token_getenv"], "T5": body["T5_forge_exit"],
             "T6_small": body["T6_small"], "T2": body["T2_touch_rewrite_spin"],
             "G3C": body["G3C_selfkill"], "G4S02": body["G4S02_affinity"]}
    if full:
        cases.update(G3B=body["G3B_boxclaim"], G3A=body["G3A_thief"], G3P=body["G3P_ptrace"],
                     G3S=body["G3S_stop"], G4S08=body["G4S08_prlimit_judge"],
                     G4S05=body["G4S05_grandchild_hogs"], G4S04=body["G4S04_timed_detect"],
                     R5V=body["R5V_vanishing_threads"], R5A=body["R5A_pin_workers"],
                     R5C=body["R5C_sleepers"], R6L=body["R6L_lazy_completion"],
                     R7F=body["R7F_sleeper"], R7S=body["R7S_spawner"],
                     R7N=body["R7N_nested_honest"], R7P=body["R7P_predict"],
                     R7W=body["R7W_turn_worker"])
        # the parts that run after they return, again with a judge that does not look at what
        # they left running: its CPU-time checks must catch them alone
        nolook_o, r = harness_object(kit, tmp, look=False)
        check("the judge: chapter 01's harness builds without its look at what a part left "
              "running (JUDGE_LEFT_BEHIND=0)", r.returncode == 0, r.stderr[-800:])
        cases.update({k + "_cpu": cases[k] for k in ("G4S05", "R5V", "R5C", "R6L")})
    with concurrent.futures.ThreadPoolExecutor(2) as pool:  # the builds, on both cores
        made = dict(zip(cases, pool.map(
            lambda c: build(kit, tmp, c[0], c[1], nolook_o if c[0].endswith("_cpu") else
                            harness_o), cases.items())))
    check("the judge: the course's part and the review's cheats link with the harness",
          all(made.values()), str(made))
    if not all(made.values()):
        return
    for h in made.values():
        runs.trust(h)
    sb = sandbox.Sandbox(os.path.join(tmp, "judge_work"), list(made.values()), [], False)
    default_threads(kit, tmp, check, sb)

    def said(name, threads, big=None, timeout=runs.TIMEOUT, **more):
        env = items.omp_env(threads, GRADE_SEGMENT="0", **({"GRADE_BIG": big} if big else {}),
                            **more)
        cmd = [made[name], "--self-test"] + ([] if big else ["-n", "70000"])
        status, out, verdicts = sb.harness(cmd, 4242, f"judge/{name}/{threads}/{big}", env=env,
                                           timeout=timeout)
        return status, out, verdicts

    def timed_run(name, debug=False):
        """A run of `name` on 3 threads, timed on 2 CPUs too (GRADE_TIMING_MIN_CPUS: the kit's
        test alone sets it), with `debug` the judge's own timings printed (GRADE_SHARE_DEBUG):
        its status, output, verdicts and verdicts on the work sharing."""
        status, out, v = said(name, 3, timeout=120, GRADE_TIMING_MIN_CPUS="2",
                              **({"GRADE_SHARE_DEBUG": "1"} if debug else {}))
        return status, out, v, [x for x in v if x.startswith(items.SHARE_VERDICTS)]

    part_min = float(re.search(r"#define PART_MIN ([0-9.]+)", open(os.path.join(
        kit.KIT, "grader", "share_rule.h")).read()).group(1))

    def timed_as_serial(name, out):
        """Whether the judge timed the part, in its fastest round, at less than share_rule.h's
        PART_MIN of its serial scan's speed (its "part x0.59", GRADE_SHARE_DEBUG), with every
        round timed: R6L's tail then ended before the judge woke, inside the part's time (on 2
        CPUs that the run's own threads keep busy, where the judge wakes late). A tail missed
        from its start in even one round would show R6L at 2x and more there (its own thread
        scans a tenth). A record line says when a run is accepted so: the CPU-time checks were
        then not what caught it."""
        part = re.search(r"^share: T=3 serial .* part x([0-9.]+);", out, re.M)
        if part is None or float(part.group(1)) >= part_min:
            return False
        print(f"     record: {name} accepted as timed at a serial scan's speed (part "
              f"x{part.group(1)}): its tail ended before the judge woke")
        return True

    # the judge times the threaded variant only with 3 CPUs for 3 threads (harness_cpu.c), and
    # judges only where the yardstick gained 2x (idle cores): elsewhere "not decided here"
    timed = len(os.sched_getaffinity(0)) >= 3
    shared = ("threads shared", "work sharing not decided here") if timed else \
        "work sharing not decided here"
    try:
        # timed on 2 CPUs too (GRADE_TIMING_MIN_CPUS: the kit's test alone sets it), where the
        # yardstick cannot gain 2x: the timing's code runs, and must not flag the course's part
        status, out, v = said("course", 3, GRADE_TIMING_MIN_CPUS="2")
        c_share = [x for x in v if x.startswith(items.SHARE_VERDICTS)]
        print("     record: the course's part, 3 threads: " + " | ".join(c_share)[:300])  # a record
        # a grading machine whose environment binds OpenMP threads (review 0412g: each thread
        # pinned apart read as the part's tampering): the runs are not bound
        with unittest.mock.patch.dict(os.environ, OMP_PROC_BIND="spread",
                                      OMP_PLACES="{0,1},{1}"):
            _, _, bv = said("course", 3, GRADE_TIMING_MIN_CPUS="2")
        b_share = [x for x in bv if x.startswith(items.SHARE_VERDICTS)]
        check("the judge: the course's part graded where the environment binds OpenMP threads "
              "(OMP_PROC_BIND, OMP_PLACES) is never 'ONE THREAD' (the runs are not bound)",
              len(b_share) == 1 and not b_share[0].startswith("ONE THREAD") and
              bv[-1].startswith("in place passed"), str(bv))
        big_status, big_out, big_v = said("course", 3, "70001")
        check("the judge: the course's part passes the in-place battery, and is right at the "
              "n > 2^31 path's small n; its work sharing is " +
              ("shared by the judge's timing, or not decided here where the machine is busy"
               if timed else "not decided here (< 3 CPUs: the judge cannot time it)"),
              status == 0 and [x for x in v if x.startswith("in place ")] and
              v[-1].startswith("in place passed") and "out of place passed" in " ".join(v) and
              any(x.startswith(shared) for x in v) and
              big_status == 0 and big_v and big_v[0].endswith("right"),
              f"{status} {v} {big_status} {big_v} {out[-300:]} {big_out[-300:]}")
        killed = len(sb.killed)
        status, out, v = said("G3C", 3, timeout=120)
        check("the judge: a wrong part that SIGKILLs itself in the harness (gamer3 C_selfkill) "
              "fails the in-place and out-of-place batteries, is never \"interrupted\", and "
              "the grader notes the kill", status not in (0, -9) and not sb.interrupted and
              len(sb.killed) == killed + 1 and "SIGKILL" in sb.killed[-1] and
              any(x.startswith("in place FAILED") for x in v) and
              any(x.startswith("out of place FAILED") for x in v),
              f"{status} {v} {sb.interrupted} {sb.killed} {out[-300:]}")
        if full:
            status, out, v = said("G3B", 3, timeout=120)
            check("the judge: a serial scan whose grandchild rewrites the witnesses' claim in the "
                  "judge's box to \"shared\" (gamer3 B_boxclaim) is not shared",
                  not any(x.startswith("threads shared") for x in v) and
                  len([x for x in v if x.startswith(items.SHARE_VERDICTS)]) == 1,
                  f"{status} {v} {out[-300:]}")
            t0 = time.time()
            status, out, v = said("G3A", 3, timeout=120)
            took = time.time() - t0
            check("the judge: a grandchild that holds every descriptor and reads the harness's "
                  "stdout back (gamer3 A_thief) finds no verdict to steal, and the judge ends with "
                  "the child (not at the pipe's end)", took < 60 and status != 124 and
                  "stolen" not in out and v and v[-1].startswith("in place ") and
                  not any(x.startswith("threads shared") for x in v),
                  f"{took:.0f} s, {status} {v} {out[-300:]}")
            status, out, v = said("G3P", 3, timeout=120)
            probe = next((l for l in out.splitlines() if l.startswith("probe: ")), "no probe line")
            refused = probe.count("refused") == 3
            print("     " + probe)
            if sb.note and os.geteuid() == 0:
                # as root with no user of its own per run, the part runs as root and can (the
                # limitation docs/instructor.md states): nothing to check here
                print(f"skip the judge out of the part's reach: the runs are root's here ({probe})")
            else:
                check("the judge: a part, run as the grader runs it (" +
                      ("a user of its own" if not sb.note else "the grader's own user, not root") +
                      "), can neither open the judge's memory or verdict file nor trace it "
                      "(gamer3 #5)", refused and v and v[-1].startswith("in place passed"),
                      f"{probe} {v}")
            # the timing on 2 CPUs too (GRADE_TIMING_MIN_CPUS: the kit's test alone sets it)
            status, out, v, share = timed_run("G3S")
            check("the judge: a part whose grandchild stops and continues the judge while it "
                  "times (gamer3 #6) is flagged (only the program's processes can stop the "
                  "judge; the grandchild is a process the program started, which is flagged "
                  "too); the course's part, timed the same way, is not",
                  len(share) == 1 and share[0].startswith("ONE THREAD") and
                  ("stopped" in share[0] or "a process the program started" in share[0]) and
                  len(c_share) == 1 and
                  not c_share[0].startswith("ONE THREAD") and "stopped" not in c_share[0],
                  f"{share} {c_share} {out[-300:]}")
        # the fourth gaming review: a part that changes its judge's CPUs (S02) or limits (S08)
        # is flagged on any machine (the judge took them before any of the part's code ran);
        # spinning grandchildren (S05) void the judge's rounds, never pass as an idle machine
        for name, what, full_only in (("G4S02", "CPU affinity", False),
                                      ("G4S08", "resource limit 7", True)):
            if full_only and not full:
                continue
            status, out, v = said(name, 3, timeout=120, GRADE_MAX_N="70000")
            share = [x for x in v if x.startswith(items.SHARE_VERDICTS)]
            check(f"the judge: a serial part that changes its judge's {what} (gamer4 "
                  f"{name[2:]}) fails the work sharing as tampering, on any machine",
                  len(share) == 1 and share[0].startswith("ONE THREAD") and what in share[0]
                  and "tampering" in share[0], f"{status} {v} {out[-300:]}")
            if name == "G4S02":
                check("the judge: the student's code sees no GRADE_* variable (the grader's and "
                      "the judge's: the fourth gaming review told graded runs apart by them), "
                      "and the judge still has what it needs", "env: shown" in out and
                      # GRADE_SHARE_DEBUG reaches the part by design, when set by hand
                      "env: GRADE_" not in out.replace("env: GRADE_SHARE_DEBUG=", "") and
                      v and v[-1].startswith("in place passed"),
                      f"{v} {out[-400:]}")
        if full:
            status, out, v = said("G4S04", 3, timeout=120, GRADE_TIMING_MIN_CPUS="2")
            check("the judge: its timed calls do not look as the fourth gaming review's S04 "
                  "told them apart (out == in + 2^22, n just below 2^22): they are in place at "
                  "the battery's work-sharing size", "S04: a timed call" not in out and
                  v and v[-1].startswith("in place passed"), f"{status} {v} {out[-300:]}")
            # a part that leaves a process running after it returns: the judge's look at the
            # run's processes (started_process()) flags it
            status, out, v, share = timed_run("G4S05")
            check("the judge: a serial part whose grandchildren spin while the judge times "
                  "(gamer4 S05) fails the work sharing: a process the program started was there "
                  "after the part returned", len(share) == 1 and
                  share[0].startswith("ONE THREAD: a process the program started") and
                  "tampering" in share[0], f"{status} {v} {out[-300:]}")
            # the look at the threads: one outside OpenMP that sleeps through the judge's turns
            # (R7F) keeps the part from "shared"; an honest part's nested teams (R7N) do not
            status, out, v, share = timed_run("R7F")
            check("the judge: the course's part with a thread outside OpenMP that sleeps for good "
                  "(review 0412i's R7F, a follower's shape) is not decided: a thread beside the "
                  "team through the judge's turns", len(share) == 1 and
                  share[0].startswith("work sharing not decided here") and
                  "the program had 1 thread(s) beside its main thread" in share[0] and
                  v[-1].startswith("in place passed"), f"{status} {v} {out[-300:]}")
            status, out, v, share = timed_run("R7N")
            check("the judge: an honest part whose threads each scan their slice with a nested "
                  "team of 2 (review 0412i's A2) is right and sees no thread beside its team",
                  len(share) == 1 and not share[0].startswith("ONE THREAD") and
                  "beside its main thread" not in share[0] and
                  v[-1].startswith("in place passed"), f"{status} {v} {out[-300:]}")
            # the run's last PID: a timer that forks a process ending at once (R7S) is seen
            # there, where the run has a PID namespace of its own (or, where one of its
            # processes is still there at the judge's wake, by the look at the processes)
            status, out, v, share = timed_run("R7S")
            if sb.pid_namespace:
                check("the judge: a part whose timer forks processes that end at once (review "
                      "0412i's A5) fails the work sharing as tampering: the run's PID "
                      "namespace's last PID moved in the judge's turn", len(share) == 1 and
                      share[0].startswith(("ONE THREAD: the program started a thread or a "
                                           "process between a timed call's return",
                                           "ONE THREAD: a process the program started")) and
                      "tampering" in share[0], f"{status} {v} {out[-300:]}")
            else:
                print("skip the run's last PID (R7S): no PID namespace per run here")
            # the judge's inputs: each round's from a fresh draw, so a part that solves one
            # round's generator state (R7P) learns nothing of the next
            status, out, v, share = timed_run("R7P")
            check("the judge: a part that solves the generator's state from a timed input and "
                  "scans the next inputs ahead (review 0412i's A1) never learns them",
                  "ATTACK A1" not in out and len(share) == 1 and
                  not share[0].startswith("threads shared"), f"{status} {v} {out[-300:]}")
            # the child's CPU time over the judge's whole turn: a thread that works there, out
            # of both looks and under the busy check's tenth (R7W), voids every round
            status, out, v, share = timed_run("R7W")
            check("the judge: a part whose thread works 0.8 ms of CPU time in each of the judge's "
                  "turns, asleep at its wake and gone at its next call (review 0412i2's 9a), "
                  "has every round void", len(share) == 1 and
                  share[0].startswith("work sharing not decided here: the judge could not time")
                  and v[-1].startswith("in place passed"), f"{status} {v} {out[-300:]}")
            # the parts that run after they return: never shared, whichever check sees them
            for name, what in (("R5V", "whose threads spin 20 ms after each call and end "
                                       "before the judge looks again (a review of 2026-12-04)"),
                               ("R5C", "whose threads sleep at the judge's first look and spin "
                                       "while its yardstick runs (a review of 2026-12-04)"),
                               ("R6L", "whose thread outside OpenMP finishes the scan after it "
                                       "returns (review 0412h's lazy completion)")):
                status, out, v, share = timed_run(name, debug=name == "R6L")
                check(f"the judge: a serial part {what} is never shared (void rounds, a thread "
                      "beside the team, a thread started in the judge's turn, a wrong output, or "
                      "R6L's tail timed inside its time)", len(share) == 1 and
                      not share[0].startswith("threads shared") and
                      ("void" in share[0] or "beside its main thread" in share[0] or
                       "tampering" in share[0] or v[-1].startswith("in place FAILED") or
                       (name == "R6L" and timed_as_serial(name, out))),
                      f"{status} {v} {out[-300:]}")
            # the same parts against a judge without that look: its CPU-time checks void every
            # round, never a timing taken as a merely busy machine's (R6L: or its output, left
            # unfinished when the judge checks it, is wrong)
            for name, what in (
                    ("G4S05", "whose grandchildren spin while the judge times (gamer4 S05): its "
                              "rounds are void (the judge counts every process of the run)"),
                    ("R5V", "whose threads spin 20 ms after each call and end before the judge "
                            "looks again (a review of 2026-12-04): its rounds are void (each "
                            "process's CPU-time clock counts ended threads)"),
                    ("R5C", "whose threads sleep at the judge's first look, spin while its "
                            "yardstick runs and end before its second (a review of 2026-12-04): "
                            "its rounds are void (each process's CPU-time clock counts ended "
                            "threads)"),
                    ("R6L", "whose thread outside OpenMP finishes the scan after it returns "
                            "(review 0412h): its rounds are void (the child's CPU clock from the "
                            "judge's wake), its timed output wrong, or its tail inside its time "
                            "(done before the judge woke: timed as the serial scan it is)")):
                status, out, v, share = timed_run(name + "_cpu", debug=name == "R6L")
                serial = name == "R6L" and timed_as_serial(name + "_cpu", out)
                check(f"the judge without its look at what a part left running: a serial part "
                      f"{what}, never timed as if the machine were merely busy", len(share) == 1
                      and not share[0].startswith("threads shared") and
                      ("void" in share[0] or serial or (name == "R6L" and v and
                                                        v[-1].startswith("in place FAILED"))),
                      f"{status} {v} {out[-300:]}")
            status, out, v, share = timed_run("R5A")
            check("the judge: a serial part that pins the judge's worker threads to one CPU (a "
                  "review of 2026-12-04) fails the work sharing as tampering (each thread of the "
                  "yardstick's team is checked)", len(share) == 1 and
                  share[0].startswith("ONE THREAD") and "CPU affinity" in share[0] and
                  "tampering" in share[0], f"{status} {v} {out[-300:]}")
        status, out, v = said("T1b", 3)
        check("the judge: a serial scan that forges verdicts with a token found in its memory "
              "(gamer2 T1b) is not believed: one in-place verdict, the work not shared",
              len([x for x in v if x.startswith("in place ")]) == 1 and
              not any(x.startswith("threads shared") for x in v), f"{status} {v} {out[-400:]}")
        status, out, v = said("T5", 3)
        check("the judge: no scan, forged verdicts and _exit(0) (gamer2 T5): the in-place and "
              "out-of-place batteries fail", status != 0 and v == [x for x in v if not x.startswith("big")] and
              [x for x in v if x.startswith("in place ")][:1] and
              v[-1].startswith("in place FAILED") and
              any(x.startswith("out of place FAILED") for x in v), f"{status} {v} {out[-400:]}")
        status, out, v = said("T6_small", 3, "70001")
        check("the judge: a forged 'big: ... right' and _exit(0) on the n > 2^31 path (gamer2 "
              "T6 at a small n) is refused", status != 0 and len(v) == 1 and "WRONG" in v[0],
              f"{status} {v} {out[-400:]}")
        status, out, v = said("T2", 4)
        share = [x for x in v if x.startswith(items.SHARE_VERDICTS)]
        check("the judge: a serial scan whose threads touch, spin and rewrite (gamer2 T2) is "
              "flagged wherever the judge could time it, else not decided (never shared)",
              len(share) == 1 and share[0].startswith(("ONE THREAD",
                                                       "work sharing not decided here")),
              f"{status} {v}")
    finally:
        sb.close()
