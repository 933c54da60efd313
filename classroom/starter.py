#!/usr/bin/env python3
"""`make starter DIR=path [CHAPTERS="2 3 7"]`: write the student's copy of the course.

Every student part of the chosen chapters is replaced by its stub (classroom/stubs/NAME.txt),
in its home chapter and in every later chapter that carries a copy of it, so that no line of
the solution survives anywhere in the copy (classroom/tests/check_starter.py proves it). The
marker lines stay: they show the student where the part goes and which notes explain it.

What the copy holds: the course up to the last chosen chapter; the chapters after it are left
out, because each of them carries the code of the chapters before it (a later chapter's
look_back() is chapter 07's solution), and so are a chapter still in the works (a folder without
its Makefile) and the experiments' sources of every chapter left out (docs/experiments/NN_*.cu). With only `radix` chosen, the whole course is there to
read. docs/answers.md and docs/instructor.md are replaced by a line that says the instructor
keeps them; tests/plant_bugs.sh (it plants bugs in the solutions), the grader and the rest of
classroom/ stay out, except the radix sort assignment's folder when it is chosen (its
source stubbed like a chapter's) and what `make precheck CH=N` needs (PRECHECK: the honesty
gate, the stubs of the copy's parts, and each handed-out source as it was handed out, in
classroom/reference/). A model of a part outside the chapters (tests/scan_networks.c's
model_threads()) is replaced by its stub (classroom/stubs/NAME.model.txt) when its part is.
ASSIGNMENT.md at the top lists the parts, where they are, the rules of the honesty gate, and
how to check them. Only the course's own files are copied (kit.course_files(): what git
tracks, or classroom/MANIFEST): never a class's grades, submissions or build outputs.

Nothing is written unless all of it can be: the copy is built in a temporary folder beside DIR
and renamed into place; DIR must not exist yet (or be an empty folder).
Exit status: 0 written; 2 bad arguments (nothing written).
"""
import datetime
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gate  # noqa: E402
import kit  # noqa: E402

# Files the student's copy never holds (instructor-only, or tools that need the solutions).
INSTRUCTOR_ONLY = {"docs/answers.md", "docs/instructor.md", "tests/plant_bugs.sh",
                   # chapter 11's prototype carries chapter 02's warp scan and chapter 07's
                   # look-back whole (docs/experiments/11_scan_proto.md)
                   "docs/experiments/11_scan_proto.cu",
                   # its sed patterns are chapter 04's carry kernel, regex-escaped
                   "docs/experiments/03_05_variants.sh",
                   # its Python patch quotes chapter 12's fall-back part
                   "docs/experiments/12_pause_h200.sh",
                   # the judge's design: how the grader was fooled, and what is still open
                   "docs/experiments/kit_verdicts_design.md"}
# Compiled code (a listing of a kernel's machine code is a chapter's solution in another form)
# and the kit's own grading logs (runs_*/kit_*: graded solutions), never in a student's copy.
COMPILED = (".sass", ".ptx", ".cubin", ".fatbin", ".o", ".a", ".so")


def holds_part(rel):
    """True when the course's file rel holds a student part's marker: an experiment's copy of a
    chapter's source (a run's record, a plant, a graded class) carries the part's solution."""
    with open(os.path.join(kit.ROOT, rel), errors="replace") as f:
        return any(kit.BEGIN.match(line) for line in f)


def instructor_only(rel):
    """Whether the course's file `rel` stays out of every student's copy: also every source a
    GPU run kept (docs/experiments/runs_*/: plants, variants, graded submissions are copies of
    chapters, solutions included)."""
    return rel in INSTRUCTOR_ONLY or rel.endswith(COMPILED) or \
        re.match(r"docs/experiments/runs_[^/]+/kit_", rel) is not None or \
        (rel.startswith("docs/experiments/runs_") and rel.endswith((".c", ".cu", ".h")))


# The kit's files a students' copy holds, for `make precheck CH=N` (the honesty gate and the
# build, as the grader runs them).
PRECHECK = ["classroom/kit.py", "classroom/gate.py", "classroom/call_rule.py", "classroom/text_rule.py",
            "classroom/compiled.py", "classroom/submission.py", "classroom/precheck.py"]
# The placeholder that keeps the notes' links to them working.
PLACEHOLDER = ("# {title} {{#{anchor}}}\n\nThis page is for instructors: it is not part of the "
               "student's copy of the course. Ask your instructor.\n")
PLACEHOLDERS = {"docs/answers.md": ("Answers to the exercises, for instructors", "answers"),
                "docs/instructor.md": ("Teaching with this course: the instructor's guide",
                                       "instructor")}


def fail(message):
    print(f"starter: {message}", file=sys.stderr)
    sys.exit(2)


def tracked_files():
    """The course's own files (kit.course_files(): git's list, or classroom/MANIFEST)."""
    try:
        return kit.course_files()
    except kit.ManifestError as e:
        fail(str(e))


def choose(words):
    """Parse CHAPTERS: chapter numbers with student parts, 8 (the speed contest), radix.
    Returns (chosen chapter numbers, radix chosen?)."""
    homes = kit.part_homes()
    # only the chapters the grader grades (items.CHAPTERS) are handed out: the later ones carry
    # chapter 07's look-back (09 and 10 without its markers), and chapter 12's own parts have no
    # stubs nor grading yet
    import items
    with_parts = sorted({kit.number_of(folder) for folder, _, _ in homes.values()}
                        & (set(items.CHAPTERS) - {"radix"}))
    contest = [n for f, n, _ in kit.assignments() if n == 8]
    offered = [str(n) for n in with_parts + contest] + (["radix"] if os.path.isdir(
        os.path.join(kit.ROOT, kit.RADIX_DIR)) else [])
    if not words:
        words = offered
    chapters, radix = set(), False
    for w in words:
        if w.lower() == "radix":
            if "radix" not in offered:
                fail(f"there is no radix sort assignment in {kit.RADIX_DIR}/")
            radix = True
            continue
        if not w.isdigit() or w.lstrip("0") not in offered:
            fail(f"CHAPTERS has '{w}': the chapters with student parts are {' '.join(offered)} "
                 f"(8 is the speed contest, radix the application); e.g. CHAPTERS=\"2 3 7\"")
        chapters.add(int(w))
    return chapters, radix


def unlink(text, left_out):
    """Markdown with every link into a left-out chapter turned into its text: the notes keep
    their words, and the docs build (which refuses a link to a missing page) still passes."""
    folders = "|".join(re.escape(f) for f in left_out)
    return re.sub(r"\[([^\]]*)\]\((?:\.\./)*(?:" + folders + r")/[^)]*\)", r"\1", text)


def plan(chapters, radix):
    """What the copy holds for these choices: (chapter folders kept, chapter folders left out,
    names of the parts stubbed). Every part whose home is a kept chapter is stubbed, in every
    source that has it: the chosen chapters' parts, and those of the chapters before them (a
    later week's copy must not hand out the earlier weeks' solutions; students bring their own
    with carry_parts.py). With only the radix sort chosen, the chapters are there to read, and
    only the assignment's parts are stubbed."""
    folders = [f for f, n, _ in kit.assignments() if n != "radix"]
    last = max(chapters) if chapters else None
    kept = [f for f in folders if last is None or kit.number_of(f) <= last]
    left_out = [f for f in folders if f not in kept]
    stubbed = {name for name, (folder, _, _) in kit.part_homes().items()
               if (chapters and folder in kept) or (radix and folder == kit.RADIX_DIR)}
    return kept, left_out, stubbed


def main():
    if len(sys.argv) < 2 or not sys.argv[1]:
        fail("give the folder to write: make starter DIR=path [CHAPTERS=\"2 3 7\"]")
    target = os.path.abspath(sys.argv[1])
    chapters, radix = choose(" ".join(sys.argv[2:]).split())
    if os.path.exists(target) and not (os.path.isdir(target) and not os.listdir(target)):
        fail(f"{sys.argv[1]} exists and is not an empty folder; give a new folder (nothing "
             f"is overwritten)")
    if os.path.realpath(target).startswith(os.path.realpath(kit.ROOT) + os.sep):
        fail(f"{sys.argv[1]} is inside the course's own folder; write the copy somewhere else")

    kept, left_out, stubbed = plan(chapters, radix)
    bodies = {name: kit.stub(name) for name in stubbed}
    hidden = left_out + kit.unready_chapter_dirs()  # and the chapters still in the works
    all_out = sorted(set(hidden))
    # their experiments' sources (docs/experiments/NN_*.cu) carry the same earlier solutions
    hidden_numbers = {f.split("_")[0] for f in hidden}

    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        fail(f"{parent} does not exist; create it first")
    work = tempfile.mkdtemp(prefix=".starter-", dir=parent)
    try:
        for rel in tracked_files():
            top = rel.split("/")[0]
            if top in hidden or instructor_only(rel):
                continue
            if (rel.startswith("docs/experiments/") and rel.endswith((".c", ".cu", ".h"))
                    and (os.path.basename(rel).split("_")[0] in hidden_numbers or
                         holds_part(rel))):
                continue
            if rel.startswith("classroom/") and rel not in PRECHECK and \
                    not (radix and rel.startswith(kit.RADIX_DIR + "/")):
                continue
            src = os.path.join(kit.ROOT, rel)
            dst = os.path.join(work, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if rel.endswith(".md") and hidden:
                with open(dst, "w") as f:
                    f.write(unlink(open(src).read(), hidden))
            elif rel.endswith((".c", ".cu", ".h")):
                text = kit.replace_parts(open(src).read(), bodies, rel)
                if rel in kit.MODEL_FILES:
                    text = kit.replace_models(text, stubbed)
                with open(dst, "w") as f:
                    f.write(text)
                shutil.copymode(src, dst)
            else:
                shutil.copy2(src, dst)
        precheck_files(work, stubbed)
        for rel, (title, anchor) in PLACEHOLDERS.items():
            with open(os.path.join(work, rel), "w") as f:
                f.write(PLACEHOLDER.format(title=title, anchor=anchor))
        with open(os.path.join(work, "ASSIGNMENT.md"), "w") as f:
            f.write(assignment_page(work, chapters, radix, all_out, stubbed))
        shutil.copy2(os.path.join(kit.KIT, "carry_parts.py"), os.path.join(work, "carry_parts.py"))
        readme = os.path.join(work, "README.md")
        text = open(readme).read().split("\n", 1)
        with open(readme, "w") as f:
            f.write(text[0] + "\n\n" + modified_notice(chapters, radix) + text[1])
        if os.path.isdir(target):
            os.rmdir(target)  # empty: checked above
        os.rename(work, target)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    print(f"starter: wrote {sys.argv[1]}: {plural(len(kept), 'chapter', '')}"
          f"{', '.join(kept) or 'none'}" + (f", {kit.RADIX_DIR}" if radix else "")
          + f"; {plural(len(stubbed), 'part', ' ')}stubbed ({', '.join(sorted(stubbed)) or 'none'})"
          + (f"; left out (they carry earlier solutions): {', '.join(all_out)}" if all_out else ""))
    return 0


def precheck_files(work, stubbed):
    """What `make precheck CH=N` needs beside the kit's modules: the stubs of the copy's parts
    (the gate's baseline), and each source with parts as handed out (classroom/reference/: the
    course's text outside the parts, which the grader uses, and chapter 08's fixed
    functions)."""
    for name in sorted(stubbed):
        os.makedirs(os.path.join(work, "classroom", "stubs"), exist_ok=True)
        shutil.copy2(os.path.join(kit.KIT, "stubs", name + ".txt"),
                     os.path.join(work, "classroom", "stubs", name + ".txt"))
    for folder, _, sources in kit.assignments():
        for s in sources:
            rel = os.path.join(folder, s)
            if os.path.isfile(os.path.join(work, rel)) and \
                    (kit.parts(open(os.path.join(work, rel)).read(), rel) or folder.startswith("08")):
                dst = os.path.join(work, "classroom", "reference", rel)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(os.path.join(work, rel), dst)


def project():
    """(the project's name, its holder) from the top of LICENSE, the one place they are set."""
    text = open(os.path.join(kit.ROOT, "LICENSE")).read()
    name = re.search(r"^Project: *\"?([^\"\n]+)\"?$", text, re.M)
    holder = re.search(r"^Holder: *(.+)$", text, re.M)
    return (name.group(1).strip() if name else "GPU prefix sum, step by step",
            holder.group(1).strip() if holder else "its authors")


def plural(count, word, sep):
    """'1 part ', '3 parts ' (sep ' '), or 'chapter ', 'chapters ' (sep '': no number)."""
    return (f"{count} " if sep else "") + word + ("" if count == 1 else "s") + " "


def modified_notice(chapters, radix):
    """The notice CC BY 4.0 asks of a modified copy (LICENSE-docs): what it is from, what was
    changed, and when."""
    name, holder = project()
    what = ", ".join(str(c) for c in sorted(chapters)) + (" and the radix sort" if radix else "")
    return (f"This copy was made from \"{name}\", by {holder}, under CC BY 4.0 (the notes) "
            f"and the MIT License (the code), by `make starter` on "
            f"{datetime.date.today().isoformat()}, and modified for a class: the students' parts "
            f"({plural(len(chapters), 'chapter', '')}{what or 'none'}) are replaced by stubs, later chapters, the answers and "
            f"the instructor's guide are left out, and ASSIGNMENT.md is added. The licences are in "
            f"LICENSE and LICENSE-docs.\n")


# The honesty check's rules, as classroom/gate.py applies them (the grader and `make precheck`).
RULES = """## What your parts may use: the honesty check

Before the grader runs anything, it compiles your file and reads what the compiler made of
each of your parts (it does not search your text for words: a local variable called `read` or
`signal` is yours to name). `make precheck CH=N` runs the same check, then builds the chapter
with the grader's flags (warnings are errors), in this copy, before you hand in.

A part may use: `printf` and the rest of stdio's output; OpenMP (`#pragma omp`, `omp_*`);
`<math.h>` and `<string.h>` on its own data; the CUDA calls a launcher makes (kernel launches,
`CUDA_CHECK`, `cudaGetLastError`, `cudaMemset*`, occupancy and device queries, events,
streams); the functions you write (in your parts); your other parts (a part carried from an
earlier chapter too); the course's functions its own solution uses (such as chapter 01's
`scan_serial()`, or chapter 07's `load_descriptor()`); standard headers; `#define` for your own
constants.

A part may not: end the program (`exit`, `abort`) or use signals; touch files, other
programs, threads of its own or the environment (`fopen`, `system`, `getenv`); call CUB or
Thrust; call the course's host code (`scan_reference()`, the checks, the readers), nor the
course's other functions (another variant's scan, the driver); in a GPU chapter, allocate or
copy memory (`malloc`, `cudaMalloc`, `cudaMemcpy`, `__managed__`, the driver API); change the
course's code outside it (a macro that changes how a later line reads, or a part that closes
its function); hold a system call in assembly. Anything else the compiled code refers to is
refused with its name; if you need it, ask your instructor. A part that fails the check scores
0 in every item, with the line and the reason.

A part that still holds its stub (comments and blanks aside) is \"not written\": no points for
its build or sanitizers, and no honesty failure."""
RULES += "\n\n" + gate.TEXT_RULES  # what a part may hold as text (gate.text_refused())
WORK_SHARING = ("Chapter 01: the threaded variant must share the scan among its threads. The "
                "grader watches which thread writes each part of the output, and how much time "
                "each thread spends (on 3, 4 and 7 threads); if one thread wrote 90 % of it, or "
                "spent 75 % of the time, the self-test, in place and hidden vectors score 0: you "
                "lose 45 of the 60 points, and your instructor is told. The grader also times "
                "your variant against a serial scan, as a speed-up (the serial scan's time "
                "divided by your variant's), beside the course's own threaded scan on the same "
                "threads. It decides only where the course's scan reaches 2x (on the course's "
                "16-core test machine: mostly on 7 threads): below 1.15x your variant loses the "
                "same 45 points; from 1.15x to 0.7 of the course's speed-up it is not decided; "
                "at 0.7 of it or more, on 7 threads, it passes (on fewer, not decided). Not "
                "decided (on Gradescope's small machines, always) means no points are taken "
                "and your instructor decides later, by grading again or by reading your code: "
                "threads that each scan their own part of the array keep the points. Time it "
                "yourself on a machine with 8 idle cores or more (the course's test machine had "
                "16): `OMP_NUM_THREADS=7 ./run` prints the `threads` row's time beside "
                "`serial`'s; on the course's test machine, where it decided, the course's "
                "own scan ran 2.2x to 3.6x as fast as serial at 7 threads: aim for 2.5x.")


def assignment_page(work, chapters, radix, left_out, stubbed):
    """ASSIGNMENT.md: the parts to write, with every file and line that holds one, and the parts
    of earlier chapters that are stubbed too."""
    lines = ["# Your assignment {#assignment}", "", modified_notice(chapters, radix),
             "Each part below is marked in the code by two comment lines,",
             "`/* [student part: NAME; explained in ...] */` and `/* [end of student part: NAME] */`.",
             "Write your code between them and keep both lines: the grader finds your code by them,",
             "and uses the rest of the file as it is here (changes outside the parts are not graded).",
             "A part that a later chapter carries over (the same function) appears there too:",
             "write it in its home chapter, then copy it unchanged; `tests/check_carried.sh` lists",
             "the copies that differ. Until a part is written, its stub prints a TODO line naming it.",
             "", "| part | home | explained in | every place it appears |", "|---|---|---|---|"]
    places = {}
    for top, _, names in os.walk(work):
        for n in sorted(names):
            if not n.endswith((".c", ".cu")):
                continue
            path = os.path.join(top, n)
            rel = os.path.relpath(path, work)
            if rel.startswith("classroom/") and not rel.startswith(kit.RADIX_DIR + "/"):
                continue  # precheck's copies as handed out (classroom/reference/): not edited
            for number, line in enumerate(open(path), 1):
                m = kit.BEGIN.match(line)
                if m:
                    places.setdefault(m.group(2), []).append(f"`{rel}:{number}`")
    homes = kit.part_homes()
    order = list(homes)  # home chapters in order, each one's parts as its file has them
    earlier = []
    for name in sorted(places, key=order.index):
        folder, _, where = homes[name]
        if not (kit.number_of(folder) in chapters or (radix and folder == kit.RADIX_DIR)):
            if name in stubbed:
                earlier.append(f"`{name}` ({folder})")
            continue
        lines.append(f"| `{name}` | {folder} | {where} | {', '.join(sorted(places[name]))} |")
    if earlier:
        lines += ["", f"The parts of the earlier chapters are stubbed in this copy too: "
                  f"{', '.join(earlier)}. Bring the ones you wrote from your earlier copy, into "
                  f"every place they appear: `python3 carry_parts.py ../your-earlier-copy` "
                  f"(`--dry-run` lists what it would change; it never touches a part you have "
                  f"already written here)."]
    given = [(f, n, srcs) for f, n, srcs in kit.assignments()
             if n in chapters or (radix and n == "radix")]
    import items  # the chapters as the grader sees them: which have a --stress mode
    stress = [f"{n:02d}" for _, n, _ in given if items.CHAPTERS.get(n, {}).get("stress")]
    lines += ["", "Check a chapter with `make chapter-N && ./run --self-test`"
              + (f" (and, for chapter{'s' if len(stress) > 1 else ''} "
                 f"{' and '.join(stress)}, `./run --stress 200`)" if stress else "")
              + "; `make test` runs every check that needs no GPU, and "
              "the GPU ones where there is a GPU. Until a part is written, its chapter's "
              "self-test (and so `make test`) fails with the part's TODO line.", ""]
    lines += RULES.splitlines()
    if 1 in chapters:
        lines += ["", WORK_SHARING]
    if 8 in chapters:
        lines += ["", "Chapter 08 is a speed contest: its whole kernel is yours to tune. It is "
                  "graded on correctness and on its speed as a share of a `cudaMemcpy` of the same "
                  "size, beside the instructor's chapter 08 in the same run."]
    if radix:
        lines += ["", f"The application assignment, a radix sort built on your own exclusive scan, "
                  f"is in `{kit.RADIX_DIR}/` (its README.md says what to write)."]
    if left_out:
        lines += ["", f"Left out of this copy, because each carries the code of the chapters "
                  f"before it: {', '.join(left_out)}."]
    example = next((f"{f}/{srcs[0]}" for f, _, srcs in reversed(given) if srcs), None)
    lines += ["", "Hand in the source file of each chapter you were given"
              + (f" (for example `{example}`)" if example else "") + ", as your instructor says.",
              ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
