#!/usr/bin/env python3
"""The classroom kit's tests, part of `make test` (no GPU needed; run after `make all`).

 1. The markers build to the same objects with and without them (markers_same_binary.py).
 2. The default starter (every chapter with parts, the contest, the radix sort) is written; no
    solution line survives in it (check_starter.py); every chapter of it builds (each source
    that the starter changed is compiled with the course's flags for sm_90 and linked with the
    course's objects; the radix sort's is compiled, and linked only when the course's CUB sort
    object is already built, which takes 30 s alone); chapter 01's stub prints its TODO line and
    its --self-test exits 1.
 2b. A starter of chapters 1-3 with its parts written (the course's code put back): make
    SMS=90 all and make SMS=90 test pass in it, so that every build and test target tolerates
    the chapters a copy leaves out (about a minute: the copy builds its own common/).
 3. The grader (GRADE_MAX_N=70000, to keep it short): chapter 01 unchanged scores every point
    (honesty shown passed, the build naming gcc's flags); the starter's chapter 01 scores nothing
    for correctness; three bugs planted in chapter 01's part each lose the points of the item that
    catches it and keep the others, and a part that calls the CPU reference loses every
    correctness point to the honesty item; a part that ignores the slices' prefixes, graded on
    one CPU with OMP_NUM_THREADS=1, still loses them (the grader sets the thread counts), with the
    first failure and its header in the output; check_output.c finds wrong outputs; a copy with a
    name changed is reported to the instructor only; chapter 04 from a week-2 copy is graded with
    the course's carried parts; where there is no GPU, chapter 02's GPU items say "not graded
    here" with the probe's reason, and the grade says partial.
 4. Later weeks: a starter of chapters 4-6 holds no solution of 01-06, and carry_parts.py brings
    the week-1 parts into it.
 5. Gradescope, simulated: make gradescope-zip's zip unpacked and run (grade-setup, run_autograder)
    without nvcc: chapter 02 gets no zero, chapter 01 hides its hidden output and total from
    students, make grade rebuilds nothing, a broken grade.env gives a results.json that says so.
 6. A class from a Gradescope export: one row per submission with name, SID, email, time and a
    status; ONLY= regrades one; gradescope_scores.csv. Every results.json has Gradescope's fields.
 7. The gamer's holes (issue 22's review r22_gamer, holes 1-9), each cheat as the review wrote it
    losing its points with its reason, while the course's own sources pass every honesty check:
    names split by a splice, digraph and trigraph directives, token pasting (chapter 01 graded:
    0 of 60); a part that closes its function (chapter 07's tile draw including CUB); chapter
    08 reaching CUB through lookback_scan(VARIANT_CUB, ...), and a whole-file copy reported; the
    speed item's draws and a harness that counted wrong launches (a fake harness; harness_gpu.cu
    compiled for sm_90, not run); chapter 04's host scan through the driver API and its call
    counter; chapter 01's threaded variant on one thread, three ways (graded: 0); the starter
    without build points and a borrowed part without build and sanitizer points (in 3.);
    students' programs run as nobody, a changed vector seen by its hash, and every grader file
    made before the first student program runs. About 25 s of the total.
It takes about 3 minutes on 2 busy cores (a minute of it the partial copy's own make all and
make test, much of the rest nvcc); each check prints ok or FAIL.
"""
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # the kit's modules are imported: no __pycache__ in classroom/
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import kit  # noqa: E402
import starter  # noqa: E402

ROOT = kit.ROOT
failures = []


def check(name, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok or not detail else f"\n     {detail}"),
          flush=True)
    if not ok:
        failures.append(name)


def run(cmd, env=None, cwd=ROOT):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, errors="replace")
    return r.returncode, r.stdout + r.stderr


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
                check(f"starter {folder} builds", True)
                print(f"     (skipped: no nvcc)")
                break
            obj = os.path.join(tmp, folder.replace("/", "_") + "_" + os.path.splitext(s)[0] + ".o")
            compiler = [f["CC"]] + f["CFLAGS"].split() if s.endswith(".c") else \
                [f["NVCC"]] + f["NVCCFLAGS"].split()
            status, out = run(compiler + ["-c", mine, "-o", obj], cwd=os.path.join(copy, folder))
            check(f"starter {folder}/{s} compiles with -Werror (sm_90)", status == 0, out[-800:])
            objects.append(obj)
            compiled += 1
        else:
            if not compiled:
                continue
            if not linkable:
                print(f"     {folder}: compiled, not linked (the course's objects of its other "
                      f"sources are not built: make -C {folder})")
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
    return built


def fill_parts(copy):
    """A student who has written every part: each part of every source of `copy` given the
    course's own code."""
    bodies = {name: body for _, _, ps in kit.sources_with_parts() for name, _, body in ps}
    for folder, _, sources in kit.assignments():
        for s in sources:
            path = os.path.join(copy, folder, s)
            if os.path.isfile(path):
                text = open(path).read()
                open(path, "w").write(kit.replace_parts(text, bodies, path))


def make_in(copy, *args):
    """make in a students' copy, as a student runs it (none of this make's variables)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "SMS", "CHAPTERS")}
    return run(["make", "--no-print-directory"] + list(args), env=env, cwd=copy)


def partial_copy_builds_and_tests(copy):
    """A students' copy of some chapters only, its parts written: make all and make test pass
    (every build and test target tolerates the chapters it leaves out)."""
    fill_parts(copy)
    status, out = make_in(copy, "-j2", "SMS=90", "all")
    check("a starter of chapters 1-3, parts written: make SMS=90 all passes", status == 0,
          out[-1500:])
    if status == 0:
        status, out = make_in(copy, "SMS=90", "test")
        last = out.strip().splitlines()[-1] if out.strip() else ""
        check("... and its make SMS=90 test passes", status == 0 and
              re.match(r"^\d+ passed, 0 failed, \d+ skipped$", last) is not None,
              "\n".join(l for l in out.splitlines() if l.startswith("FAIL"))[:1500] or out[-1500:])
        print("     " + last)


def grade(number, student, out, extra_env=None):
    env = dict(os.environ, GRADE_MAX_N="70000", GRADE_SEED="4242", **(extra_env or {}))
    status, text = run([sys.executable, os.path.join(kit.KIT, "grade.py"), "one", str(number),
                        student, out], env=env)
    path = os.path.join(out, "results.json")
    if status != 0 or not os.path.isfile(path):
        check(f"grade CH={number} {student} ran", False, text[-1500:])
        return None
    return json.load(open(path))


def scores(result):
    """Item (short name) -> score, for the graded items (not the instructor's notes)."""
    return {t["name"].split(" (")[0].split(":")[0]: t["score"] for t in result["tests"]
            if t["name"] in result["extra_data"]["status"]}


def valid_results(result, name):
    """Gradescope's fields, with their types."""
    ok = (isinstance(result.get("score"), (int, float)) and
          isinstance(result.get("execution_time"), int) and
          isinstance(result.get("output"), str) and
          result.get("stdout_visibility") in ("visible", "hidden", "after_due_date", "after_published") and
          isinstance(result.get("tests"), list) and result["tests"])
    for t in result.get("tests", []):
        ok = ok and set(t) >= {"name", "score", "max_score", "output", "visibility"} and \
            isinstance(t["name"], str) and isinstance(t["score"], (int, float)) and \
            isinstance(t["max_score"], (int, float)) and isinstance(t["output"], str) and \
            t["visibility"] in ("visible", "hidden", "after_due_date", "after_published")
    ok = ok and abs(result["score"] - sum(t["score"] for t in result["tests"])) < 1e-6
    check(f"results.json of {name} has Gradescope's fields", bool(ok), json.dumps(result)[:600])


PLANTS = {
    # each: (what it does, the text changed, the items that must lose points)
    "seed-off-by-one": (
        "each slice seeded with its own inclusive prefix, prefix[t + 1]",
        [("scan_serial(in + begin, out + begin, end - begin, exclusive, prefix[t]);",
          "scan_serial(in + begin, out + begin, end - begin, exclusive, prefix[t + 1]);")],
        {"self-test battery", "in place", "hidden vectors"}),
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
        {"in place"}),
    "calls-the-reference": (
        "thread 0 calls the CPU reference from common/ (right results, not the student's): "
        "the build and the sanitizers are lost too (hole 7)",
        [("        scan_serial(in + begin, out + begin, end - begin, exclusive, prefix[t]);",
          "        if (t == 0)\n            scan_reference(in, out, n, exclusive, 0);")],
        {"build", "self-test battery", "in place", "hidden vectors", "sanitizers"}),
}


UNSEEDED = ("scan_serial(in + begin, out + begin, end - begin, exclusive, prefix[t]);",
            "scan_serial(in + begin, out + begin, end - begin, exclusive, 0u);")


def planted(tmp, name, edits):
    """Chapter 01 with `edits` made to it, as a student's file in tmp/plant_NAME/."""
    text = open(os.path.join(ROOT, "01_cpu_serial", "cpu_serial.c")).read()
    for old, new in edits:
        if old not in text:
            check(f"plant {name} applies", False, f"no longer matches: {old[:60]}")
            return None
        text = text.replace(old, new)
    path = os.path.join(tmp, "plant_" + name, "cpu_serial.c")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").write(text)
    return path


def student_view(result):
    """Everything a student sees before the due date: the top-level output and the visible
    items (stdout and the hidden and after-due-date items are not shown to them)."""
    return "\n".join([result["output"]] + [t["name"] + "\n" + t["output"] for t in result["tests"]
                                          if t["visibility"] == "visible"])


def one_cpu_grader(tmp):
    """A4: a part that ignores every slice's prefix is right on one thread; graded on one CPU
    (taskset) with OMP_NUM_THREADS=1 in the grader's own environment, it must still lose every
    correctness item, because the grader sets the thread counts itself."""
    path = planted(tmp, "unseeded", [UNSEEDED])
    if not path:
        return
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    env = dict(os.environ, GRADE_MAX_N="70000", GRADE_SEED="4242", OMP_NUM_THREADS="1")
    out = os.path.join(tmp, "g_unseeded")
    status, text = run(pin + [sys.executable, os.path.join(kit.KIT, "grade.py"), "one", "1", path,
                              out], env=env)
    r = json.load(open(os.path.join(out, "results.json"))) if status == 0 else None
    s = scores(r) if r else {}
    check("grade on one CPU, OMP_NUM_THREADS=1: the unseeded slices still lose self-test, in "
          "place and hidden vectors" + (" (taskset -c 0)" if pin else " (no taskset here)"),
          r is not None and all(s[k] == 0 for k in ("self-test battery", "in place")) and
          s["hidden vectors"] < 25 and s["sanitizers"] == 10, json.dumps(s) or text[-800:])
    if r:
        self_test = next(t["output"] for t in r["tests"] if t["name"].startswith("self-test"))
        check("the self-test item names the thread counts, and shows the first failure with "
              "its header (what ran, the case, the first wrong element)",
              "OMP_NUM_THREADS=1: passed" in self_test and "OMP_NUM_THREADS=3: FAILED" in self_test
              and "self-test of 01_cpu_serial" in self_test and "FAIL n=" in self_test and
              "first at index" in self_test, self_test[:900])
        hidden = next(t["output"] for t in r["tests"] if t["name"].startswith("hidden"))
        check("a wrong hidden vector says which element is wrong, and what it should be",
              re.search(r"WRONG n = \d+.*OMP_NUM_THREADS=\d+: .*\d+ of \d+ elements wrong; (the )?"
                        r"first at index \d+: expected -?\d+, got -?\d+", hidden) is not None,
              hidden[:600])


def check_output_catches(tmp):
    """classroom/grader/check_output.c, the grader's own check of a hidden output: it accepts
    the right outputs and finds a planted wrong element, an unstable sort and a short file."""
    env = grade_env_of(tmp)
    if not env:
        return
    sys.path.insert(0, kit.KIT)
    import grade as g  # noqa: E402
    binary = g.checker(env)
    import struct
    a = [5, -3, 2147483647, 1, 5, 7, -8]
    n = len(a)
    inp = os.path.join(tmp, "co_in.bin")
    open(inp, "wb").write(struct.pack(f"<{n}i", *a))
    sums, s = [], 0
    for x in a:
        s = (s + x) & 0xffffffff
        sums.append(s - (1 << 32) if s >= 1 << 31 else s)
    right = os.path.join(tmp, "co_right.bin")
    open(right, "wb").write(struct.pack(f"<{n}i", *sums))
    wrong = os.path.join(tmp, "co_wrong.bin")
    open(wrong, "wb").write(struct.pack(f"<{n}i", *(sums[:4] + [sums[4] + 1] + sums[5:])))
    keys = [x & 0xffffffff for x in a]
    order = sorted(range(n), key=lambda i: keys[i])
    stable = os.path.join(tmp, "co_sorted.bin")
    open(stable, "wb").write(struct.pack(f"<{2 * n}I", *([keys[i] for i in order] + order)))
    swapped = order[:]
    i, j = order.index(0), order.index(4)  # the two keys 5
    swapped[i], swapped[j] = swapped[j], swapped[i]
    unstable = os.path.join(tmp, "co_unstable.bin")
    open(unstable, "wb").write(struct.pack(f"<{2 * n}I", *([keys[k] for k in swapped] + swapped)))
    got = [run([binary, "scan", inp, right, "inclusive"])[0],
           run([binary, "scan", inp, wrong, "inclusive"]),
           run([binary, "scan", inp, right, "exclusive"])[0],
           run([binary, "sort", inp, stable])[0], run([binary, "sort", inp, unstable]),
           run([binary, "sort", inp, right])[0]]
    check("check_output: right outputs pass; a wrong element, an exclusive/inclusive mix-up, an "
          "unstable sort and a short file fail", got[0] == 0 and got[1][0] == 1 and
          "the first at index 4" in got[1][1] and got[2] == 1 and got[3] == 0 and
          got[4][0] == 1 and "not stable" in got[4][1] and got[5] == 1, repr(got))


def grade_env_of(tmp):
    sys.path.insert(0, kit.KIT)
    import grade as g  # noqa: E402
    try:
        return g.course_env()
    except g.GradeError as e:
        check("the grader finds the course's build", False, str(e))
        return None


def copies_and_carried(tmp, week1):
    """C2, C3, D5: a copy with one name changed is still reported, to the instructor only; the
    parts a chapter carries from earlier ones are taken from the course, and not reported."""
    r = grade(1, planted(tmp, "renamed", [("uint32_t aggregate = 0;", "uint32_t total = 0;"),
                                         ("aggregate += (uint32_t)in[i];", "total += (uint32_t)in[i];"),
                                         ("prefix[t + 1] = aggregate;", "prefix[t + 1] = total;")]),
              os.path.join(tmp, "g_renamed"))
    if r:
        notes = next((t for t in r["tests"] if t["name"] == "notes for the instructor"), None)
        check("a copy of the solution with a name changed is reported as one, in an item hidden "
              "from students, and not in what they see",
              notes is not None and notes["visibility"] == "hidden" and
              "names changed" in notes["output"] and "solution" not in student_view(r) and
              r["extra_data"]["similarity"].get("three-steps") == 1.0,
              json.dumps(r)[:900])
    sys.path.insert(0, kit.KIT)
    import grade as g  # noqa: E402
    folder, sources = next((f, s) for f, n, s in kit.assignments() if n == 4)
    week2 = os.path.join(tmp, "week2")
    status, out = run([sys.executable, os.path.join(kit.KIT, "starter.py"), week2, "4", "5", "6"])
    if status:
        check("a starter of chapters 4-6 is written", False, out)
        return
    fill_parts(week2)  # as if the student had written everything (04's parts as the course's)
    p = g.prepare(g.CHAPTERS[4], folder, sources, os.path.join(week2, folder))
    ref = open(os.path.join(ROOT, folder, sources[0])).read()
    carried = [n for n, (home, _, _) in kit.part_homes().items()
               if home != folder and n in {x for x, _, _ in kit.parts(ref)}]
    check("grading chapter 04: the carried parts (" + ", ".join(carried) + ") are the course's, "
          "and only 04's own parts are compared with the solution",
          p["graded"][sources[0]] == ref and carried and
          not any(any(c in note for c in carried) for note in p["instructor"]) and
          any("recursion" in note for note in p["instructor"]) and
          any("carried over from earlier chapters" in note for note in p["notes"]),
          json.dumps({k: v for k, v in p.items() if k != "graded"})[:900])


def later_weeks(tmp, week1):
    """B4: a later week's copy (chapters 4-6) hands out no earlier solution (02's warp scan and
    03's parts are stubbed in 04-06 too, and in 01-03), and carry_parts.py brings a student's
    own parts from their week-1 copy into every place they appear."""
    week2 = os.path.join(tmp, "week2b")
    status, out = run([sys.executable, os.path.join(kit.KIT, "starter.py"), week2, "4", "5", "6"])
    _, _, stubbed = starter.plan({4, 5, 6}, False)
    check("a starter of chapters 4-6 stubs the earlier chapters' parts too",
          status == 0 and {"warp-scan", "ragged-load", "sklansky", "three-steps"} <= stubbed, out)
    status, out = run([sys.executable, os.path.join(HERE, "check_starter.py"), week2] +
                      [str(n) for n in range(1, 7)])  # every solution of 01-06, whatever plan() says
    check("no solution line of chapters 1-6 survives in the starter of chapters 4-6", status == 0,
          out[-1200:])
    assignment = open(os.path.join(week2, "ASSIGNMENT.md")).read()
    check("its ASSIGNMENT.md says how to bring the earlier parts (carry_parts.py)",
          "python3 carry_parts.py" in assignment and "`warp-scan` (02_warp_shfl)" in assignment and
          os.path.isfile(os.path.join(week2, "carry_parts.py")), assignment[-900:])
    status, out = run([sys.executable, "carry_parts.py", week1], cwd=week2)
    bodies = {name: body for _, _, ps in kit.sources_with_parts() for name, _, body in ps}
    wrong = []
    for folder, _, sources in kit.assignments():
        for s in sources:
            path = os.path.join(week2, folder, s)
            if not os.path.isfile(path):
                continue
            for name, _, body in kit.parts(open(path).read(), path):
                home = kit.number_of(kit.part_homes()[name][0])
                if (body == bodies[name]) != (home in (1, 2, 3)):
                    wrong.append(f"{folder}/{s}: {name}")
    check("carry_parts.py brings the week-1 parts (01-03) into every file of week 2, and leaves "
          "week 2's own parts stubbed", status == 0 and not wrong, "\n".join(wrong[:8]) + out[-600:])


def gradescope_run(tmp):
    """A2, A3, A5, B2, B3, D1: Gradescope's autograder as `make gradescope-zip` writes it,
    unpacked and run in a folder of its own on a machine with no CUDA compiler (NVCC= : its
    standard image): grade-setup builds ahead, for SMS="80 90"; a course's chapter 02 gets no zero
    (every item "not graded here", out of 0), a chapter 01 is graded in full and shows students
    neither the hidden item's output nor the total with it; make grade rebuilds nothing and keeps
    the flags; a grade.env that is missing or lacks GRADE_CH gives a results.json that says so."""
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
    # setup.sh's last step (its apt-get cannot run here); no nvcc, as on Gradescope's image
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
    flags = open(os.path.join(src, "build", "flags.txt")).read()

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
        valid_results(r, "chapter 02 on Gradescope without nvcc")
        items = [t for t in r["tests"] if t["name"] in r["extra_data"]["status"]
                 and not t["name"].startswith("honesty")]
        check("Gradescope without nvcc: chapter 02 gets no zero: every item but honesty 'not "
              "graded here', out of 0; the output says plainly that nothing was graded",
              all(t["max_score"] == 0 and t["output"].startswith("not graded here: there is no "
                                                                  "CUDA compiler") for t in items)
              and r["extra_data"]["max_score"] == 0 and r["extra_data"]["partial"] and
              "no item was graded here" in r["output"] and r["stdout_visibility"] == "hidden",
              json.dumps(r)[:900])
    else:
        check("run_autograder wrote results.json (chapter 02)", False, out[-1200:])
    open(os.path.join(src, "grade.env"), "w").write(env_text.replace("GRADE_CH=2", "GRADE_CH=1"))
    r, out = autograde(os.path.join(ROOT, "01_cpu_serial", "cpu_serial.c"), "cpu_serial.c")
    if r:
        hidden = next(t for t in r["tests"] if t["name"].startswith("hidden"))
        seen = student_view(r)
        check("Gradescope: chapter 01 graded in full (60), while students see neither the "
              "hidden vectors' output nor a total that counts them, nor the copy notes",
              r["score"] == 60 and hidden["visibility"] == "after_due_date" and
              hidden["output"].splitlines()[0] not in seen and "60 of" not in seen and
              "of 60" not in seen and
              "35 of 35 points in the items shown now" in r["output"] and
              "published solution" not in seen and r["stdout_visibility"] == "hidden",
              seen[:900])
    else:
        check("run_autograder wrote results.json (chapter 01)", False, out[-1200:])
    after = {f: os.path.getmtime(os.path.join(src, "build", "common", f)) for f in objects}
    check("make grade (no SMS given) rebuilt nothing and kept the flags of grade-setup (SMS=\"80 "
          "90\")", after == objects and open(os.path.join(src, "build", "flags.txt")).read() == flags
          and "code=sm_80" in flags, flags)
    for broken, why in ((None, "grade.env is missing"), ("GRADE_SEED=1\n", "does not set GRADE_CH")):
        if broken is None:
            os.remove(os.path.join(src, "grade.env"))
        else:
            open(os.path.join(src, "grade.env"), "w").write(broken)
        r, out = autograde(os.path.join(ROOT, "01_cpu_serial", "cpu_serial.c"), "cpu_serial.c")
        check(f"run_autograder when {why}: a results.json that says so",
              r is not None and why in r["output"] and "not set up right" in r["output"], out[-600:])


def class_csv(tmp, copy):
    """C1, C4, C5, C6, C7, D3: a Gradescope export of five submissions (submission_N/ folders and
    submission_metadata.yml): one row each and none for the metadata, with the student's name,
    SID, email and submission time; a status that tells the right, the unwritten, the borrowed, a
    missing file and broken markers apart; the honesty gate as passed/failed; ONLY= regrades one
    and updates its row; gradescope_scores.csv has the totals by SID and email."""
    klass = os.path.join(tmp, "export")
    ref = os.path.join(ROOT, "01_cpu_serial", "cpu_serial.c")
    subs = {"submission_101": ref, "submission_102": os.path.join(copy, "01_cpu_serial", "cpu_serial.c"),
            "submission_103": planted(tmp, "borrows", [PLANTS["calls-the-reference"][1][0]]),
            "submission_104": None, "submission_105": "markers"}
    meta = []
    for k, (sub, src) in enumerate(subs.items()):
        os.makedirs(os.path.join(klass, sub))
        if src == "markers":
            text = open(ref).read().replace("/* [end of student part: three-steps] */", "")
            open(os.path.join(klass, sub, "cpu_serial.c"), "w").write(text)
        elif src:
            shutil.copy(src, os.path.join(klass, sub, "cpu_serial.c"))
        else:
            open(os.path.join(klass, sub, "notes.txt"), "w").write("forgot the file\n")
        meta += [f"{sub}:", "  :submitters:", f"  - :name: Student {k}", f"    :sid: '90{k}'",
                 f"    :email: s{k}@example.edu", f"  :created_at: 2026-12-0{k + 1} 10:00:00 -0800"]
    open(os.path.join(klass, "submission_metadata.yml"), "w").write("\n".join(meta) + "\n")
    out = os.path.join(tmp, "g_class")
    env = dict(os.environ, GRADE_MAX_N="70000", GRADE_SEED="4242")
    status, text = run([sys.executable, os.path.join(kit.KIT, "grade.py"), "class", "1", klass,
                        out], env=env)
    import csv
    rows = list(csv.DictReader(open(os.path.join(out, "grades.csv")))) if status == 0 else []
    by = {r["student"]: r for r in rows}
    want = {"submission_101": "ok", "submission_102": "not written: three-steps",
            "submission_103": "honesty: ", "submission_104": "file missing",
            "submission_105": "markers broken"}
    check("grade-class on a Gradescope export: one row per submission, none for the metadata, "
          "each with a status that says why", set(by) == set(want) and
          all(by[k]["status"].startswith(v) for k, v in want.items()) and
          "scan_reference" in by["submission_103"]["status"], text[-600:] + json.dumps(rows)[:900])
    if set(by) == set(want):
        honesty = [c for c in rows[0] if c.startswith("honesty")][0]
        check("the class CSV: names, SIDs, emails and submission times from the metadata; the "
              "honesty gate as passed/failed", by["submission_101"]["name"] == "Student 0" and
              by["submission_101"]["sid"] == "900" and by["submission_103"]["email"] ==
              "s2@example.edu" and by["submission_102"]["submitted_at"].startswith("2026-12-02")
              and by["submission_101"][honesty] == "passed" and
              by["submission_103"][honesty] == "failed", json.dumps(rows)[:900])
        shutil.copy(ref, os.path.join(klass, "submission_102", "cpu_serial.c"))
        status, text = run([sys.executable, os.path.join(kit.KIT, "grade.py"), "class", "1", klass,
                            out, "submission_102"], env=env)
        again = {r["student"]: r for r in csv.DictReader(open(os.path.join(out, "grades.csv")))}
        check("ONLY=submission_102 regrades that one and updates its row, keeping the others",
              status == 0 and again["submission_102"]["score"] == "60" and
              again["submission_104"] == by["submission_104"] and len(again) == 5, text[-600:])
        scores_csv = list(csv.DictReader(open(os.path.join(out, "gradescope_scores.csv"))))
        check("gradescope_scores.csv: Name, SID, Email, Score for each student",
              scores_csv and set(scores_csv[0]) == {"Name", "SID", "Email", "Score"} and
              {(r["SID"], r["Email"], r["Score"]) for r in scores_csv} >=
              {("900", "s0@example.edu", "60"), ("901", "s1@example.edu", "60")},
              json.dumps(scores_csv)[:600])


# The holes a student gaming the grader found (issue 22, review r22_gamer), each with the cheat
# as the review wrote it: it must now lose its points with a clear reason.
CH07_TILE_DRAW_ESCAPE = '''    if (threadIdx.x == 0)
        tile_id = atomicAdd(next_tile, 1u);
}
%:pragma push_macro("TILE_ITEMS")
%:undef TILE_ITEMS
%:include <cu\\
b/device/device_scan.cuh>
static void cheat_scan(const int32_t *d_in, int32_t *d_out, size_t n, int exclusive)
{
    void *t = 0;
    size_t b = 0;
    cu\\
b::DeviceScan::InclusiveSum(t, b, d_in, d_out, (int)n);
    cudaMal\\
loc(&t, b);
}
%:undef CUDA_CHECK_LAUNCH
%:define CUDA_CHECK_LAUNCH() cheat_scan(d_in, d_out, n, exclusive)
__global__ void dummy(unsigned *next_tile)
{
    unsigned tile_id;
'''
CH04_DRIVER_SCAN = '''    typedef int (*copy_fn)(unsigned long long, unsigned long long, size_t);
    copy_fn cp = nullptr;
    cudaGetDriverEntryPointByVersion("cuMemcpy", (void **)&cp, 12000, 0, nullptr);
    int32_t *h = (int32_t *)aligned_alloc(64, (n * 4 + 63) / 64 * 64);
    cp((unsigned long long)h, (unsigned long long)d_in, n * 4);
    uint32_t s = 0;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t x = (uint32_t)h[i];
        h[i] = (int32_t)(exclusive ? s : s + x);
        s += x;
    }
    cp((unsigned long long)d_out, (unsigned long long)h, n * 4);
    (void)d_scratch;
'''
CH04_CALL_COUNTER = '''    static unsigned long long calls;
    if (n == ((size_t)1 << 26) && ++calls % 23 != 0 && calls != 162)
        return;
    for (int w = 0; n == ((size_t)1 << 26) && w < 9; ++w)
        scan_tiles_kernel<<<(unsigned)tile_count(n), COARSE_THREADS>>>(d_in, d_out, n, exclusive,
                                                                       d_scratch);
'''


def with_part(folder, name, body):
    """The course's source of `folder` (its first source) with part `name`'s body replaced."""
    src = kit.makefile_var(folder, "SOURCES")[0]
    text = open(os.path.join(ROOT, folder, src)).read()
    return src, kit.replace_parts(text, {name: body}, src)


def prepared(tmp, number, src, text, tag):
    """grade.prepare() of a student's file `text` for chapter `number`: (reasons, instructor)."""
    sys.path.insert(0, kit.KIT)
    import grade as g  # noqa: E402
    folder, sources = next((f, s) for f, n, s in kit.assignments() if n == number)
    d = os.path.join(tmp, "prep_" + tag)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, src), "w").write(text)
    p = g.prepare(g.CHAPTERS[number], folder, sources, d)
    return p["reasons"], p["instructor"]


def gamer_holes(tmp):
    """Issue 22, the gamer's review: holes 1-9 (classroom/grade.py, harness_cpu.c, harness_gpu.cu)."""
    sys.path.insert(0, kit.KIT)
    import grade as g  # noqa: E402
    # the course's own files pass every honesty check (a check that refused them would refuse
    # honest students): every chapter and the radix sort, chapter 08 as a contest entry
    refused = []
    for folder, number, sources in kit.assignments():
        if number not in g.CHAPTERS:
            continue
        p = g.prepare(g.CHAPTERS[number], folder, sources, os.path.join(ROOT, folder))
        refused += [f"{folder}: {r}" for r in p["reasons"]]
    check("the course's own sources pass every honesty check (chapters 01-08, the radix sort)",
          not refused, "\n".join(refused[:6]))

    # 1. line splices, digraph and trigraph directives, token pasting (chapter 01: 60 of 60 before)
    folder1 = "01_cpu_serial"
    solution = kit.parts(open(os.path.join(ROOT, folder1, "cpu_serial.c")).read())[0][2]
    cheats = {
        "splice": solution.replace(
            "        scan_serial(in + begin, out + begin, end - begin, exclusive, prefix[t]);",
            "        if (t == 0)\n            scan_referen\\\nce(in, out, n, exclusive, 0);"),
        "digraph-paste": "%:define GLUE(a, b) a%:%:b\n" + solution.replace(
            "        scan_serial(in + begin, out + begin, end - begin, exclusive, prefix[t]);",
            "        if (t == 0)\n            GLUE(scan_, reference)(in, out, n, exclusive, 0);"),
        "trigraph": "??=include <stdlib.h>\n" + solution,
    }
    for tag, body in cheats.items():
        src, text = with_part(folder1, "three-steps", body)
        path = os.path.join(tmp, "cheat_" + tag, src)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "w").write(text)
        r = grade(1, path, os.path.join(tmp, "g_cheat_" + tag))
        if not r:
            continue
        honesty = next(t for t in r["tests"] if t["name"].startswith("honesty"))
        want = {"splice": "'scan_reference' is not allowed", "digraph-paste": "token pasting",
                "trigraph": "a preprocessor directive (#include"}[tag]
        check(f"hole 1: chapter 01 with a {tag} cheat scores 0 of 60 (build and sanitizers too), "
              f"the honesty item saying why", r["score"] == 0 and honesty.get("status") == "failed"
              and want in honesty["output"], honesty["output"][:400] + json.dumps(scores(r)))
    src, text = with_part("07_decoupled_lookback", "tile-draw", CH07_TILE_DRAW_ESCAPE)
    reasons, _ = prepared(tmp, 7, src, text, "ch07")
    joined = "\n".join(reasons)
    check("holes 1-2: chapter 07's tile draw that closes its kernel, %:includes CUB through a "
          "splice and redefines CUDA_CHECK_LAUNCH is refused on each count",
          all(w in joined for w in ("(#include <cub/device/device_scan.cuh>)", "(#undef "
                                    "CUDA_CHECK_LAUNCH)", "'cub' is not allowed",
                                    "'cudaMalloc' is not allowed", "closes a bracket the part "
                                    "did not open", "#pragma push_macro")), joined[:1500])
    # 2. a part that escapes its function, with nothing else wrong
    src, text = with_part(folder1, "three-steps", solution + "    }\n}\nstatic int extra(void)\n{\n"
                          "    return 0;\n}\nstatic void more(void)\n{\n    {\n")
    reasons, _ = prepared(tmp, 1, src, text, "escape")
    src2, text2 = with_part(folder1, "three-steps", solution + "    {\n")
    reasons2, _ = prepared(tmp, 1, src2, text2, "unclosed")
    check("hole 2: a part that closes its function (or leaves a brace open) is refused",
          any("closes a bracket the part did not open" in x for x in reasons) and
          any("is not closed inside the part" in x for x in reasons2), "\n".join(reasons + reasons2))

    # 3. chapter 08: CUB through the course's dispatcher, and a whole-file copy
    folder8 = next(f for f, n, _ in kit.assignments() if n == 8)
    ref8 = open(os.path.join(ROOT, folder8, "memcpy_speed.cu")).read()
    a, b = ref8.index("static void lookback_scan_async("), ref8.index("/** The ::gpu_temp_fn")
    cheat8 = ref8[:a] + (
        "  static void lookback_scan(int variant, const int32_t *d_in, int32_t *d_out, size_t n,\n"
        "                            int exclusive, void *d_temp, size_t temp_bytes);\n"
        "static void lookback_scan_async(const int32_t *d_in, int32_t *d_out, size_t n, "
        "int exclusive,\n                                void *d_temp, size_t temp_bytes, "
        "cudaStream_t stream)\n{\n    (void)stream;\n"
        "    lookback_scan(VARIANT_CUB, d_in, d_out, n, exclusive, d_temp, temp_bytes);\n}\n\n"
    ) + ref8[b:]
    reasons, _ = prepared(tmp, 8, "memcpy_speed.cu", cheat8, "ch08")
    _, notes = prepared(tmp, 8, "memcpy_speed.cu", ref8, "ch08copy")
    ch07 = open(os.path.join(ROOT, "07_decoupled_lookback", "decoupled_lookback.cu")).read()
    _, notes07 = prepared(tmp, 8, "memcpy_speed.cu", ch07, "ch08from07")
    joined = "\n".join(reasons)
    check("hole 3: chapter 08 calling CUB through lookback_scan(VARIANT_CUB, ...) is refused "
          "(the fixed function's name and VARIANT_CUB outside the fixed functions)",
          "'lookback_scan' outside the fixed functions" in joined and
          "'VARIANT_CUB' outside the fixed functions" in joined, joined[:900])
    check("hole 3: a whole-file copy of chapter 08 (or 07) is reported to the instructor",
          any("token for token the course's 08_memcpy_speed/memcpy_speed.cu" in x for x in notes)
          and any("token for token the course's 07_decoupled_lookback" in x for x in notes07),
          json.dumps(notes + notes07)[:600])
    names = [m.group(0) for m in re.finditer(g.FORBIDDEN[0][0], "Cub_x ThrustSort my_cub VARIANT_CUB "
                                                              "cube cubic sum")]
    check("hole 3: the library pattern takes cub/thrust in any case inside a name, not cube or "
          "cubic", names == ["Cub_x", "ThrustSort", "my_cub", "VARIANT_CUB"], repr(names))

    # 4. the speed item checks every launch, and draws n and the counts from a secret
    draws = {g.speed_draw(4242, True, k, 1 << 26) for k in (1, 2, 3)}
    check("hole 4: each speed try draws its own n (below 2^26) and counts of rounds, launches and "
          "warm-ups; the same GRADE_SEED draws the same; the public default draws anew",
          len(draws) == 3 and all((1 << 26) - 4096 < d[0] <= 1 << 26 for d in draws) and
          g.speed_draw(4242, True, 1, 1 << 26) == g.speed_draw(4242, True, 1, 1 << 26) and
          len({g.speed_draw(20261201, False, 1, 1 << 26) for _ in range(4)}) > 1, repr(draws))
    fake = os.path.join(tmp, "fake_harness")
    open(fake, "w").write("#!/bin/sh\necho \"$@\" > args\necho 'speed: n=1 variant=x "
                          "rounds=7 reps=20 warmup=3 student_pct=99.0 reference_pct=50.0 "
                          "ratio=1.98 memcpy_us=1 memcpy_spread_pct=1.0 student_right=0 "
                          "reference_right=1 launches_checked=161 student_wrong_blocks=7 "
                          "reference_wrong_blocks=0'\nexit 1\n")
    os.chmod(fake, 0o755)

    class Made:
        harness, reference = g.trust(fake), None

    sb = g.Sandbox(os.path.join(tmp, "fake_work"), [fake], [], False)
    it = g.item("speed", 25)
    g.speed(None, g.CHAPTERS[4], it, Made, sb, 4242, True)
    args = open(os.path.join(sb.out, "args")).read().split()  # it runs in the sandbox's folder
    n, rounds, reps, warmup = g.speed_draw(4242, True, 1, min(1 << 26, g.max_n() or 1 << 26))
    check("hole 4: a launcher whose skipped launches the harness counted scores 0 for speed, "
          "and the harness is asked for the drawn n, rounds, launches and warm-ups",
          it["score"] == 0 and "7 blocks of the output check found wrong elements" in it["output"]
          and args[args.index("-n") + 1] == str(n) and args[args.index("--rounds") + 1] ==
          str(rounds) and args[args.index("--reps") + 1] == str(reps) and
          args[args.index("--warmup") + 1] == str(warmup), it["output"] + " " + " ".join(args))
    env = grade_env_of(tmp)
    if env and env.get("NVCC"):
        obj = os.path.join(tmp, "harness_gpu.o")
        status, out = run([env["NVCC"]] + env["NVCCFLAGS"].split() + ["-gencode",
                          "arch=compute_90,code=sm_90", "-c", os.path.join(kit.KIT, "grader",
                                                                          "harness_gpu.cu"),
                          "-o", obj])
        check("hole 4: harness_gpu.cu (the per-launch check) compiles with the course's flags "
              "for sm_90 (it runs only on a GPU)", status == 0, out[-800:])

    # 5. host parts: a scan on the host through the driver API, and a call counter
    reasons, _ = prepared(tmp, 4, *with_part("04_scan_then_fan", "recursion", CH04_DRIVER_SCAN),
                          "ch04driver")
    joined = "\n".join(reasons)
    check("hole 5: chapter 04's recursion scanning on the host through "
          "cudaGetDriverEntryPointByVersion and aligned_alloc is refused, by name and because "
          "a host part may call only what its solution calls",
          "'cudaGetDriverEntryPointByVersion' is not allowed" in joined and
          "'aligned_alloc' is not allowed" in joined and "it calls cp(), in host code" in joined,
          joined[:1200])
    reasons, _ = prepared(tmp, 4, *with_part("04_scan_then_fan", "recursion", CH04_CALL_COUNTER),
                          "ch04counter")
    check("hole 5: a host part's static call counter is refused ('static': state kept from one "
          "call to the next)", any("'static' is not allowed" in x for x in reasons),
          "\n".join(reasons)[:800])

    # 6. chapter 01's "threaded" scan on one thread
    for tag, body in (("one-thread", "        if (t == 0)\n            scan_serial(in, out, n, "
                       "exclusive, 0);"),
                      ("single", "#pragma omp single\n        scan_serial(in, out, n, exclusive, 0);"),
                      ("slices-on-thread-0", "        for (size_t k = 0; t == 0 && k < threads; ++k) "
                       "{\n            const size_t b = n / threads * k + (k < n % threads ? k : n "
                       "% threads);\n            const size_t e = b + n / threads + (k < n % "
                       "threads ? 1 : 0);\n            scan_serial(in + b, out + b, e - b, "
                       "exclusive, prefix[k]);\n        }")):
        r = grade(1, planted(tmp, tag, [(
            "        scan_serial(in + begin, out + begin, end - begin, exclusive, prefix[t]);",
            body)]), os.path.join(tmp, "g_" + tag))
        if r:
            honesty = next(t for t in r["tests"] if t["name"].startswith("honesty"))
            check(f"hole 6: chapter 01's threaded variant scanning everything on one thread "
                  f"({tag}) scores 0, the honesty item saying so",
                  r["score"] == 0 and "did the scan on one thread" in honesty["output"] and
                  "more than a slice" in honesty["output"], honesty["output"][:500])
            print("     " + honesty["output"].splitlines()[0][:150])

    # 7-8: see the plant calls-the-reference (build and sanitizers lost too) and the starter
    # (no build points) in main()

    # 9. the student's programs run as nobody; the grader's files are made first and hashed
    sb = g.Sandbox(os.path.join(tmp, "sb_work"), [], [], False)
    if os.geteuid() == 0 and shutil.which("setpriv"):
        status, out = sb.run(["sh", "-c", "id -u; : > " + os.path.join(ROOT, "build", "grade",
                                                                      "planted") + " && echo wrote"])
        check("hole 9: as root, the student's programs run as nobody and cannot write the "
              "course's build", sb.note is None and out.split()[0] ==
              str(pwd.getpwnam("nobody").pw_uid) and "wrote" not in out and
              not os.path.exists(os.path.join(ROOT, "build", "grade", "planted")), out)
    else:
        check("hole 9: not root here, so the grader says its programs ran as its own user",
              sb.note is not None and "not run as root" in sb.note, str(sb.note))
    vec = g.vector_file(os.path.join(ROOT, "build", "grade", "vectors"), 4242, 77)
    was = open(vec, "rb").read()
    open(vec, "wb").write(b"\0" * len(was))
    caught = not sb.intact(vec)
    again = open(g.vector_file(os.path.join(ROOT, "build", "grade", "vectors"), 4242, 77),
                 "rb").read()
    check("hole 9: a hidden vector changed after it was made is seen (its hash), reported, and "
          "made again for the next use", caught and sb.tampered == [vec] and again == was)
    seen = {}
    real_run = g.Sandbox.run

    def first_run(self, cmd, env=None, timeout=g.TIMEOUT):
        if not seen:
            seen.update(trusted=set(g.TRUSTED), cmd=cmd)
        return real_run(self, cmd, env, timeout)
    g.Sandbox.run = first_run
    try:
        genv = dict(os.environ)
        os.environ.update(GRADE_MAX_N="70000", GRADE_SEED="4242")
        out = os.path.join(tmp, "g_order")
        os.makedirs(out)
        r = g.grade(1, os.path.join(ROOT, folder1, "cpu_serial.c"), out, (False, "no GPU"), env)
        runs = [x for x in g.hidden_runs(g.CHAPTERS[1], 4242) if not isinstance(x, str)]
    finally:
        g.Sandbox.run = real_run
        os.environ.clear()
        os.environ.update(genv)
    work = os.path.join(out, "work")
    need = {os.path.join(work, "harness"), os.path.join(work, "run_asan"),
            os.path.join(ROOT, "build", "grade", "check_output")} | \
        {os.path.join(ROOT, "build", "grade", "vectors", f"vector_4242_{n}.bin")
         for n, _, _, _ in runs}
    check("hole 9: before the first student program runs, the checker, every hidden vector, "
          "the in-place harness and the sanitizer build are made and hashed",
          r["score"] == 60 and seen and need <= seen["trusted"],
          f"missing: {sorted(need - seen.get('trusted', set()))[:5]}")


def main():
    tmp = tempfile.mkdtemp(prefix="kit_test_")
    os.chmod(tmp, 0o755)  # as root, the grader runs students' programs as nobody: they must reach it
    try:
        # 1. markers
        status, out = run([sys.executable, os.path.join(HERE, "markers_same_binary.py")])
        check("markers: same objects with and without them", status == 0, out[-1200:])
        print("     " + out.strip().splitlines()[-1])

        # 2. the starter
        copy = os.path.join(tmp, "starter")
        status, out = run([sys.executable, os.path.join(kit.KIT, "starter.py"), copy])
        check("make starter writes the default copy", status == 0 and os.path.isdir(copy), out)
        status, out = run([sys.executable, os.path.join(HERE, "check_starter.py"), copy])
        check("no solution line survives in the starter", status == 0, out[-1500:])
        print("     " + out.strip().splitlines()[-1])
        status, out = run([sys.executable, os.path.join(HERE, "check_starter.py"), ROOT])
        check("the leak check finds the solutions in the course itself (it can fail)",
              status == 1 and "LEAK" in out, out[-300:])
        status, out = run([sys.executable, os.path.join(kit.KIT, "starter.py"), copy])
        check("make starter refuses a folder that exists", status == 2, out)
        week1 = os.path.join(tmp, "week1")
        status, out = run([sys.executable, os.path.join(kit.KIT, "starter.py"), week1, "1", "2", "3"])
        links = [f"{top}/{n}: {m.group(0)}" for top, _, names in os.walk(week1) for n in names
                 if n.endswith(".md") for m in re.finditer(r"\]\((\.\./)*0[4-9]_[^)]*\)",
                                                          open(os.path.join(top, n)).read())]
        check("a starter of chapters 1-3 leaves out 04-09 and links none of them (make docs "
              "refuses links to missing pages)", status == 0 and not links and
              not os.path.exists(os.path.join(week1, "04_scan_then_fan")), "\n".join(links[:5]) or out)
        notice = "by `make starter` on "
        check("the copy says it is modified, and from what (README.md, ASSIGNMENT.md)",
              status == 0 and notice in open(os.path.join(week1, "README.md")).read() and
              notice in open(os.path.join(week1, "ASSIGNMENT.md")).read(), out)
        if status == 0:
            partial_copy_builds_and_tests(week1)
        built = dict(build_starter(copy, tmp))
        ch1 = built.get("01_cpu_serial")
        if ch1:
            status, out = run([ch1, "--self-test", "-n", "5000"])
            check("starter chapter 01: --self-test exits 1 and names the missing part",
                  status == 1 and "TODO three-steps" in out and "01_cpu_serial/README.md" in out
                  and re.search(r"self-test FAILED: \d+ passed, \d+ failed", out) is not None,
                  f"exit {status}: {out[-600:]}")

        # 3. the grader
        ref = os.path.join(ROOT, "01_cpu_serial", "cpu_serial.c")
        full = grade(1, ref, os.path.join(tmp, "g_ref"))
        if full:
            valid_results(full, "chapter 01")
            most = sum(t["max_score"] for t in full["tests"])
            check(f"grade: chapter 01 unchanged scores every point ({full['score']:g} of {most:g})",
                  full["score"] == most == 60 and not full["extra_data"]["partial"],
                  json.dumps(scores(full)))
            base = scores(full)
            honesty = next(t for t in full["tests"] if t["name"].startswith("honesty"))
            build = next(t for t in full["tests"] if t["name"].startswith("build"))
            check("the honesty gate says passed (not 0 of 0); chapter 01's build names gcc's "
                  "flags, not nvcc's", honesty.get("status") == "passed" and "gcc" in
                  build["output"] and "nvcc" not in build["output"], json.dumps(full)[:600])
        stub = grade(1, os.path.join(copy, "01_cpu_serial"), os.path.join(tmp, "g_starter"))
        if stub:
            s = scores(stub)
            correctness = ("self-test battery", "in place", "hidden vectors")
            build_item = next(t for t in stub["tests"] if t["name"].startswith("build"))
            check("grade: the starter's chapter 01 scores nothing: 0 for correctness, and no "
                  "build points while a part holds its stub (hole 8)",
                  all(s[k] == 0 for k in correctness) and s["build"] == 0 and
                  s["sanitizers"] == 0 and "still hold the stub" in build_item["output"],
                  json.dumps(s))
        text = open(ref).read()
        for name, (what, edits, losers) in PLANTS.items():
            planted = text
            for old, new in edits:
                if old not in planted:
                    check(f"plant {name} applies", False, f"no longer matches: {old[:60]}")
                    break
                planted = planted.replace(old, new)
            path = os.path.join(tmp, "plant_" + name, "cpu_serial.c")
            os.makedirs(os.path.dirname(path))
            open(path, "w").write(planted)
            r = grade(1, path, os.path.join(tmp, "g_" + name))
            if not r or not full:
                continue
            s = scores(r)
            lost = {k for k in s if s[k] < base[k]}
            check(f"grade: plant {name} ({what}) loses exactly {', '.join(sorted(losers))}",
                  lost == losers, f"lost {sorted(lost)}: {json.dumps(s)}")
            if name == "calls-the-reference":
                honesty = next(t for t in r["tests"] if t["name"].startswith("honesty"))
                check("grade: the honesty item names scan_reference",
                      "scan_reference" in honesty["output"], honesty["output"][:300])

        # chapter 02: the GPU items without a GPU
        probe = os.path.join(ROOT, "build", "tests", "cuda_probe")
        has_gpu = os.access(probe, os.X_OK) and run([probe])[0] == 0
        if os.access(probe, os.X_OK) and not has_gpu:
            r = grade(2, os.path.join(ROOT, "02_warp_shfl"), os.path.join(tmp, "g_02"))
            if r:
                valid_results(r, "chapter 02")
                status = r["extra_data"]["status"]
                gpu_items = [t for t in r["tests"] if not t["name"].startswith(("build", "honesty"))]
                probe_says = run([probe])[1].strip().splitlines()[-1]
                check("grade: chapter 02 without a GPU: its GPU items say 'not graded here' with "
                      "the probe's reason, count 0 of 0, and the grade says plainly that a stub "
                      "would score the same",
                      all(status[t["name"]] == "not graded here" and t["max_score"] == 0 and
                          t["output"].startswith("not graded here: " + probe_says)
                          for t in gpu_items if t["name"] in status)
                      and r["extra_data"]["partial"] and "PARTIAL" in r["output"] and
                      "does not tell working parts from the unchanged stubs" in r["output"]
                      and scores(r)["build"] == 5, json.dumps(r)[:800])
                if not os.path.exists("/usr/lib/x86_64-linux-gnu/libcuda.so.1") and \
                        "libcuda.so.1" not in run(["ldconfig", "-p"])[1]:
                    check("without a driver, the reason is 'no NVIDIA driver found'",
                          "no NVIDIA driver found" in probe_says, probe_says)
        else:
            print("     (chapter 02's 'not graded here' check needs a machine without a GPU "
                  "and with nvcc: skipped)")

        one_cpu_grader(tmp)
        check_output_catches(tmp)
        copies_and_carried(tmp, week1)
        later_weeks(tmp, week1)
        gradescope_run(tmp)
        class_csv(tmp, copy)
        gamer_holes(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"classroom kit: {len(failures)} checks failed" + (f": {', '.join(failures)}" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
