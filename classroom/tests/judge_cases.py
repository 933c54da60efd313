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
    judge could time it (a machine with idle cores), it is flagged; on a small or busy machine the
    judge says it could not time it (docs/instructor.md).
"""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def build(kit, tmp, name, body, harness_o):
    """Chapter 01 with `body` as its part three-steps, linked with the harness object: a path."""
    root = kit.ROOT
    course = open(os.path.join(root, "01_cpu_serial", "cpu_serial.c")).read()
    text = course if body is None else kit.replace_parts(course, {"three-steps": body},
                                                         "cpu_serial.c")
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


def main(kit, tmp, check):
    import items  # noqa: E402
    import runs  # noqa: E402
    import sandbox  # noqa: E402
    root = kit.ROOT
    harness_o = os.path.join(tmp, "judge_harness.o")
    r = subprocess.run(["gcc", "-std=c11", "-O2", "-fopenmp", "-I" + os.path.join(root, "common"),
                        "-I" + os.path.join(kit.KIT, "grader"), "-c",
                        os.path.join(kit.KIT, "grader", "harness_cpu.c"), "-o", harness_o],
                       capture_output=True, text=True)
    check("the judge: chapter 01's harness builds", r.returncode == 0, r.stderr[-800:])
    if r.returncode:
        return
    body = {n: open(os.path.join(HERE, "cheats", n + ".body")).read()
            for n in ("T1b_token_getenv", "T5_forge_exit", "T6_big_forge", "T2_touch_rewrite_spin")}
    body["T6_small"] = body["T6_big_forge"].replace("n > ((size_t)1 << 31)", "n > 60000")
    cases = {"course": None, "T1b": body["T1b_token_getenv"], "T5": body["T5_forge_exit"],
             "T6_small": body["T6_small"], "T2": body["T2_touch_rewrite_spin"]}
    made = {name: build(kit, tmp, name, b, harness_o) for name, b in cases.items()}
    check("the judge: the course's part and the review's cheats link with the harness",
          all(made.values()), str(made))
    if not all(made.values()):
        return
    for h in made.values():
        runs.trust(h)
    sb = sandbox.Sandbox(os.path.join(tmp, "judge_work"), list(made.values()), [], False)

    def said(name, threads, big=None):
        env = items.omp_env(threads, GRADE_SEGMENT="0", **({"GRADE_BIG": big} if big else {}))
        cmd = [made[name], "--self-test"] + ([] if big else ["-n", "70000"])
        status, out, verdicts = sb.harness(cmd, 4242, f"judge/{name}/{threads}/{big}", env=env)
        return status, out, verdicts

    try:
        status, out, v = said("course", 3)
        big_status, big_out, big_v = said("course", 3, "70001")
        check("the judge: the course's part passes the in-place battery, shares the work, and "
              "is right at the n > 2^31 path's small n",
              status == 0 and [x for x in v if x.startswith("in place ")] and
              v[-1].startswith("in place passed") and "out of place passed" in " ".join(v) and
              any(x.startswith("threads shared")
                                                          for x in v) and
              big_status == 0 and big_v and big_v[0].endswith("right"),
              f"{status} {v} {big_status} {big_v} {out[-300:]} {big_out[-300:]}")
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
              "flagged wherever the judge could time it",
              len(share) == 1 and (share[0].startswith("ONE THREAD") or "not timed here" in
                                   share[0]), f"{status} {v}")
    finally:
        sb.close()
