#!/usr/bin/env python3
"""`make precheck CH=N`: before you hand in, the grader's honesty check and build of chapter N
(1-8, or radix), in your copy of the course.

It takes your parts from the chapter's source, puts them into the source as it was handed out
(classroom/reference/; the grader uses the course's text outside the parts, so changes there
are not graded), and then:
  1. runs the honesty check (classroom/gate.py, the grader's own: ASSIGNMENT.md has its rules);
  2. builds the chapter with the course's flags, warnings as errors, as the grader does.
It says which parts still hold their stub ("not written"). It does not run the chapter: for
that, `make chapter-N && ./run --self-test`.

Exit status: 0 every part written, the check passed and the build too; 1 otherwise (each
problem is printed with its line and the fix); 2 bad arguments.
"""
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compiled  # noqa: E402
import kit  # noqa: E402
import submission  # noqa: E402

ROOT = kit.ROOT


def say(msg):
    print(msg, flush=True)


def course_env():
    """The compilers, flags and objects of this copy (make classroom-env)."""
    r = subprocess.run(["make", "-s", "--no-print-directory", "classroom-env"], cwd=ROOT,
                       capture_output=True, text=True)
    if r.returncode:
        say("precheck: make classroom-env failed:\n" + r.stderr.strip())
        sys.exit(2)
    env = dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)
    env["ROOT"] = ROOT
    return env


def compile_and_link(env, folder, sources, graded, work):
    """The chapter built as the grader builds it: (ok, what the compiler said)."""
    cuda = any(s.endswith(".cu") for s in sources)
    if cuda and not env.get("NVCC"):
        return None, "no CUDA compiler (nvcc) here: the build of a GPU chapter is not checked"
    objects, log = [], ""
    course_dir = os.path.join(env["BUILD"], os.path.basename(folder))
    others = [s for s in sources if s not in graded]
    if any(not os.path.isfile(os.path.join(course_dir, os.path.splitext(s)[0] + ".o"))
           for s in others):
        subprocess.run(["make", "-s", "--no-print-directory", "-C", os.path.join(ROOT, folder),
                        "all"], capture_output=True)
    for s in sources:
        if s not in graded:
            objects.append(os.path.join(course_dir, os.path.splitext(s)[0] + ".o"))
            continue
        path = os.path.join(work, "src", folder, s)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(graded[s])
        obj = os.path.join(work, os.path.splitext(s)[0] + ".o")
        # where the honesty check compiled it, with the flags it checked
        cmd = [env["NVCC"] if s.endswith(".cu") else env["CC"]] + \
            compiled.build_flags(env, os.path.join(folder, s), s.endswith(".cu")) + \
            ["-c", path, "-o", obj]
        r = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
        log += r.stdout + r.stderr
        if r.returncode:
            return False, log
        objects.append(obj)
    baselines = [os.path.join(env["BUILD"], "common", os.path.splitext(b)[0] + ".o")
                 for b in kit.makefile_var(folder, "BASELINES")]
    common = env["COMMON_HOST_OBJS"].split() + (env["COMMON_CUDA_OBJS"].split() if cuda else [])
    linker = [env["NVCC"]] + env["GENCODE"].split() if cuda else [env["CC"]] + env["CFLAGS"].split()
    r = subprocess.run(linker + objects + baselines + common +
                       ["-o", os.path.join(work, "run")] + env["LDLIBS"].split(),
                       capture_output=True, text=True, errors="replace")
    return r.returncode == 0, log + r.stdout + r.stderr


def main(argv):
    text = (argv[0] if argv else "").strip().lower()
    found = [(f, n, s) for f, n, s in kit.assignments()
             if str(n) == text.lstrip("0") or (text == "radix" and n == "radix")]
    if not found:
        offered = " ".join(str(n) for f, n, _ in kit.assignments()
                           if n == "radix" or n <= 8)
        say(f"precheck: CH='{text}': give a chapter of this copy: {offered} (make precheck CH=7)")
        return 2
    folder, number, sources = found[0]
    reference = os.path.join(kit.KIT, "reference")
    root = reference if os.path.isdir(os.path.join(reference, folder)) else ROOT
    env = course_env()
    work = os.path.join(env["BUILD"], "precheck", os.path.basename(folder))
    cfg = {"cpu": number == 1, "contest": number == 8}
    say(f"precheck of {folder}: the grader's honesty check and build (nothing is run)")
    try:
        p = submission.prepare(env, cfg, folder, sources,
                               lambda s: os.path.join(ROOT, folder, s), work,
                               reference_root=root, solutions=False)
    except (kit.MarkerError, FileNotFoundError) as e:
        say(f"FAIL {e}")
        return 1
    problems = 0
    if p["reasons"]:
        problems += len(p["reasons"])
        say("FAIL the honesty check (the grader would score every item 0):")
        for r in p["reasons"]:
            say(f"     {r}")
    elif not p["decided"]:
        say("--   the honesty check could not run: " + (
            "your file does not compile (below)" if p["gate_log"] else
            "no CUDA compiler (nvcc) here"))
    elif p["stubs"] and not p["similarity"] and all(
            n in p["stubs"] for n in p["own"]):
        say("--   the honesty check: not written (nothing to check yet)")
    else:
        say("ok   the honesty check passed")
    for note in p["notes"]:
        if not note.startswith("not written"):
            say(f"note {note}")
    if p["stubs"]:
        problems += 1
        say(f"FAIL not written yet (the stub is still there): {', '.join(p['stubs'])}")
    ok, log = (None, "not tried: the honesty check refused your part's text (above); fix that "
                     "first") if p["refused_text"] else \
        compile_and_link(env, folder, sources, p["graded"], work)
    if ok is None:
        say(f"--   the build: {log}")
    elif ok:
        say("ok   the build, with the course's flags (warnings are errors)")
    else:
        problems += 1
        say("FAIL the build:\n" + "\n".join(l for l in log.splitlines()[-30:]))
    say(f"precheck: {problems} problem{'s' if problems != 1 else ''}" +
        ("" if problems else f"; now run it: make chapter-{number} && ./run --self-test"
         if number != "radix" else "; now run it: make -C classroom/radix_sort && "
                                    "classroom/radix_sort/run --self-test"))
    if not problems and str(number) in ("1", "01"):
        # what this check cannot see (instructor review 3, #6): the work sharing, which the
        # grader times (ASSIGNMENT.md)
        say("note the work sharing is checked only when graded (ASSIGNMENT.md); time it "
            "yourself on a machine with 8 idle cores or more: OMP_NUM_THREADS=7 ./run shows the "
            "threads row's time beside serial's (aim for 2.5x)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
