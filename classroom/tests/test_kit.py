#!/usr/bin/env python3
"""The classroom kit's tests. `make test` runs the quick tier (no GPU needed, after `make all`:
47 s on 2 quiet cores and 89 s of CPU, the median of 4 runs on 2026-12-05); `--all` adds the
slow checks (classroom/tests/kit_full.py: several minutes: every starter chapter built, a
students' copy's own make all and make test, the whole gate corpus, every planted bug,
Gradescope's autograder run from its zip).

The quick tier:
 1. markers: each marked source preprocesses to the same text with and without its markers
    (markers_same_binary.py --preprocess; --all compares the objects);
 2. hand-outs: in a copy of the course with a class's grades folder, a submission and a secret
    file planted in it, make starter and make gradescope-zip carry none of them, as a git
    checkout and, without .git, through classroom/MANIFEST; the MANIFEST is current;
 3. starters: the default copy and chapters 1-3 hold no solution line (check_starter.py), nor
    chapter 01's model solved in tests/scan_networks.c; week 1 links no left-out chapter; the
    copy says it is modified; ASSIGNMENT.md has the honesty check's rules; make precheck's
    files are there; an existing folder is refused;
 4. the honesty gate (gate_corpus.py --quick): chapter 01's honest parts and cheats, five GPU
    (chapter 04 and 01 with the host compiler's stack protector on, as on Ubuntu); the text
    rule ends lines where gcc does (a lone CR); a build's errors quote no file the student did
    not write;
 5. the grader on chapter 01 (GRADE_MAX_N=70000), as make grade-class grades a Gradescope
    export of six, writing outside the course unless told: the course's file scores 60 with
    the honesty gate passed and the work sharing passed by the judge's timing or (on 2 CPUs)
    "not decided here", the n > 2^31 case "not run here" shown to the student and the grade
    partial; a part that skips each slice's first element earns the build's 5 and nothing else;
    a threaded variant that scans on one thread while the others touch their pages and spin,
    gluing a "." before the harness's verdict, fails "threads share the work" (15 of 60);
    broken markers, a missing file and a link to /dev/zero say so; a group's members each get
    a row of gradescope_scores.csv; what a student sees is the same with and without notes for
    the instructor; the checker finds a wrong element; four graders at once make the same hidden
    vectors whole. (--all: the stub is "not written": no
    build points, no honesty failure.)
 7. running students' code (fake harnesses, no build): only the lines with the run's token in
    the harness's verdict file count (not its stdout), wherever they start; the judge
    (judge_cases.py: chapter 01's harness with the second and third gaming reviews' parts)
    believes no verdict a part forges from inside its process or from a process it starts, is
    out of its reach (memory, ptrace, descriptors), and a part's own SIGKILL fails its runs
    (only a grader being stopped makes one "interrupted"); a missing, repeated or non-finite
    verdict fails (in
    place, work sharing, speed); GRADE_SEED reaches no student program and each harness run
    gets a seed of its own; a run's leftover processes are killed and it cannot write another
    student's folder; a flood of output is stopped and kept in part; a compiler that waits is
    stopped; a link, a device or an oversized file is refused.
Sections 1, 3, 4 and 7 run beside the others, each in a process of its own at nice 10 (3 as
`test_kit.py --starters TMP`, 7 as `test_kit.py --students`, with user ids of its own): the
class of section 5 goes first.
Each check prints ok or FAIL; the last line counts the failures.
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

sys.dont_write_bytecode = True  # the kit's modules are imported: no __pycache__ in classroom/
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import kit  # noqa: E402
import starter  # noqa: E402

ROOT = kit.ROOT
failures = []


def check(name, ok, detail=""):
    detail = str(detail).replace("\n", "\n     ")  # every line of it indented under the check
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok or not detail else f"\n     {detail}"),
          flush=True)
    if not ok:
        failures.append(name)


def run(cmd, env=None, cwd=ROOT):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, errors="replace")
    return r.returncode, r.stdout + r.stderr


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
    """Item (short name) -> score."""
    return {t["name"].split(" (")[0].split(":")[0]: t["score"] for t in result["tests"]}


def gate_of(result, name):
    return result["extra_data"]["gates"].get(next(t["name"] for t in result["tests"]
                                                  if t["name"].startswith(name)))


def student_view(result):
    """Everything a student sees before the due date: the top-level output and the visible
    items (stdout and the after-due-date items are not shown to them)."""
    return "\n".join([result["output"]] + [t["name"] + "\n" + t["output"] for t in result["tests"]
                                          if t["visibility"] == "visible"])


def valid_results(result, name):
    """Gradescope's fields, with their types, and no hidden test (which would hide the total
    from some students and not others)."""
    ok = (isinstance(result.get("score"), (int, float)) and
          isinstance(result.get("execution_time"), int) and
          isinstance(result.get("output"), str) and
          result.get("stdout_visibility") in ("visible", "hidden", "after_due_date", "after_published") and
          isinstance(result.get("tests"), list) and result["tests"])
    for t in result.get("tests", []):
        ok = ok and set(t) >= {"name", "score", "max_score", "output", "visibility"} and \
            isinstance(t["name"], str) and isinstance(t["score"], (int, float)) and \
            isinstance(t["max_score"], (int, float)) and isinstance(t["output"], str) and \
            t["visibility"] in ("visible", "after_due_date", "after_published") and \
            t.get("status", "passed") in ("passed", "failed")
    ok = ok and abs(result["score"] - sum(t["score"] for t in result["tests"])) < 1e-6
    check(f"results.json of {name} has Gradescope's fields, and no hidden test", bool(ok),
          json.dumps(result)[:600])


SCAN = "scan_serial(in + begin, out + begin, end - begin, exclusive, prefix[t]);"


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


# ---------------------------------------------------------------------------------------------
# 2. hand-outs copy the course's own files only
# ---------------------------------------------------------------------------------------------

SECRET = "kit-test-" + "secret-7f3a9c"  # made here, so that this file does not hold it


def course_copy(tmp):
    """A copy of the course's files as they are now (committed or not), as a git checkout of
    its own, with a class's work planted in it: a grades folder, a submission, a secret file
    and a note in a chapter's folder. Returns (the copy, the planted paths)."""
    copy = os.path.join(tmp, "course")
    for rel in kit.course_files():
        dst = os.path.join(copy, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, rel), dst)
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"],
                ["git", "-c", "user.name=kit", "-c", "user.email=kit@test", "commit", "-qm", "c"]):
        run(cmd, cwd=copy)
    plants = {"grades/ch01/grades.csv": f"student,score\nada,60 {SECRET}\n",
              "grades/ch01/ada/results.json": f'{{"score": 60, "note": "{SECRET}"}}\n',
              "submissions/ada/cpu_serial.c": f"/* {SECRET} */\n",
              "secret-notes.txt": SECRET + "\n",
              "01_cpu_serial/my-notes.md": SECRET + "\n",
              "build/grade/vectors/vector_1_7.bin": SECRET}
    for rel, text in plants.items():
        os.makedirs(os.path.dirname(os.path.join(copy, rel)), exist_ok=True)
        open(os.path.join(copy, rel), "w").write(text)
    return copy, list(plants)


def leaked(files, texts, plants):
    """The planted paths or the secret found among a hand-out's files and texts."""
    found = [p for p in plants if p in files or any(f.endswith("/" + p) for f in files)]
    return found + [f for f, t in texts if SECRET in t]


def handouts(tmp):
    """Returns the course's copy (without .git at the end), for reports_and_class()."""
    copy, plants = course_copy(tmp)
    for label in ("a git checkout", "no .git: classroom/MANIFEST"):
        if label.startswith("no"):
            shutil.rmtree(os.path.join(copy, ".git"))
        out = os.path.join(tmp, "handout_" + label[:2].strip())
        status, said = run([sys.executable, os.path.join(copy, "classroom", "starter.py"), out,
                            "1", "2"], cwd=copy)
        files = [os.path.relpath(os.path.join(b, n), out) for b, _, ns in os.walk(out) for n in ns]
        texts = [(f, open(os.path.join(out, f), errors="replace").read()) for f in files]
        bad = leaked(files, texts, plants)
        check(f"make starter from {label}, with grades, a submission and a secret planted in "
              f"the course folder: none of them in the copy", status == 0 and not bad
              and "01_cpu_serial/cpu_serial.c" in files, said[-500:] + " " + " ".join(bad[:5]))
        zpath = os.path.join(tmp, "gs_" + label[:2].strip() + ".zip")
        status, said = run([sys.executable, os.path.join(copy, "classroom", "gradescope",
                                                         "make_zip.py"), "1", zpath],
                           cwd=copy, env={k: v for k, v in os.environ.items() if k != "GRADE_SEED"})
        names, texts = [], []
        if status == 0:
            with zipfile.ZipFile(zpath) as z:
                names = z.namelist()
                texts = [(n, z.read(n).decode(errors="replace")) for n in names]
        seed = re.findall(r"^GRADE_SEED=(\d+)$", dict(texts).get("grade.env", ""), re.M)
        check(f"make gradescope-zip from {label} without GRADE_SEED makes a random seed of 128 "
              f"bits (one of 10^9 could be counted through)", seed and int(seed[0]) >= 1 << 100,
              repr(seed))
        bad = leaked(names, texts, plants)
        check(f"make gradescope-zip from {label}: none of them in the zip", status == 0 and
              not bad and "classroom/grade.py" in names, said[-500:] + " " + " ".join(bad[:5]))
        extra = [n for n in names if n.startswith(("docs/", "bench/")) or n in
                 starter.INSTRUCTOR_ONLY]
        check(f"make gradescope-zip from {label}: only what grading needs (no answers, guide, "
              f"notes, plant_bugs.sh)", status == 0 and not extra, " ".join(extra[:8]))
    manifest = {l.strip() for l in open(os.path.join(ROOT, kit.MANIFEST)) if l.strip()
                and not l.startswith("#")} | {kit.MANIFEST}
    tracked = kit.git_files()
    if tracked is not None:
        missing = (set(tracked) | {kit.MANIFEST}) - manifest
        extra = manifest - set(tracked) - {kit.MANIFEST}
        check("classroom/MANIFEST lists the course's files as git does (else: make manifest, "
              "and commit it)", not missing and not extra,
              f"missing {sorted(missing)[:6]}, extra {sorted(extra)[:6]}")
    return copy


# ---------------------------------------------------------------------------------------------
# 3. starters
# ---------------------------------------------------------------------------------------------

def starters(tmp):
    copy = os.path.join(tmp, "starter")
    status, out = run([sys.executable, os.path.join(kit.KIT, "starter.py"), copy])
    check("make starter writes the default copy", status == 0 and os.path.isdir(copy), out)
    status, out = run([sys.executable, os.path.join(HERE, "check_starter.py"), copy])
    check("no solution line survives in the starter (chapter 01's model included)", status == 0,
          out[-1500:])
    print("     " + out.strip().splitlines()[-1])
    status, out = run([sys.executable, os.path.join(HERE, "check_starter.py"), ROOT])
    check("the leak check finds the solutions in the course itself (it can fail)",
          status == 1 and "LEAK" in out, out[-300:])
    # a solution line written as a sed regex (backslash-escaped, two lines joined by \n), as
    # docs/experiments/03_05_variants.sh held chapter 04's: found
    escaped = "s/    " + re.sub(r"([()\[\]*+.])", r"\\\1", SCAN) + "\\n    \\}/x/"
    planted_at = os.path.join(copy, "docs", "experiments", "planted_variants.sh")
    open(planted_at, "w").write(escaped + "\n")
    status, out = run([sys.executable, os.path.join(HERE, "check_starter.py"), copy])
    os.remove(planted_at)
    check("the leak check finds a solution line written regex-escaped in a script",
          status == 1 and "planted_variants.sh:1" in out, escaped + "\n" + out[-300:])
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
    if status:
        return copy, week1
    one = os.path.join(tmp, "week_one")
    status, out = run([sys.executable, os.path.join(kit.KIT, "starter.py"), one, "1"])
    said, found = run([sys.executable, os.path.join(HERE, "check_starter.py"), one, "1"])
    page = open(os.path.join(one, "ASSIGNMENT.md")).read() if status == 0 else ""
    unready = kit.unready_chapter_dirs()
    check("review 2 #10, #11: a week-1 starter names every chapter it leaves out (the unready "
          "ones too), says 'chapter 1' and '1 part', and holds no compiled code (SASS) nor the "
          "kit's grading logs (check_starter finds none; it finds them when planted)",
          status == 0 and said == 0 and all(u in out and u in page for u in unready) and
          "(chapter 1)" in page and "1 part stubbed" in out and
          not [n for _, _, ns in os.walk(one) for n in ns if n.endswith(".sass")], out + found[-600:])
    shutil.copy(os.path.join(ROOT, "build", "common", "cli.o"), os.path.join(one, "x.bin"))
    os.makedirs(os.path.join(one, "docs", "experiments", "runs_x", "kit_h200"))
    open(os.path.join(one, "docs", "experiments", "runs_x", "kit_h200", "one.txt"), "w").write("x")
    said = run([sys.executable, os.path.join(HERE, "check_starter.py"), one, "1"])[1]
    check("check_starter finds an object file and a kit grading log planted in a starter",
          "x.bin: compiled" in said and "kit_h200/one.txt" in said, said[-400:])
    notice = "by `make starter` on "
    assignment = open(os.path.join(week1, "ASSIGNMENT.md")).read()
    check("the copy says what it is from and that it is modified (README.md, ASSIGNMENT.md)",
          notice in open(os.path.join(week1, "README.md")).read() and notice in assignment and
          '"GPU prefix sum, step by step"' in assignment, assignment[:400])
    check("ASSIGNMENT.md has the honesty check's rules, make precheck, and chapter 01's "
          "work-sharing rule", "What your parts may use" in assignment and "make precheck CH=N"
          in assignment and "`printf`" in assignment and "not written" in assignment and
           "share the scan among its threads" in assignment and
           "below 1.15x your variant loses the same 45 points" in assignment and
           "from 1.15x to 0.7 of the course's speed-up it is not decided" in assignment and
           "no points are taken and your instructor decides later" in assignment and
           "`#pragma omp` and `#pragma unroll`" in assignment, assignment[-1500:])
    table = [l for l in assignment.splitlines() if l.startswith("| `")]
    check("week 1's ASSIGNMENT.md names only its own chapters (no --stress of 06 and 07, no "
          "07_ file to hand in) and lists only the files a student edits (not classroom/)",
          table and not any("classroom/" in l for l in table) and "06 and 07" not in assignment
          and "07_decoupled_lookback/decoupled_lookback.cu" not in assignment and "03_block_scan/block_scan.cu" in assignment,
          "\n".join(table) + assignment[-400:])
    need = starter.PRECHECK + ["classroom/stubs/three-steps.txt",
                               "classroom/reference/01_cpu_serial/cpu_serial.c"]
    check("the copy holds what make precheck needs", all(os.path.isfile(os.path.join(week1, p))
                                                        for p in need),
          " ".join(p for p in need if not os.path.isfile(os.path.join(week1, p))))
    # instructor review 3 #3: the judge's design lists the grader's known holes
    check("the copy leaves out the grader's design (docs/experiments/kit_verdicts_design.md: "
          "how the grader was fooled and what is open)",
          os.path.isfile(os.path.join(ROOT, "docs/experiments/kit_verdicts_design.md")) and
          not any(os.path.exists(os.path.join(c, "docs/experiments/kit_verdicts_design.md"))
                  for c in (copy, week1)))
    return copy, week1


# ---------------------------------------------------------------------------------------------
# 5. the grader on chapter 01; 6. what is reported
# ---------------------------------------------------------------------------------------------

SKIP_FIRST = (SCAN, "scan_serial(in + begin + (t > 0), out + begin + (t > 0), end - begin - "
                    "(t > 0 && end > begin), exclusive, prefix[t]);")
# one thread scans; the others touch their pages first and spin, and the scanning thread leaves
# a "." on stdout in place, so that the harness's verdict no longer starts its line (the gamer's
# M_touch_spin and A_glue, kitrev_gamer)
ONE_THREAD = (SCAN, """static volatile int finished;
        for (size_t i = begin; i < end; i += 1024)
            out[i] = in[i];
#pragma omp barrier
#pragma omp single
        finished = 0;
        if (t == 0) {
            scan_serial(in, out, n, exclusive, 0);
            if (in == out)
                printf(".");
            finished = 1;
        } else {
            while (!finished)
                ;
        }""")


def excerpts():
    """A failed run's excerpt leaves out the grading machine's note on oversubscription."""
    sys.path.insert(0, kit.KIT)
    import items  # noqa: E402
    out = ["CPU: x, 2 logical CPUs, 7 OpenMP threads (no GPU needed)",
           "note: more OpenMP threads than logical CPUs (oversubscribed): threads take turns"] + \
        [f"  ok n={k}" for k in range(30)] + ["  FAIL n=31 pattern=random", "self-test FAILED"]
    text = items.excerpt("\n".join(out))
    check("a failed run's excerpt shows the failure, not the note on oversubscription",
          "FAIL n=31" in text and "oversubscribed" not in text, text)


def lines_and_diagnostics(tmp):
    """The text rule ends lines where gcc does (a lone CR, a splice with a form feed), without
    the submission's reader's help; a build's errors quote the student's source, not a file it
    brought in (the second gaming review: T9a, T9b, T10)."""
    sys.path.insert(0, kit.KIT)
    import runs  # noqa: E402
    import text_rule  # noqa: E402
    bodies = ['#define CR_A 1\r#include "/etc/hostname"\n',
              '// a comment\r#pragma GCC optimize("O0")\n',
              'static const char *s = "a\\\f\n"; asm("nop");\n']
    said = [text_rule.text_refused(b) for b in bodies]
    check("the text rule reads lines as gcc does: a directive after a lone CR, code after a "
          "splice with a form feed", all(said) and "#include" in said[0][0][1] and
          "#pragma GCC" in said[1][0][1] and "asm" in said[2][0][1], repr(said))
    secret = os.path.join(tmp, "secret_k6.txt")
    open(secret, "w").write("vm the_secret_line;\n")
    src = os.path.join(tmp, "diag", "src", "01_cpu_serial", "cpu_serial.c")
    os.makedirs(os.path.dirname(src))
    open(src, "w").write(f'int a;\n#include "{secret}"\nint b = own_mistake;\n')
    b = runs.Build(runs.course_env(), {}, "01_cpu_serial", ["cpu_serial.c"], {}, tmp)
    b.compile(src, os.path.join(tmp, "diag.o"))
    check("a build's errors quote the student's source, not a file it brought in",
          "the_secret_line" not in b.log and "own_mistake;" in b.log and
          "secret_k6.txt:1: error in a file you did not write" in b.log, b.log[-1500:])


def hidden_stays_hidden(tmp):
    """What a student sees before the due date (results.json's output, the visible tests with
    their scores, outputs and gates) is the same whether the hidden vectors passed or failed,
    for chapter 01 and a GPU chapter: no visible item's score or text depends on hidden runs
    (the erin case of the instructor's review: int indices, wrong only past 2^31)."""
    sys.path.insert(0, kit.KIT)
    import grade as grader  # noqa: E402
    import reports  # noqa: E402
    for number in (1, 7):
        seen = []
        for hidden_right in (True, False):
            its = grader.chapter_items(grader.CHAPTERS[number])
            (it_build, it_honest, it_share, it_self, it_stress, it_place, it_hidden, it_san,
             it_speed) = its
            for i in its:
                if i:
                    i["score"], i["output"] = i["max_score"], "ok"
            if not hidden_right:
                it_hidden["score"], it_hidden["output"] = 0.0, "WRONG n = 2147614727, in place"
            gates = {it_honest["name"]: "passed"}
            if it_share:
                it_share["gate"] = "passed"
            grader.apply_rules(it_build, it_san, it_speed, it_share,
                               [i for i in (it_self, it_stress, it_place, it_hidden) if i], [], [],
                               [], [], gates)
            d = os.path.join(tmp, f"hid_{number}_{hidden_right}")
            os.makedirs(d)
            r = reports.result("x", number, [i for i in its if i], gates, [], [], [],
                               (True, ""), time.time(), True, {}, d)
            seen.append((r["output"], [(t["name"], t["score"], t["output"], t.get("status"))
                                       for t in r["tests"] if t["visibility"] == "visible"]))
        check(f"chapter {number:02d}: what a student sees before the due date is the same whether "
              f"the hidden vectors passed or failed (the sanitizers score their own runs; the "
              f"speed is shown after the due date)", seen[0] == seen[1] and
              r["score"] < r["extra_data"]["max_score"], json.dumps(seen)[:900])


def reports_and_class(tmp, course):
    """Chapter 01's grades, from one make grade-class of a Gradescope export (one process, as
    an instructor grades: what is the same for every student is made once), and what it
    reports."""
    sys.path.insert(0, kit.KIT)
    import reports  # noqa: E402
    seen = []
    for notes in ([], ["part three-steps is token for token the course's published solution"]):
        items = [{"name": "build (warnings are errors)", "max_score": 5, "score": 5.0,
                  "output": "ok", "visibility": "visible", "status": "graded"},
                 {"name": "hidden vectors", "max_score": 25, "score": 25.0, "output": "ok",
                  "visibility": "after_due_date", "status": "graded"}]
        d = os.path.join(tmp, f"rep_{len(notes)}")
        os.makedirs(d)
        r = reports.result("01_cpu_serial", 1, items, {}, [], list(notes), [], (False, ""),
                           time.time(), True, {}, d)
        seen.append((r["output"], [(t["name"], t["visibility"], t["output"]) for t in r["tests"]]))
    check("what a student sees is the same with and without notes for the instructor, and "
          "the notes are only in extra_data", seen[0] == seen[1] and "published" not in
          json.dumps(seen[1]), json.dumps(seen)[:400])
    klass = os.path.join(tmp, "export")
    course_file = open(os.path.join(ROOT, "01_cpu_serial", "cpu_serial.c")).read()
    subs = {"submission_1": course_file,
            "submission_2": open(planted(tmp, "skip-first", [SKIP_FIRST])).read(),
            "submission_3": open(planted(tmp, "one-thread", [ONE_THREAD])).read(),
            "submission_4": course_file.replace("/* [end of student part: three-steps] */", ""),
            "submission_5": None,
            # the gaming review's E: a file of the course (here a grade.env planted beside the
            # chapter) through the chapter's -I folder; refused as text, so nothing is built
            # and no compiler quotes the file's lines to the student
            "submission_6": open(planted(tmp, "include", [(SCAN, '#include "../grade.env"\n'
                                                                 '        ' + SCAN)])).read(),
            "submission_7": kit.replace_parts(course_file, {"three-steps": kit.stub("three-steps")},
                                              "cpu_serial.c"),
            "submission_8": "/dev/zero"}
    open(os.path.join(course, "grade.env"), "w").write("GRADE_SEED=13579\n")
    for name, text in subs.items():
        os.makedirs(os.path.join(klass, name))
        if text == "/dev/zero":
            os.symlink(text, os.path.join(klass, name, "cpu_serial.c"))
        elif text is None:
            open(os.path.join(klass, name, "notes.txt"), "w").write("forgot the file\n")
        else:
            open(os.path.join(klass, name, "cpu_serial.c"), "w").write(text)
    open(os.path.join(klass, "submission_metadata.yml"), "w").write(
        "submission_1:\n  :submitters:\n  - :name: Ada\n    :sid: '901'\n    :email: ada@x.edu\n"
        "  - :name: Bo\n    :sid: '902'\n    :email: bo@x.edu\n  :created_at: 2026-12-01 10:00:00\n"
        "submission_2:\n  :submitters:\n  - :name: Cy\n    :sid: '903'\n    :email: cy@x.edu\n"
        "  :created_at: 2026-12-02 10:00:00\n")
    # graded from the course's copy (its build/ the course's own), so that "outside the course"
    # is in this test's folder
    shutil.rmtree(os.path.join(course, "build"), ignore_errors=True)
    os.symlink(os.path.join(ROOT, "build"), os.path.join(course, "build"))
    env = dict(os.environ, GRADE_MAX_N="70000", GRADE_SEED="4242")
    # the grades' folder out of other users' reach (an OUT under /root): the students' programs
    # still run as a user of their own (the grader's work folder is elsewhere)
    os.makedirs(os.path.join(tmp, "course-grades"), mode=0o700)
    status, text = run([sys.executable, os.path.join(course, "classroom", "grade.py"), "class",
                        "1", klass], env=env, cwd=course)
    out = re.search(r"grade-class: writing to (\S+) ", text)
    out = out.group(1) if out else ""
    check("grade-class without OUT writes outside the course folder, and says where",
          status == 0 and out == os.path.join(tmp, "course-grades", "ch01") and
          os.path.isfile(os.path.join(out, "grades.csv")), text[-800:])
    if status or not out:
        return
    result = {}
    for name in subs:
        path = os.path.join(out, name, "results.json")
        result[name] = json.load(open(path)) if os.path.isfile(path) else None
    full, skip, one = result["submission_1"], result["submission_2"], result["submission_3"]
    # (the course's own programs and vectors must be in other users' reach too: not so in a
    # clone inside a private folder, where the grader says so in a note and runs them itself)
    sys.path.insert(0, kit.KIT)
    import grade as grader  # noqa: E402
    if full and os.geteuid() == 0 and shutil.which("setpriv") and grader.reachable(ROOT):
        notes = full["extra_data"]["instructor_notes"]
        check("grade-class into a folder other users cannot reach (mode 0700, as /root): the "
              "student's programs still run as a user of their own",
              not any("grader's own user" in n for n in notes), json.dumps(notes)[:600])
    inc = result["submission_6"]
    if inc:
        build = next(t for t in inc["tests"] if t["name"].startswith("build"))
        check("grade: a part that includes a file (#include \"../grade.env\") is refused by the "
              "honesty check before any compiler reads it: nothing built, the file's text "
              "nowhere in results.json", inc["score"] == 0 and gate_of(inc, "honesty") ==
              "failed" and build["output"].startswith("not built") and
              "13579" not in json.dumps(inc), json.dumps(scores(inc)) + build["output"][:300])
    stub = result["submission_7"]
    if stub:
        share = next(t for t in stub["tests"] if t["name"].startswith("threads"))
        selftest = next(t for t in stub["tests"] if t["name"].startswith("self-test"))
        honest = next(t for t in stub["tests"] if t["name"].startswith("honesty"))
        check("grade: the untouched stub is 'not written', 0, never 'threads do not share the "
              "work'; both gates undecided and 'not written' (results.json), and none of its "
              "runs is made",
              stub["score"] == 0 and stub["extra_data"]["verdict"] == "not written: three-steps"
              and gate_of(stub, "threads") is None and share["output"].startswith("not written")
              and gate_of(stub, "honesty") is None and honest["output"].startswith("not written")
              and selftest["output"].startswith("not run: part(s) three-steps") and
              not any("share" in n for n in stub["extra_data"]["instructor_notes"]),
              json.dumps(stub)[:900])
    import check_starter  # noqa: E402
    lines = [l for l in check_starter.solution_lines({"three-steps"}) if len(l) >= 20]
    found = [os.path.relpath(os.path.join(b, n), out) for b, ds, ns in os.walk(out)
             for n in ds + ns if n == "work"]
    for b, _, ns in os.walk(out):
        for n in ns:
            content = open(os.path.join(b, n), errors="replace").read()
            found += [f"{os.path.relpath(os.path.join(b, n), out)}: {l}" for l in lines
                      if l in content]
    check("grade-class leaves no work/ folder and no line of the solution in the grades folder "
          "(an instructor may send each student their folder)", lines and not found,
          "\n".join(found[:6]))

    if full:
        valid_results(full, "chapter 01")
        seen = student_view(full)
        # the work sharing: passed by the judge's timing, or, where it could not time the part
        # (fewer than 3 CPUs, a busy machine), "not decided here" and partial, never on the
        # program's word (review 3, #2)
        share_name = next(t["name"] for t in full["tests"] if t["name"].startswith("threads"))
        print("     record: chapter 01's own part, work sharing: " + " | ".join(  # a record of the timing
            next(t["output"] for t in full["tests"] if t["name"] == share_name).splitlines() +
            [n for n in full["extra_data"]["instructor_notes"] if "work sharing" in n])[:700])
        undecided = gate_of(full, "threads") is None and \
            full["extra_data"]["status"][share_name] == "partial" and \
            "not run here: the work sharing could not be decided on this machine" in seen and \
            "can fool" not in seen and "Regrade" not in seen and \
            any(n.startswith("work sharing not decided here: ") and "Regrade it on a quiet" in n
                for n in full["extra_data"]["instructor_notes"])
        check("grade: chapter 01 unchanged scores 60 of 60, the honesty gate passed, the work "
              "sharing passed (" + ("" if len(os.sched_getaffinity(0)) >= 3 else "never here, "
                                    "on 2 CPUs: ") + "else 'could not be decided on this "
              "machine', partial, shown to the student; the judge's reasons and the advice only "
              "for the instructor); the n > 2^31 case 'not run here' is shown to the student, and the "
              "grade and the item are partial",
              full["score"] == 60 == full["extra_data"]["max_score"] and
              gate_of(full, "honesty") == "passed" and
              (undecided if len(os.sched_getaffinity(0)) < 3 else
               undecided or gate_of(full, "threads") == "passed") and
              full["extra_data"]["partial"] and "not run here: the n > 2^31 case" in seen and
              full["extra_data"]["status"][next(t["name"] for t in full["tests"]
                                                if t["name"].startswith("hidden"))] == "partial",
              json.dumps(scores(full)) + seen[:500] + "\n" + json.dumps(
                  [full["extra_data"]["status"], full["extra_data"]["instructor_notes"],
                   [t["output"][:300] for t in full["tests"]
                    if t["name"].startswith(("threads", "honesty"))]])[:1500])
    if skip:
        check("grade: a part that skips each slice's first element earns the build's 5 and "
              "nothing else (every correctness item all or nothing; no sanitizer points for "
              "wrong outputs)", skip["score"] == 5 and scores(skip)["build"] == 5,
              json.dumps(scores(skip)))
        hidden = next(t["output"] for t in skip["tests"] if t["name"].startswith("hidden"))
        wrong = [l for l in hidden.splitlines() if l.startswith("WRONG")]
        check("grade: a wrong hidden vector's line reads as one sentence (no runs of blanks "
              "from the program's aligned output)", wrong and not any("  " in l for l in wrong),
              "\n".join(wrong[:4]))
        import hashlib  # noqa: E402
        shown = json.dumps([t["output"] for t in skip["tests"]])
        vectors = os.path.join(ROOT, "build", "grade", "vectors")
        # this class's vectors (an earlier kit's, named otherwise, may be left in the folder)
        names = [f for f in os.listdir(vectors)
                 if os.path.getmtime(os.path.join(vectors, f)) >= os.path.getmtime(klass)]
        naive = [f for f in names for n in re.findall(r"_(\d+)\.bin$", f)
                 if hashlib.sha256(f"4242/vector/{n}".encode()).hexdigest()[:20] in f]
        check("grade: the hidden runs name their vectors in words ('hidden vector 3, n = ...'): "
              "no path of the grading machine and no file name a seed can be searched from",
              wrong and all(l.startswith("WRONG hidden vector ") for l in wrong) and
              not re.search(r"vector_[0-9a-f]{8}|/build/|" + re.escape(ROOT), shown) and
              names and not naive, "\n".join(wrong[:3]) + f" {naive[:2]}")
    if one:
        share = next(t for t in one["tests"] if t["name"].startswith("threads"))
        check("grade: a threaded variant that scans on one thread while the others touch their "
              "pages and spin, a '.' glued before the verdict, fails 'threads share the work' "
              "(the student sees why), loses the correctness items: 15 of 60, flagged for the "
              "instructor", gate_of(one, "threads") == "failed" and one["score"] == 15 and
              "the last seen writing" in share["output"] and share["visibility"] == "visible" and
              # review 2 #3: the check's own size (from the seed) is not printed
              not any(int(x) > 70000 for x in re.findall(r"\d+", share["output"])) and
              any("does not share" in n for n in one["extra_data"]["instructor_notes"]),
              json.dumps(scores(one)) + share["output"][:300])
        guide = " ".join(open(os.path.join(ROOT, "docs", "instructor.md")).read().split())
        check("the guide says what the grader does with a serial scan's sanitizers (kept: 15 of "
              "60), in the rubric's row and in the deduction's paragraph",
              one["score"] == 15 and "lost points to a wrong output (not when they lost them to "
              "the work-sharing gate" in guide and "a right serial scan scores 15" in guide)
    rows = {r["student"]: r for r in csv.DictReader(open(os.path.join(out, "grades.csv")))}
    check("the write-up's line is said once for the class (grade-class's summary), not on every "
          "row of grades.csv; 'grading 8 submissions'", text.count("graded by hand") == 1 and
          not any("graded by hand" in r.get("notes", "") for r in rows.values()) and
          "grading 8 submissions" in text, text[-600:])
    cells = {k: v for k, v in rows.get("submission_7", {}).items()
             if k.startswith(("threads", "honesty"))}
    check("grades.csv: the untouched stub's two gates read 'not written', as in results.json and "
          "make precheck", len(cells) == 2 and set(cells.values()) == {"not written"} and
          "not written" in open(os.path.join(kit.KIT, "precheck.py")).read(), repr(cells))
    upload = list(csv.DictReader(open(os.path.join(out, "gradescope_scores.csv"))))
    want = {"submission_1": "ok", "submission_2": "points lost", "submission_3": "threads do not",
            "submission_4": "markers broken", "submission_5": "file missing",
            "submission_6": "honesty", "submission_7": "not written",
            "submission_8": "file refused: cpu_serial.c is a symbolic link"}
    check("grades.csv: a row per submission with a status that says why; gradescope_scores.csv: "
          "a row per student, a group's members each on their own with the group's score",
          all(rows.get(k, {}).get("status", "").startswith(v) for k, v in want.items()) and
          {(r["Name"], r["SID"], r["Email"], r["Score"]) for r in upload} >=
          {("Ada", "901", "ada@x.edu", "60"), ("Bo", "902", "bo@x.edu", "60"),
           ("Cy", "903", "cy@x.edu", "5")}, json.dumps(rows)[:600] + json.dumps(upload))
    sys.path.insert(0, kit.KIT)
    import runs  # noqa: E402
    binary = runs.checker(runs.course_env())
    inp, outp = os.path.join(tmp, "co_in.bin"), os.path.join(tmp, "co_out.bin")
    run([binary, "gen", "5", "1000", inp])
    data = open(inp, "rb").read()
    sums, s = [], 0
    for i in range(1000):
        s = (s + int.from_bytes(data[4 * i:4 * i + 4], "little")) & 0xffffffff
        sums.append(s)
    open(outp, "wb").write(b"".join(x.to_bytes(4, "little") for x in sums))
    good = run([binary, "scan-seed", "5", "1000", outp, "inclusive"])
    sums[500] ^= 1
    open(outp, "wb").write(b"".join(x.to_bytes(4, "little") for x in sums))
    bad = run([binary, "scan-seed", "5", "1000", outp, "inclusive"])
    check("check_output: a right output passes, one wrong element is found (its index)",
          good[0] == 0 and bad[0] == 1 and "the first at index 500" in bad[1], repr((good, bad)))
    vectors_at_once(tmp, binary)
    big_seed = runs.vector_file(runs.course_env(), os.path.join(tmp, "vectors_at_once"),
                                (1 << 127) + 5, 1000)
    check("a 128-bit seed makes its hidden vectors (the C programs get 64 bits of it)",
          os.path.getsize(big_seed) == 4000, big_seed)


def vectors_at_once(tmp, binary):
    """Graders at once (gpu_batch's cases, grade-class's students) make the same hidden vectors
    in one folder: none fails, and every file is whole."""
    folder = os.path.join(tmp, "vectors_at_once")
    os.makedirs(folder)
    sizes = (1000, 3001, 20000)
    code = ("import runs, sys\nenv = runs.course_env()\nfor _ in range(25):\n"
            "    runs._VECTORS.clear()\n"
            f"    for n in {sizes}:\n        runs.vector_file(env, sys.argv[1], 7, n)\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, folder], cwd=kit.KIT,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for _ in range(4)]
    said = [(p.wait(), p.stdout.read()) for p in procs]
    whole = []
    for n in sizes:
        want = os.path.join(tmp, f"want_{n}.bin")
        run([binary, "gen", "7", str(n), want])
        got = [f for f in os.listdir(folder) if f.endswith(f"_{n}.bin")]
        whole.append(len(got) == 1 and open(os.path.join(folder, got[0]), "rb").read() ==
                     open(want, "rb").read())
    check("four graders at once make the same hidden vectors: none fails, each file whole, no "
          "temporary file left", all(s == 0 for s, _ in said) and all(whole) and
          not [f for f in os.listdir(folder) if f.endswith(".tmp")],
          f"{whole} {os.listdir(folder)} " + " ".join(o[-300:] for _, o in said))


# ---------------------------------------------------------------------------------------------
# 7. running students' code: the harness's verdicts, the seed, the sandbox, the output, the file
# ---------------------------------------------------------------------------------------------

# a fake harness's judge: the token from GRADE_FD; `say TEXT [PREFIX]` writes a verdict line,
# with the token, to the verdict file (GRADE_VERDICT_FD), as classroom/grader/verdict.h does
TOKEN_READ = ('read -r tok seed <&"$GRADE_FD"\n'
              'say() { echo "$2[grader $tok] $1" >&"$GRADE_VERDICT_FD"; }\n')
FORGED = "[grader " + "f" * 32 + "]"


def fake(tmp, name, body):
    """A shell script standing in for a harness (or a student's program) in tmp."""
    path = os.path.join(tmp, name)
    open(path, "w").write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)
    return path


def verdicts_and_seed(tmp):
    """G1, G4, G9: only the lines with the run's token count, wherever they start; a missing,
    repeated or non-finite verdict fails; the harness's seed is its own, GRADE_SEED reaches no
    student program, and the harnesses print no seed."""
    import items  # noqa: E402
    import runs  # noqa: E402
    import sandbox  # noqa: E402
    work = os.path.join(tmp, "verdict_work")
    cases = {  # name: (script, in place scored?, the work-sharing gate, a word of its output)
        "glued": (TOKEN_READ + 'printf "."; say "ONE THREAD: thread 0 wrote '
                  'first to all pages"\necho "%s threads shared the work"\n'
                  'say "in place passed: 9 passed, 0 failed"\n' % FORGED,
                  True, "failed", "thread 0 wrote first"),
        "forged": ('echo "%s threads shared the work"\necho "in place passed: 9 passed, 0 failed"\n'
                   % FORGED, False, "failed", "missing"),
        "twice": (TOKEN_READ + 'say "threads shared the work"\n'
                  'say "in place FAILED: 0 passed, 9 failed"\n'
                  'say "in place passed: 9 passed, 0 failed"\n', False, "passed",
                  "2 times"),
        "honest": (TOKEN_READ + 'say "threads shared the work"\n'
                   'say "in place passed: 9 passed, 0 failed"\n', True, "passed",
                   "in place passed"),
        "stdout": (TOKEN_READ + 'echo "[grader $tok] threads shared the work"\n'
                   'echo "[grader $tok] out of place passed: 9 passed, 0 failed"\n'
                   'say "in place passed: 9 passed, 0 failed"\n', True, "failed", "missing"),
        "unwritten": (TOKEN_READ + 'say "work sharing not checked: the threaded '
                      'variant wrote too little of its output to tell"\n'
                      'say "in place FAILED: 0 passed, 9 failed"\n', False, None,
                      "not checked: the threaded variant wrote too little"),
    }
    for name, (script, scored, gate, word) in cases.items():
        h = runs.trust(fake(tmp, "h_" + name, script))
        sb = sandbox.Sandbox(work + name, [h], [], False)
        it, share = items.item("in place", 5), {}
        items.in_place({"cpu": True}, it, h, [("OMP_NUM_THREADS=3", items.omp_env(3))], sb, 4242,
                       share)
        sb.close()
        check(f"harness verdicts ({name}): only lines with the run's token in its verdict file "
              f"count (not on stdout), wherever they start; a missing or repeated one fails",
              (it["score"] == 5) == scored and (name != "stdout" or not it["out_of_place"]) and
              share.get("status_gate") == gate and word in it["output"] + share.get("output", ""),
              f"{it['score']} {share} {it['output'][-300:]}")
    line = ("speed: n=1 variant=x rounds=7 reps=20 warmup=3 student_pct=%s reference_pct=50.0 "
            "ratio=1 memcpy_us=1 memcpy_spread_pct=1.0 student_right=1 reference_right=1 "
            "launches_checked=161 student_wrong_blocks=0 reference_wrong_blocks=0")
    speeds = {"forged": ('echo "%s"\n' % (line % "99.0"), False),
              "nan": (TOKEN_READ + 'say "%s"\n' % (line % "nan"), False),
              "twice": (TOKEN_READ + 'say "%s"\nsay "%s"\n'
                        % (line % "99.0", line % "99.0"), False),
              "stdout": (TOKEN_READ + 'echo "[grader $tok] %s"\n' % (line % "48.0"), False),
              "honest": (TOKEN_READ + 'say "%s" x\n' % (line % "48.0"), True)}
    for name, (script, scored) in speeds.items():
        h = runs.trust(fake(tmp, "s_" + name, script))

        class Made:
            harness, reference = h, None

        sb = sandbox.Sandbox(work + "s" + name, [h], [], False)
        it = items.item("speed", 25)
        items.speed(None, items.CHAPTERS[4], it, Made, sb, 4242, True)
        sb.close()
        check(f"speed verdict ({name}): exactly one line with the run's token, finite numbers",
              (it["score"] > 0) == scored, f"{it['score']} {it['output'][-300:]}")
    h = runs.trust(fake(tmp, "h_seed", TOKEN_READ + 'echo "seed=$seed"\n'
                        'cat /proc/self/environ | tr "\\0" "\\n"\n'))
    sb = sandbox.Sandbox(work + "seed", [h], [], False)
    os.environ["GRADE_SEED"] = "7771234"
    try:
        outs = [sb.harness([h], 7771234, name)[1] for name in ("in-place/a", "in-place/b")]
        plain = sb.run([h])[1]
    finally:
        del os.environ["GRADE_SEED"]
    sb.close()
    seeds = [m for o in outs for m in re.findall(r"seed=(\d+)", o)]
    status, said = run([sys.executable, "-c", "import runs, os; runs.grade_seed(); "
                        "print('GRADE_SEED' in os.environ)"],
                       env=dict(os.environ, GRADE_SEED="7771234"), cwd=kit.KIT)
    printed = [f for f in ("harness_cpu.c", "harness_gpu.cu") if re.search(
        r"seed %ll|GRADE_SEED\"", open(os.path.join(kit.KIT, "grader", f)).read())]
    check("GRADE_SEED reaches no student program (plain or harness), each harness run gets a "
          "seed of its own, the grader takes it out of its environment, no harness prints one",
          not any("7771234" in o for o in outs + [plain]) and len(set(seeds)) == 2 and
          "7771234" not in seeds and said.strip() == "False" and not printed,
          f"{seeds} {said} {printed} {[o[-200:] for o in outs]}")


def zombies_and_ids(a):
    """A run leaves no process of its user, zombies included (in a PID namespace of its own
    where one can be made); an id with a zombie is not taken for a run (the second gaming
    review: zombies of a reused uid made later runs fail at its process limit)."""
    import sandbox  # noqa: E402
    # a child that exits at once under one that never waits: a zombie until its parent is gone
    status, out = a.run(["sh", "-c", "id -u > uid; setsid sh -c 'sleep 0 & exec sleep 900' "
                         ">/dev/null 2>&1 & sleep 1; kill -SEGV $$"])
    uid = int(open(os.path.join(a.out, "uid")).read())
    time.sleep(0.2)
    left = sandbox.uid_processes(uid, zombies=True)
    check("a run leaves no process of its user, zombies included" +
          (" (a PID namespace per run)" if a.pid_namespace else
           " (no PID namespace here: this machine's PID 1 reaps them)") +
          "; a program killed by a signal says so", not left and status == -11,
          f"{status} {left} {out[-300:]}")
    status, out = a.run(["sh", "-c", "id -u > uid; t=${TMPDIR:-/tmp}; echo x > /dev/shm/kit_left_$$; "
                         "echo x > $t/kit_left_$$; mkdir /tmp/kit_dir_$$ && echo x > "
                         "/tmp/kit_dir_$$/f; ipcmk -M 4096 && ipcmk -S 1 && ipcmk -Q"])
    uid = int(open(os.path.join(a.out, "uid")).read())
    files = [e.path for d in ("/dev/shm", "/tmp", tempfile.gettempdir()) for e in os.scandir(d)
             if e.stat(follow_symlinks=False).st_uid == uid]
    ipc = []
    for k in ("shm", "sem", "msg"):
        with open(f"/proc/sysvipc/{k}") as f:
            head = f.readline().split()
            ipc += [k for l in f if str(uid) in (dict(zip(head, l.split())).get("uid"),
                                                 dict(zip(head, l.split())).get("cuid"))]
    check("S06 (gamer4): a run's files in /dev/shm, /tmp and $TMPDIR and its System V shared "
          "memory, semaphores and queues are gone after it", status == 0 and "Message queue id" in out and
          not files and not ipc and not a.leftovers, f"{status} {out[-200:]} {files} {ipc} "
          f"{a.leftovers}")
    free, lock = sandbox.take_id()  # the id the grader would take next
    lock.close()
    pid = os.fork()
    if pid == 0:  # a zombie of that id
        os.setresuid(free, free, free)
        os._exit(0)
    time.sleep(0.2)
    try:
        got, lock = sandbox.take_id()
        if lock:
            lock.close()
    finally:
        os.waitpid(pid, 0)
    check("an id with a zombie of its own is not taken for a run",
          got is not None and got != free, f"{got} {free}")


SCAN_CHECK_TEST = r"""
#include "scan_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* every element right on a true inclusive scan (whole, and in segments of 7), and a wrong one
   found where it is: one element changed, the output shifted, the poison, segments ignored */
static int all_right(const int32_t *in, const int32_t *out, size_t n, size_t segment)
{
    for (size_t i = 0; i < n; ++i)
        if (!scan_element_right(in, out, i, segment))
            return 0;
    return 1;
}
int main(void)
{
    enum { N = 1000 };
    static int32_t in[N], out[N], seg[N], bad[N];
    uint32_t x = 12345u, s = 0u, t = 0u;
    for (size_t i = 0; i < N; ++i) {
        x = x * 1664525u + 1013904223u;
        in[i] = (int32_t)x; /* the whole int32 range: the sums wrap */
        s += (uint32_t)in[i];
        t = (i % 7 == 0 ? 0u : t) + (uint32_t)in[i];
        out[i] = (int32_t)s;
        seg[i] = (int32_t)t;
    }
    int ok = all_right(in, out, N, 0) && all_right(in, seg, N, 7);
    memcpy(bad, out, sizeof bad);
    bad[617] += 1;
    ok = ok && !scan_element_right(in, bad, 617, 0) && all_right(in, bad, 617, 0);
    memcpy(bad, out, sizeof bad);
    memmove(bad + 1, bad, (N - 1) * sizeof bad[0]); /* exclusive-like shift */
    bad[0] = 0;
    ok = ok && !all_right(in, bad, N, 0);
    memset(bad, 0xA5, sizeof bad);
    ok = ok && !all_right(in, bad, N, 0);
    ok = ok && !all_right(in, seg, N, 0) && !all_right(in, out, N, 7);
    printf("%s\n", ok ? "right" : "WRONG");
    return ok ? 0 : 1;
}
"""


def keyless_check(tmp):
    """The speed harness's per-launch check (classroom/grader/scan_check.h), on the host: every
    element of a true scan passes, and a changed element, a shifted output, the poison and the
    wrong segments are each caught (a test that can fail)."""
    src = os.path.join(tmp, "scan_check_test.c")
    exe = os.path.join(tmp, "scan_check_test")
    open(src, "w").write(SCAN_CHECK_TEST)
    status, out = run(["gcc", "-std=c11", "-O1", "-Wall", "-Werror",
                       "-I", os.path.join(kit.KIT, "grader"), src, "-o", exe])
    if status == 0:
        status, out = run([exe])
    check("the speed check needs no reference array (scan_check.h): a true scan passes; a "
          "changed element, a shifted output, the poison and wrong segments are caught",
          status == 0 and out.strip() == "right", out)


def sandbox_and_output(tmp):
    """G2, G10, G11, G12: a run's leftover processes are killed; one student's runs cannot
    reach another's folder; a run that prints too much is stopped, its output kept in part; a
    command that waits is stopped; a link or a device as the submission is refused."""
    import compiled  # noqa: E402
    import sandbox  # noqa: E402
    import submission  # noqa: E402
    a = sandbox.Sandbox(os.path.join(tmp, "sb_a"), [], [], False)
    b = sandbox.Sandbox(os.path.join(tmp, "sb_b"), [], [], False)
    if a.note is None:
        t0 = time.time()
        status, out = a.run(["sh", "-c", "id -u > uid; setsid sleep 900 >/dev/null 2>&1 & "
                             "touch %s/x && echo reached; sleep 1; echo started" % b.out])
        uid = int(open(os.path.join(a.out, "uid")).read())
        check("a run's leftover processes are killed (setsid sleep 900), and it cannot write "
              "another student's folder", "started" in out and "reached" not in out and
              not sandbox.uid_processes(uid) and uid != 0 and time.time() - t0 < 30,
              f"{out} {sandbox.uid_processes(uid)}")
        zombies_and_ids(a)
    else:
        check("not root here: the grader says its programs ran as its own user",
              "does not run as root" in a.note, a.note)
    g = sandbox.Sandbox(os.path.join(tmp, "sb_gpu"), [], [], True)
    shared = g.run(["env"])[1].splitlines()
    alone = g.run(["env"], alone=True)[1].splitlines()
    g.close()
    check("a GPU chapter's run waits asleep (SCAN_CUDA_BLOCKING_SYNC=1, OpenMP passive, one "
          "grade's share of the cores), the speed item's run alike (no part can tell them apart)",
          "SCAN_CUDA_BLOCKING_SYNC=1" in shared and "OMP_WAIT_POLICY=passive" in shared and
          any(l.startswith("OMP_NUM_THREADS=") for l in shared) and
          sorted(l for l in shared if l.startswith(("SCAN_", "OMP_"))) ==
          sorted(l for l in alone if l.startswith(("SCAN_", "OMP_"))),
          f"{shared} {alone}")
    status, out = a.run(["sh", "-c", "yes 0123456789abcdef"], timeout=30)
    check("a run that prints more than the limit is stopped, and only its start and end kept",
          status == 124 and "stopped: it printed more than" in out and
          len(out) < (1 << 20), f"{status} {len(out)}")
    a.close()
    b.close()
    waits = os.path.join(tmp, "waits.c")
    open(waits, "w").write('#include "/proc/self/fd/1"\n')
    t0 = time.time()
    status, out = run(["timeout", "30", sys.executable, "-c", "import compiled, sys; "
                       f"s, o = compiled.run(['gcc', '-E', '{waits}'], timeout=3); sys.exit(s)"],
                      cwd=kit.KIT)
    r, w = os.pipe()  # the test's own input, held open: a command that read it would wait
    saved = os.dup(0)
    os.dup2(r, 0)
    try:
        quiet = compiled.run(["cat"], timeout=5)
    finally:
        os.dup2(saved, 0)
        for fd in (r, w, saved):
            os.close(fd)
    check("a compiler that waits on itself is stopped at its timeout; a command gets no input",
          status == 124 and time.time() - t0 < 15 and quiet[0] == 0, f"{status} {out[-200:]}")
    os.symlink("/dev/zero", os.path.join(tmp, "link.c"))
    big = os.path.join(tmp, "big.c")
    open(big, "w").write("x" * (submission.SOURCE_MAX + 1))
    said = []
    for path in (os.path.join(tmp, "link.c"), "/dev/zero", big):
        try:
            submission.read_text(path)
            said.append("read")
        except submission.Refused as e:
            said.append(str(e))
    check("a link, a device or an oversized file as the submission is refused, not read",
          "symbolic link" in said[0] and "not a plain file" in said[1] and "bytes" in said[2],
          repr(said))
    outside_kill(tmp)
    machine_faults(tmp)
    grade_needs(tmp)
    metadata(tmp)
    partial_texts()


def partial_texts():
    """Review 2 #7: a GPU chapter graded without a GPU does not say the grade cannot tell the
    stubs (the stub gets 0, a part the build's points); a capped case says it was capped."""
    import reports  # noqa: E402

    def it(name, status, output=""):
        return {"name": name, "status": status, "output": output, "score": 0, "max_score": 5}
    no_gpu = reports.partial_text([it("build", "graded"), it("self-test battery",
                                                             "not graded here")], (False, "none"))
    capped = reports.partial_text([it("build", "graded"), it("hidden vectors", "partial",
                                  "not run here: the n > 2^31 case (GRADE_MAX_N=70000 limits the "
                                  "sizes)")], (False, ""))
    both = reports.partial_text([it("build", "graded"), it("threads share the work", "partial",
                                 "not run here: work sharing not decided here: not timed here"),
                                 it("hidden vectors", "partial", "not run here: the n > 2^31 "
                                    "case (GRADE_MAX_N=70000 limits the sizes)")], (False, ""))
    slow_item = it("threads share the work", "partial", "not decided: on 7 threads your "
                   "threaded variant ran 1.21x as fast as a serial scan")
    slow = reports.partial_text([it("build", "graded"), slow_item], (False, ""))
    slow_row = reports.partial_verdict([it("build", "graded"), slow_item])
    beside_item = it("threads share the work", "partial", "not decided: after your threaded "
                     "variant returned, the grader saw what looked like a thread")
    beside = reports.partial_text([it("build", "graded"), beside_item], (False, ""))
    beside_row = reports.partial_verdict([it("build", "graded"), beside_item])
    check("partial grades say what is true: a work sharing timed and too slow to tell is not "
          "blamed on the machine, and grades.csv says to read the part; one with a thread "
          "beside the team says so, not 'too slow'",
          "could not be decided" not in slow and "gained too little" in slow and
          slow_row == "partial: threads share the work too slow to tell (read the part)" and
          "OpenMP did not start" in beside and "too little" not in beside and
          beside_row == "partial: threads share the work a thread beside the team (read the "
                        "part)" and
          reports.partial_verdict([it("build", "graded"), it("threads share the work",
                                   "partial", "not run here: x")]) ==
          "partial: threads share the work not run here",
          slow + "\n" + slow_row + "\n" + beside + "\n" + beside_row)
    check("partial grades say what is true: without a GPU 'working parts from wrong ones'; a "
          "case left out by GRADE_MAX_N was capped, not 'could not run on this machine'; the "
          "work sharing not decided on this machine is not said to be capped",
          "stub" not in no_gpu and "from wrong ones" in no_gpu and "GRADE_MAX_N=70000" in capped
          and "could not run" not in capped and re.search(
              r"the work sharing could not be decided on this grading machine", both) and
          re.search(r"a case of hidden vectors was not run: the instructor capped", both),
          no_gpu + "\n" + capped + "\n" + both)


def metadata(tmp):
    """Review 2 #6: Gradescope's metadata reader takes members only from :submitters: (a nested
    :results: -> :tests: -> - :name: is not a member), its list indented or not."""
    import reports  # noqa: E402
    d = os.path.join(tmp, "meta")
    os.makedirs(d)
    open(os.path.join(d, "submission_metadata.yml"), "w").write(
        "---\nsubmission_1:\n  :submitters:\n  - :name: Ada\n    :sid: '901'\n"
        "    :email: ada@x.edu\n  - :name: Bo\n    :sid: '902'\n  :created_at: 2026-12-01\n"
        "  :results:\n    :tests:\n    - :name: build (warnings are errors)\n      :score: 5\n"
        "    - :name: honesty\n  :history:\n  - :created_at: 2020-01-01\n"
        "submission_2:\n  :submitters:\n    - :name: Cy\n      :email: cy@x.edu\n"
        "  :created_at: 2026-12-02\n")
    meta = reports.gradescope_metadata(d)
    check("Gradescope's metadata: members only from :submitters: (not a nested test's :name:)",
          meta == {"submission_1": {"members": [{"name": "Ada", "sid": "901", "email": "ada@x.edu"},
                                                {"name": "Bo", "sid": "902"}],
                                    "created_at": "2026-12-01"},
                   "submission_2": {"members": [{"name": "Cy", "email": "cy@x.edu"}],
                                    "created_at": "2026-12-02"}}, repr(meta))


def grade_needs(tmp):
    """Review 2 #5, #12: make grade of chapter 01 builds only the host objects (no CUDA object,
    as make precheck), a GPU chapter the course's common objects; the inner make is silent;
    grading one student leaves only results.json in OUT (no work/ folder)."""
    import grade as grader  # noqa: E402
    import runs  # noqa: E402
    out = os.path.join(tmp, "one_out")
    os.makedirs(os.path.join(tmp, "one_student"))
    os.makedirs(out)
    grader.grade(1, os.path.join(tmp, "one_student"), out, (False, ""), runs.course_env())
    check("grading one student leaves only results.json in OUT (no work/ folder)",
          os.listdir(out) == ["results.json"], repr(os.listdir(out)))
    lines = {}
    for ch in ("1", "2"):
        status, out = run(["make", "-n", "grade", f"CH={ch}", "STUDENT=/nonexistent"])
        lines[ch] = next((l for l in out.splitlines() if "--no-print-directory" in l), "")
    check("make grade CH=1 builds no CUDA object (CH=2 does), and its inner make is silent (-s)",
          re.search(r" common( |$)", lines["2"]) and "-s " in lines["1"] and
          not re.search(r" common( |$)|cuda_probe|\.cu|cub_", lines["1"]), repr(lines))


def machine_fault_build(tmp):
    """S07 (gamer4), graded (--all: the gate compiles the part): the grader's compiler failing
    for want of space stops the grade, exit 3, never a 0."""
    import grade as grader  # noqa: E402
    import runs  # noqa: E402
    said = [bool(runs.machine_fault(t)) for t in (
        "cc1: fatal error: error writing to /tmp/t/ccAtXdhB.s: No space left on device",
        "/usr/bin/ld: final link failed: No space left on device",
        "a.c:9:2: error: #error No space left on device", "  112 | x; // No space left on device",
        "a.c:3:1: error: expected ';'")]
    env, solution = runs.course_env(), os.path.join(ROOT, "01_cpu_serial", "cpu_serial.c")
    saved = runs.Build.build

    def full(self):
        self.log += "cc1: fatal error: error writing to /tmp/t/ccX.s: No space left on device\n"
        return False
    runs.Build.build = full
    os.makedirs(os.path.join(tmp, "mf_one"))
    try:
        grader.grade(1, solution, os.path.join(tmp, "mf_one"), (False, ""), env)
        fault = None
    except runs.MachineFault as e:
        fault = str(e)
    finally:
        runs.Build.build = saved
    check("S07 (gamer4): the grader's compiler failing for want of space stops the grade "
          "(exit 3), never a 0; a #error or a quoted line saying so is the student's",
          said == [True, True, False, False, False] and fault and
          "No space left on device" in fault and
          not os.path.exists(os.path.join(tmp, "mf_one", "results.json")), f"{said} {fault}")


def machine_faults(tmp):
    """S07 (gamer4): the grader's own trouble (no space for its files) is "interrupted:
    regrade", exit 3, never the student's 0 (its compiler's: machine_fault_build(), --all)."""
    import grade as grader  # noqa: E402
    import runs  # noqa: E402
    env, solution = runs.course_env(), os.path.join(ROOT, "01_cpu_serial", "cpu_serial.c")
    klass = os.path.join(tmp, "mf_class")
    for name in ("ada", "bob"):
        os.makedirs(os.path.join(klass, name))
        shutil.copy(solution, os.path.join(klass, name))
    os.environ["GRADE_MIN_FREE_MB"] = str(1 << 40)
    try:
        status = grader.grade_class(1, klass, os.path.join(tmp, "mf_out"), (False, ""), env, [])
    finally:
        del os.environ["GRADE_MIN_FREE_MB"]
    text = open(os.path.join(tmp, "mf_out", "grades.csv")).read()
    check("S07 (gamer4): a class graded without space for the grader's files: every row "
          "\"interrupted: regrade\" naming the machine's problem, no score, exit 3",
          status == 3 and text.count("interrupted: regrade: no space for the grader's files") == 2
          and ",0," not in text and ",0.0," not in text, f"{status} {text[-600:]}")


def outside_kill(tmp):
    """Review 2's #1: graders of two course folders take different ids (one lock folder for the
    machine); review 3's #1: a run killed by a SIGKILL the grader did not send (the program's
    own) fails, and only a run killed while the grader is being stopped is "interrupted:
    regrade", never a wrong output or threads that do not share the work."""
    import grade as grader  # noqa: E402
    import items  # noqa: E402
    import reports  # noqa: E402
    import runs  # noqa: E402
    import sandbox  # noqa: E402
    saved, taken = sandbox.ROOT, []
    try:
        for course in ("courseA", "courseB"):
            sandbox.ROOT = os.path.join(tmp, course)
            taken.append(sandbox.take_id())
    finally:
        sandbox.ROOT = saved
    ids = [i for i, _ in taken]
    for _, lock in taken:
        if lock:
            lock.close()
    check("graders of two course folders on one machine never take the same id",
          None not in ids and ids[0] != ids[1], repr(ids))
    h = runs.trust(fake(tmp, "h_killed", TOKEN_READ + 'say "threads shared the work"\n'
                        'kill -9 $$\n'))

    def graded(stopping):
        """A chapter 01 run killed by SIGKILL: by itself, or while the grader is stopped."""
        sb = sandbox.Sandbox(os.path.join(tmp, "killed_work"), [h], [], False)
        it_build, it_honest, it_share, it_place = (items.item("build", 5),
                                                   items.item("honesty", 0),
                                                   items.item("threads share the work", 0),
                                                   items.item("in place", 5))
        share = {}
        sandbox.STOPPING[:] = [15] if stopping else []
        try:
            items.in_place({"cpu": True}, it_place, h, [("OMP_NUM_THREADS=3", items.omp_env(3))],
                           sb, 4242, share)
        finally:
            sandbox.STOPPING[:] = []
        sb.close()
        it_share["output"], it_build["score"] = share.get("output", ""), 5
        it_share["gate"] = share.get("status_gate")
        gates, verdict, instructor = {"honesty": "passed", it_share["name"]: None}, [], []
        grader.killed_runs(sb.killed, verdict, instructor)
        if sb.interrupted:
            grader.interrupted(sb.interrupted, [it_share, it_place], gates, verdict, instructor)
        else:
            grader.apply_rules(it_build, items.item("sanitizers", 10), None, it_share,
                               [it_place], [], [], verdict, instructor, gates)
        return sb, reports.result("01_cpu_serial", 1, [it_build, it_honest, it_share, it_place],
                                  gates, [], instructor, verdict, (False, ""), time.time(), True,
                                  {}, os.path.join(tmp, "killed_work"))

    sb, out = graded(False)
    check("review 3 #1: a run that SIGKILLs itself fails (the in-place item scores 0, the "
          "instructor is told), never \"interrupted: regrade\"", not sb.interrupted and
          sb.killed and out["score"] == 5 and "interrupted" not in json.dumps(out) and
          "killed by SIGKILL" in out["extra_data"]["verdict"] and
          any("SIGKILL" in n for n in out["extra_data"]["instructor_notes"]),
          f"{sb.interrupted} {sb.killed} {out['score']} {out['extra_data']['verdict']}")
    sb, out = graded(True)
    check("a run killed while the grader itself is stopped is \"interrupted: regrade\", not "
          "scored as wrong or as not sharing the work", bool(sb.interrupted) and
          out["extra_data"]["verdict"].startswith("interrupted: regrade") and
          out["extra_data"]["gates"]["threads share the work"] is None and
          "share the work (-45)" not in out["extra_data"]["verdict"] and
          "interrupted" in out["output"], f"{sb.interrupted} {out['extra_data']['verdict']}")


def students_code(full):
    """Section 7 alone (test_kit.py --students [--all]), in a process of its own: main() runs it
    beside the grader's class, since it changes this process's standard input and environment
    while it runs (sandbox_and_output(), verdicts_and_seed()). Its last line counts its
    failures."""
    start = time.time()
    tmp = tempfile.mkdtemp(prefix="kit_students_")
    os.chmod(tmp, 0o755)
    try:
        sys.path.insert(0, kit.KIT)
        verdicts_and_seed(tmp)
        import judge_cases  # noqa: E402
        judge_cases.main(kit, tmp, check, full)
        sandbox_and_output(tmp)
        keyless_check(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"running students' code: {len(failures)} checks failed ({time.time() - start:.0f} s)")
    return 1 if failures else 0


def starters_alone(tmp):
    """Section 3 alone (test_kit.py --starters TMP), in a process of its own beside the class:
    its copies in TMP/starter and TMP/week1 (kit_full.py's, with --all). Its last line counts
    its failures."""
    start = time.time()
    starters(tmp)
    print(f"starters: {len(failures)} checks failed ({time.time() - start:.0f} s)")
    return 1 if failures else 0


def main(argv):
    full = "--all" in argv
    if "--students" in argv:
        return students_code(full)
    if "--starters" in argv:
        return starters_alone(argv[argv.index("--starters") + 1])
    start = time.time()
    tmp = tempfile.mkdtemp(prefix="kit_test_")
    os.chmod(tmp, 0o755)  # as root, the grader runs students' programs as users of their own: they must reach it
    def section(name, t0=[time.time(), os.times()]):
        """The time a section took, and its programs' CPU time (the machine may be shared)."""
        now, cpu = time.time(), os.times()
        used = cpu.children_user + cpu.children_system - \
            t0[1].children_user - t0[1].children_system
        print(f"     ({name}: {now - t0[0]:.0f} s, its programs' CPU time {used:.0f} s)")
        t0[:] = [now, cpu]

    started = []

    def beside(*args, env=None):
        """A command started now, that runs beside this process's checks (its output read at
        the end): the sections that share nothing with the class graded here, so that the two
        cores are both busy and the kit's time is its longest section's, not their sum. At a
        lower priority (nice 10): the class, whose runs follow one another, goes first, and
        these fill what it leaves of the cores."""
        started.append(subprocess.Popen([sys.executable] + list(args), cwd=ROOT, text=True,
                                        errors="replace", stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, env=env,
                                        preexec_fn=lambda: os.nice(10)))
        return started[-1]

    try:
        # beside the hand-outs and the class (each in folders of its own): 1. the markers, 3.
        # the starters, 4. the gate's corpus (compilers only), 7. running students' code
        markers = beside(os.path.join(HERE, "markers_same_binary.py"),
                         *([] if full else ["--preprocess"]))
        corpus = beside(os.path.join(HERE, "gate_corpus.py"), *([] if full else ["--quick"]))
        # its runs take user ids 1000 above the class's: it looks at what a run's id left
        # behind after the run, which the class's next run could otherwise be using by then
        import sandbox  # noqa: E402
        students = beside(os.path.abspath(__file__), "--students", *(["--all"] if full else []),
                          env=dict(os.environ, GRADE_UID_BASE=str(sandbox.ID_BASE + 1000)))
        copies = beside(os.path.abspath(__file__), "--starters", tmp)
        # the class first: the longest section, which the others wait for
        course = handouts(tmp)
        excerpts()
        lines_and_diagnostics(tmp)
        hidden_stays_hidden(tmp)
        reports_and_class(tmp, course)
        section("hand-outs, the grader and a class of eight")
        out = markers.communicate()[0]
        check("markers: the same " + ("objects" if full else "preprocessed text") +
              " with and without them", markers.returncode == 0, out[-1200:])
        print("     " + (out.strip().splitlines() or ["(the markers' check printed nothing)"])[-1])
        out = corpus.communicate()[0]
        check("the honesty gate's corpus: every honest part passes, every cheat is refused",
              corpus.returncode == 0,
              "\n".join(l for l in out.splitlines() if not l.startswith("ok"))[-2000:])
        print("     " + (out.strip().splitlines() or ["(the gate's corpus printed nothing)"])[-1])
        for proc, what in ((copies, "starters (test_kit.py --starters)"),
                           (students, "running students' code (test_kit.py --students)")):
            out = proc.communicate()[0]
            print(out.rstrip(), flush=True)  # its checks, one line each, and their count
            failed = [l[5:] for l in out.splitlines() if l.startswith("FAIL ")]
            failures.extend(failed)
            if proc.returncode != 0 and not failed:
                check(f"{what} ended as it should", False, f"exit {proc.returncode}: " +
                      out[-1200:])
        section("beside them: markers, the gate's corpus, starters, running students' code")
        if full:
            sys.modules.setdefault("test_kit", sys.modules[__name__])
            import kit_full  # noqa: E402
            kit_full.main(tmp, os.path.join(tmp, "starter"), os.path.join(tmp, "week1"))
    finally:
        for p in started:  # still running only where a check raised: before its folder goes
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"classroom kit{' (all)' if full else ''}: {len(failures)} checks failed"
          + (f": {', '.join(failures)}" if failures else "") + f" ({time.time() - start:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
