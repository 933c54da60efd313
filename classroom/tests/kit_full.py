"""The classroom kit's slow checks: `classroom/tests/test_kit.py --all` runs them after the quick
tier (several minutes on 2 cores; no GPU needed).

 1. Every chapter of the default starter compiles with the course's flags for sm_90 (and links
    where the course's objects are built); its chapter 01 says TODO and its self-test exits 1.
 2. A starter of chapters 1-3 with its parts written (the course's code put back): make SMS=90
    all, make SMS=90 test and make precheck CH=1 pass in it (every target tolerates the chapters
    a copy leaves out).
 3. The grader on chapter 01 (GRADE_MAX_N=70000): four bugs planted in the part each lose the
    items that catch them and the sanitizers (a wrong output takes them), the reference call
    loses everything to the honesty gate; the starter's stub is "not written"; a part that
    ignores the slices' prefixes, graded on one CPU with OMP_NUM_THREADS=1, still loses every
    correctness item (the grader sets the thread counts), with the first failure's header; a
    copy of the solution with a name changed is a note for the instructor only.
 4. Later weeks: grading chapter 04 from a week-2 copy uses the course's carried parts; a
    starter of chapters 4-6 holds no solution of 01-06, and carry_parts.py brings week 1's in.
 5. Gradescope, from make gradescope-zip's zip, unpacked and run (grade-setup, run_autograder)
    without nvcc: chapter 02 is "not graded here" (never a zero), chapter 01 is graded in full
    and shows students neither the hidden item's output nor its total, make grade rebuilds
    nothing, a broken grade.env gives a results.json that says so.
 6. The speed item draws its size and counts from a secret and scores 0 when the harness counted
    a wrong launch (a fake harness); harness_gpu.cu compiles for sm_90; as root, the students'
    programs run as a user of their own; the checker and the harnesses are made, and hashed,
    before the first student program runs; on Gradescope, a part that includes ../grade.env
    finds no seed.
 7. A grader stopped by SIGTERM leaves none of its runs' processes; a wrong part that SIGKILLs
    itself in the harness (the third gaming review's C_selfkill, as handed in) is graded as
    failed and flagged, never "interrupted".
"""
import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import time

import kit
import test_kit
from test_kit import ROOT, SCAN, check, gate_of, grade, planted, run, scores, student_view

PLANTS = {
    # each: (what it does, the edits, the items that must lose points)
    "seed-off-by-one": (
        "each slice seeded with its own inclusive prefix, prefix[t + 1]",
        [(SCAN, SCAN.replace("prefix[t]);", "prefix[t + 1]);"))],
        {"self-test battery", "in place", "hidden vectors", "sanitizers"}),
    "signed-overflow": (
        "the aggregate summed in int32_t: overflow is undefined (UBSan), the result right",
        [("        uint32_t aggregate = 0;\n        for (size_t i = begin; i < end; ++i)\n"
          "            aggregate += (uint32_t)in[i];",
          "        int32_t aggregate = 0;\n        for (size_t i = begin; i < end; ++i)\n"
          "            aggregate += in[i];")],
        {"sanitizers"}),
    "scan-before-reduce": (
        "each slice scanned into out before its aggregate is read back: wrong only in place",
        [("        uint32_t aggregate = 0;\n        for (size_t i = begin; i < end; ++i)\n"
          "            aggregate += (uint32_t)in[i];",
          "        scan_serial(in + begin, out + begin, end - begin, 0, 0);\n"
          "        uint32_t aggregate = end > begin ? (uint32_t)out[end - 1] : 0;")],
        {"in place", "sanitizers"}),
    "calls-the-reference": (
        "thread 0 calls the CPU reference from common/ (right results, not the student's): "
        "every item is lost to the honesty gate",
        [("        " + SCAN, "        if (t == 0)\n            scan_reference(in, out, n, exclusive, 0);")],
        {"build", "self-test battery", "in place", "hidden vectors", "sanitizers"}),
}


def flags(build):
    _, out = run(["make", "-s", "--no-print-directory", "classroom-env", "SMS=90", "BUILD=" + build])
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def build_starter(copy, tmp):
    """Compile every source of the starter that differs from the course's, link each chapter."""
    f = flags(os.path.join(tmp, "build"))
    objs = os.path.join(ROOT, "build", "common")
    host = [os.path.join(objs, o + ".o") for o in ("cli", "data", "io", "report", "selftest")]
    cuda = [os.path.join(objs, o + ".o") for o in ("cuda_util", "gpu_driver")]
    built = []
    for folder, number, sources in kit.assignments():
        if not os.path.isdir(os.path.join(copy, folder)):
            continue
        objects, compiled, linkable = [], 0, True
        for s in sources:
            mine, course = os.path.join(copy, folder, s), os.path.join(ROOT, folder, s)
            course_obj = os.path.join(ROOT, "build", os.path.basename(folder),
                                      os.path.splitext(s)[0] + ".o")
            if open(mine).read() == open(course).read():
                if os.path.isfile(course_obj):
                    objects.append(course_obj)
                else:
                    linkable = False
                continue
            if s.endswith(".cu") and not f.get("NVCC"):
                print(f"     (starter {folder}: skipped, no nvcc)")
                break
            obj = os.path.join(tmp, folder.replace("/", "_") + "_" + os.path.splitext(s)[0] + ".o")
            compiler = [f["CC"]] + f["CFLAGS"].split() if s.endswith(".c") else \
                [f["NVCC"]] + f["NVCCFLAGS"].split()
            status, out = run(compiler + ["-c", mine, "-o", obj], cwd=os.path.join(copy, folder))
            check(f"starter {folder}/{s} compiles with -Werror (sm_90)", status == 0, out[-800:])
            objects.append(obj)
            compiled += 1
        else:
            if not compiled or not linkable:
                continue
            cu = any(s.endswith(".cu") for s in sources)
            baselines = [os.path.join(objs, os.path.splitext(b)[0] + ".o")
                         for b in kit.makefile_var(folder, "BASELINES")]
            binary = os.path.join(tmp, folder.replace("/", "_") + "_run")
            cmd = ([f["NVCC"]] + f["GENCODE"].split() if cu else [f["CC"]] + f["CFLAGS"].split()) + \
                objects + baselines + host + (cuda if cu else []) + ["-o", binary, "-lgomp"]
            status, out = run(cmd)
            check(f"starter {folder} links", status == 0, out[-800:])
            built.append((folder, binary))
    return dict(built)


def fill_parts(copy):
    """A student who has written every part: each part of every source of `copy` given the
    course's own code."""
    bodies = {name: body for _, _, ps in kit.sources_with_parts() for name, _, body in ps}
    for folder, _, sources in kit.assignments():
        for s in sources:
            path = os.path.join(copy, folder, s)
            if os.path.isfile(path):
                text = kit.replace_parts(open(path).read(), bodies, path)
                open(path, "w").write(text)


def make_in(copy, *args):
    """make in a students' copy, as a student runs it (none of this make's variables)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "SMS", "CHAPTERS")}
    return run(["make", "--no-print-directory"] + list(args), env=env, cwd=copy)


def partial_copy(copy):
    fill_parts(copy)
    status, out = make_in(copy, "-j2", "SMS=90", "all")
    check("a starter of chapters 1-3, parts written: make SMS=90 all passes", status == 0,
          out[-1500:])
    if status:
        return
    status, out = make_in(copy, "SMS=90", "test")
    last = out.strip().splitlines()[-1] if out.strip() else ""
    check("... and its make SMS=90 test passes", status == 0 and
          re.match(r"^\d+ passed, 0 failed, \d+ skipped$", last) is not None,
          "\n".join(l for l in out.splitlines() if l.startswith("FAIL"))[:1500] or out[-1500:])
    status, out = make_in(copy, "SMS=90", "precheck", "CH=1")
    check("... and its make precheck CH=1 passes (the gate and the build, in the copy), "
          "printing nothing of make's own", status == 0 and "precheck: 0 problems" in out and
          "make[" not in out and "is up to date" not in out, out[-1200:])


def grader_plants(tmp, copy):
    full = grade(1, os.path.join(ROOT, "01_cpu_serial", "cpu_serial.c"), os.path.join(tmp, "f_ref"))
    if not full:
        return
    base = scores(full)
    for name, (what, edits, losers) in PLANTS.items():
        r = grade(1, planted(tmp, name, edits), os.path.join(tmp, "f_" + name))
        if not r:
            continue
        s = scores(r)
        lost = {k for k in s if s[k] < base[k]}
        check(f"grade: plant {name} ({what}) loses exactly {', '.join(sorted(losers))}",
              lost == losers, f"lost {sorted(lost)}: {json.dumps(s)}")
    stub = grade(1, os.path.join(copy, "01_cpu_serial"), os.path.join(tmp, "f_starter"))
    if stub:
        build = next(t for t in stub["tests"] if t["name"].startswith("build"))
        check("grade: the starter's chapter 01 is not written: 0 of 60, no build points while a "
              "part holds its stub, and the honesty gate not failed", stub["score"] == 0 and
              "still hold the stub" in build["output"] and
              stub["extra_data"]["honesty"] != "failed", json.dumps(scores(stub)))
    # a written part that does no work at all: too little CPU time to judge who did it
    idle = os.path.join(tmp, "plant_idle", "cpu_serial.c")
    os.makedirs(os.path.dirname(idle), exist_ok=True)
    open(idle, "w").write(kit.replace_parts(
        open(os.path.join(ROOT, "01_cpu_serial", "cpu_serial.c")).read(),
        {"three-steps": "        (void)in; (void)out; (void)exclusive; (void)threads; (void)begin; "
                        "(void)end;\n"}, "cpu_serial.c"))
    r = grade(1, idle, os.path.join(tmp, "f_idle"))
    if r:
        share = next(t for t in r["tests"] if t["name"].startswith("threads"))
        check("grade: a part that does nothing scores the build's 5; 'threads share the work' "
              "is not checked (too little written, too little CPU time), never failed",
              r["score"] == 5 and
              gate_of(r, "threads") is None and share["output"].startswith("not checked: ") and
              "share" not in r["extra_data"]["verdict"], json.dumps(r)[:900])
    # a part that ignores the slices' prefixes, graded on one CPU with OMP_NUM_THREADS=1
    path = planted(tmp, "unseeded", [(SCAN, SCAN.replace("prefix[t]);", "0u);"))])
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    env = dict(os.environ, GRADE_MAX_N="70000", GRADE_SEED="4242", OMP_NUM_THREADS="1")
    out = os.path.join(tmp, "f_unseeded")
    status, text = run(pin + [sys.executable, os.path.join(kit.KIT, "grade.py"), "one", "1", path,
                              out], env=env)
    r = json.load(open(os.path.join(out, "results.json"))) if status == 0 else None
    if r:
        self_test = next(t["output"] for t in r["tests"] if t["name"].startswith("self-test"))
        hidden = next(t["output"] for t in r["tests"] if t["name"].startswith("hidden"))
        check("grade on one CPU, OMP_NUM_THREADS=1: the unseeded slices still lose every "
              "correctness item; the self-test item names the thread counts and shows the first "
              "failure's header; a wrong hidden vector names its element",
              r["score"] == 5 and "OMP_NUM_THREADS=1: passed" in self_test and
              "OMP_NUM_THREADS=3: FAILED" in self_test and "FAIL n=" in self_test and
              re.search(r"WRONG hidden vector \d+, n = \d+.*OMP_NUM_THREADS=\d+: .*(the )?first at index \d+: "
                        r"expected -?\d+, got -?\d+", hidden) is not None,
              self_test[:600] + hidden[:400])
    else:
        check("grade on one CPU ran", False, text[-800:])
    r = grade(1, planted(tmp, "renamed", [("uint32_t aggregate = 0;", "uint32_t total = 0;"),
                                         ("aggregate += (uint32_t)in[i];", "total += (uint32_t)in[i];"),
                                         ("prefix[t + 1] = aggregate;", "prefix[t + 1] = total;")]),
              os.path.join(tmp, "f_renamed"))
    if r:
        check("a copy of the solution with a name changed is a note for the instructor only "
              "(extra_data), not in what students see", "names changed" in
              " ".join(r["extra_data"]["instructor_notes"]) and "solution" not in
              student_view(r) and r["extra_data"]["similarity"].get("three-steps") == 1.0,
              json.dumps(r["extra_data"])[:600])


def later_weeks(tmp, week1):
    sys.path.insert(0, kit.KIT)
    import runs  # noqa: E402
    import submission  # noqa: E402
    folder, sources = next((f, s) for f, n, s in kit.assignments() if n == 4)
    week2 = os.path.join(tmp, "week2")
    status, out = run([sys.executable, os.path.join(kit.KIT, "starter.py"), week2, "4", "5", "6"])
    if status:
        check("a starter of chapters 4-6 is written", False, out)
        return
    status, out = run([sys.executable, os.path.join(test_kit.HERE, "check_starter.py"), week2] +
                      [str(n) for n in range(1, 7)])
    check("no solution line of chapters 1-6 survives in the starter of chapters 4-6", status == 0,
          out[-1200:])
    status, out = run([sys.executable, "carry_parts.py", week1], cwd=week2)
    bodies = {name: body for _, _, ps in kit.sources_with_parts() for name, _, body in ps}
    wrong = []
    for f, _, srcs in kit.assignments():
        for s in srcs:
            path = os.path.join(week2, f, s)
            if os.path.isfile(path):
                for name, _, body in kit.parts(open(path).read(), path):
                    home = kit.number_of(kit.part_homes()[name][0])
                    if (body == bodies[name]) != (home in (1, 2, 3)):
                        wrong.append(f"{f}/{s}: {name}")
    check("carry_parts.py brings the week-1 parts (01-03) into every file of week 2 (filled in "
          "this test), and leaves week 2's own parts stubbed", status == 0 and not wrong,
          "\n".join(wrong[:8]) + out[-600:])
    fill_parts(week2)
    env = runs.course_env()
    p = submission.prepare(env, {}, folder, sources, lambda s: os.path.join(week2, folder, s),
                           os.path.join(tmp, "w2work"))
    ref = open(os.path.join(ROOT, folder, sources[0])).read()
    check("grading chapter 04 from a week-2 copy: the carried parts are the course's, 04's own "
          "parts pass the gate and are compared with the solution",
          p["graded"][sources[0]] == ref and not p["reasons"] and
          any("recursion" in n for n in p["instructor"]) and
          any("carried over from earlier chapters" in n for n in p["notes"]),
          json.dumps({k: v for k, v in p.items() if k != "graded"})[:900])


def gradescope_run(tmp):
    zip_path = os.path.join(tmp, "gs.zip")
    env = dict(os.environ, GRADE_SEED="4242", SMS="80 90")
    status, out = run([sys.executable, os.path.join(kit.KIT, "gradescope", "make_zip.py"), "2",
                       zip_path], env=env)
    check("make gradescope-zip writes the zip", status == 0 and os.path.isfile(zip_path), out)
    if status:
        return
    import zipfile
    top = os.path.join(tmp, "gs")
    src = os.path.join(top, "source")
    with zipfile.ZipFile(zip_path) as z:
        names = z.namelist()
        z.extractall(src)
        for info in z.infolist():
            os.chmod(os.path.join(src, info.filename), (info.external_attr >> 16) & 0o777)
    env_text = open(os.path.join(src, "grade.env")).read()
    check("the zip has setup.sh, run_autograder (executable) and grade.env at its top",
          {"setup.sh", "run_autograder", "grade.env"} <= set(names) and
          os.access(os.path.join(src, "run_autograder"), os.X_OK) and "GRADE_CH=2" in env_text
          and "GRADE_SEED=4242" in env_text and 'SMS="80 90"' in env_text, env_text)
    bare = {k: v for k, v in os.environ.items()
            if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "SMS", "CHAPTERS",
                         "GRADE_SEED", "GRADE_MAX_N", "DEBUG")}
    bare.update(NVCC="", GRADE_MAX_N="70000", AUTOGRADER=top)
    status, out = run(["make", "-s", "--no-print-directory", 'SMS=80 90', "grade-setup", "CH=2"],
                      env=bare, cwd=src)
    check("make grade-setup builds ahead without nvcc, and says what it cannot build",
          status == 0 and "no nvcc here" in out, out[-800:])
    objects = {f: os.path.getmtime(os.path.join(src, "build", "common", f))
               for f in os.listdir(os.path.join(src, "build", "common")) if f.endswith(".o")}
    flags_text = open(os.path.join(src, "build", "flags.txt")).read()

    def autograde(submission, name):
        sub = os.path.join(top, "submission")
        shutil.rmtree(sub, ignore_errors=True)
        os.makedirs(sub)
        shutil.copy(submission, os.path.join(sub, name))
        status, out = run(["bash", os.path.join(src, "run_autograder")], env=bare, cwd=top)
        path = os.path.join(top, "results", "results.json")
        return (json.load(open(path)) if os.path.isfile(path) else None), out

    r, out = autograde(os.path.join(ROOT, "02_warp_shfl", "warp_shfl.cu"), "warp_shfl.cu")
    if r:
        test_kit.valid_results(r, "chapter 02 on Gradescope without nvcc")
        check("Gradescope without nvcc: chapter 02 gets no zero: every item 'not graded here', "
              "out of 0; the output says plainly that nothing was graded",
              all(t["max_score"] == 0 and t["output"].startswith("not graded here: there is no "
                                                                  "CUDA compiler") for t in r["tests"])
              and r["extra_data"]["max_score"] == 0 and r["extra_data"]["partial"] and
              "no item was graded here" in r["output"], json.dumps(r)[:900])
    else:
        check("run_autograder wrote results.json (chapter 02)", False, out[-1200:])
    open(os.path.join(src, "grade.env"), "w").write(env_text.replace("GRADE_CH=2", "GRADE_CH=1"))
    r, out = autograde(os.path.join(ROOT, "01_cpu_serial", "cpu_serial.c"), "cpu_serial.c")
    if r:
        hidden = next(t for t in r["tests"] if t["name"].startswith("hidden"))
        seen = student_view(r)
        check("Gradescope: chapter 01 graded in full (60), while students see neither the hidden "
              "vectors' output nor a total that counts them, nor the copy notes",
              r["score"] == 60 and hidden["visibility"] == "after_due_date" and
              hidden["output"].splitlines()[0] not in seen and "60 of" not in seen and
              "35 of 35 points in the items shown now" in r["output"] and
              "published solution" not in seen and r["stdout_visibility"] == "hidden", seen[:900])
    else:
        check("run_autograder wrote results.json (chapter 01)", False, out[-1200:])
    if os.geteuid() == 0 and shutil.which("setpriv"):
        # what the students' programs (as nobody) must not read once run_autograder has run
        secret = [os.path.join(src, p) for p in ("grade.env", "01_cpu_serial/cpu_serial.c",
                                                   "07_decoupled_lookback/decoupled_lookback.cu")]
        nobody = pwd.getpwnam("nobody")
        status, out = run(["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}",
                           "--clear-groups", "--",
                           "/bin/sh", "-c", 'for f; do [ -r "$f" ] && echo "readable: $f"; done; '
                           'true', "sh"] + secret)
        check("run_autograder: nobody cannot read the solutions nor grade.env (the seed)",
              status == 0 and "readable" not in out and r is not None and
              not any("grader's own user" in n for n in r["extra_data"]["instructor_notes"]),
              out[-600:] + json.dumps(r["extra_data"]["instructor_notes"] if r else None))
    # a part that includes the seed's file by the chapter's -I folder (the gamer's E_grade_env)
    text = open(os.path.join(ROOT, "01_cpu_serial", "cpu_serial.c")).read().replace(
        "        uint32_t aggregate = 0;\n", '#include "../grade.env"\n        uint32_t aggregate = 0;\n', 1)
    leak = os.path.join(tmp, "grade_env_part.c")
    open(leak, "w").write(text)
    r, out = autograde(leak, "cpu_serial.c")
    check("Gradescope: a part that includes ../grade.env finds no seed there (grade.env is "
          "moved aside while grading, and back after)", r is not None and
          "GRADE_SEED=4242" not in json.dumps(r) and
          os.path.isfile(os.path.join(src, "grade.env")), json.dumps(r)[:600] if r else out[-600:])
    after = {f: os.path.getmtime(os.path.join(src, "build", "common", f)) for f in objects}
    check("make grade (no SMS given) rebuilt nothing and kept the flags of grade-setup",
          after == objects and open(os.path.join(src, "build", "flags.txt")).read() == flags_text
          and "code=sm_80" in flags_text, flags_text)
    for broken, why in ((None, "grade.env is missing"), ("GRADE_SEED=1\n", "does not set GRADE_CH")):
        if broken is None:
            os.remove(os.path.join(src, "grade.env"))
        else:
            open(os.path.join(src, "grade.env"), "w").write(broken)
        r, out = autograde(os.path.join(ROOT, "01_cpu_serial", "cpu_serial.c"), "cpu_serial.c")
        check(f"run_autograder when {why}: a results.json that says so",
              r is not None and why in r["output"] and "not set up right" in r["output"], out[-600:])


def harness_and_sandbox(tmp):
    sys.path.insert(0, kit.KIT)
    import items  # noqa: E402
    import runs  # noqa: E402
    import sandbox  # noqa: E402
    draws = {items.speed_draw(4242, True, k, 1 << 26) for k in (1, 2, 3)}
    check("the speed item: each try draws its own n (below 2^26) and counts of rounds, launches "
          "and warm-ups; the same GRADE_SEED draws the same; the public default draws anew",
          len(draws) == 3 and all((1 << 26) - 4096 < d[0] <= 1 << 26 for d in draws) and
          items.speed_draw(4242, True, 1, 1 << 26) == items.speed_draw(4242, True, 1, 1 << 26) and
          len({items.speed_draw(20261201, False, 1, 1 << 26) for _ in range(4)}) > 1, repr(draws))
    fake = os.path.join(tmp, "fake_harness")
    open(fake, "w").write("#!/bin/sh\nread -r tok seed <&\"$GRADE_FD\"\necho \"$@\" > args\n"
                          "echo \"[grader $tok] speed: n=1 variant=x "
                          "rounds=7 reps=20 warmup=3 student_pct=99.0 reference_pct=50.0 "
                          "ratio=1.98 memcpy_us=1 memcpy_spread_pct=1.0 student_right=0 "
                          "reference_right=1 launches_checked=161 student_wrong_blocks=7 "
                          "reference_wrong_blocks=0\" >&\"$GRADE_VERDICT_FD\"\nexit 1\n")
    os.chmod(fake, 0o755)

    class Made:
        harness, reference = runs.trust(fake), None

    sb = sandbox.Sandbox(os.path.join(tmp, "fake_work"), [fake], [], False)
    it = items.item("speed", 25)
    items.speed(None, items.CHAPTERS[4], it, Made, sb, 4242, True)
    args = open(os.path.join(sb.out, "args")).read().split()
    n, rounds, reps, warmup = items.speed_draw(4242, True, 1, min(1 << 26, runs.max_n() or 1 << 26))
    check("the speed item scores 0 when the harness counted wrong launches, and asks for the "
          "drawn n, rounds, launches and warm-ups", it["score"] == 0 and
          "7 blocks of the output check found wrong elements" in it["output"] and
          args[args.index("-n") + 1] == str(n) and args[args.index("--rounds") + 1] == str(rounds)
          and args[args.index("--reps") + 1] == str(reps) and
          args[args.index("--warmup") + 1] == str(warmup), it["output"] + " " + " ".join(args))
    env = runs.course_env()
    if env.get("NVCC"):
        obj = os.path.join(tmp, "harness_gpu.o")
        status, out = run([env["NVCC"]] + env["NVCCFLAGS"].split() + [
            "-gencode", "arch=compute_90,code=sm_90", "-I", os.path.join(kit.KIT, "grader"), "-c",
            os.path.join(kit.KIT, "grader", "harness_gpu.cu"), "-o", obj])
        check("harness_gpu.cu (in place, the n > 2^31 case, speed) compiles with the course's "
              "flags for sm_90 (it runs only on a GPU)", status == 0, out[-800:])
    sb = sandbox.Sandbox(os.path.join(tmp, "sb_work"), [], [], False)
    if os.geteuid() == 0 and shutil.which("setpriv"):
        status, out = sb.run(["sh", "-c", "id -u; : > " + os.path.join(ROOT, "build", "grade",
                                                                      "planted") + " && echo wrote"])
        check("as root, the students' programs run as a user of their own and cannot write "
              "the course's build", sb.note is None and int(out.split()[0]) >= sandbox.ID_BASE and
              "wrote" not in out and not os.path.exists(os.path.join(ROOT, "build", "grade",
                                                                     "planted")), out)
    else:
        check("not root here, so the grader says its programs ran as its own user",
              sb.note is not None and "not run as root" in sb.note, str(sb.note))


def stopped_grader(tmp):
    """A grader stopped by SIGTERM (`timeout`, a batch system) while a student's program runs
    takes that program with it (sandbox.stop_on_signals()): on 2026-12-03 four runs of a
    stopped grader were still running on the H200 22 minutes later."""
    import sandbox  # noqa: E402
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        return
    spin = planted(tmp, "spins", [(
        "        uint32_t aggregate = 0;\n",
        "        volatile int spin = 1;\n        while (spin) {\n        }\n"
        "        uint32_t aggregate = 0;\n")])
    if not spin:
        return
    # as on a machine without a GPU (a PID namespace per run where it can be made), and as on
    # one with a GPU (no namespace: the grader itself must kill what its runs left)
    no_namespace = ("import sys; sys.path.insert(0, sys.argv[1]); import sandbox, grade; "
                    "sandbox.PID_NAMESPACE = ['/bin/false']; sys.exit(grade.main(sys.argv[2:]))")
    for how, cmd in (("", [os.path.join(kit.KIT, "grade.py")]),
                     (" (runs without a PID namespace, as on a GPU)", ["-c", no_namespace, kit.KIT])):
        env = dict(os.environ, GRADE_MAX_N="70000", GRADE_SEED="4242")
        p = subprocess.Popen([sys.executable] + cmd + ["one", "1", spin, os.path.join(tmp, "stopped")],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # the student's programs of this grader: those run from its work folder (other graders,
        # of other tests, may run at the same time as users of their own)
        # (one that lives on across two looks a second apart: the spinning scan)
        here, seen, deadline = os.path.join(tmp, "stopped", "work") + "/", [], time.time() + 600
        before = []
        while p.poll() is None and time.time() < deadline:
            time.sleep(1)
            now = runs_from(here)
            seen = [r for r in now if r in before]
            if seen:
                break
            before = now
        p.send_signal(signal.SIGTERM)
        status = p.wait()
        time.sleep(2)
        left = runs_from(here)
        uids = sorted({uid for _, uid in seen})
        for _, uid in seen + left:
            sandbox.kill_uid(uid)
        check("a grader stopped by SIGTERM while a student's program spins exits 143 and leaves "
              "none of its runs' processes" + how, uids and status == 128 + signal.SIGTERM and
              not left, f"runs seen {seen} (pid, uid), exit {status}, left {left}")


def selfkill_graded(tmp):
    """Review 3, #1, graded whole: gamer3's C_selfkill as handed in (libc through its resolver,
    past the gate), a wrong part that SIGKILLs itself in every harness run, scores the build's 5,
    the status and the notes for the instructor say a run was killed, and nothing is
    "interrupted" (which a part could choose to hide a wrong output, the review's point)."""
    body = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "cheats",
                             "G3C_selfkill_resolver.body")).read()
    # it killed itself when it saw GRADE_FD, which the student's code no longer sees: here in
    # every run (a part may still kill itself unconditionally)
    body = body.replace('my_getenv("GRADE_FD")', "my_getenv")
    path = os.path.join(tmp, "plant_selfkill", "cpu_serial.c")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").write(kit.replace_parts(open(os.path.join(ROOT, "01_cpu_serial",
                                                              "cpu_serial.c")).read(),
                                            {"three-steps": body}, "cpu_serial.c"))
    r = grade(1, path, os.path.join(tmp, "f_selfkill"))
    if r:
        place = next(t for t in r["tests"] if t["name"].startswith("in place"))
        check("grade: a wrong part that SIGKILLs itself in the harness (gamer3 C_selfkill) "
              "scores the build's 5, its in-place item FAILED, flagged for the instructor, "
              "never \"interrupted\"", r["score"] == 5 and place["score"] == 0 and
              "killed by SIGKILL" in r["extra_data"]["verdict"] and
              "interrupted" not in json.dumps(r) and
              any("SIGKILL" in n for n in r["extra_data"]["instructor_notes"]),
              json.dumps(scores(r)) + " " + r["extra_data"]["verdict"] + " " +
              json.dumps(r["extra_data"]["instructor_notes"])[:600])


def runs_from(folder):
    """(pid, uid) of the live processes whose command line names a file in folder."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
            uid = os.stat(f"/proc/{pid}").st_uid
        except OSError:
            continue
        if folder in cmd and uid != 0:  # (the grader, root, names the folder too)
            found.append((int(pid), uid))
    return found


def main(tmp, copy, week1):
    """The slow checks; returns the names of those that failed (also printed)."""
    before = len(test_kit.failures)
    built = build_starter(copy, tmp)
    ch1 = built.get("01_cpu_serial")
    if ch1:
        status, out = run([ch1, "--self-test", "-n", "5000"])
        check("starter chapter 01: --self-test exits 1 and names the missing part",
              status == 1 and "TODO three-steps" in out and "01_cpu_serial/README.md" in out,
              f"exit {status}: {out[-600:]}")
    partial_copy(week1)
    grader_plants(tmp, copy)
    later_weeks(tmp, week1)
    gradescope_run(tmp)
    harness_and_sandbox(tmp)
    stopped_grader(tmp)
    selfkill_graded(tmp)
    test_kit.machine_fault_build(tmp)
    return test_kit.failures[before:]
