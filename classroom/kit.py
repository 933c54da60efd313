"""The classroom kit's shared knowledge: where the student's parts are, and what replaces them.

A student's part ("region") is marked in a chapter's source by two comment lines,

    /* [student part: NAME; explained in NN_chapter/README.md, "Section"] */
    ...the solution...
    /* [end of student part: NAME] */

which the compiler never sees. A part lives in one chapter (its home, the first chapter that
has it); a helper carried over unchanged into later chapters (docs/CONVENTIONS.md §2) carries
its markers with it, so every copy of the part is found by the same NAME. The stub that
replaces a part in the student's copy is classroom/stubs/NAME.txt.

Python 3, standard library only. Used by starter.py, grade.py and the tests in classroom/tests/.
"""
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIT = os.path.join(ROOT, "classroom")

BEGIN = re.compile(r'^(\s*)/\* \[student part: ([a-z0-9-]+); explained in ([^\]]+)\] \*/\s*$')
END = re.compile(r'^\s*/\* \[end of student part: ([a-z0-9-]+)\] \*/\s*$')
# A model of a student's part outside the chapters (tests/scan_networks.c draws the figures and
# checks the notes' claims with host models): where it would hand out the part solved, it is
# marked too, and the students' copy replaces it with classroom/stubs/NAME.model.txt, which
# gives the same results without the part's steps.
MODEL_BEGIN = re.compile(r'^\s*/\* \[model of student part: ([a-z0-9-]+)\] \*/\s*$')
MODEL_END = re.compile(r'^\s*/\* \[end of model of student part: ([a-z0-9-]+)\] \*/\s*$')
MODEL_FILES = ["tests/scan_networks.c"]

# The application assignment: a folder of the kit, graded like a chapter ("CH=radix").
RADIX_DIR = "classroom/radix_sort"
# The course's files, one path a line, for a copy of the course that is not a git checkout
# (`make manifest` writes it from git; the kit's test checks that it is current).
MANIFEST = "classroom/MANIFEST"


class ManifestError(Exception):
    """Neither git nor classroom/MANIFEST can say which files are the course's."""


def git_files(root=None):
    """The files git tracks in the course (its index), or None when it is not a git checkout."""
    root = root or ROOT
    try:
        r = subprocess.run(["git", "-C", root, "ls-files", "--cached", "-z"], capture_output=True,
                           text=True)
    except OSError:
        return None
    if r.returncode != 0:
        return None
    return sorted(f for f in r.stdout.split("\0") if f)


def course_files(root=None):
    """The course's own files, and only them, for what is handed out (make starter, make
    gradescope-zip): the files git tracks, or, in a copy that is not a git checkout, those
    classroom/MANIFEST lists. Never an untracked file: a class's grades, submissions, notes or
    build outputs in the course folder stay there. Files listed but missing are left out."""
    root = root or ROOT
    files = git_files(root)
    if files is None:
        path = os.path.join(root, MANIFEST)
        if not os.path.isfile(path):
            raise ManifestError(f"{root} is not a git checkout and has no {MANIFEST}: clone the "
                                f"course with git, or restore {MANIFEST}")
        files = [l.strip() for l in open(path) if l.strip() and not l.startswith("#")]
    return sorted(f for f in files if os.path.isfile(os.path.join(root, f)) and
                  not os.path.islink(os.path.join(root, f)))


class MarkerError(Exception):
    """A file whose markers do not pair up: the message names the line and the fix."""


def split(text, path="(text)"):
    """Split a source into segments: ("out", lines) outside any part, ("part", name, where,
    begin_line, lines, end_line) for a part (the marker lines kept apart from its body).
    Lines keep their newlines. Raises MarkerError for a marker that does not pair up."""
    segments, outside, part = [], [], None
    for number, line in enumerate(text.splitlines(True), 1):
        b, e = BEGIN.match(line), END.match(line)
        if part is None:
            if e:
                raise MarkerError(f"{path}:{number}: an end marker of part '{e.group(1)}' with no "
                                  f"begin marker above it: put back the begin marker, or remove this line")
            if b:
                segments.append(("out", outside))
                outside = []
                part = [b.group(2), b.group(3), line, [], number]
            else:
                outside.append(line)
        else:
            if b:
                raise MarkerError(f"{path}:{number}: part '{b.group(2)}' begins inside part "
                                  f"'{part[0]}' (begun on line {part[4]}): put back the end marker "
                                  f"of '{part[0]}' above it")
            if e:
                if e.group(1) != part[0]:
                    raise MarkerError(f"{path}:{number}: part '{part[0]}' (line {part[4]}) ends "
                                      f"with the end marker of '{e.group(1)}': the names must match")
                segments.append(("part", part[0], part[1], part[2], part[3], line))
                part = None
            else:
                part[3].append(line)
    if part is not None:
        raise MarkerError(f"{path}:{part[4]}: part '{part[0]}' has no end marker: put back the line "
                          f"/* [end of student part: {part[0]}] */ after your code")
    segments.append(("out", outside))
    return segments


def parts(text, path="(text)"):
    """The parts of a source, in order: a list of (name, where, body text)."""
    return [(s[1], s[2], "".join(s[4])) for s in split(text, path) if s[0] == "part"]


def join(segments):
    """The text of a list of segments (inverse of split())."""
    out = []
    for s in segments:
        if s[0] == "out":
            out.extend(s[1])
        else:
            out.append(s[3])
            out.extend(s[4])
            out.append(s[5])
    return "".join(out)


def blank_markers(text):
    """The source with every marker line turned into blanks of the same length: what the
    compiler sees is unchanged, and so are the line numbers (__LINE__, -lineinfo) and the file's
    size (which -lineinfo records beside its name and modification time)."""
    return "".join(re.sub(r"[^\n]", " ", l) if BEGIN.match(l) or END.match(l) else l
                   for l in text.splitlines(True))


def replace_parts(text, bodies, path="(text)"):
    """The source with the body of every part named in `bodies` (name -> text) replaced; the
    marker lines stay, so the student sees where the part goes."""
    segments = split(text, path)
    for i, s in enumerate(segments):
        if s[0] == "part" and s[1] in bodies:
            segments[i] = ("part", s[1], s[2], s[3], bodies[s[1]].splitlines(True), s[5])
    return join(segments)


def outside(text, path="(text)"):
    """The text outside every part (marker lines included), as one string per gap."""
    segments = split(text, path)
    return ["".join(s[1]) for s in segments if s[0] == "out"]


def chapter_dirs_named():
    """Every folder the Makefile's CHAPTER_DIRS names, in order, written or not."""
    text = open(os.path.join(ROOT, "Makefile")).read()
    m = re.search(r'^CHAPTER_DIRS\s*:=\s*((?:.*\\\n)*.*)$', text, re.M)
    return m.group(1).replace("\\\n", " ").split()


def chapter_dirs():
    """The chapter folders that exist, in order: those the Makefile's CHAPTER_DIRS names that
    have a Makefile (the same rule as the Makefile's READY), so that new chapters need no edit."""
    return [d for d in chapter_dirs_named() if os.path.isfile(os.path.join(ROOT, d, "Makefile"))]


def unready_chapter_dirs():
    """The chapter folders still in the works: named in CHAPTER_DIRS and present, but without a
    Makefile (a chapter builds with a Makefile.wip until its GPU checks hold, as chapters 11-13
    did). They are not part of the course yet, and may carry earlier chapters' solutions: the
    student's copy leaves them out."""
    return [d for d in chapter_dirs_named() if os.path.isdir(os.path.join(ROOT, d))
            and not os.path.isfile(os.path.join(ROOT, d, "Makefile"))]


def makefile_var(folder, name):
    """The words of `NAME := ...` in folder/Makefile (SOURCES, BASELINES), or []."""
    text = open(os.path.join(ROOT, folder, "Makefile")).read()
    m = re.search(r'^' + name + r'\s*:=\s*(.*)$', text, re.M)
    return m.group(1).split() if m else []


def number_of(folder):
    """2 for 02_warp_shfl; 'radix' for the radix sort assignment."""
    if folder == RADIX_DIR:
        return "radix"
    return int(folder.split("_")[0])


def assignments():
    """Every folder that can be handed out and graded, chapters first, then the assignment:
    a list of (folder, number, [source files])."""
    out = [(d, number_of(d), makefile_var(d, "SOURCES")) for d in chapter_dirs()]
    if os.path.isfile(os.path.join(ROOT, RADIX_DIR, "Makefile")):
        out.append((RADIX_DIR, "radix", makefile_var(RADIX_DIR, "SOURCES")))
    return out


def sources_with_parts():
    """Every source file of every chapter and of the assignment, with its parts:
    a list of (path relative to ROOT, folder, [(name, where, body)])."""
    out = []
    for folder, _, sources in assignments():
        for s in sources:
            rel = os.path.join(folder, s)
            out.append((rel, folder, parts(open(os.path.join(ROOT, rel)).read(), rel)))
    return out


def part_homes():
    """Each part's home: name -> (folder, source path, where). The home is the first source,
    in chapter order, that has the part; the later ones hold copies."""
    homes = {}
    for rel, folder, ps in sources_with_parts():
        for name, where, _ in ps:
            homes.setdefault(name, (folder, rel, where))
    return homes


def models(text):
    """The models of student parts in a file: a list of (name, body text)."""
    out, name, body = [], None, []
    for line in text.splitlines(True):
        if name is None:
            m = MODEL_BEGIN.match(line)
            if m:
                name, body = m.group(1), []
        elif MODEL_END.match(line):
            out.append((name, "".join(body)))
            name = None
        else:
            body.append(line)
    return out


def replace_models(text, names):
    """The file with the body of each model of a part in `names` replaced by its stub
    (classroom/stubs/NAME.model.txt); the marker lines stay."""
    out, skipping = [], False
    for line in text.splitlines(True):
        if skipping:
            if MODEL_END.match(line):
                out.append(line)
                skipping = False
            continue
        out.append(line)
        m = MODEL_BEGIN.match(line)
        if m and m.group(1) in names:
            out.append(open(os.path.join(KIT, "stubs", m.group(1) + ".model.txt")).read())
            skipping = True
    return "".join(out)


def stub(name):
    """The stub text of part NAME (classroom/stubs/NAME.txt)."""
    path = os.path.join(KIT, "stubs", name + ".txt")
    if not os.path.isfile(path):
        raise MarkerError(f"part '{name}' has no stub: write {os.path.relpath(path, ROOT)}")
    return open(path).read()
