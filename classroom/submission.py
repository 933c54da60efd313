"""A student's submission: their file found, their parts put into the course's source and
checked by the honesty gate (classroom/gate.py), and, for the instructor only, how alike each
part is to the course's published solution (classroom/grade.py; docs/instructor.md, "Handing
out the starter, and keeping solutions private").

The likeness is read from the preprocessed text (no comments are left in it): the same tokens,
the same shape (every name replaced by its order of first appearance), or, for a part of 80
tokens or more, 90 % alike in shape. Short parts (the warp scan is 55 tokens, the tile draw 18)
coincide honestly, so only an exact shape is reported for them.
"""
import difflib
import os
import re
import stat

import compiled
import gate
import kit
from gate import check, check_contest, course_host_names, part_lines

# C and CUDA words that renaming leaves alone (the shape of a part is what remains when every
# other name is replaced by its order of first appearance).
KEYWORDS = set("""auto break case char const continue default do double else enum extern float for
goto if inline int long register restrict return short signed sizeof static struct switch typedef
union unsigned void volatile while bool true false nullptr constexpr __global__ __device__
__host__ __shared__ __restrict__ __forceinline__ __noinline__ size_t int32_t uint32_t int64_t
uint64_t uint8_t int8_t uint16_t int16_t long pragma omp unroll""".split())
# A part this long (in tokens) and this alike in shape is reported as a likely copy; shorter
# parts (the warp scan is 55 tokens, the tile draw 18) coincide honestly, so only an exact shape is.
SIMILAR_TOKENS, SIMILAR_RATIO = 80, 0.9


def tokens(pp_text):
    """The tokens of preprocessed text (no comments are left in it)."""
    return re.findall(r"\w+|[^\w\s]", pp_text)


def shape(toks):
    names, out = {}, []
    for t in toks:
        if re.match(r"^[A-Za-z_]\w*$", t) and t not in KEYWORDS:
            t = names.setdefault(t, f"v{len(names) + 1}")
        out.append(t)
    return out


def similarity(theirs, solution):
    """(how alike two token lists are in shape, 0 to 1; the same tokens?; the same shape?)"""
    a, b = shape(theirs), shape(solution)
    ratio = difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() if a or b else 1.0
    return ratio, theirs == solution, a == b


def copy_note(name, theirs, solution):
    """The instructor's note on part `name` when it looks like the course's solution, or None;
    and the ratio."""
    ratio, same_tokens, same_shape = similarity(theirs, solution)
    if same_tokens:
        return (f"part {name} is token for token the course's published solution (comments and "
                f"blanks aside): look at it by hand"), ratio
    if same_shape:
        return (f"part {name} is the course's published solution with names changed (the same "
                f"tokens otherwise): look at it by hand"), ratio
    if ratio >= SIMILAR_RATIO and len(solution) >= SIMILAR_TOKENS:
        return (f"part {name} is {ratio:.0%} alike the course's published solution in its token "
                f"shape (names aside): look at it by hand"), ratio
    return None, ratio



_SOLUTION_TOKENS = {}


def solution_tokens(env, rel, text, part, work):
    """The tokens of part `part` of the course's source (preprocessed), once per process."""
    key = (rel, part)
    if key not in _SOLUTION_TOKENS:
        status, pp, _, _, _ = compiled.preprocess(env, rel, text, os.path.join(work, "solution"),
                                                  rel.endswith(".cu"))
        for name, (a, b) in part_lines(text, {p for p in kit.part_homes()}).items():
            _SOLUTION_TOKENS[(rel, name)] = tokens(" ".join(pp.get(l, "") for l in range(a, b + 1)))
    return _SOLUTION_TOKENS.get(key, [])


# The largest source file the grader reads (the course's are 10-40 KiB).
SOURCE_MAX = 1 << 20


class Refused(Exception):
    """A handed-in file the grader does not read: a link, not a plain file, too large."""


def read_text(path):
    """A source's text; a link, anything but a plain file, or a file over SOURCE_MAX bytes is
    refused (Refused), without reading it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        if os.path.islink(path):
            raise Refused(f"{os.path.basename(path)} is a symbolic link, not a file: hand in "
                          f"the file itself") from e
        raise
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise Refused(f"{os.path.basename(path)} is not a plain file (a device, a pipe or a "
                          f"folder): hand in the source file itself")
        if st.st_size > SOURCE_MAX:
            raise Refused(f"{os.path.basename(path)} has {st.st_size} bytes, more than the "
                          f"{SOURCE_MAX >> 10} KiB a source may have: hand in your source file")
        raw = f.read(SOURCE_MAX + 1)
    if len(raw) > SOURCE_MAX:
        raise Refused(f"{os.path.basename(path)} is larger than {SOURCE_MAX >> 10} KiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    # every line end as gcc reads it ("\r\n" and a lone "\r" end a line) turned into "\n": the
    # gate's text rule, the markers and the compiler then see the same lines
    return re.sub(r"\r\n?", "\n", text)


def prepare(env, cfg, folder, sources, find, work, reference_root=None, solutions=True,
            text_rule=True):
    """Read the student's files (find(name): the path of their copy of source `name`) and make
    the graded sources: the course's text (from reference_root, default the course) with the
    student's own parts in it, through the gate. Returns a dict: graded (the texts by source),
    reasons (the gate's), decided (False when the gate could not run: no compiler, or the file
    does not compile), notes (for the student), instructor (notes for the instructor only:
    likely copies), stubs (parts that still hold their stub), refused_text (the gate refused a
    part's text before compiling it: it must not be built either), similarity (part -> share of the
    solution's shape). Only the parts whose home is this chapter are the student's here: a part
    carried over from an earlier chapter (docs/CONVENTIONS.md §2) is graded in its home
    chapter, and here the course's code of it is used. text_rule: gate.check's (the kit's tests
    turn it off to try the checks behind it). Raises kit.MarkerError and FileNotFoundError."""
    root = reference_root or kit.ROOT
    out = {"graded": {}, "reasons": [], "decided": True, "notes": [], "instructor": [],
           "stubs": [], "similarity": {}, "gate_log": "", "own": [], "refused_text": False}
    homes = kit.part_homes()
    carried = set()
    course_host = course_host_names(env)
    for s in sources:
        rel = os.path.join(folder, s)
        ref_text = read_text(os.path.join(root, rel))
        ref_parts = kit.parts(ref_text, s)
        if not ref_parts and not cfg.get("contest"):
            continue  # a source with no student part (a driver): the course's own object
        text = read_text(find(s))
        if cfg.get("contest"):
            out["graded"][s] = text
            # the contest takes the whole file, but a part still holding its stub is not written
            # (and a file whose parts all do is not run: the starter's copy)
            marked = [(name, body) for name, _, body in kit.parts(text, s)
                      if os.path.isfile(os.path.join(kit.KIT, "stubs", name + ".txt"))]
            out["own"] += [name for name, _ in marked]
            out["stubs"] += [name for name, body in marked
                             if "".join(body.split()) == "".join(kit.stub(name).split())]
            if not env.get("NVCC"):
                out["decided"] = False
                continue
            reasons, log, view = check_contest(env, rel, text, ref_text, work,
                                               os.path.join(work, "src"))
            out["reasons"] += reasons
            if log:
                out["decided"], out["gate_log"] = False, log
            elif view is None and reasons:
                out["refused_text"] = True  # refused before compiling: nothing of it is built
            elif solutions:
                mine = tokens(" ".join(view.pp.get(l, "") for l in sorted(view.pp)))
                for label in (rel, "07_decoupled_lookback/decoupled_lookback.cu"):
                    other = read_text(os.path.join(kit.ROOT, label))
                    st, pp, _, _, _ = compiled.preprocess(env, label, other,
                                                          os.path.join(work, "copy"), True)
                    note = whole_copy_note(rel, label, mine, tokens(" ".join(
                        pp.get(l, "") for l in sorted(pp))))
                    if note:
                        out["instructor"].append(note)
            continue
        own = [name for name, _, _ in ref_parts if homes[name][0] == folder]
        out["own"] += own
        carried |= {name for name, _, _ in ref_parts if homes[name][0] != folder}
        theirs = {name: body for name, _, body in kit.parts(text, s)}
        missing = [name for name in own if name not in theirs]
        if missing:
            raise kit.MarkerError(f"{s}: the markers of part(s) {', '.join(missing)} are missing; "
                                  f"the grader finds your code between them: put them back "
                                  f"(see ASSIGNMENT.md)")
        graded = kit.replace_parts(ref_text, {name: theirs[name] for name in own}, s)
        baseline = kit.replace_parts(ref_text, {name: kit.stub(name) for name in own}, s)
        out["graded"][s] = graded
        if s.endswith(".cu") and not env.get("NVCC"):
            out["decided"] = False
            out["stubs"] += [n for n in own if "".join(theirs[n].split()) ==
                             "".join(kit.stub(n).split())]
            continue
        reasons, stubs, log, view = check(env, rel, graded, baseline, own,
                                          os.path.join(work, "gate"), bool(cfg.get("cpu")),
                                          course_host, os.path.join(work, "src"), text_rule)
        out["reasons"] += reasons
        out["stubs"] += stubs
        if view is not None and not log:
            out["instructor"] += address_notes(view, part_lines(graded, own))
        if log:
            out["decided"], out["gate_log"] = False, log
        elif view is None and reasons:
            out["refused_text"] = True  # refused before compiling: nothing of it is built
        elif solutions:
            lines = part_lines(graded, own)
            for name in own:
                if name in stubs:
                    continue
                mine = tokens(" ".join(view.pp.get(l, "") for l in range(lines[name][0],
                                                                          lines[name][1] + 1)))
                note, ratio = copy_note(name, mine, solution_tokens(env, rel, ref_text, name, work))
                out["similarity"][name] = round(ratio, 3)
                if note:
                    out["instructor"].append(note)
        changed = sum(1 for a, b in zip(kit.outside(text, s), kit.outside(ref_text, s))
                      for x, y in zip(a.splitlines(), b.splitlines()) if x.rstrip() != y.rstrip())
        changed += abs(len("".join(kit.outside(text, s)).splitlines()) -
                       len("".join(kit.outside(ref_text, s)).splitlines()))
        if changed:
            out["notes"].append(f"{s}: {changed} lines outside your parts differ from the "
                                f"course's; the grader used the course's text there")
    if carried:
        out["notes"].append(f"carried over from earlier chapters, and graded there: "
                            f"{', '.join(sorted(carried))}; the grader used the course's code "
                            f"of them here")
    if out["stubs"]:
        out["notes"].append(f"not written yet (the stub is still there): "
                            f"{', '.join(out['stubs'])}")
    return out


# Data a part may read by name (not a function whose address it takes).
LIBRARY_DATA = re.compile(r"(stdout|stderr|stdin|errno|__stack_chk_guard|\.\w.*)")


def address_notes(view, lines):
    """The instructor's notes on a part that takes the address of a library function without
    calling it (`(unsigned long)&labs`): from there a part can walk the library's memory (its
    ELF header, its dynamic symbols) to functions the gate refuses, naming none of them (the
    second gaming review's resolver). A note, not a failure: an honest part rarely does it."""
    out = []
    for name, (a, b) in sorted(lines.items()):
        # not a parallel region's body (`f._omp_fn.0`), which the compiler outlines and hands
        # to libgomp by address (the gaming review of 2026-12-04: a false note on honest code)
        seen = sorted({s for l, s in view.addresses if a <= l <= b and
                       (view.functions.get(s) or ("library",))[0] == "library" and
                       not LIBRARY_DATA.fullmatch(s) and "_omp_fn." not in s})
        if seen:
            out.append(f"part {name} takes the address of {', '.join(seen)} without calling it: "
                       f"a part that walks a library's memory from such an address can reach "
                       f"functions the honesty check refuses (exit, fork, system) without naming "
                       f"them; read the part")
    return out


def whole_copy_note(rel, label, mine, other):
    """The instructor's note when a contest file is a course file, token for token or with
    names changed."""
    if mine == other:
        return f"{rel} is token for token the course's {label} (comments and blanks aside): " \
               f"look at it by hand"
    if shape(mine) == shape(other):
        return f"{rel} is the course's {label} with names changed (the same tokens otherwise): " \
               f"look at it by hand"
    return None
