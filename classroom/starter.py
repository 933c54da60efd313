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
source stubbed like a chapter's). ASSIGNMENT.md at the
top lists the parts, where they are, and how to check them.

Nothing is written unless all of it can be: the copy is built in a temporary folder beside DIR
and renamed into place; DIR must not exist yet (or be an empty folder).
Exit status: 0 written; 2 bad arguments (nothing written).
"""
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kit  # noqa: E402

# Files the student's copy never holds (instructor-only, or tools that need the solutions).
INSTRUCTOR_ONLY = {"docs/answers.md", "docs/instructor.md", "tests/plant_bugs.sh"}
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
    """The files of the course: git's list when this is a checkout, else every file but build/."""
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                             cwd=kit.ROOT, check=True, capture_output=True, text=True).stdout
        files = [f for f in out.splitlines() if os.path.isfile(os.path.join(kit.ROOT, f))]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for top, dirs, names in os.walk(kit.ROOT):
            dirs[:] = [d for d in dirs if d not in (".git", "build")]
            files += [os.path.relpath(os.path.join(top, n), kit.ROOT) for n in names]
    return sorted(files)


def choose(words):
    """Parse CHAPTERS: chapter numbers with student parts, 8 (the speed contest), radix.
    Returns (chosen chapter numbers, radix chosen?)."""
    homes = kit.part_homes()
    with_parts = sorted({kit.number_of(folder) for folder, _, _ in homes.values()} - {"radix"})
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
    # their experiments' sources (docs/experiments/NN_*.cu) carry the same earlier solutions
    hidden_numbers = {f.split("_")[0] for f in hidden}

    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        fail(f"{parent} does not exist; create it first")
    work = tempfile.mkdtemp(prefix=".starter-", dir=parent)
    try:
        for rel in tracked_files():
            top = rel.split("/")[0]
            if top in hidden or rel in INSTRUCTOR_ONLY:
                continue
            if (rel.startswith("docs/experiments/") and rel.endswith((".c", ".cu", ".h"))
                    and os.path.basename(rel).split("_")[0] in hidden_numbers):
                continue
            if rel.startswith("classroom/") and not (radix and rel.startswith(kit.RADIX_DIR + "/")):
                continue
            src = os.path.join(kit.ROOT, rel)
            dst = os.path.join(work, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if rel.endswith(".md") and hidden:
                with open(dst, "w") as f:
                    f.write(unlink(open(src).read(), hidden))
            elif rel.endswith((".c", ".cu", ".h")):
                text = open(src).read()
                with open(dst, "w") as f:
                    f.write(kit.replace_parts(text, bodies, rel))
                shutil.copymode(src, dst)
            else:
                shutil.copy2(src, dst)
        for rel, (title, anchor) in PLACEHOLDERS.items():
            with open(os.path.join(work, rel), "w") as f:
                f.write(PLACEHOLDER.format(title=title, anchor=anchor))
        with open(os.path.join(work, "ASSIGNMENT.md"), "w") as f:
            f.write(assignment_page(work, chapters, radix, left_out, stubbed))
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
    print(f"starter: wrote {sys.argv[1]}: chapters {', '.join(kept) or 'none'}"
          + (f", {kit.RADIX_DIR}" if radix else "")
          + f"; {len(stubbed)} parts stubbed ({', '.join(sorted(stubbed)) or 'none'})"
          + (f"; left out (they carry earlier solutions): {', '.join(left_out)}" if left_out else ""))
    return 0


def project():
    """(the project's name, its address) from the top of LICENSE, the one place they are set."""
    text = open(os.path.join(kit.ROOT, "LICENSE")).read()
    name = re.search(r"^Project: *(.+)$", text, re.M)
    home = re.search(r"^Home: *(.+)$", text, re.M)
    return (name.group(1).strip() if name else "GPU prefix sum, step by step",
            home.group(1).strip() if home else "")


def modified_notice(chapters, radix):
    """The notice CC BY 4.0 asks of a modified copy (LICENSE-docs): what was changed, and when."""
    name, home = project()
    what = ", ".join(str(c) for c in sorted(chapters)) + (" and the radix sort" if radix else "")
    where = home if home and not home.startswith("<") else "its address: the top of LICENSE"
    return (f"This copy was made from {name} ({where}) by `make starter` on "
            f"{datetime.date.today().isoformat()}, and modified for a class: the students' parts "
            f"(chapters {what or 'none'}) are replaced by stubs, later chapters, the answers and "
            f"the instructor's guide are left out, and ASSIGNMENT.md is added. The licences are in "
            f"LICENSE and LICENSE-docs.\n")


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
    lines += ["", "Check a chapter with `make chapter-N && ./run --self-test` (and, for chapters 06 "
              "and 07, `./run --stress 200`); `make test` runs every check that needs no GPU, and "
              "the GPU ones where there is a GPU. Until a part is written, its chapter's "
              "self-test (and so `make test`) fails with the part's TODO line."]
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
    lines += ["", "Hand in the source file of each chapter you were given (for example "
              "`07_decoupled_lookback/decoupled_lookback.cu`), as your instructor says.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
