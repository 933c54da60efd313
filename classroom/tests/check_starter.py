#!/usr/bin/env python3
"""No line of a stubbed part's solution survives anywhere in a student's copy.

    classroom/tests/check_starter.py DIR [CHAPTERS...]    (the CHAPTERS DIR was written with)

The solution lines are the lines of every copy of every stubbed part, with blanks collapsed,
less those that also appear outside the parts of the course's own sources (the starter shows
those anyway: `}` or `for (int k = 0; k < ITEMS_PER_THREAD; ++k)` give nothing away) and the
lines of the stubs themselves. Two searches:
  - in the chapters' and the assignment's sources of DIR, no line equals a solution line, of
    any length;
  - in every text file of DIR (notes, docs, tests, scripts), no line contains a solution line of
    20 characters or more (shorter ones, like `break;`, turn up in any C file).
Each line is also read decoded (decoded()): backslash escapes undone, as in a sed script's regex
of a solution line, and HTML entities.
The parts of the chapters left out of the copy count as stubbed here. The models of the
stubbed parts outside the chapters (tests/scan_networks.c's model_threads())
count as solution lines too. Also checked: docs/answers.md and docs/instructor.md are
placeholders, no instructor-only file (the grader, tests/plant_bugs.sh) is there, and of
classroom/ only what `make precheck` needs (starter.PRECHECK, the stubs, classroom/reference/)
and the radix sort's folder. Exit 0 when clean; 1 with every leak listed.
"""
import html
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import kit  # noqa: E402
import starter  # noqa: E402

LONG = 20


def norm(line):
    return re.sub(r"\s+", " ", line).strip()


def decoded(line):
    """The line, and what it reads as once the obvious encodings are undone: backslash escapes
    (a sed or Python regex of a solution line, `tile \\* TILE_ITEMS \\+ \\(size_t\\)`, with `\\n`
    joining lines) and HTML entities; each piece on its own."""
    out = [line]
    if "\\" in line:
        u = re.sub(r"\\[nr]", "\n", line)
        u = re.sub(r"\\t", " ", u)
        out += re.sub(r"\\(.)", r"\1", u).split("\n")
    if "&" in line:
        out += html.unescape(line).split("\n")
    return out


def solution_lines(stubbed):
    common, stub_lines, solution = set(), set(), set()
    for rel, folder, ps in kit.sources_with_parts():
        text = open(os.path.join(kit.ROOT, rel)).read()
        for gap in kit.outside(text, rel):
            common.update(norm(l) for l in gap.splitlines())
        for name, where, body in ps:
            if name in stubbed:
                solution.update(norm(l) for l in body.splitlines())
    for rel in kit.MODEL_FILES:
        text = open(os.path.join(kit.ROOT, rel)).read()
        for name, body in kit.models(text):
            if name in stubbed:
                solution.update(norm(l) for l in body.splitlines())
                stub_lines.update(norm(l) for l in open(os.path.join(
                    kit.KIT, "stubs", name + ".model.txt")).read().splitlines())
        inside = False
        for line in text.splitlines():
            inside = (inside or bool(kit.MODEL_BEGIN.match(line))) and not kit.MODEL_END.match(line)
            if not inside:
                common.add(norm(line))
    for name in stubbed:  # (a part left out with its chapter may have no stub: chapter 12's)
        if os.path.isfile(os.path.join(kit.KIT, "stubs", name + ".txt")):
            stub_lines.update(norm(l) for l in kit.stub(name).splitlines())
    return {l for l in solution if l} - common - stub_lines


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    top = sys.argv[1]
    chapters, radix = starter.choose(sys.argv[2:])
    kept, left_out, stubbed = starter.plan(chapters, radix)
    # the parts of the chapters left out are not in the copy at all: their solutions must not
    # be there either (a script of an experiment that patches one, say)
    gone = {name for name, (folder, _, _) in kit.part_homes().items() if folder in left_out}
    lines = solution_lines(stubbed | gone)
    stub_text = {norm(l) for name in stubbed for l in kit.stub(name).splitlines()} | {
        norm(l) for name in stubbed if os.path.isfile(os.path.join(kit.KIT, "stubs", name + ".model.txt"))
        for l in open(os.path.join(kit.KIT, "stubs", name + ".model.txt")).read().splitlines()}
    long_lines = [l for l in lines if len(l) >= LONG]
    sources = {os.path.join(folder, s) for folder, _, srcs in kit.assignments() for s in srcs}
    leaks, files = [], 0
    for base, dirs, names in os.walk(top):
        dirs[:] = [d for d in dirs if d not in (".git", "build")]
        for n in names:
            path = os.path.join(base, n)
            rel = os.path.relpath(path, top)
            try:
                text = open(path, encoding="utf-8").read()
            except (UnicodeDecodeError, OSError):
                continue  # not text
            files += 1
            for number, line in enumerate(text.splitlines(), 1):
                for l in {norm(piece) for piece in decoded(line)}:
                    if (rel in sources and l in lines) or \
                            (l not in stub_text and any(s in l for s in long_lines)):
                        leaks.append(f"{rel}:{number}: {l}")
                        break
    for rel in starter.PLACEHOLDERS:
        path = os.path.join(top, rel)
        if not os.path.isfile(path) or "not part of the student's copy" not in open(path).read():
            leaks.append(f"{rel}: not the placeholder")
    for rel in sorted(starter.INSTRUCTOR_ONLY - set(starter.PLACEHOLDERS)) + ["classroom/grade.py"]:
        if os.path.exists(os.path.join(top, rel)):
            leaks.append(f"{rel}: an instructor-only file is in the copy")
    # compiled code (a SASS listing, an object) and the kit's grading logs: solutions in another
    # form, which the source lines above cannot find
    for base, dirs, names in os.walk(top):
        dirs[:] = [d for d in dirs if d not in (".git", "build")]
        for n in names:
            rel = os.path.relpath(os.path.join(base, n), top)
            with open(os.path.join(base, n), "rb") as f:
                elf = f.read(4) == b"\x7fELF"
            if elf or n.endswith((".sass", ".ptx", ".cubin", ".fatbin", ".o")) or \
                    re.match(r"docs/experiments/runs_[^/]+/kit_", rel):
                leaks.append(f"{rel}: compiled code or the kit's grading logs are in the copy")
    for base, dirs, names in os.walk(os.path.join(top, "classroom")):
        for n in names:
            rel = os.path.relpath(os.path.join(base, n), top)
            if rel not in starter.PRECHECK and not rel.startswith(
                    ("classroom/stubs/", "classroom/reference/", kit.RADIX_DIR + "/")):
                leaks.append(f"{rel}: a file of the kit that the copy does not need")
    for line in leaks[:40]:
        print("LEAK " + line)
    print(f"starter {top}: {starter.plural(len(stubbed), 'part', ' ')}stubbed, {len(lines)} solution lines "
          f"({len(long_lines)} of {LONG}+ characters) searched in {files} files: "
          f"{len(leaks)} found")
    return 1 if leaks or not lines else 0


if __name__ == "__main__":
    sys.exit(main())
