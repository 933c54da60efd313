#!/usr/bin/env python3
"""The grader behind `make grade` and `make grade-class` (docs/instructor.md, "Grading").

    make grade CH=N STUDENT=path [OUT=dir]        one submission: a table on the terminal and
                                                  OUT/results.json (Gradescope's format)
    make grade-class CH=N CLASS=folder [OUT=dir] [ONLY="names"]
                                                  every submission in folder (one sub-folder or
                                                  file each, or Gradescope's export) into
                                                  OUT/grades.csv and OUT/gradescope_scores.csv,
                                                  and one OUT/<name>/results.json each; OUT is
                                                  outside the course (../<course>-grades/chNN)
                                                  unless given; ONLY regrades those
    make grade-setup CH=N                         what grading N needs, built once ahead

N is a chapter number (1-8) or `radix`. STUDENT is the file the student handed in (for example
decoupled_lookback.cu) or a folder holding it anywhere (their whole copy of the course, or
Gradescope's /autograder/submission). Only the student's parts are taken from it: the grader
puts them into the course's own source, builds that with the course's flags and its own
common/, and runs its own tests; what the student changed outside the parts is reported and not
used. Chapter 08, the speed contest, takes the whole file.

The grader is split by concern, so that the rule that decided a grade can be read:
  classroom/gate.py, text_rule.py, call_rule.py, compiled.py  the honesty gate (what a part
                                   may hold as text, then what it may not do, from the compiler)
  classroom/submission.py         the student's file, their parts in the course's source
  classroom/items.py, speed.py    each item's runs and the rule that scores it
  classroom/item_runs.py          a submission's runs, in order and side by side
  classroom/runs.py               the build, the grader's own programs and vectors
  classroom/sandbox.py            how the student's programs run, and the harness's verdicts
  classroom/reports.py            results.json, the table, the class's CSV files
  classroom/grade.py (this file)  one submission's grade from those, a class, the command line

Environment: GRADE_SEED (the hidden vectors' and the in-place battery's seed: set your own, the
default is public), GRADE_MAX_N (the largest size any check uses: for quick runs and tests),
GRADE_SPREAD_PCT (the widest spread of the memcpy times across the speed rounds that is scored,
default 5), GRADE_RUNS (speed measurements tried before the item is called noisy, default 3),
GRADE_JOBS (a submission's correctness runs side by side), GRADE_ALLOW (names the gate allows),
GRADE_MIN_FREE_MB (the free space the grader needs for its files, default 256).
Exit status: 0 graded (whatever the score); 2 bad arguments; 3 the grader itself failed (in a
class: a submission "interrupted: regrade" for the machine's problem, the others graded).
"""
import concurrent.futures
import errno
import os
import re
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in classroom/ (the kit's modules are imported)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import item_runs  # noqa: E402
import kit  # noqa: E402
import reports  # noqa: E402
import runs  # noqa: E402
import sandbox  # noqa: E402
import submission  # noqa: E402
from items import CHAPTERS, item, not_here  # noqa: E402
from runs import GradeError, log  # noqa: E402

ROOT = kit.ROOT


def reachable(path):
    """True when every folder down to `path` lets other users through (o+x): the student's
    programs, run as a user of their own, must reach the work folder."""
    path = os.path.abspath(path)
    while True:
        if not os.stat(path).st_mode & 0o001:
            return False
        if path == os.path.dirname(path):
            return True
        path = os.path.dirname(path)


def grade(number, student, out_dir, gpu, env):
    """Grade one submission into out_dir/results.json; returns the result. The grader's work
    folder is out_dir/work, or, where another user cannot reach out_dir (an OUT under /root,
    mode 0700) and the grader is root, a folder under build/grade/work/ (a course out of other
    users' reach cannot lend them its programs either: the grader says so in a note); either
    is removed
    afterwards (it holds the course's source, the solutions, and the builds), so that out_dir
    holds only results.json."""
    work = os.path.join(out_dir, "work")
    shutil.rmtree(work, ignore_errors=True)
    if os.geteuid() == 0 and not reachable(out_dir):
        top = os.path.join(env["BUILD"], "grade", "work")
        os.makedirs(top, exist_ok=True)
        work = tempfile.mkdtemp(prefix="work_", dir=top)
    else:
        os.makedirs(work)
    try:
        short = runs.free_space([work, tempfile.gettempdir(), env["BUILD"]])
        if short:
            raise runs.MachineFault("no space for the grader's files: " + "; ".join(short) +
                                    ": free some and grade it again")
        return grade_in(number, student, out_dir, gpu, env, work)
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS):
            raise runs.MachineFault(f"the grader's own files: {e}: grade it again once the "
                                    f"machine is fixed") from e
        raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def grade_in(number, student, out_dir, gpu, env, work):
    """grade(), its work folder made."""
    cfg = CHAPTERS[number]
    folder, sources = next((f, s) for f, n, s in kit.assignments() if n == number)
    start = time.time()
    phases = {}  # seconds of each phase, for the instructor (item_runs.py)
    seed, seed_set = runs.grade_seed()
    cuda = any(s.endswith(".cu") for s in sources)
    notes, instructor, similarity, verdict = [], [], {}, []
    if not seed_set:
        instructor.append("GRADE_SEED is not set: the hidden vectors use the public default seed")

    (it_build, it_honest, it_share, it_self, it_stress, it_place, it_hidden, it_san,
     it_speed) = chapter_items(cfg)
    all_items = [i for i in (it_build, it_honest, it_share, it_self, it_stress, it_place,
                             it_hidden, it_san, it_speed) if i]
    correctness = [i for i in (it_self, it_stress, it_place, it_hidden) if i]
    gates = {it_honest["name"]: None}
    if it_share:
        gates[it_share["name"]] = None

    def finish():
        return reports.result(folder, number, all_items, gates, notes, instructor, verdict, gpu,
                              start, seed_set, similarity, out_dir, phases)

    # The student's parts, spliced into the course's source, through the honesty gate.
    try:
        p = submission.prepare(env, cfg, folder, sources,
                               lambda s: runs.find_source(student, s), work)
    except FileNotFoundError as e:
        p, why = None, ("file missing: " + str(e).split(":")[0], str(e))
    except submission.Refused as e:
        p, why = None, ("file refused: " + str(e).split(":")[0], f"{e}; nothing was graded")
    except kit.MarkerError as e:
        p, why = None, ("markers broken: " + str(e).split(";")[0], str(e))
    except OSError as e:
        p, why = None, (f"file unreadable: {e}", str(e))
    if p is None:
        verdict.append(why[0])
        it_build["output"] = why[1]
        for i in all_items[1:]:
            i["output"] = "not run: there is nothing to build"
        return finish()
    # the course's solution, preprocessed for the similarity notes, is not needed past this
    # point: gone before any of the student's code runs (it would be readable by it)
    for d in ("solution", "copy"):
        shutil.rmtree(os.path.join(work, d), ignore_errors=True)
    graded, reasons, stubs = p["graded"], p["reasons"], p["stubs"]
    notes += p["notes"]
    instructor += p["instructor"]
    similarity.update(p["similarity"])
    if cuda and not env.get("NVCC"):
        # No CUDA compiler on this grading machine (Gradescope's image without the toolkit):
        # nothing of the student's can be built, run or compiled for the gate here.
        why = ("there is no CUDA compiler (nvcc) on this grading machine, so a GPU chapter "
               "cannot be built here")
        for i in all_items:
            not_here(i, why)
        verdict.append("not graded here: no nvcc")
        return finish()

    phases["gate"] = time.time() - start
    b = runs.Build(env, cfg, folder, sources, graded, work)
    # a part's text the gate refused before compiling it (an #include, an #if) is not built
    built = not p["refused_text"] and b.build()
    phases["build"] = time.time() - start - phases["gate"]
    honesty_output(it_honest, gates, reasons, p["decided"], verdict)
    if p["refused_text"]:
        it_build["output"] = ("not built: the honesty check refused a line of your part before "
                              "compiling it (see the honesty item)")
        for i in all_items[2:]:
            i["output"] = "not run: nothing was built"
        return finish()
    if not built and runs.machine_fault(b.log):
        # the compiler's or linker's own files, not the student's code (S07): never a 0
        raise runs.MachineFault(f"the grader's build failed for the machine, not the code: "
                                f"{runs.machine_fault(b.log)[:200]}: grade it again once the "
                                f"machine is fixed")
    if not built:
        it_build["output"] = "the build failed:\n" + runs.tail(b.log, 30)
        if any("outside your parts differ" in n for n in notes):
            it_build["output"] += ("\n(your file changes lines outside your parts, which the "
                                   "grader does not use: a helper or a name you added there is "
                                   "missing here; put everything your code needs inside a part)")
        for i in all_items[2:]:
            i["output"] = "not run: the build failed"
        verdict.insert(0, "build failed")
        return finish()
    it_build["output"] = ("built with the course's flags: " +
                          ("nvcc -Werror all-warnings, host code -Wall -Wextra" if cuda else
                           "gcc -std=c11 -Wall -Wextra -Werror"))
    if stubs:
        it_build["output"] += (f"\n(not scored: part(s) {', '.join(stubs)} still hold the stub; "
                               f"the build points are for your code)")
    else:
        it_build["score"] = 5

    unwritten = bool(p["own"]) and set(p["own"]) <= set(stubs)
    if not cfg.get("cpu") and not gpu[0]:
        for i in [i for i in (it_self, it_stress, it_place, it_hidden, it_san, it_speed) if i]:
            not_here(i, f"{gpu[1]} (the probe: build/tests/cuda_probe)")
    elif unwritten:
        # nothing of the student's to run: no runs, no work-sharing verdict (a stub does no
        # work, so who did it cannot be judged), 0 in every item
        for i in [i for i in (it_self, it_stress, it_place, it_hidden, it_san, it_speed) if i]:
            i["output"] = f"not run: part(s) {', '.join(stubs)} still hold the stub (not written)"
        if it_share:
            it_share["output"] = "not written: the part still holds its stub (nothing to check)"
    else:
        killed, failed = item_runs.run_items(b, cfg, env, seed, seed_set, gpu, work, it_self,
                                             it_stress, it_place, it_hidden, it_san, it_speed,
                                             it_share, instructor, reasons, phases)
        killed_runs(failed, verdict, instructor)
        if killed:
            interrupted(killed, [i for i in (it_share, it_self, it_stress, it_place, it_hidden,
                                             it_san, it_speed) if i], gates, verdict, instructor)
            honesty_output(it_honest, gates, reasons, p["decided"], verdict)
            return finish()
    apply_rules(it_build, it_san, it_speed, it_share, correctness, stubs, reasons, verdict,
                instructor, gates)
    honesty_output(it_honest, gates, reasons, p["decided"], verdict)
    if unwritten and not reasons:
        # one wording for the untouched stub everywhere (grades.csv, results.json, precheck)
        gates[it_honest["name"]] = None
        it_honest["output"] = "not written: your parts still hold their stubs (nothing to check)"
    return finish()


def chapter_items(cfg):
    """The items of a chapter, in order (None where the chapter has not that item): build,
    honesty, threads share the work, self-test, stress, in place, hidden vectors, sanitizers,
    speed."""
    single_pass = cfg.get("stress", False)
    it_build = item("build (warnings are errors)", 5)
    it_honest = item("honesty: your own code in your parts", 0)
    it_share = item("threads share the work", 0) if cfg.get("cpu") else None
    it_self = item("self-test battery (inclusive and exclusive)", 10 if single_pass else 15)
    it_stress = item("stress (races between blocks)", 5) if single_pass else None
    it_place = None if cfg.get("radix") else item("in place (output = input)", 5)
    it_hidden = item("hidden vectors (--input/--output, and n > 2^31 in place)", 25,
                     "after_due_date")
    it_san = item("sanitizers" + (" (ASan, UBSan)" if cfg.get("cpu") else
                                  " (memcheck, racecheck, synccheck)"), 10)
    # the speed is 0 when an output was wrong anywhere, the hidden vectors included, so it is
    # shown after the due date too (no score a student sees before it depends on hidden runs)
    it_speed = None if cfg.get("cpu") else item(
        "speed against " + ("cub::DeviceRadixSort in the same run" if cfg.get("radix") else
                            "the course's chapter, interleaved in one process"), 25,
        "after_due_date")
    if cfg.get("radix"):
        it_self["name"] = "self-test (sorted, a permutation, stable)"
        it_hidden["name"] = "hidden vectors (--input/--output)"
    return (it_build, it_honest, it_share, it_self, it_stress, it_place, it_hidden, it_san,
            it_speed)


INTERRUPTED = ("interrupted: regrade. A run of this item was killed while the grader itself was "
               "being stopped, so it is not scored")


def killed_runs(failed, verdict, instructor):
    """Runs killed by a SIGKILL the grader did not send (sandbox.Sandbox.killed): the program's
    own, or the out-of-memory killer's, which the program's memory may have called. Those runs
    failed (their items saw no right output); the status and the instructor say so (review 3,
    #1: never "interrupted", which a program could then choose)."""
    if failed:
        verdict.append("a run was killed by SIGKILL (its items failed)")
        instructor.append("killed by SIGKILL, which the grader did not send (the program itself, "
                          "or the out-of-memory killer); those runs failed: " +
                          "; ".join(failed[:3]))


def interrupted(killed, run_items_, gates, verdict, instructor):
    """A run killed while the grader itself was being stopped (sandbox.Sandbox.interrupted): no
    item that ran the student's code is scored, no gate decided; the status says to grade it
    again."""
    for i in run_items_:
        i["status"], i["score"] = "interrupted", 0.0
        i["output"] = INTERRUPTED + "\n" + i["output"]
        if i["name"] in gates:
            gates[i["name"]] = None
        i.pop("gate", None)
    verdict[:] = ["interrupted: regrade"]
    instructor.append("interrupted: regrade (ONLY=this submission); runs killed while the grader "
                      "was being stopped: " + "; ".join(killed[:3]))


def apply_rules(it_build, it_san, it_speed, it_share, correctness, stubs, reasons, verdict,
                instructor, gates):
    """The rules across items (items.py's docstring): the stub earns no build or sanitizer
    points; threads that do not share the work lose the correctness items; a wrong output takes
    the speed (anywhere) and the sanitizers (in an item shown before the due date: what a student
    sees then never depends on the hidden runs); a failed honesty gate takes everything."""
    if stubs and it_san["status"] == "graded" and it_san["score"]:
        it_san["score"] = 0.0
        it_san["output"] += (f"\n(not scored: part(s) {', '.join(stubs)} still hold the stub, so "
                             f"the sanitizers had nothing of yours to judge there)")
    if stubs:
        verdict.insert(0, "not written: " + ", ".join(stubs))
    if it_share is not None:
        gates[it_share["name"]] = it_share.get("gate")
        it_share.pop("gate", None)
        if gates[it_share["name"]] == "failed":
            for i in correctness:
                if i["score"]:
                    i["output"] += "\n(scored 0: the threads do not share the work)"
                i["score"] = 0.0
            verdict.append("threads do not share the work (-45)")
            instructor.append("the threaded variant does not share the work among its threads: "
                              + it_share["output"].splitlines()[0])
    wrong = [i for i in correctness if i["status"] in ("graded", "partial") and
             i["score"] < i["max_score"] and "share the work" not in i["output"]]
    for i in [it_san] + ([it_speed] if it_speed else []):
        # an item a student sees before the due date depends only on items they see too: the
        # sanitizers on their own runs and the visible correctness items, never on the hidden
        # vectors (the speed, which does, is shown after the due date itself)
        why = [w for w in wrong if i["visibility"] != "visible" or w["visibility"] == "visible"]
        if why and i["status"] == "graded" and i["score"]:
            i["output"] += (f"\n(scored 0: an output was wrong in "
                            f"{', '.join(reports.short(w) for w in why)})")
            i["score"] = 0.0
    if reasons:
        for i in [it_build, it_san] + correctness + ([it_speed] if it_speed else []):
            if i["status"] == "graded" and i["score"]:
                i["output"] += "\n(scored 0: see the honesty item)"
            i["score"] = 0.0


def honesty_output(it, gates, reasons, decided, verdict):
    """The honesty item's text and gate, and the status's reason when it failed."""
    name = it["name"]
    if reasons:
        gates[name] = "failed"
        it["output"] = "\n".join(reasons) + (
            "\nBecause of this, every item scores 0 (the build, the sanitizers, correctness and "
            "speed): what they measured is not the work of your own parts as the assignment "
            "asks for it. ASSIGNMENT.md lists what a part may use; `make precheck CH=N` runs "
            "this check in your copy.")
        if not any(v.startswith("honesty") for v in verdict):
            verdict.append("honesty: " +
                           re.sub(r"^part [\w-]+(, line \d+)?: ", "", reasons[0])[:90])
    elif not decided:
        gates[name] = None
        it["output"] = ("not decided: the honesty check compiles your file, and it did not "
                        "compile (see the build item)")
    else:
        gates[name] = "passed"
        it["output"] = ("your parts call and include only what a part may (ASSIGNMENT.md), and "
                        "leave the course's code outside them as it is")


def grade_class(number, path, out, gpu, env, only):
    """Every submission in `path` into out/grades.csv (or, with `only`, those named, their rows
    replaced in the grades.csv already there), and out/gradescope_scores.csv."""
    meta = reports.gradescope_metadata(path)
    entries = reports.class_entries(path)
    if not entries:
        return reports.fail(f"{path} has no submissions: put one folder (or file) per student "
                            f"in it")
    csv_path = os.path.join(out, "grades.csv")
    header, old_rows = None, {}
    if only:
        unknown = [o for o in only if o not in entries]
        if unknown:
            return reports.fail(f"ONLY names {', '.join(unknown)}, which {path} does not hold; "
                                f"its submissions are: {' '.join(entries[:20])}")
        header, old_rows = reports.read_old(csv_path)
        entries = only
    os.makedirs(out, exist_ok=True)
    rows, names, begun, faults = dict(old_rows), None, time.time(), 0
    cfg = CHAPTERS[number]

    def one(e):
        d = os.path.join(out, re.sub(r"[^A-Za-z0-9_.-]", "_", e))
        os.makedirs(d, exist_ok=True)
        t = time.time()
        try:
            return grade(number, os.path.join(path, e), d, gpu, env), None, time.time() - t
        except Exception as exc:  # one broken submission must not stop the class
            return None, exc, time.time() - t
        finally:
            # the grader's work folder holds the course's source (solutions) and builds: never
            # left in the folder an instructor may send to the student
            shutil.rmtree(os.path.join(d, "work"), ignore_errors=True)

    jobs = runs.class_jobs(cfg.get("cpu"), gpu[0])
    log(f"grading {len(entries)} submission{'' if len(entries) == 1 else 's'}"
        + (f", {jobs} at a time" if jobs > 1 else ""))
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for e, (r, exc, seconds) in zip(entries, pool.map(one, entries)):
            if isinstance(exc, runs.MachineFault):
                log(f"  {e}: interrupted: regrade (the machine's problem, not the student's): "
                    f"{exc}")
                rows[e] = [e, "", "", "", f"interrupted: regrade: {exc}"]
                faults += 1
                continue
            if r is None:
                log(f"  {e}: the grader failed on it ({type(exc).__name__}: {exc}); grade it alone")
                rows[e] = [e, "", "", "", f"grader error: {type(exc).__name__}: {exc}"]
                continue
            names = names or [t["name"] for t in r["tests"]]
            rows[e] = reports.class_row(e, r, meta)
            log(f"  {e}: {r['score']:g} of {r['extra_data']['max_score']:g}"
                + (" (partial)" if r["extra_data"]["partial"] else "")
                + f": {r['extra_data']['verdict']} ({seconds:.0f} s)")
    head = reports.CSV_HEAD + names + reports.CSV_TAIL if names else header
    if header and head != header:
        log(f"note: {csv_path} had other columns; it is rewritten with this grader's")
    csv_path, count = reports.write_class(out, rows, head or reports.CSV_HEAD + ["status"], meta)
    log(f"grades.csv: {csv_path} ({count} submissions"
        + (f", {len(entries)} regraded" if only else "")
        + f"; {time.time() - begun:.0f} s); gradescope_scores.csv beside it (a row per student)")
    log(reports.WRITE_UP + " (not in these totals)")
    if faults:
        log(f"grade-class: {faults} submission(s) not graded for the machine's problems "
            f"(\"interrupted: regrade\" in grades.csv): fix it, then ONLY=\"those names\"")
        return 3
    return 0


def setup(number):
    """`make grade-setup CH=N`: build what grading chapter N needs once, ahead of the first
    submission (Gradescope's setup.sh runs it): the course's own objects of the chapter (with
    the last build's flags) and the grader's check."""
    env = runs.course_env()
    folder, sources = next((f, s) for f, n, s in kit.assignments() if n == number)
    runs.checker(env)
    if any(s.endswith(".cu") for s in sources) and not env.get("NVCC"):
        log(f"grade-setup: no nvcc here, so {folder} is not built: its submissions will get "
            f"'not graded here' for every item")
        return 0
    status, out = runs.run(["make", "-s", "--no-print-directory", "-C", os.path.join(ROOT, folder),
                            "all"] + env["MAKE_ARGS"])
    if status:
        raise GradeError(f"the course's {folder} did not build:\n" + runs.tail(out, 20))
    log(f"grade-setup: ready to grade {folder} (flags of build/flags.txt: "
        f"{' '.join(env['MAKE_ARGS']) or 'defaults'})")
    return 0


def parse_number(text):
    t = (text or "").strip().lower()
    if t == "radix":
        return "radix"
    if t.isdigit() and int(t) in CHAPTERS:
        return int(t)
    print(f"grade: CH='{text}' is not an assignment; give a chapter 1-8 or radix, e.g. make grade "
          f"CH=7 STUDENT=path", file=sys.stderr)
    sys.exit(2)


def default_class_out(number):
    """Where grade-class writes without OUT: beside the course, never inside it (a hand-out
    copies only the course's own files, but grades belong elsewhere anyway)."""
    label = f"ch{number:02d}" if isinstance(number, int) else str(number)
    return os.path.join(os.path.dirname(ROOT), os.path.basename(ROOT) + "-grades", label)


def main(argv):
    sandbox.stop_on_signals()  # a stopped grader takes its runs with it
    runs.grade_seed()  # read now, and out of the environment of all that the grader starts
    if argv[:1] == ["setup"] and len(argv) == 2:
        return setup(parse_number(argv[1]))
    if len(argv) < 3 or argv[0] not in ("one", "class"):
        print("usage: grade.py one CH STUDENT [OUT] | grade.py class CH FOLDER [OUT [ONLY...]] | "
              "grade.py setup CH", file=sys.stderr)
        return 2
    mode, number, path = argv[0], parse_number(argv[1]), argv[2]
    if not path or not os.path.exists(path):
        return reports.fail(f"{path or '(empty)'} does not exist; give the student's file or "
                            f"folder, e.g. STUDENT=submissions/ada")
    if number == "radix" and not os.path.isdir(os.path.join(ROOT, kit.RADIX_DIR)):
        return reports.fail(f"there is no {kit.RADIX_DIR}/ here")
    env = runs.course_env()
    gpu = runs.gpu_status()
    given = argv[3] if len(argv) > 3 and argv[3] else ""
    if mode == "one":
        out = os.path.abspath(given or os.path.join(env["BUILD"], "grade", "one"))
        os.makedirs(out, exist_ok=True)
        result = grade(number, path, out, gpu, env)
        reports.print_table(result)
        log(f"results.json: {os.path.join(out, 'results.json')}")
        return 0
    out = os.path.abspath(given or default_class_out(number))
    if not given:
        log(f"grade-class: writing to {out} (outside the course; OUT=dir to choose)")
    return grade_class(number, path, out, gpu, env, " ".join(argv[4:]).split())


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except GradeError as e:
        print(f"grade: {e}", file=sys.stderr)
        sys.exit(3)
