"""The honesty gate: what a student's part may not do, decided from what the compiler makes of it.

The same code runs in the grader (classroom/grade.py) and in the students' copy (`make precheck
CH=N`, classroom/precheck.py), so a student sees the verdict before the due date. It compiles
the chapter twice, with the student's parts and with the stubs in their place (the baseline,
what was handed out), and reads both with classroom/compiled.py. The student's file is compiled
at the path where the grader's builds compile it (the same __FILE__, the same includes), and
read again with each build's own flags (the build, chapter 01's sanitizer build). Before that,
the parts' text alone (text_refused()): no preprocessor directive but #define, #undef, #pragma omp
and #pragma unroll, no `##`, _Pragma or asm, no name that tells how, where or when the part is
compiled (__FILE__, __has_include, __OPTIMIZE__, __SANITIZE_ADDRESS__, ...); a part refused there
is neither compiled nor built. Then, for each of the student's own parts (the lines between its
markers):

  1. What the part's lines refer to in the compiled code (calls, addresses taken, data read, in
     host code and in device code) must be allowed (refused(), in classroom/call_rule.py):
     printf and the rest of stdio's output, OpenMP, <math.h>, <string.h>, the CUDA calls a
     launcher makes (launches, error checks, memset, occupancy and device queries, events,
     streams), the part's own functions, the student's other parts, functions of standard headers, and the course's
     functions the course's own solution of the part calls (PART_MAY_CALL). Not allowed: ending
     the program (exit, abort), files, other programs, the environment, signals; CUB, Thrust;
     the course's host code (its CPU reference, checks, readers); in a GPU chapter, host memory
     and copies (malloc, cudaMemcpy, graphs, the driver API); the course's other functions (a
     scan of another variant, the driver); any other name, unless the instructor allows it
     (GRADE_ALLOW="name ..."). Names in the source that are not references (a local variable
     called `read` or `signal`) are not the compiler's business, so they are not the gate's.
  2. A header a part's line includes must be a standard one (the C library, OpenMP, CUDA's own
     headers but CUB's and Thrust's), not one of the course's files.
  3. The course's lines outside the parts must read as they do in the baseline after
     preprocessing, in the gate's compile and in each build's (a part's macros may not change
     them), refer to the same symbols in the compiled code, and each must still be compiled into
     the function it belongs to (a part may not close its function and take the rest with it);
     a part's lines must preprocess alike in the gate's compile and in each build's.
  4. No system-call instruction on a part's lines, no function of a part that runs before
     main() or at exit, no __managed__ memory.
A part whose preprocessed lines are the stub's is "not written", never a failure of the gate.

Chapter 08, the speed contest, takes the whole file: its fixed functions (CONTEST_FIXED) must
read as the course's after preprocessing, and every other line is checked as a part's, with the
fixed functions as the course's functions it may call only where the course's own file does.
"""
import hashlib
import os
import re
import threading

import compiled
import kit
from text_rule import (DIRECTIVES_ALLOWED, TEXT_REFUSED, TEXT_RULES,  # noqa: F401 (used by others)
                       contest_text_refused, lex, text_refused)
from call_rule import (ALLOWED, CONTEST_FIXED, DEVICE_REFUSED, HEADER_REFUSED,  # noqa: F401
                       PART_MAY_CALL, course_host_names, extra_allowed, refused)


def part_lines(text, own):
    """{part name: (first line, last line)} of the bodies of the parts `own` in text (1-based;
    an empty part is (k, k - 1))."""
    out, line = {}, 1
    for s in kit.split(text):
        if s[0] == "out":
            line += len(s[1])
        else:
            if s[1] in own:
                out[s[1]] = (line + 1, line + len(s[4]))
            line += len(s[4]) + 2
    return out


def outside_map(a_text, b_text):
    """[(line in a, line in b)] of every line outside the parts, which a and b share."""
    pairs = []
    for text, k in ((a_text, 0), (b_text, 1)):
        line, lines = 1, []
        for s in kit.split(text):
            if s[0] == "out":
                lines += range(line, line + len(s[1]))
                line += len(s[1])
            else:
                lines += [line, line + len(s[4]) + 1]  # the marker lines
                line += len(s[4]) + 2
        pairs.append(lines)
    return list(zip(*pairs))


def padded(text, other):
    """text with each part padded with empty lines to the length of other's same part: the two
    then have their outside lines at the same numbers (so __LINE__ expands alike)."""
    lengths = {s[1]: len(s[4]) for s in kit.split(other) if s[0] == "part"}
    segments = kit.split(text)
    for i, s in enumerate(segments):
        if s[0] == "part" and lengths.get(s[1], 0) > len(s[4]):
            body = list(s[4])
            if body and not body[-1].endswith("\n"):
                body[-1] += "\n"
            segments[i] = s[:4] + (body + ["\n"] * (lengths[s[1]] - len(s[4])), s[5])
    return kit.join(segments)


_BASELINES, _BASELINE_LOCK = {}, threading.Lock()


def baseline_view(env, rel, text, work, cuda):
    """The compiled view of a baseline (the same for every student of a class: made once)."""
    key = (rel, hashlib.sha256(text.encode()).hexdigest(), env.get("CC"), env.get("NVCC"))
    with _BASELINE_LOCK:
        if key not in _BASELINES:
            top = os.path.join(work, "baseline_" + key[1][:12])
            _BASELINES[key] = compiled.compile_view(env, rel, text, top, cuda)
        return _BASELINES[key]


def symbol_ok(view, symbol, how, part, own_lines, cpu, course_host, seen=None, all_lines=None,
              around=frozenset()):
    """Why the reference of `part` to `symbol` is refused, or None. The source's own functions:
    those defined on a part's lines (own_lines) are the student's; the course's must be in
    PART_MAY_CALL, be called by the course's code around the part (`around`: chapter 01's
    slice_of()), or hold a part (all_lines: a carried part, such as the warp scan in chapter 03,
    is the student's work of an earlier week). A function of a header is followed to what it
    calls."""
    info = view.functions.get(symbol)
    name = compiled.base_name(symbol)
    if info and info[0] == "main":
        if any(a <= info[1] <= b for a, b in own_lines.values()):
            return None
        holds = view.lines_of.get(symbol, set())
        if any(a <= l <= b for a, b in (all_lines or own_lines).values() for l in holds) or \
                name in PART_MAY_CALL.get(part, set()) or name in around or \
                name in extra_allowed():
            return None
        may = ", ".join(sorted(PART_MAY_CALL.get(part, set()))) or "none of the course functions"
        return (f"the course's {name}(), outside your parts: your part may call {may} and what "
                f"you write")
    if info and info[0] == "generated":
        return None
    if info and info[0] not in ("library",):
        if HEADER_REFUSED.search(info[0]):
            return "a library scan or sort (CUB, Thrust)"
        if how == "device" and re.search(r"(?i)\b(cub|thrust)::", symbol):
            return "a library scan or sort (CUB, Thrust)"
        seen = set() if seen is None else seen
        if symbol in seen:
            return None
        seen.add(symbol)
        for callee, h in view.calls_in.get(symbol, []):
            why = symbol_ok(view, callee, h, part, own_lines, cpu, course_host, seen, all_lines,
                            around)
            if why:
                return f"{why} (through {name}())"
        return None
    if how == "device":
        for pattern, why in DEVICE_REFUSED:
            if re.fullmatch(pattern, name):
                return why
        if re.search(r"(?i)\b(cub|thrust)::", symbol):
            return "a library scan or sort (CUB, Thrust)"
        return None
    return refused(symbol, cpu, course_host)


def check(env, rel, graded, baseline, own, work, cpu, course_host=frozenset(), src=None,
          text_rule=True):
    """The gate on one source: `graded` (the course's text with the student's own parts `own`)
    against `baseline` (the same with their stubs). The graded text is compiled at src/rel
    (default: the folder `src` beside work), where the grader's builds compile it. Returns
    (reasons, not written, log, view): the reasons are empty when the parts pass; not written
    lists the parts that are the stub; log is the compiler's output when the gate could not
    compile (the build item reports it); view is None when the parts' text was refused before
    anything was compiled (text_refused(): then nothing of it may be built either; text_rule
    False skips that rule: the kit's tests check the compiled checks behind it)."""
    cuda = rel.endswith(".cu")
    src = src or os.path.join(os.path.dirname(work), "src")
    lines = part_lines(graded, own)
    bodies = {s[1]: "".join(s[4]) for s in kit.split(graded) if s[0] == "part"}
    refused_text = [f"part {p}, line {lines[p][0] + k - 1}: {why}" for p in own
                    for k, why in (text_refused(bodies[p]) if text_rule else [])]
    if refused_text:
        return refused_text, [], None, None
    view, log = compiled.compile_view(env, rel, graded, src, cuda,
                                      out_dir=os.path.join(work, "graded"))
    base, base_log = baseline_view(env, rel, baseline, work, cuda)
    if view is None or base is None:
        return [], [], log or base_log, None
    every = part_lines(graded, {s[1] for s in kit.split(graded) if s[0] == "part"})
    base_lines = part_lines(baseline, own)
    # the stub, untouched (comments and blanks aside): not written
    stubs = [p for p in own if [view.pp.get(l) for l in range(lines[p][0], lines[p][1] + 1)
                                if view.pp.get(l)] ==
             [base.pp.get(l) for l in range(base_lines[p][0], base_lines[p][1] + 1)
              if base.pp.get(l)]]
    reasons = []
    for part in own:
        if part in stubs:
            continue
        a, b = lines[part]
        seen = set()
        # the course's functions that the code around the part calls (in the baseline)
        holders = {f for f, ls in view.lines_of.items() if any(a <= l <= b for l in ls)}
        around = {compiled.base_name(c) for f in holders for c, _ in base.calls_in.get(f, [])}
        for line, symbol, how, func in sorted(view.refs):
            if not a <= line <= b or (symbol, how) in seen or compiled.GENERATED.match(symbol):
                continue
            if how == "host" and (compiled.base_name(func) in view.kernels or
                                  func.startswith("__device_stub__")):
                continue  # the host side of a kernel defined here: nvcc's code
            seen.add((symbol, how))
            why = symbol_ok(view, symbol, how, part, lines, cpu, course_host, None, every, around)
            if why:
                reasons.append(f"part {part}, line {line}: it refers to "
                               f"{compiled.base_name(symbol)}: {why}")
        for line, header in view.includes:
            if a <= line <= b and (HEADER_REFUSED.search(header) or
                                   os.path.realpath(header).startswith(
                                       os.path.realpath(env["ROOT"]) + os.sep)):
                reasons.append(f"part {part}, line {line}: it includes {header}: a part may "
                               f"include standard headers only (not CUB, Thrust or the "
                               f"course's files)")
        for line in view.syscalls:
            if a <= line <= b:
                reasons.append(f"part {part}, line {line}: a system-call instruction (asm)")
        for name, line in runs_before_main(view):
            if a <= line <= b:
                reasons.append(f"part {part}, line {line}: {name}() runs before main() or at "
                               f"exit")
    if view.managed:
        reasons.append(f"__managed__ memory ({', '.join(view.managed)}): host-visible memory "
                       f"outside the scratch the launcher is given")
    written = [lines[p] for p in own if p not in stubs]
    builds = build_views(env, rel, graded, src, cuda)
    reasons += how_compiled(env, rel, graded, src, cuda, view, written, builds)
    reasons += outside_changed(env, rel, graded, baseline, view, base, work, cuda, builds)
    return reasons, stubs, None, view


def build_views(env, rel, text, src, cuda):
    """[(what, flags, host, {line: text})]: the source as each of the grader's builds
    preprocesses it (compiled.build_configs(); for a .cu, the device side and the host side),
    from src/rel, where that build compiles it."""
    out = []
    for what, flags in compiled.build_configs(env, rel, cuda):
        for host in ((False, True) if cuda else (False,)):
            status, pp, _, log, _ = compiled.preprocess(env, rel, text, src, cuda, flags=flags,
                                                        host=host)
            out.append((what + (" (host side)" if host else ""), flags, host,
                        pp if not status else {}))
    return out


def how_compiled(env, rel, text, src, cuda, view, ranges, builds):
    """Reasons why the gate's view is not each real build's, on the lines in `ranges`: a #line
    directive (the preprocessor's numbering moved: code would be counted on other lines), or a
    line that preprocesses differently with a build's flags (builds: build_views()) than with
    the gate's (-O3: __OPTIMIZE__ defined; ASan: __SANITIZE_ADDRESS__; without -G: no
    __CUDACC_DEBUG__): a part that tests them could show the gate one code and build another.
    For a .cu, both sides are compared (the device's, and the host's)."""
    reasons = [f"{rel}:{view.moved[0]}: a #line directive (it would move code to other lines, "
               f"out of the check's sight)"] if view.moved else []
    gate_host = compiled.preprocess(env, rel, text, src, cuda, None, True)[1] if cuda else {}
    for what, flags, host, real in builds:
        mine = gate_host if host else view.pp
        for a, b in ranges:
            bad = [l for l in range(a, b + 1) if mine.get(l) != real.get(l)]
            if bad:
                shown = " ".join(w for w in flags if w.startswith(("-O", "-f", "-G")))
                reasons.append(f"{rel}:{bad[0]}: this line of your part reads differently in "
                               f"{what} ({shown}) "
                               f"than in the check (it tests how it is compiled: __OPTIMIZE__, "
                               f"__SANITIZE_ADDRESS__, __CUDACC_DEBUG__): a part may not")
                return reasons
    return reasons


def same_line(pa, la, pb, lb):
    """1 if line la of one preprocessed text reads as line lb of another, but for what __LINE__
    made of each (its own line number)."""
    a, b = pa.get(la), pb.get(lb)
    return a == b or (a is not None and b is not None and
                      re.sub(rf"\b{la}\b", "L", a) == re.sub(rf"\b{lb}\b", "L", b))


_BASE_PP = {}


def baseline_pp(env, rel, text, work, cuda, flags, host):
    """A baseline as one of the grader's builds preprocesses it (once per class)."""
    key = (rel, hashlib.sha256(text.encode()).hexdigest(), tuple(flags), host)
    with _BASELINE_LOCK:
        if key not in _BASE_PP:
            top = os.path.join(work, "baseline_pp_" + hashlib.sha256(repr(key).encode())
                               .hexdigest()[:12])
            _BASE_PP[key] = compiled.preprocess(env, rel, text, top, cuda, flags=flags,
                                                host=host)[1]
        return _BASE_PP[key]


# What a compiler inserts into a function without the source naming it: the stack protector's
# check (at the closing brace, only in functions that hold an array, which a part may add), the
# copies and fills of structures, and the helpers of ALLOWED's "the compiler's helpers".
COMPILER_INSERTS = re.compile(r"(mem(cpy|set|move)|" + dict(ALLOWED)["the compiler's helpers"] +
                              r")")


def runs_before_main(view):
    """(name, line) of each function of the file's own that runs before main() or at exit
    (view.init: constructors, destructors)."""
    return [(compiled.base_name(f), view.functions[f][1]) for f in sorted(view.init)
            if view.functions.get(f, ("",))[0] == "main"]


def symbols_by_line(view):
    """{line: {(name, how)}}: what each line of the source refers to in the compiled code
    (numbered local names, such as a static's `said.1` or OpenMP's `f._omp_fn.0`, without
    their number; nvcc's per-file namespace `_INTERNAL_<hash>_..._cu_<hash>::` left out), but
    the calls the compiler inserts (COMPILER_INSERTS) where the line's text does not name them:
    whether it inserts them depends on the toolchain and on the function's other lines."""
    out = {}
    for line, symbol, how, _ in view.refs:
        if not compiled.GENERATED.match(symbol):
            name = re.sub(r"\b_INTERNAL_\w*?_[0-9a-f]+::", "", compiled.base_name(symbol))
            name = re.sub(r"(\.\d+)+$", "", name)
            if COMPILER_INSERTS.fullmatch(name) and \
                    not re.search(rf"\b{re.escape(name)}\b", view.pp.get(line) or ""):
                continue
            out.setdefault(line, set()).add((name, how))
    return out


OPENMP_RUNTIME = re.compile(r"GOMP_\w+")


def lines_before_parts(text, pp):
    """The course's lines that a part's begin marker directly follows: the last line above each
    begin marker with compiled text (pp: the line's preprocessed text), the marker line itself
    and the lines between (comments, blank lines)."""
    lines, line = set(), 1
    for s in kit.split(text):
        if s[0] == "out":
            line += len(s[1])
            continue
        k = line  # the begin marker
        lines.add(k)
        while k > 1:
            k -= 1
            lines.add(k)
            if (pp.get(k) or "").strip():
                break
        line += len(s[4]) + 2
    return lines


def outside_changed(env, rel, graded, baseline, view, base, work, cuda, builds=()):
    """The course's lines outside the parts must preprocess to the same text as in the
    baseline, in the gate's compile and in every build of the grader (builds: build_views()),
    refer to the same symbols in the compiled code, and be compiled into the same functions.
    Their numbers differ where a part's length does, and so may what __LINE__ expands to: a
    line that differs only there is compared again with both files' parts padded to the same
    lengths."""
    reasons = []

    def differs(pa, pb, pairs):
        for la, lb in pairs:
            if not same_line(pa, la, pb, lb):
                return la, pa.get(la)
        return None
    pairs = outside_map(graded, baseline)
    seen = [("the check", None, False, view.pp, base.pp)] + \
        [(what, flags, host, pp, baseline_pp(env, rel, baseline, work, cuda, flags, host))
         for what, flags, host, pp in builds]
    for what, flags, host, pp_a, pp_b in seen:
        if not differs(pp_a, pp_b, pairs):
            continue
        a_pad, b_pad = padded(graded, baseline), padded(baseline, graded)
        sa = compiled.preprocess(env, rel, a_pad, os.path.join(work, "pad_a"), cuda, host=host,
                                 flags=flags)
        sb = compiled.preprocess(env, rel, b_pad, os.path.join(work, "pad_b"), cuda, host=host,
                                 flags=flags)
        found = differs(sa[1], sb[1], outside_map(a_pad, b_pad)) if not (sa[0] or sb[0]) else None
        if found:
            la, text = found
            at = dict(outside_map(a_pad, graded)).get(la, la)
            reasons.append(f"{rel}:{at}: the course's line reads differently after your part's "
                           f"directives ({(text or '(nothing)')[:60]})"
                           + ("" if flags is None else f", in {what}") +
                           ": a part may not change the code outside it")
            return reasons
    for la, lb in pairs:
        for side in ("host", "device"):
            before = {compiled.base_name(f) for f in base.function_at(lb, side)}
            after = {compiled.base_name(f) for f in view.function_at(la, side)}
            emitted = {compiled.base_name(f) for f, ls in view.lines_of.items() if ls}
            # a line of a function the graded code still has, now elsewhere or nowhere
            if before and not before & after and (after or before & emitted):
                reasons.append(f"{rel}:{la}: the course's line is now compiled into "
                               f"{', '.join(sorted(after))}() instead of "
                               f"{', '.join(sorted(before))}(): a part must end inside the "
                               f"function it begins in")
                return reasons
    mine, theirs = symbols_by_line(view), symbols_by_line(base)
    before_a, before_b = lines_before_parts(graded, view.pp), lines_before_parts(baseline, base.pp)
    for la, lb in pairs:
        a, b = mine.get(la, set()), theirs.get(lb, set())
        if la in before_a and lb in before_b:
            # GCC places the calls that open a part's first OpenMP construct (GOMP_single_start,
            # GOMP_barrier, ...) on the statement before it: the part's, not the course's line's
            a, b = ({x for x in s if not OPENMP_RUNTIME.match(x[0])} for s in (a, b))
        if a != b:
            now = sorted(n for n, _ in a - b)
            was = sorted(n for n, _ in b - a)
            reasons.append(f"{rel}:{la}: the course's line now refers to "
                           f"{', '.join(now) or 'nothing more'} instead of "
                           f"{', '.join(was) or 'nothing'} in the compiled code: a part may not "
                           f"change what the code outside it calls")
            return reasons
    return reasons


# ---------------------------------------------------------------------------------------------
# Chapter 08, the contest: the whole file
# ---------------------------------------------------------------------------------------------

def function_span(lines, name):
    """(first, last) 1-based lines of the top-level function `name` (from its header to its
    closing brace at column 0), or None."""
    for i, line in enumerate(lines):
        if re.match(r"^(static |int |__global__ |__device__ )[^;]*\b" + re.escape(name) + r"\(",
                    line):
            for j in range(i, len(lines)):
                if lines[j].startswith("}"):
                    return i + 1, j + 1
    return None


def check_contest(env, rel, text, reference, work, src=None):
    """The contest's gate: (reasons, log, view). `reference` is the course's file (the
    grader's) or the handed-out one (the students' copy): the fixed functions are outside the
    parts, the same in both. The file is compiled at src/rel (default: the folder `src` in
    work), where the grader's build compiles it."""
    src = src or os.path.join(work, "src")
    refused_text = [f"{rel}:{line}: {why}" for line, why in contest_text_refused(text, reference)]
    if refused_text:
        return refused_text, None, None
    view, log = compiled.compile_view(env, rel, text, src, True,
                                      out_dir=os.path.join(work, "graded"))
    ref, ref_log = baseline_view(env, rel, reference, work, True)
    if view is None or ref is None:
        return [], log or ref_log, None
    reasons, fixed = [], {}
    for f in CONTEST_FIXED:
        a, b = function_span(text.split("\n"), f), function_span(reference.split("\n"), f)
        if b is None:
            continue
        mine = a and [l for l in range(a[0], a[1] + 1) if view.pp.get(l)]
        theirs = [l for l in range(b[0], b[1] + 1) if ref.pp.get(l)]
        if not mine or len(mine) != len(theirs) or \
                not all(same_line(view.pp, x, ref.pp, y) for x, y in zip(mine, theirs)):
            reasons.append(f"{rel}: {f}() differs from the course's: it chooses, checks or "
                           f"prints what is timed, so it must stay as it is")
        if a:
            fixed[f] = a
    allowed_fixed = set()
    for line, symbol, how, func in ref.refs:
        name = compiled.base_name(symbol)
        if name in CONTEST_FIXED and not any(a <= line <= b for a, b in
                                             [function_span(reference.split("\n"), f) or (0, -1)
                                              for f in CONTEST_FIXED]):
            allowed_fixed.add(name)
    seen = set()
    for line, symbol, how, func in sorted(view.refs):
        if any(a <= line <= b for a, b in fixed.values()) or (symbol, how) in seen:
            continue
        if how == "host" and (compiled.base_name(func) in view.kernels or
                              func.startswith("__device_stub__")):
            continue
        seen.add((symbol, how))
        name = compiled.base_name(symbol)
        if name in CONTEST_FIXED:
            if name not in allowed_fixed:
                reasons.append(f"{rel}:{line}: it calls {name}(), a fixed function, which only "
                               f"the fixed functions may use")
            continue
        info = view.functions.get(symbol)
        if info and info[0] == "main":
            continue  # the contestant's own functions
        why = symbol_ok(view, symbol, how, "", {"file": (1, 10 ** 9)}, False, set())
        if why:
            reasons.append(f"{rel}:{line}: it refers to {name}: {why}")
    ref_headers = {h for _, h in ref.includes}
    for line, header in view.includes:
        if header not in ref_headers and (HEADER_REFUSED.search(header) or
                                          os.path.realpath(header).startswith(
                                              os.path.realpath(env["ROOT"]) + os.sep)):
            reasons.append(f"{rel}:{line}: it includes {header}, which the course's file does not")
    for line in view.syscalls:
        reasons.append(f"{rel}:{line}: a system-call instruction (asm)")
    # as the parts' gate (the gaming review of 2026-12-04, A11); what nvcc registers in every
    # file, the course's file has too
    ref_init = {compiled.base_name(f) for f in ref.init}
    for name, line in runs_before_main(view):
        if name not in ref_init:
            reasons.append(f"{rel}:{line}: {name}() runs before main() or at exit")
    if view.managed:
        reasons.append(f"__managed__ memory ({', '.join(view.managed)})")
    reasons += how_compiled(env, rel, text, src, True, view, [(1, text.count("\n") + 1)],
                            build_views(env, rel, text, src, True))
    return reasons, None, view
