#!/usr/bin/env python3
"""The grader behind `make grade` and `make grade-class` (docs/instructor.md, "Grading").

    make grade CH=N STUDENT=path [OUT=dir]        one submission: a table on the terminal and
                                                  OUT/results.json (Gradescope's format)
    make grade-class CH=N CLASS=folder [OUT=dir] [ONLY="names"]
                                                  every submission in folder (one sub-folder or
                                                  file each, or Gradescope's export) into
                                                  OUT/grades.csv and OUT/gradescope_scores.csv,
                                                  and one OUT/<name>/results.json each; ONLY
                                                  regrades those, replacing their rows
    make grade-setup CH=N                         what grading N needs, built once ahead

N is a chapter number (1-8) or `radix`. STUDENT is the file the student handed in (for example
decoupled_lookback.cu) or a folder holding it anywhere (their whole copy of the course, or
Gradescope's /autograder/submission). Only the student's parts are taken from it: the grader
puts them into the course's own source, builds that with the course's flags and its own
common/, and runs its own tests; what the student changed outside the parts is reported and not
used. Chapter 08, the speed contest, takes the whole file, under the rules of honesty() below.

Environment: GRADE_SEED (the hidden vectors' and the in-place battery's seed: set your own, the
default is public), GRADE_MAX_N (the largest size any check uses: for quick runs and tests),
GRADE_SPREAD_PCT (the widest spread of the memcpy times across the speed rounds that is scored,
default 5), GRADE_RUNS (speed measurements tried before the item is called noisy, default 3).

Items and points (docs/instructor.md has the rubric behind them):
  build 5 (none while a part holds its stub); self-test 15 (10 for single-pass chapters, which
  add stress 5); in place 5; hidden vectors 25; sanitizers 10; speed 25; honesty 0 (a gate:
  failed, it takes every point, the build's and the sanitizers' too); radix sort: build 5,
  self-test 15, in place -, hidden 25 (keys, values, stability), sanitizers 10, speed 25
  (against cub::DeviceRadixSort in the same run).
Before any of the student's code runs, the grader makes and hashes its own files (the checker,
the hidden vectors, the harnesses: class Made); as root, the student's programs run as nobody
(class Sandbox).
Without a GPU the GPU items are "not graded here", stay out of the total, and the grade is
marked partial: never a zero for a missing GPU (nor, without nvcc, for a build that cannot be
tried). Chapter 01 runs on OMP_NUM_THREADS 1, 3, 4 and 7 (CPU_THREADS), whatever the CPU count.
Students see (results.json's output and visible items) only the items shown now; the hidden
vectors are after_due_date, the notes for the instructor (likely copies) hidden, stdout hidden.
Exit status: 0 graded (whatever the score); 2 bad arguments; 3 the grader itself failed.
"""
import csv
import difflib
import hashlib
import itertools
import json
import os
import pwd
import random
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kit  # noqa: E402

ROOT = kit.ROOT
# Seconds any one run may take (GRADE_TIMEOUT): a hang is a failure, not a stuck grader.
TIMEOUT = int(os.environ.get("GRADE_TIMEOUT", "600")) if os.environ.get("GRADE_TIMEOUT", "").isdigit() else 600

# The chapters as the grader sees them: the variant its speed item times, the tile near whose
# multiples the hidden sizes sit, whether it is a single-pass chapter (--stress), and the
# segment length of the segmented scans of chapters 02 and 03 (each segment scanned on its own).
CHAPTERS = {
    1: {"cpu": True, "tile": None},
    2: {"speed": "shfl", "tile": 512, "segment": 32, "extra": [31, 33, 32 * 1000 + 7]},
    3: {"speed": "sklansky", "tile": 1024, "segment": 1024},
    4: {"speed": "scan-then-fan", "tile": 1024, "extra": [(1 << 20) - 1, (1 << 20) + 1,
                                                         (1 << 20) + 1025, 1024 * 1025 * 3]},
    5: {"speed": "reduce-then-scan", "tile": 1024, "extra": [(1 << 21) + 1, (1 << 22) - 3,
                                                            29999999]},
    6: {"speed": "held-max", "tile": 1024, "stress": True,  # chunks of 4, 16, 56 (H200), 256 tiles
        "extra": [4096 + 1, 16384 - 1, 16384 + 1, 57344 - 1, 57344 + 1, 262144 * 5 + 7]},
    7: {"speed": "decoupled-lookback", "tile": 1024, "stress": True,
        "extra": [32 * 1024, 32 * 1024 + 1, 33 * 1024 + 5, 64 * 1024 + 1]},
    8: {"speed": "decoupled-lookback", "tile": 4096, "stress": True, "contest": True,
        "sanitize_variant": "decoupled-lookback", "file_variant": "decoupled-lookback",
        "extra": [32 * 4096 + 1, 256 * 4096 + 3, 257 * 4096 - 1]},
    "radix": {"radix": True, "speed": "radix-sort", "tile": 2048, "sanitize_variant": "radix-sort",
              "file_variant": "radix-sort",
              "extra": [255, 257, 2048 * 33 + 1]},
}

# Functions of chapter 08 a contestant may not change (the variant dispatch, the scratch sizes,
# the description line, the modes and main): the kernel is theirs to tune, what is timed and checked is not.
CONTEST_FIXED = ["lookback_temp_bytes", "lookback_scan", "describe_tiles", "two_streams_mode",
                 "main"]
# What only the fixed functions may name: themselves, and the variant that calls CUB.
CONTEST_GUARDED = CONTEST_FIXED + ["VARIANT_CUB"]

# What a student's part may not name (in the code as the compiler reads it: normalise()), with
# why. The library pattern takes any name with cub or thrust in it, in any case (VARIANT_CUB,
# ThrustSort, cub_scan), except the words cube and cubic.
FORBIDDEN = [
    (r"(?i)\b\w*?(?:cub(?!e|ic)|thrust)\w*", "a library scan or sort (CUB, Thrust)"),
    (r"\b(scan_reference|generate_input|verify_scan|verify_report|self_test_run|scan_file_run|"
     r"gpu_chapter_main|sort_program_main|sort_reference|io_\w+|cli_\w+)\b",
     "the course's own host code (the CPU reference, the checks, the files)"),
    (r"\b(malloc|calloc|realloc|free|xmalloc|new|delete|aligned_alloc|posix_memalign|memalign|"
     r"valloc|pvalloc|alloca|__builtin_\w*|__managed__)\b", "host memory (a scan on the host)"),
    (r"\bstd\b", "the C++ standard library (host memory, threads, files)"),
    (r"\bcuda(Memcpy\w*|Malloc\w*|HostAlloc|HostRegister|HostGetDevicePointer|Free\w*|"
     r"MemcpyToSymbol|MemcpyFromSymbol|Graph\w*|GetDriverEntryPoint\w*|LaunchHostFunc|"
     r"StreamAddCallback)\b|\bcuGetProcAddress\w*|\bcu[A-Z]\w*",
     "copies or allocations (a scan on the host, or memory outside the scratch the launcher is "
     "given), or the driver's functions"),
    (r"\b(fopen|freopen|fdopen|fclose|fread|fwrite|fgets|fscanf|open|read|write|close|mmap|dup|"
     r"dup2|popen|system|fork|exec\w*|dlopen|dlsym|getenv)\b", "files or other programs"),
    (r"\b(exit|_exit|_Exit|quick_exit|abort|atexit|at_quick_exit|longjmp|setjmp|signal|raise|"
     r"kill)\b", "ending the program early"),
    (r"\b(extern|main|_Pragma|__attribute__|class|template|operator|typeid)\b",
     "declarations that reach outside the part"),
]
# Host code inside a course function (chapter 01's three steps, chapter 04's recursion) keeps
# nothing from one call to the next and waits on no memory: no static or volatile there.
HOST_FUNCTION_FORBIDDEN = (r"\b(static|volatile|thread_local|_Thread_local)\b",
                           "state kept from one call to the next, or a wait on memory")
# What host code may call besides the solution's calls and the student's own functions:
# the statements and operators that look like calls, and the launch checks.
CALL_LIKE = set("""if for while switch return sizeof alignof _Alignof __alignof__ decltype
typeof __typeof__ defined""".split())
# The directives a part may hold: OpenMP and unrolling pragmas, and constants (a macro whose
# value is only numbers and arithmetic cannot bring in anyone's code).
PRAGMA_OK = re.compile(r"^\s*#\s*pragma\s+(omp|unroll|nounroll)\b")
DEFINE = re.compile(r"^\s*#\s*define\s+[A-Za-z_]\w*\s+(.*?)\s*$")
NUMBER = re.compile(r"^(0[xX][0-9a-fA-F]+|\d+)[uUlL]*$")


def directive_ok(line):
    """1 for `#pragma omp|unroll ...` or `#define NAME <numbers and arithmetic>` (a name defined
    twice is a warning, so an error: a part cannot redefine the course's constants)."""
    if PRAGMA_OK.match(line):
        return True
    m = DEFINE.match(line)
    return bool(m and m.group(1) and re.fullmatch(r"[\w()+\-*/<>|&~ ]+", m.group(1)) and
                all(NUMBER.match(t) for t in re.findall(r"\w+", m.group(1))))


def log(msg):
    print(msg, flush=True)


class GradeError(Exception):
    """The grader itself cannot go on (exit 3)."""


# ---------------------------------------------------------------------------------------------
# The environment: the course's flags and objects, the GPU, compute-sanitizer
# ---------------------------------------------------------------------------------------------

def course_env():
    """The compilers, flags and objects of the course's last build. The flags come from
    build/flags.txt, which every make rewrites when its flags change (make grade takes SMS and
    DEBUG from it unless given, so it rebuilds nothing): the students' code is then built
    exactly as the chapters were.
    `make classroom-env` is asked with a build folder of its own for the rest, because a make
    with other flags than the last build's would rewrite build/flags.txt, and the next make would
    rebuild everything."""
    build = os.path.join(ROOT, "build")
    flags_file = os.path.join(build, "flags.txt")
    if not os.path.isfile(flags_file):
        raise GradeError("build/flags.txt is missing: run make common (make grade does) first")
    scratch = os.path.join(build, "grade", "env")
    out = subprocess.run(["make", "-s", "--no-print-directory", "classroom-env", "BUILD=" + scratch],
                         cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        raise GradeError("make classroom-env failed: " + out.stderr.strip())
    env = dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)
    for key in ("COMMON_HOST_OBJS", "COMMON_CUDA_OBJS", "COMMON_BASELINE_OBJS"):
        env[key] = env[key].replace(scratch, build)
    env["BUILD"] = build
    cc_line, nvcc_line = (open(flags_file).read().splitlines() + ["", ""])[:2]
    env["CC"], _, env["CFLAGS"] = cc_line.partition(" ")
    if nvcc_line.startswith(" ") or not nvcc_line:
        env["NVCC"], env["NVCCFLAGS"], env["GENCODE"] = "", "", ""
    else:
        env["NVCC"], _, env["NVCCFLAGS"] = nvcc_line.partition(" ")
        env["GENCODE"] = " ".join(re.findall(r"-gencode \S+", env["NVCCFLAGS"]))
    # what a make of the course's own objects must be told to keep these flags
    sms = re.findall(r"code=sm_(\d+)", env["GENCODE"])
    env["MAKE_ARGS"] = ([f"SMS={' '.join(sms)}"] if sms else []) + \
        (["DEBUG=1"] if " -G " in f" {env['NVCCFLAGS']} " else [])
    return env


def gpu_status():
    """(True, probe line) when a CUDA device runs code here, else (False, why not)."""
    probe = os.path.join(ROOT, "build", "tests", "cuda_probe")
    if not os.access(probe, os.X_OK):
        return False, "no CUDA compiler (nvcc) found, so no GPU code was built"
    r = subprocess.run([probe], capture_output=True, text=True)
    line = (r.stdout + r.stderr).strip().splitlines()
    line = line[-1] if line else ""
    return (r.returncode == 0), (line or f"the CUDA probe exited {r.returncode}")


def sanitizer_path(env):
    nvcc_dir = os.path.dirname(env.get("NVCC", "")) if env.get("NVCC") else ""
    for cand in ([os.path.join(nvcc_dir, "compute-sanitizer")] if nvcc_dir else []) + \
            [shutil.which("compute-sanitizer") or ""]:
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def run(cmd, cwd=None, timeout=TIMEOUT, env=None):
    """Run a command; return (exit status, combined output). A timeout is status 124."""
    try:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                           env=env, errors="replace")
        return r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return 124, out + f"\n(stopped after {timeout} s: it did not finish)"


def tail(text, n=12):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return "\n".join(lines[-n:])


def max_n():
    v = os.environ.get("GRADE_MAX_N", "")
    return int(v) if v.isdigit() else None


def grade_seed():
    v = os.environ.get("GRADE_SEED", "")
    return (int(v), True) if v.isdigit() else (20261201, False)


# ---------------------------------------------------------------------------------------------
# The student's file: found, spliced into the course's source, checked for honesty
# ---------------------------------------------------------------------------------------------

def find_source(student, name):
    """The student's copy of source `name` in `student` (a file or a folder), or raise."""
    if os.path.isfile(student):
        return student
    found = []
    for top, dirs, names in os.walk(student):
        dirs[:] = [d for d in dirs if d not in (".git", "build")]
        if name in names:
            found.append(os.path.join(top, name))
    if not found:
        raise FileNotFoundError(f"no file named {name} in {student}: hand in {name}")
    found.sort(key=lambda p: (len(p.split(os.sep)), p))
    return found[0]


# Trigraphs (C11 5.2.1.1; gcc replaces them under -std=c11): what each ??x stands for.
TRIGRAPHS = {"=": "#", "/": "\\", "'": "^", "(": "[", ")": "]", "!": "|", "<": "{", ">": "}",
             "-": "~"}
# Digraphs (C11 6.4.6p3, C++ [lex.digraph]), longest first; C++'s `<::` (not followed by `:` or
# `>`) is `<` then `::`, not `<:` then `:`.
DIGRAPH = re.compile(r"%:%:|%:|<:(?!:(?![:>]))|:>|<%|%>")
DIGRAPHS = {"%:%:": "##", "%:": "#", "<:": "[", ":>": "]", "<%": "{", "%>": "}"}
# The lexer of normalise(): comments, raw strings (refused), pp-numbers (C++14's 1'000 too),
# identifiers, string and character literals; whatever lies between is punctuation and blanks.
LEXEME = re.compile(r"(?P<comment>//[^\n]*|/\*.*?\*/)|(?P<raw>(?<!\w)(?:u8|u|U|L)?R\")|"
                    r"(?P<number>\.?\d(?:[eEpP][+-]|'[0-9A-Za-z_]|[\w.])*)|(?P<name>[A-Za-z_]\w*)|"
                    r"(?P<literal>\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*')", re.S)


def splice(text):
    """Translation phases 1 and 2: trigraphs replaced, every backslash-newline removed (a
    backslash and blanks before the newline too, which gcc takes with a warning). The lines a
    splice joins are kept as empty lines after the joined one, so line numbers stay."""
    text = re.sub(r"\?\?([=/'()!<>-])", lambda m: TRIGRAPHS[m.group(1)], text)
    out, joined, taken = [], "", 0
    for line in text.split("\n"):
        m = re.search(r"\\[ \t]*$", line)
        if m:
            joined += line[:m.start()]
            taken += 1
            continue
        out += [joined + line] + [""] * taken
        joined, taken = "", 0
    if taken:
        out += [joined] + [""] * (taken - 1)
    return "\n".join(out)


def normalise(text, literals=False):
    """The text as the compiler reads it, for every check: trigraphs and splices undone
    (splice()), comments blanked, digraphs spelled as their tokens (`%:` is `#`, `<%` is `{`),
    and string and character literals blanked unless `literals` (line numbers kept). A raw string
    literal (R"...", which this lexer cannot read) is left as the mark R"\x00 for check_text()."""
    out = []

    def blank(s):
        return re.sub(r"[^\n]", " ", s)

    text, at = splice(text), 0
    for m in LEXEME.finditer(text):
        out.append(DIGRAPH.sub(lambda d: DIGRAPHS[d.group(0)], text[at:m.start()]))
        kind = m.lastgroup
        out.append(blank(m.group(0)) if kind == "comment" or (kind == "literal" and not literals)
                   else 'R"\x00' if kind == "raw" else m.group(0))
        at = m.end()
    out.append(DIGRAPH.sub(lambda d: DIGRAPHS[d.group(0)], text[at:]))
    return "".join(out)


def strip_code(text):
    """The code as the compiler reads it, comments and literals blanked (normalise())."""
    return normalise(text)


def tokens(text):
    return re.findall(r"\w+|[^\w\s]", strip_code(text))


def defined_functions(text):
    """Names of the functions a source defines at file scope (a line at column 0 that declares a
    name followed by '(' and is not a prototype)."""
    names = set()
    code = strip_code(text)
    for m in re.finditer(r"^(?!#)(?:[A-Za-z_][\w\s\*]*?)\b([A-Za-z_]\w*)\s*\(", code, re.M):
        rest = code[m.end():]
        close = rest.find(")")
        after = rest[close + 1:close + 200] if close >= 0 else ""
        if not after.lstrip().startswith(";") and m.group(1) not in ("if", "for", "while", "switch",
                                                                      "return", "sizeof"):
            names.add(m.group(1))
    return names


def check_calls(name, body, solution, course_functions, own_functions):
    """A part may call what the course's solution of it calls, and what the student wrote in
    their parts; not the course's other functions (another variant's block scan, the serial
    path of chapter 01's own driver): that would be the course's code, not theirs."""
    allowed = set(tokens(solution)) | own_functions
    reasons = []
    for t in sorted(set(tokens(body)) & course_functions - allowed):
        reasons.append(f"part {name}: it calls {t}(), the course's own code outside your parts; "
                       f"your part may call only what its solution needs and what you write")
    return reasons


def check_text(where, code):
    """Reasons why code (normalise()d) is not what a part may be, whatever the chapter: token
    pasting (`##`, `%:%:`), a `#` that is not a directive's, a raw string literal, and brackets
    that close more than the part opened or leave some open (a part that closes its function
    can write code at file scope, and reopen one after it)."""
    reasons = []
    for number, line in enumerate(code.splitlines(), 1):
        if "##" in line:
            reasons.append(f"{where}, line {number}: token pasting (##, %:%:): it makes names the "
                           f"checks cannot read")
        elif "#" in line.lstrip()[1:] or ("#" in line and not line.lstrip().startswith("#")):
            reasons.append(f"{where}, line {number}: a # that does not begin a directive")
        if 'R"\x00' in line:
            reasons.append(f"{where}, line {number}: a raw string literal (R\"...\"): write an "
                           f"ordinary string")
    opened, stack = {"{": "}", "(": ")", "[": "]"}, []
    for m in re.finditer(r"[{}()\[\]]", code):
        c = m.group(0)
        line = code.count("\n", 0, m.start()) + 1
        if c in opened:
            stack.append((c, line))
        elif not stack or opened[stack[-1][0]] != c:
            reasons.append(f"{where}, line {line}: this '{c}' closes a bracket the part did not "
                           f"open: a part must stay inside the function (or the file scope) it "
                           f"is written in")
            break
        else:
            stack.pop()
    else:
        if stack:
            reasons.append(f"{where}, line {stack[-1][1]}: this '{stack[-1][0]}' is not closed "
                           f"inside the part: a part must end where it began")
    return reasons


def device_header(header):
    """1 if a function header (the text before its '{') declares a __global__ or __device__
    function that is not also __host__."""
    return bool(re.search(r"\b__(global|device)__\b", header) and
                not re.search(r"\b__host__\b", header))


def context_at(code):
    """Where the end of code (normalise()d) is: 'host' or 'device' (inside such a function, or a
    brace nested in one) or 'file' (at file scope)."""
    stack, header_start = [], 0
    for m in re.finditer(r"[{};]", code):
        c = m.group(0)
        if c == "{":
            stack.append(stack[-1] if stack else
                         "device" if device_header(code[header_start:m.start()]) else "host")
        elif c == "}" and stack:
            stack.pop()
        if not stack and c in ";}":
            header_start = m.end()
    return stack[0] if stack else "file"


def context_of_parts(ref_text, path="(text)"):
    """Where each part of the course's source sits: 'host', 'device' or 'file' (context_at())."""
    where, before = {}, []
    for s in kit.split(ref_text, path):
        if s[0] == "part":
            where[s[1]] = context_at(strip_code("".join(before)))
            before += [s[3]] + s[4] + [s[5]]
        else:
            before += s[1]
    return where


def host_code(code, context):
    """The host code of a part (normalise()d): all of it inside a host function, none inside a
    device function, and at file scope everything but the bodies of __global__ and __device__
    functions (blanked, lines kept)."""
    if context != "file":
        return code if context == "host" else ""
    out, at, depth, start, device = [], 0, 0, 0, False
    for m in re.finditer(r"[{};]", code):
        c = m.group(0)
        if c == "{":
            if depth == 0:
                header = re.split(r"[;}]", code[:m.start()])[-1]
                device = device_header(header)
                start = m.end()
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0 and device:
                out.append(code[at:start])
                out.append(re.sub(r"[^\n]", " ", code[start:m.start()]))
                at = m.start()
    out.append(code[at:])
    return "".join(out)


def calls_in(code):
    """The names code calls (a name before '(' or a launch's '<<<'), with the line of each."""
    return [(m.group(1), code.count("\n", 0, m.start()) + 1, m.group(2) == "<<<")
            for m in re.finditer(r"\b([A-Za-z_]\w*)\s*(\(|<<<)", code)]


def check_host_calls(name, body, solution, context, own_functions):
    """In a part's host code, every call must be one the course's solution of the part makes,
    one of the student's own functions, a kernel launch or a CUDA_CHECK*: a part may not reach
    the host's memory, copies or drivers by a name the forbidden list does not know."""
    host = host_code(strip_code(body), context)
    if not host.strip():
        return []
    allowed = {c for c, _, _ in calls_in(strip_code(solution))} | own_functions | CALL_LIKE | \
        KEYWORDS
    reasons = []
    for call, line, launch in calls_in(host):
        if launch or call in allowed or call.startswith("CUDA_CHECK"):
            continue
        reasons.append(f"part {name}, line {line}: it calls {call}(), in host code; there your part "
                       f"may call only what the course's solution of it calls "
                       f"({', '.join(sorted(c for c in allowed - CALL_LIKE - KEYWORDS)) or 'nothing'}), "
                       f"your own functions, kernel launches and CUDA_CHECK*")
    if context == "host":
        for m in re.finditer(HOST_FUNCTION_FORBIDDEN[0], host):
            reasons.append(f"part {name}, line {host.count(chr(10), 0, m.start()) + 1}: "
                           f"'{m.group(0)}' is not allowed in your code: "
                           f"{HOST_FUNCTION_FORBIDDEN[1]}")
    return reasons


def check_part(name, body, context="device"):
    """Reasons why a part's code is not acceptable (empty: it is). Every check reads the part as
    the compiler does (normalise()): a name split by a backslash-newline, or a directive spelled
    %: or ??=, is the name or the directive. In a part with host code (`context` 'host' or
    'file': context_of_parts()) `asm` is refused too: a host asm could end the process."""
    reasons = []
    code = strip_code(body)
    for number, line in enumerate(code.splitlines(), 1):
        if re.match(r"^\s*#", line) and not directive_ok(line):
            reasons.append(f"part {name}, line {number}: a preprocessor directive "
                           f"({line.strip()[:40]}): an #include or a macro could bring in code "
                           f"that is not yours; only #pragma omp/unroll and #define NAME "
                           f"<number> are allowed")
    reasons += check_text(f"part {name}", code)
    for pattern, why in FORBIDDEN + ([(r"\basm\b", "host assembly")] if context != "device" else []):
        for m in re.finditer(pattern, code):
            line = code.count("\n", 0, m.start()) + 1
            reasons.append(f"part {name}, line {line}: '{m.group(0)}' is not allowed in your "
                           f"code: {why}")
    return reasons


def function_span(lines, name):
    """(first, last) line index of the top-level function `name` in `lines` (from its first line
    to its closing brace at column 0), or None."""
    for i, line in enumerate(lines):
        if re.match(r"^(static |int |__global__ |__device__ )[^;]*\b" + re.escape(name) + r"\(",
                    line):
            for j in range(i, len(lines)):
                if lines[j].startswith("}"):
                    return i, j
    return None


# C and CUDA words that renaming leaves alone (the shape of a part is what remains when every
# other name is replaced by its order of first appearance).
KEYWORDS = set("""auto break case char const continue default do double else enum extern float for
goto if inline int long register restrict return short signed sizeof static struct switch typedef
union unsigned void volatile while bool true false nullptr constexpr __global__ __device__
__host__ __shared__ __restrict__ __forceinline__ __noinline__ size_t int32_t uint32_t int64_t
uint64_t uint8_t int8_t uint16_t int16_t long pragma omp unroll""".split())


def shape(text):
    """A part's tokens with every name not in KEYWORDS renamed by its first appearance (v1, v2,
    ...): two parts that differ only in their names have the same shape."""
    names, out = {}, []
    for t in tokens(text):
        if re.match(r"^[A-Za-z_]\w*$", t) and t not in KEYWORDS:
            t = names.setdefault(t, f"v{len(names) + 1}")
        out.append(t)
    return out


def similarity(theirs, solution):
    """(how alike the two parts are in shape, 0 to 1; the same tokens?; the same shape?)"""
    a, b = shape(theirs), shape(solution)
    same_tokens = tokens(theirs) == tokens(solution)
    ratio = difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() if a or b else 1.0
    return ratio, same_tokens, a == b


# A part this long (in tokens) and this alike in shape is reported as a likely copy; shorter
# parts (the warp scan is 55 tokens, the tile draw 18) coincide honestly, so only an exact shape is.
SIMILAR_TOKENS, SIMILAR_RATIO = 80, 0.9


def prepare(cfg, folder, sources, student):
    """Read the student's files and make the graded sources. Returns a dict: graded (the texts
    by source), reasons (honesty), notes (for the student), instructor (notes for the
    instructor only: likely copies), stubs (the parts that still hold their stub), similarity
    (part -> share of the solution's shape). Only the parts whose home is this chapter are the
    student's here: a part carried over from an earlier chapter (docs/CONVENTIONS.md §2) is
    graded in its home chapter, and here the course's code of it is used."""
    graded, reasons, notes, instructor, stubs, alike = {}, [], [], [], [], {}
    homes = kit.part_homes()
    carried = set()
    for s in sources:
        ref_path = os.path.join(ROOT, folder, s)
        ref_text = open(ref_path).read()
        ref_parts = kit.parts(ref_text, s)
        if not ref_parts and not cfg.get("contest"):
            continue  # a source with no student part (a driver): the course's own object
        path = find_source(student, s)
        raw = open(path, "rb").read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
        text = text.replace("\r\n", "\n")
        if cfg.get("contest"):
            # a whole-file copy of this chapter, or of chapter 07, is reported
            others = [(os.path.join(folder, s), ref_text)] + \
                [(os.path.join(f, c), open(os.path.join(ROOT, f, c)).read())
                 for f, number, cs in kit.assignments() if number == 7 for c in cs
                 if c.endswith(".cu")]
            graded[s], r, n, i = contest_source(ref_text, text, s, others)
            reasons += r
            notes += n
            instructor += i
            continue
        own = [(name, body) for name, _, body in ref_parts if homes[name][0] == folder]
        carried |= {name for name, _, _ in ref_parts if homes[name][0] != folder}
        theirs = {name: body for name, _, body in kit.parts(text, s)}
        missing = [name for name, _ in own if name not in theirs]
        if missing:
            raise kit.MarkerError(f"{s}: the markers of part(s) {', '.join(missing)} are missing; "
                                  f"the grader finds your code between them: put them back "
                                  f"(see ASSIGNMENT.md)")
        course_functions = defined_functions("".join(kit.outside(ref_text, s)))
        contexts = context_of_parts(ref_text, s)
        own_functions = set()
        for name, _ in own:
            own_functions |= defined_functions(theirs[name])
        for name, body in own:
            reasons += check_part(name, theirs[name], contexts[name])
            reasons += check_calls(name, theirs[name], body, course_functions, own_functions)
            reasons += check_host_calls(name, theirs[name], body, contexts[name], own_functions)
            if os.path.isfile(os.path.join(kit.KIT, "stubs", name + ".txt")) and \
                    tokens(theirs[name]) == tokens(kit.stub(name)):
                stubs.append(name)
                continue
            ratio, same_tokens, same_shape = similarity(theirs[name], body)
            alike[name] = ratio
            if same_tokens:
                instructor.append(f"part {name} is token for token the course's published "
                                  f"solution (comments and blanks aside): look at it by hand")
            elif same_shape:
                instructor.append(f"part {name} is the course's published solution with names "
                                  f"changed (the same tokens otherwise): look at it by hand")
            elif ratio >= SIMILAR_RATIO and len(tokens(body)) >= SIMILAR_TOKENS:
                instructor.append(f"part {name} is {ratio:.0%} alike the course's published "
                                  f"solution in its token shape (names aside): look at it by hand")
        changed = sum(1 for a, b in itertools.zip_longest(
            [l.rstrip() for l in "".join(kit.outside(text, s)).splitlines()],
            [l.rstrip() for l in "".join(kit.outside(ref_text, s)).splitlines()]) if a != b)
        if changed:
            notes.append(f"{s}: {changed} lines outside your parts differ from the course's; "
                         f"the grader used the course's text there")
        graded[s] = kit.replace_parts(ref_text, {name: theirs[name] for name, _ in own}, s)
    if carried:
        notes.append(f"carried over from earlier chapters, and graded there: "
                     f"{', '.join(sorted(carried))}; the grader used the course's code of them here")
    if stubs:
        notes.append(f"not written yet (the stub is still there): {', '.join(stubs)}")
    return {"graded": graded, "reasons": reasons, "notes": notes, "instructor": instructor,
            "stubs": stubs, "similarity": alike}


def contest_source(ref_text, text, s, others=()):
    """Chapter 08, the speed contest: the student's whole file, if it keeps the course's
    includes and the fixed functions (CONTEST_FIXED: what is timed, checked and printed), and
    names nothing forbidden anywhere else (the fixed functions may: the CUB variant calls CUB on
    purpose, and the modes copy and allocate). Outside the fixed functions nothing may name
    them or VARIANT_CUB (CONTEST_GUARDED), but a line the course's file has there, kept as it is
    (the variants' enum). Everything is read as the compiler reads it (normalise()). A file that
    is the course's, or one of `others` (label, text), token for token or with names changed, is
    reported to the instructor. Returns (text, reasons, notes, instructor notes)."""
    reasons, notes, instructor = [], [], []

    def directives(t):
        """Each line as the compiler reads it (literals kept), and its code (literals blank)."""
        return normalise(t, literals=True).split("\n"), strip_code(t).split("\n")

    ref_kept, ref_code = directives(ref_text)
    kept, code = directives(text)
    ref_directives = {" ".join(k.split()) for k, c in zip(ref_kept, ref_code)
                      if c.lstrip().startswith("#")}
    for number, (k, c) in enumerate(zip(kept, code), 1):
        if not c.lstrip().startswith("#"):
            continue
        line = " ".join(k.split())
        if re.match(r"#\s*include\b", line) and line not in ref_directives:
            reasons.append(f"{s}:{number}: {line[:60]} is not one of the course's includes")
        elif not directive_ok(c) and line not in ref_directives:
            reasons.append(f"{s}:{number}: {line[:50]}: a preprocessor directive the "
                           f"course's file does not have")
        code[number - 1] = ""
    reasons += check_text(s, "\n".join(code))

    def without_fixed(lines, complain):
        """lines with the fixed functions blanked (each compared with the course's first)."""
        lines = list(lines)
        for f in CONTEST_FIXED:
            ref_span, span = function_span(ref_code, f), function_span(lines, f)
            if ref_span is None:
                continue
            mine = span and tokens("\n".join(lines[span[0]:span[1] + 1]))
            if complain and mine != tokens("\n".join(ref_code[ref_span[0]:ref_span[1] + 1])):
                reasons.append(f"{s}: {f}() differs from the course's: it chooses, checks or "
                               f"prints what is timed, so it must stay as it is")
            if span:
                lines[span[0]:span[1] + 1] = [""] * (span[1] + 1 - span[0])
        return lines

    rest = without_fixed(code, True)
    ref_rest = without_fixed([c if not c.lstrip().startswith("#") else "" for c in ref_code], False)
    # the course's own lines there that name something guarded or forbidden: kept verbatim, allowed
    patterns = [(p, why) for p, why in FORBIDDEN] + \
        [(r"\b(" + "|".join(CONTEST_GUARDED) + r")\b",
          "a fixed function or the CUB variant, which only the fixed functions may use")]
    named = lambda line: any(re.search(p, line) for p, _ in patterns)
    spare = [tokens(l) for l in ref_rest if named(l)]
    for number, line in enumerate(rest, 1):
        if not named(line):
            continue
        if tokens(line) in spare:
            spare.remove(tokens(line))
            continue
        for pattern, why in patterns:
            for m in re.finditer(pattern, line):
                if m.group(0) == "main" and pattern != patterns[-1][0]:
                    continue
                reasons.append(f"{s}:{number}: '{m.group(0)}' outside the fixed functions is not "
                               f"allowed: {why}")
    for label, other in others:
        if tokens(text) == tokens(other):
            instructor.append(f"{s} is token for token the course's {label} (comments and "
                              f"blanks aside): look at it by hand")
        elif shape(text) == shape(other):
            instructor.append(f"{s} is the course's {label} with names changed (the same tokens "
                              f"otherwise): look at it by hand")
    return text, reasons, notes, instructor


# ---------------------------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------------------------

class Build:
    """The student's chapter built in `work`: `run`, and what the harnesses need."""

    def __init__(self, env, cfg, folder, sources, graded, work):
        self.env, self.cfg, self.folder, self.work = env, cfg, folder, work
        self.sources, self.graded = sources, graded  # graded: the sources that are the student's
        self.course_dir = os.path.join(env["BUILD"], os.path.basename(folder))
        self.objects, self.log = [], ""
        self.cuda = any(s.endswith(".cu") for s in sources)
        self.run = os.path.join(work, "run")
        self.baselines = [os.path.join(env["BUILD"], "common", os.path.splitext(b)[0] + ".o")
                          for b in kit.makefile_var(folder, "BASELINES")]

    def compile(self, path, obj, extra=()):
        if path.endswith(".c"):
            cmd = [self.env["CC"]] + self.env["CFLAGS"].split() + list(extra) + ["-c", path, "-o", obj]
        else:
            cmd = [self.env["NVCC"]] + self.env["NVCCFLAGS"].split() + list(extra) + \
                  ["-I", os.path.join(ROOT, self.folder), "-c", path, "-o", obj]
        status, out = run(cmd)
        self.log += " ".join(cmd) + "\n" + out
        return status == 0

    def build(self):
        """Compile every source (from the same relative path the course uses) and link `run`."""
        if self.cuda and not self.env.get("NVCC"):
            self.log = "no CUDA compiler (nvcc) on this machine: a GPU chapter cannot be built here"
            return False
        src_dir = os.path.join(self.work, "src", self.folder)
        os.makedirs(src_dir, exist_ok=True)
        if not self.course_objects([s for s in self.sources if s not in self.graded]):
            return False
        for s in self.sources:
            if s not in self.graded:
                self.objects.append(self.course_object(s))
                continue
            path = os.path.join(src_dir, s)
            with open(path, "w") as f:
                f.write(self.graded[s])
            obj = os.path.join(self.work, os.path.splitext(s)[0] + ".o")
            if not self.compile(path, obj):
                return False
            self.objects.append(obj)
        common = self.env["COMMON_HOST_OBJS"].split()
        if self.cuda:
            common += self.env["COMMON_CUDA_OBJS"].split()
            cmd = [self.env["NVCC"]] + self.env["GENCODE"].split() + self.objects + \
                  self.baselines + common + ["-o", self.run] + self.env["LDLIBS"].split()
        else:
            cmd = [self.env["CC"]] + self.env["CFLAGS"].split() + self.objects + common + \
                  ["-o", self.run] + self.env["LDLIBS"].split()
        status, out = run(cmd)
        self.log += " ".join(cmd) + "\n" + out
        return status == 0

    def course_object(self, s):
        return os.path.join(self.course_dir, os.path.splitext(s)[0] + ".o")

    def course_objects(self, sources):
        """The course's own objects of these sources, built by its Makefile when missing."""
        if all(os.path.isfile(self.course_object(s)) for s in sources):
            return True
        status, out = run(["make", "-s", "--no-print-directory", "-C",
                           os.path.join(ROOT, self.folder), "all"] + self.env["MAKE_ARGS"])
        self.log += out
        return status == 0 and all(os.path.isfile(self.course_object(s)) for s in sources)

    def asan(self):
        """Chapter 01 under AddressSanitizer and UBSan (as make test builds it)."""
        path = os.path.join(self.work, "src", self.folder, self.sources[0])
        common = [os.path.join(ROOT, "common", c) for c in
                  ("cli.c", "data.c", "io.c", "report.c", "selftest.c")]
        out_bin = os.path.join(self.work, "run_asan")
        cmd = [self.env["CC"], "-std=c11", "-Wall", "-Wextra", "-Werror", "-fopenmp"] + \
              self.env["ASAN_FLAGS"].split() + ["-I", os.path.join(ROOT, "common"), path] + \
              common + ["-o", out_bin, "-lgomp"]
        status, out = run(cmd)
        return (out_bin if status == 0 else None), out

    def harness_cpu(self):
        """Chapter 01 linked with classroom/grader/harness_cpu.c (the in-place battery and the
        one-thread check): the student's source compiled again with the slice count in
        scan_serial() (with_slice_count())."""
        h = os.path.join(self.work, "harness_cpu.o")
        if not self.compile(os.path.join(kit.KIT, "grader", "harness_cpu.c"), h):
            return None
        counted = []
        for s in self.sources:
            path = os.path.join(self.work, "src", "counted_" + s)
            with open(path, "w") as f:
                f.write(with_slice_count(self.graded[s]))
            counted.append(os.path.join(self.work, "counted_" + os.path.splitext(s)[0] + ".o"))
            if not self.compile(path, counted[-1], ["-I", os.path.join(ROOT, self.folder)]):
                return None
        objs = self.env["COMMON_HOST_OBJS"].split()
        renamed = os.path.join(self.work, "selftest_renamed.o")
        sel = [o for o in objs if o.endswith("/selftest.o")][0]
        if run(["objcopy", "--redefine-sym", "self_test_run=course_self_test_run", sel, renamed])[0]:
            return None
        out_bin = os.path.join(self.work, "harness")
        cmd = [self.env["CC"]] + self.env["CFLAGS"].split() + [h] + counted + \
              [o for o in objs if o != sel] + [renamed, "-o", out_bin] + self.env["LDLIBS"].split()
        status, out = run(cmd)
        self.log += out
        return out_bin if status == 0 else None

    def harness_gpu(self):
        """The student's chapter, the course's (symbols renamed ref_*) and harness_gpu.cu, in
        one program: the in-place battery and the interleaved speed measurement."""
        mine_srcs = [s for s in self.sources if s in self.graded]
        if not self.course_objects(mine_srcs):
            return None
        linked = [self.course_object(s) for s in self.sources if s not in self.graded]
        pairs = [(os.path.join(self.work, os.path.splitext(s)[0] + ".o"), self.course_object(s))
                 for s in mine_srcs]
        for k, (mine, ref) in enumerate(pairs):
            m = os.path.join(self.work, f"student_{k}.o")
            r = os.path.join(self.work, f"reference_{k}.o")
            if run(["objcopy", "--redefine-sym", "main=student_main", mine, m])[0]:
                return None
            status, syms = run(["nm", "--defined-only", "-g", ref])
            table = os.path.join(self.work, f"reference_{k}.syms")
            with open(table, "w") as f:
                for line in syms.splitlines():
                    parts = line.split()
                    if len(parts) == 3 and parts[1] in "TDBR":
                        f.write(f"{parts[2]} {'ref_main' if parts[2] == 'main' else 'ref_' + parts[2]}\n")
            if run(["objcopy", "--redefine-syms=" + table, ref, r])[0]:
                return None
            linked += [m, r]
        h = os.path.join(self.work, "harness_gpu.o")
        if not self.compile(os.path.join(kit.KIT, "grader", "harness_gpu.cu"), h):
            return None
        objs = self.env["COMMON_HOST_OBJS"].split() + \
            [o for o in self.env["COMMON_CUDA_OBJS"].split() if not o.endswith("/gpu_driver.o")]
        out_bin = os.path.join(self.work, "harness")
        cmd = [self.env["NVCC"]] + self.env["GENCODE"].split() + [h] + linked + self.baselines + \
              objs + ["-o", out_bin] + self.env["LDLIBS"].split()
        status, out = run(cmd)
        self.log += " ".join(cmd) + "\n" + out
        return out_bin if status == 0 else None


def with_slice_count(text):
    """Chapter 01's source with grade_slice_seen(n) called first thing in scan_serial(), for
    harness_cpu.c's one-thread check (the course's text outside the parts, so the student's
    code cannot change it); the line numbers stay."""
    m = re.search(r"^static void scan_serial\([^)]*\bsize_t n\b[^)]*\)\n\{", text, re.M)
    if not m:
        raise GradeError("chapter 01's scan_serial(..., size_t n, ...) is not where the grader "
                         "looks for it (classroom/grade.py, with_slice_count())")
    return (text[:m.start()] + "void grade_slice_seen(size_t n); " + text[m.start():m.end()] +
            " grade_slice_seen(n);" + text[m.end():])


# ---------------------------------------------------------------------------------------------
# The hidden vectors
# ---------------------------------------------------------------------------------------------

# Chapter 01's thread counts: its slices come from omp_get_max_threads(), so the grader sets
# OMP_NUM_THREADS itself, whatever the grading machine's CPU count: a part that ignores the
# slices' prefixes passes with one thread, and a one-CPU container must not grade it right.
CPU_THREADS = (1, 3, 4, 7)


def omp_env(threads, **more):
    """The environment of a chapter 01 run on `threads` OpenMP threads (never fewer: not
    dynamic)."""
    return dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_DYNAMIC="false", **more)


def hidden_sizes(cfg, seed, threads=None):
    """Sizes near the places where the chapter's structure changes: tile and grid boundaries
    (for chapter 01, given `threads`, the slices of that many threads), whose offsets beyond
    ±1 come from the seed, so that the sizes a student may read in this file are not all the
    sizes graded."""
    rng = random.Random(f"{seed}/{threads or cfg['tile']}")
    if threads:
        sizes = [threads - 1, threads + 1, 7 * threads + rng.randrange(1, threads + 1),
                 (1 << 20) + rng.randrange(1, 4096)]
    else:
        tile = cfg["tile"]
        sizes = [tile - 1, tile + 1, 2 * tile - 1, 3 * tile + 1,
                 rng.randrange(900, 1100) * tile + rng.randrange(1, tile),
                 (1 << 24) + rng.randrange(1, 4096), 50000000 + rng.randrange(1, 100000)]
        sizes += cfg.get("extra", [])
    cap = max_n()
    return sorted({s for s in sizes if s > 0 and (cap is None or s <= cap)})


def shared_cpu_sizes(seed):
    """Chapter 01's larger sizes, run with every thread count of CPU_THREADS."""
    rng = random.Random(f"{seed}/cpu")
    cap = max_n()
    return [s for s in ((1 << 24) + rng.randrange(1, 4096), 3000000 + rng.randrange(1, 100000))
            if cap is None or s <= cap]


def big_size_fits():
    """The n > 2^31 vector: (n, None) when host memory and disk can hold it, else (None, why)."""
    n = (1 << 31) + (1 << 17) + 7
    if max_n() is not None and max_n() < n:
        return None, f"GRADE_MAX_N={max_n()} limits the sizes"
    need_mem, need_disk = 4.5 * 4 * n, 3.2 * 4 * n
    try:
        have = int(re.search(r"MemAvailable:\s+(\d+)", open("/proc/meminfo").read()).group(1)) * 1024
    except (OSError, AttributeError):
        have = 0
    disk = shutil.disk_usage(os.path.join(ROOT, "build")).free
    if have < need_mem or disk < need_disk:
        return None, (f"needs {need_mem / 2**30:.0f} GiB of host memory and {need_disk / 2**30:.0f} "
                      f"GiB of disk; {have / 2**30:.0f} and {disk / 2**30:.0f} GiB free")
    return n, None


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 24), b""):
            h.update(chunk)
    return h.hexdigest()


# The grader's own files that the student's programs run beside (the checker, the hidden
# vectors, the harnesses, the reference programs): path -> sha256, recorded when this process
# made the file, before any student code ran, and compared before each use (Sandbox.intact()).
# A file made by an earlier process is not trusted: it is made again.
TRUSTED = {}


def trust(path):
    TRUSTED[path] = sha256_of(path)
    return path


def still_trusted(path):
    return path in TRUSTED and os.path.isfile(path) and sha256_of(path) == TRUSTED[path]


def vector_file(folder, seed, n):
    """The hidden vector of n random int32 (every bit pattern, so sums wrap) for this seed,
    written 64 MiB at a time, once per process (and again if it changed since): a file left by
    an earlier run is not trusted, whoever may have written it."""
    path = os.path.join(folder, f"vector_{seed}_{n}.bin")
    if not still_trusted(path):
        rng = random.Random(seed * 1000003 + n)
        tmp = path + ".tmp"
        h = hashlib.sha256()
        with open(tmp, "wb") as f:
            left = n * 4
            while left:
                chunk = rng.randbytes(min(left, 1 << 26))
                h.update(chunk)
                f.write(chunk)
                left -= len(chunk)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        TRUSTED[path] = h.hexdigest()
    return path


def checker(env):
    """build/grade/check_output (classroom/grader/check_output.c): the grader's own check of an
    output, built once per process with the course's C compiler (and again if it changed)."""
    src = os.path.join(kit.KIT, "grader", "check_output.c")
    binary = os.path.join(env["BUILD"], "grade", "check_output")
    if not still_trusted(binary):
        os.makedirs(os.path.dirname(binary), exist_ok=True)
        status, out = run([env["CC"] or "gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
                           src, "-o", binary])
        if status:
            raise GradeError("classroom/grader/check_output.c did not build:\n" + tail(out))
        trust(binary)
    return binary


class Made:
    """What the grader runs or reads beside the student's code, made before any of it runs, each
    file hashed (TRUSTED): the checker, every hidden vector, the harness (in place, speed),
    chapter 01's sanitizer build, the radix sort's reference program."""

    def __init__(self, b, cfg, env, vectors, seed, harness):
        self.check = checker(env)
        self.runs = hidden_runs(cfg, seed)
        self.big_why = self.runs.pop() if self.runs and isinstance(self.runs[-1], str) else None
        self.vector = {n: vector_file(vectors, seed, n) for n in sorted({r[0] for r in self.runs})}
        self.vectors = list(self.vector.values())
        self.harness = self.asan = self.asan_log = self.reference = None
        if harness:
            self.harness = b.harness_cpu() if cfg.get("cpu") else b.harness_gpu()
            if self.harness:
                trust(self.harness)
        if cfg.get("cpu"):
            self.asan, self.asan_log = b.asan()
            if self.asan:
                trust(self.asan)
        if cfg.get("radix"):
            self.reference, self.reference_log = radix_reference(b)
            if self.reference:
                trust(self.reference)


class Sandbox:
    """How the student's programs run. Where the grader is root and setpriv is there: as the
    user nobody, in an output folder (out) that is theirs alone, while the course, the build and
    the grader's files stay root's, which nobody cannot write. Else (not root, no setpriv or no
    nobody, nobody cannot reach the programs, or cannot use the GPU) as the grader's own user,
    with `note` saying why. Either way, the grader's files are compared with their hashes
    (TRUSTED) before each use, and a changed one is in `tampered`."""

    def __init__(self, work, programs, inputs, gpu):
        self.prefix, self.note, self.tampered = [], None, []
        self.out = os.path.join(work, "out")
        os.makedirs(self.out, exist_ok=True)
        self.env = {}
        why = self.why_not(work, programs, inputs, gpu)
        if why:
            self.prefix = []
            self.note = (f"the student's programs ran as the grader's own user ({why}); the "
                         f"grader's files were checked against their hashes instead")

    def why_not(self, work, programs, inputs, gpu):
        if os.geteuid() != 0:
            return "the grader does not run as root, so it cannot run them as nobody"
        try:
            nobody = pwd.getpwnam("nobody")
        except KeyError:
            return "there is no user nobody"
        setpriv = shutil.which("setpriv")
        if not setpriv:
            return "setpriv (util-linux) is not installed"
        self.prefix = [setpriv, f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}",
                       "--clear-groups", "--"]
        os.chown(self.out, nobody.pw_uid, nobody.pw_gid)
        os.chmod(self.out, 0o700)
        self.uid, self.gid = nobody.pw_uid, nobody.pw_gid
        self.env = {"HOME": self.out}
        test = ['for f; do case $f in x:*) [ -x "${f#x:}" ] || { echo "cannot run ${f#x:}"; '
                'exit 1; };; r:*) [ -r "${f#r:}" ] || { echo "cannot read ${f#r:}"; exit 1; };; '
                'w:*) [ -w "${f#w:}" ] || { echo "cannot write ${f#w:}"; exit 1; };; '
                'n:*) [ -w "${f#n:}" ] && { echo "can write ${f#n:}"; exit 1; };; esac; done; '
                'exit 0']
        checks = [f"x:{p}" for p in programs] + [f"r:{p}" for p in inputs] + [f"w:{self.out}"] + \
            [f"n:{p}" for p in [work, ROOT, os.path.join(ROOT, "build")] +
             [os.path.dirname(p) for p in inputs]]
        status, out = run(self.prefix + ["/bin/sh", "-c", test[0], "sh"] + checks)
        if status:
            return f"nobody {out.strip() or 'cannot reach them'}"
        probe = os.path.join(ROOT, "build", "tests", "cuda_probe")
        if gpu and run(self.prefix + [probe], env=dict(os.environ, **self.env))[0] != 0:
            return "the GPU is not usable by nobody here"
        return None

    def run(self, cmd, env=None, timeout=TIMEOUT):
        """Run a student's program (or a tool that runs one), as nobody when sandboxed."""
        return run(self.prefix + cmd, cwd=self.out, timeout=timeout,
                   env=dict(env or os.environ, **self.env))

    def output_file(self, name, copy_of=None):
        """A file in out for a student's program to write (a copy of copy_of, for in place)."""
        path = os.path.join(self.out, name)
        if os.path.lexists(path):
            os.remove(path)
        if copy_of:
            shutil.copyfile(copy_of, path)
            if self.prefix:
                os.chown(path, self.uid, self.gid)
        return path

    def intact(self, path):
        """1 if the grader's file at path is as it was made (TRUSTED); else noted in tampered."""
        if still_trusted(path):
            return True
        self.tampered.append(path)
        return False


# ---------------------------------------------------------------------------------------------
# The items
# ---------------------------------------------------------------------------------------------

def item(name, max_score, visibility="visible"):
    return {"name": name, "max_score": max_score, "score": 0.0, "output": "",
            "visibility": visibility, "status": "graded"}


def not_here(it, why):
    it.update(status="not graded here", max_score=0, score=0.0,
              output=f"not graded here: {why}. This item counts when graded on a machine that has "
                     f"what it needs; the grade below is partial.")
    return it


def last_line_is(out, pattern):
    lines = [l for l in out.strip().splitlines() if l.strip()]
    return bool(lines) and re.match(pattern, lines[-1]) is not None


FAILURE = re.compile(r"^\s*(FAIL|WRONG)\b|\bwrong\b|FAILED|^TODO ")


def excerpt(out, n=14):
    """What a failed run printed, for the student: its first lines (what ran), the first
    failure with the lines under it (its header: size, pattern, variant, first wrong element),
    and its last lines (the count); not a tail that starts mid-stream."""
    lines = [l for l in out.rstrip().splitlines() if l.strip()]
    if len(lines) <= n:
        return "\n".join(lines)
    first = next((i for i, l in enumerate(lines) if FAILURE.search(l)), None)
    keep = list(range(3)) + (list(range(first, min(first + 6, len(lines)))) if first is not None
                             else []) + list(range(len(lines) - 3, len(lines)))
    out_lines, last = [], -1
    for i in sorted(set(keep)):
        if i > last + 1:
            out_lines.append("  ...")
        out_lines.append(lines[i])
        last = i
    return "\n".join(out_lines)


def runs_of(cmd, envs, pattern, sb, outputs=None):
    """Run the student's cmd (through the Sandbox sb) once per (label, environment); (all
    passed?, output). The output has one line per labelled run and the first failure's excerpt
    (or, with one unlabelled run, its own lines). Each run's whole output is added to `outputs`
    when given."""
    lines, failure = [], None
    for label, e in envs:
        status, out = sb.run(cmd, env=e)
        if outputs is not None:
            outputs.append(out)
        ok = status == 0 and last_line_is(out, pattern)
        last = ([l for l in out.strip().splitlines() if l.strip()] or ["(no output)"])[-1]
        if label:
            lines.append(f"{label}: {'passed' if ok else 'FAILED'}: {last}")
        if not ok and failure is None:
            failure = (label, status, out)
    if failure is None:
        return True, "\n".join(lines) if lines else tail(out, 14)
    label, status, out = failure
    return False, "\n".join(lines + ([f"the first failure ({label}):"] if label else []) +
                            [excerpt(out), f"(exit status {status})"])


def grade(number, student, out_dir, gpu, env):
    cfg = CHAPTERS[number]
    folder, sources = next((f, s) for f, n, s in kit.assignments() if n == number)
    start = time.time()
    seed, seed_set = grade_seed()
    work = os.path.join(out_dir, "work")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    vectors = os.path.join(env["BUILD"], "grade", "vectors")
    os.makedirs(vectors, exist_ok=True)
    single_pass = cfg.get("stress", False)
    cuda = any(s.endswith(".cu") for s in sources)
    notes, instructor, similarity_of = [], [], {}
    verdict = []  # why points were lost, in a few words (the class CSV's status)
    if not seed_set:
        instructor.append("GRADE_SEED is not set: the hidden vectors use the public default seed")

    it_build = item("build (warnings are errors)", 5)
    it_honest = item("honesty: your own code in your parts", 0)
    it_self = item("self-test battery (inclusive and exclusive)", 10 if single_pass else 15)
    it_stress = item("stress (races between blocks)", 5) if single_pass else None
    it_place = item("in place (output = input)", 5)
    it_hidden = item("hidden vectors (--input/--output)", 25, "after_due_date")
    it_san = item("sanitizers" + (" (ASan, UBSan)" if cfg.get("cpu") else
                                  " (memcheck, racecheck, synccheck)"), 10)
    it_speed = None if cfg.get("cpu") else item(
        "speed against " + ("cub::DeviceRadixSort in the same run" if cfg.get("radix") else
                            "the course's chapter, interleaved in one process"), 25)
    if cfg.get("radix"):
        it_self["name"] = "self-test (sorted, a permutation, stable)"
        it_place = None
    items = [i for i in (it_build, it_honest, it_self, it_stress, it_place, it_hidden, it_san,
                         it_speed) if i]
    correctness = [i for i in (it_self, it_stress, it_place, it_hidden) if i]

    def finish():
        for i in items:
            if i["status"] == "graded" and not i["output"]:
                i["output"] = "ok" if i["score"] == i["max_score"] else ""
        partial = any(i["status"] != "graded" for i in items)
        total = sum(i["score"] for i in items)
        most = sum(i["max_score"] for i in items)
        # What a student sees before the due date: the items shown now, never the hidden ones'
        # points (Gradescope hides the total itself while an item is hidden).
        later = [i for i in items if i["visibility"] != "visible" and i["max_score"]]
        shown = [i for i in items if i["visibility"] == "visible"]
        lines = [f"{folder}: {sum(i['score'] for i in shown):g} of "
                 f"{sum(i['max_score'] for i in shown):g} points in the items shown now"
                 + (f"; {', '.join(i['name'].split(' (')[0] for i in later)} "
                    f"({sum(i['max_score'] for i in later):g} points) "
                    f"{'is' if len(later) == 1 else 'are'} shown after the due date"
                    if later else "") + "."]
        if partial:
            lines.append(partial_text(items, it_build, gpu))
        lines.append("The write-up (15 points in the course's rubric) is graded by hand.")
        lines += notes
        honest = None if not prepared else "failed" if reasons else "passed"
        short = lambda i: re.split(r" \(| against|:", i["name"])[0]
        if not verdict:
            lost = [short(i) for i in items if i["status"] == "graded" and i["score"] < i["max_score"]]
            if lost or not partial:
                verdict.append(("points lost: " + ", ".join(lost)) if lost else "ok")
        if partial:
            verdict.append("partial: " + ", ".join(short(i) for i in items
                                                    if i["status"] != "graded") + " not graded")
        tests = []
        for i in items:
            t = {k: i[k] for k in ("name", "score", "max_score", "output", "visibility")}
            if i is it_honest and honest:
                t["status"] = honest  # a gate, not points: Gradescope shows it passed or failed
            tests.append(t)
        if instructor:
            tests.append({"name": "notes for the instructor", "score": 0.0, "max_score": 0,
                          "output": "\n".join(instructor), "visibility": "hidden"})
        summary = (f"{folder}: {total:g} of {most:g} points"
                   + (" (PARTIAL: some items were not graded here; see them below)" if partial else ""))
        result = {"score": total, "execution_time": int(time.time() - start),
                  "output": "\n".join(lines), "stdout_visibility": "hidden",
                  "tests": tests,
                  "extra_data": {"chapter": str(number), "partial": partial, "max_score": most,
                                 "seed_set": seed_set, "honesty": honest,
                                 "status": {i["name"]: i["status"] for i in items},
                                 "verdict": "; ".join(verdict), "summary": summary,
                                 "instructor_notes": instructor,
                                 "similarity": similarity_of}}
        with open(os.path.join(out_dir, "results.json"), "w") as f:
            json.dump(result, f, indent=2)
        return result

    # The student's parts, spliced into the course's source; honesty.
    reasons, prepared = [], False
    try:
        p = prepare(cfg, folder, sources, student)
    except FileNotFoundError as e:
        it_build["output"] = str(e)
        verdict.append("file missing: " + str(e).split(":")[0])
    except kit.MarkerError as e:
        it_build["output"] = str(e)
        verdict.append("markers broken: " + str(e).split(";")[0])
    except OSError as e:
        it_build["output"] = str(e)
        verdict.append(f"file unreadable: {e}")
    if verdict:
        for i in items[1:]:
            i["output"] = "not run: there is nothing to build"
        return finish()
    prepared = True
    graded, reasons, stubs = p["graded"], p["reasons"], p["stubs"]
    notes += p["notes"]
    instructor += p["instructor"]
    similarity_of.update({k: round(v, 3) for k, v in p["similarity"].items()})
    if cuda and not env.get("NVCC"):
        # No CUDA compiler on this grading machine (Gradescope's image without the toolkit):
        # nothing of the student's can be built or run here, which is not their fault.
        why = ("there is no CUDA compiler (nvcc) on this grading machine, so a GPU chapter "
               "cannot be built here")
        not_here(it_build, why)
        for i in items[2:]:
            not_here(i, why)
        verdict.append("not graded here: no nvcc")
        honesty_output(it_honest, reasons, verdict)
        return finish()

    b = Build(env, cfg, folder, sources, graded, work)
    if not b.build():
        it_build["output"] = "the build failed:\n" + tail(b.log, 30)
        if any("outside your parts differ" in n for n in notes):
            it_build["output"] += ("\n(your file changes lines outside your parts, which the "
                                   "grader does not use: a helper or a name you added there is "
                                   "missing here; put everything your code needs inside a part)")
        for i in items[2:]:
            i["output"] = "not run: the build failed"
        verdict.insert(0, "build failed")
        honesty_output(it_honest, reasons, verdict)
        return finish()
    it_build["output"] = ("built with the course's flags: " +
                          ("nvcc -Werror all-warnings, host code -Wall -Wextra" if cuda else
                           "gcc -std=c11 -Wall -Wextra -Werror"))
    if stubs:
        it_build["output"] += (f"\n(not scored: part(s) {', '.join(stubs)} still hold the stub; "
                               f"the build points are for your code)")
    else:
        it_build["score"] = 5

    def unavailable(i):
        if cfg.get("cpu"):
            return None
        return None if gpu[0] else f"{gpu[1]} (the probe: build/tests/cuda_probe)"

    # Chapter 01 runs on several thread counts (CPU_THREADS), the GPU chapters once.
    limit = max_n()
    n_args = ["-n", str(limit)] if limit else []
    envs = ([(f"OMP_NUM_THREADS={k}", omp_env(k, GRADE_SEED=str(seed))) for k in CPU_THREADS]
            if cfg.get("cpu") else [("", dict(os.environ, GRADE_SEED=str(seed)))])
    why = unavailable(it_self)
    if why:
        for i in [i for i in (it_self, it_stress, it_place, it_hidden, it_san, it_speed) if i]:
            not_here(i, why)
    else:
        # Everything the grader runs or reads beside the student's code is made, and hashed,
        # before any of it runs: the checker, the hidden vectors, the harnesses, the reference.
        made = Made(b, cfg, env, vectors, seed, it_place is not None or
                    (it_speed is not None and not cfg.get("radix")))
        sb = Sandbox(work, [p for p in (b.run, made.harness, made.asan) if p],
                     made.vectors[:1], gpu[0] and not cfg.get("cpu"))
        if sb.note:
            instructor.append(sb.note)
        ok, it_self["output"] = runs_of([b.run, "--self-test"] + n_args, envs,
                                        r"^self-test passed: \d+ passed, 0 failed$", sb)
        it_self["score"] = it_self["max_score"] if ok else 0
        if it_stress:
            ok, it_stress["output"] = runs_of([b.run, "--stress", "200"] + n_args, envs,
                                              r"^stress test passed", sb)
            it_stress["score"] = 5 if ok else 0
        if it_place:
            h = made.harness
            if h is None:
                it_place["output"] = "the in-place harness did not build:\n" + tail(b.log, 20)
            elif not sb.intact(h):
                it_place["output"] = "not run: the grader's harness changed while your code ran"
            else:
                outputs = []
                ok, it_place["output"] = runs_of(
                    [h] + (["--self-test"] if cfg.get("cpu") else ["--in-place"]) + n_args, envs,
                    r"^in place passed: \d+ passed, 0 failed$", sb, outputs)
                it_place["score"] = 5 if ok else 0
                one = [l for out in outputs for l in out.splitlines() if l.startswith("ONE THREAD:")]
                if one:
                    reasons.append(f"part three-steps: the threaded variant did the scan on one "
                                   f"thread ({one[0][len('ONE THREAD: '):]})")
        hidden(b, cfg, it_hidden, made, sb)
        sanitizers(b, cfg, it_san, env, n_args, made, sb)
        if it_speed:
            speed(b, cfg, it_speed, made, sb, seed, seed_set)
        if sb.tampered:
            reasons.append("the grader's own files changed while your programs ran ("
                           + ", ".join(os.path.relpath(t, ROOT) if t.startswith(ROOT) else t
                                       for t in sb.tampered[:3]) + ")")

    if stubs and it_san["status"] == "graded" and it_san["score"]:
        it_san["score"] = 0.0
        it_san["output"] += (f"\n(not scored: part(s) {', '.join(stubs)} still hold the stub, so "
                             f"the sanitizers had nothing of yours to judge there)")
    if stubs:
        verdict.insert(0, "not written: " + ", ".join(stubs))
    honesty_output(it_honest, reasons, verdict)
    if reasons:
        for i in [it_build, it_san] + correctness + ([it_speed] if it_speed else []):
            if i["status"] == "graded" and i["score"]:
                i["output"] += "\n(scored 0: see the honesty item)"
            i["score"] = 0.0
    if it_speed and it_speed["status"] == "graded" and any(
            i["status"] == "graded" and i["score"] < i["max_score"] for i in correctness):
        if it_speed["score"]:
            it_speed["output"] += "\n(scored 0: an output was wrong in a correctness item)"
        it_speed["score"] = 0.0
    return finish()


def honesty_output(it, reasons, verdict):
    """The honesty item's text, and the status's reason when it failed."""
    it["output"] = "\n".join(reasons) if reasons else \
        "no library, no host memory or copies, no course host code, no preprocessor tricks in your parts"
    if reasons:
        it["output"] += ("\nBecause of this, every item scores 0 (the build, the sanitizers, "
                         "correctness and speed): what they measured is not the work of your "
                         "own parts as the assignment asks for it.")
        verdict.append("honesty: " + re.sub(r"^part [\w-]+(, line \d+)?: ", "", reasons[0])[:90])


def partial_text(items, it_build, gpu):
    """The partial grade's line, in plain words: what was graded here and what was not."""
    missing = [i for i in items if i["status"] != "graded" and i["name"] != items[1]["name"]]
    if it_build["status"] != "graded":
        return ("PARTIAL: nothing of your code could be built or run on this grading machine "
                "(it has no CUDA compiler), so no item was graded here. Your parts are graded on "
                "a machine with the CUDA Toolkit and a GPU; until then this grade says nothing "
                "about them, and your total is not final.")
    if any(i["name"].startswith("self-test") for i in missing):
        return (f"PARTIAL: only the build and the honesty check were graded here (no GPU: "
                f"{gpu[1]}). Correctness, the sanitizers and the speed need a GPU, so this grade "
                f"does not tell working parts from the unchanged stubs: they are graded on a "
                f"machine with a GPU, and your total is not final.")
    return ("PARTIAL: " + ", ".join(i["name"].split(" (")[0] for i in missing) +
            " not graded here (see each); your total is not final.")


def hidden_runs(cfg, seed):
    """The hidden runs, as (n, exclusive, in place, threads): each hidden vector scanned
    inclusive and exclusive (sorted, for the radix sort), and one scanned in place. Chapter 01
    runs each of CPU_THREADS on its slice sizes, and every thread count on the larger sizes. The
    last entry is why the n > 2^31 vector is not run, when it is not."""
    modes = [False] if cfg.get("radix") else [False, True]
    runs = []
    if cfg.get("cpu"):
        for k in CPU_THREADS:
            runs += [(n, e, False, k) for n in hidden_sizes(cfg, seed, k) for e in modes]
        for n in shared_cpu_sizes(seed):
            runs += [(n, e, False, k) for k in CPU_THREADS for e in modes]
        small = hidden_sizes(cfg, seed, CPU_THREADS[-1])
        if small:
            runs.append((small[-1], False, True, CPU_THREADS[-1]))
    else:
        sizes = hidden_sizes(cfg, seed)
        runs += [(n, e, False, None) for n in sizes for e in modes]
        if sizes and not cfg.get("radix"):
            runs.append((sizes[len(sizes) // 2], False, True, None))
    big, big_why = big_size_fits()
    if big:
        runs += [(big, e, False, CPU_THREADS[-1] if cfg.get("cpu") else None) for e in modes]
    return runs + ([big_why] if big_why else [])


def hidden(b, cfg, it, made, sb):
    """The hidden runs (hidden_runs()), each output checked, every element, by the grader's own
    check_output, after the checker and the input are compared with their hashes."""
    runs = made.runs
    passed, lines = 0, []
    for n, exclusive, in_place, threads in runs:
        path = made.vector[n]
        target = sb.output_file("hidden_out.bin", path if in_place else None)
        # a chapter that runs CUB beside the student's code writes the last variant's output:
        # the student's variant alone, so that the file checked is theirs
        cmd = [b.run, "--input", target if in_place else path, "--output", target] + \
              (["--exclusive"] if exclusive else []) + \
              (["--variant", cfg["file_variant"]] if cfg.get("file_variant") else [])
        status, out = sb.run(cmd, env=omp_env(threads) if threads else None)
        what = (f"n = {n}" + (", exclusive" if exclusive else "") + (", in place" if in_place else "")
                + (f", OMP_NUM_THREADS={threads}" if threads else ""))
        if status != 0:
            said = [l.strip() for l in out.splitlines() if FAILURE.search(l)]
            ok, why = False, f"the program exited {status}: " + (said[0] if said else tail(out, 2))
        elif not (sb.intact(made.check) and sb.intact(path)):
            ok, why = False, "the grader's input or checker changed while your program ran"
        elif os.path.islink(target) or not os.path.isfile(target):
            ok, why = False, "the output is not a plain file"
        else:
            c, said = run([made.check, "sort" if cfg.get("radix") else "scan", path, target] +
                          ([] if cfg.get("radix") else
                           ["exclusive" if exclusive else "inclusive"] +
                           ([str(cfg["segment"])] if cfg.get("segment") else [])))
            ok, why = c == 0, said.strip() + ("" if c == 0 else
                                              " (the program said it was right; the grader's "
                                              "check says it is not)")
        passed += ok
        if not ok:
            lines.append(f"WRONG {what}: {why}")
        elif len(runs) <= 24:
            lines.append(f"ok    {what}")
    if len(runs) > 24:
        lines.append(f"ok    the other {passed} runs")
    if made.big_why:
        lines.append(f"(the n > 2^31 vector was not run: {made.big_why})")
    it["score"] = round(it["max_score"] * passed / len(runs), 2) if runs else 0.0
    it["output"] = f"{passed} of {len(runs)} right\n" + "\n".join(lines)


def sanitizers(b, cfg, it, env, n_args, made, sb):
    if cfg.get("cpu"):
        binary = made.asan
        if not binary:
            it["output"] = "the ASan/UBSan build failed:\n" + tail(made.asan_log, 20)
            return
        if not sb.intact(binary):
            it["output"] = "not run: the grader's sanitizer build changed while your code ran"
            return
        cap = min(70000, max_n() or 70000)
        threads = CPU_THREADS[-1]
        status, out = sb.run([binary, "--self-test", "-n", str(cap)],
                             env=omp_env(threads, ASAN_OPTIONS="detect_leaks=0:exitcode=99",
                                         UBSAN_OPTIONS="print_stacktrace=1:exitcode=99"))
        # a wrong result (exit 1) is the other items' business; this one counts what the
        # sanitizers report
        found = status not in (0, 1) or "ERROR: AddressSanitizer" in out or "runtime error:" in out
        it["score"] = 0 if found else 10
        it["output"] = (f"AddressSanitizer and UBSan, --self-test -n {cap}, OMP_NUM_THREADS="
                        f"{threads}: ") + \
            ("FOUND ERRORS (exit %d)\n" % status + tail(out, 20) if found else "clean")
        return
    tool = sanitizer_path(env)
    if not tool:
        not_here(it, "compute-sanitizer is not installed here")
        return
    points = {"memcheck": 4, "racecheck": 3, "synccheck": 3}
    args = ["--self-test", "-n", "1100"]
    if cfg.get("sanitize_variant"):
        args += ["--variant", cfg["sanitize_variant"]]
    lines, score = [], 0
    for name, p in points.items():
        status, out = sb.run([tool, "--tool", name, "--error-exitcode", "99", b.run] + args)
        ok = status in (0, 1)  # 1: a wrong result, which the other items count; 99: the tool found errors
        score += p if ok else 0
        lines.append(f"{name}: {'clean' if ok else 'FOUND ERRORS (exit %d)' % status}"
                     + ("" if ok else "\n" + tail(out, 8)))
    it["score"] = score
    it["output"] = f"compute-sanitizer on {' '.join(args)}\n" + "\n".join(lines)


def speed_draw(seed, seed_set, attempt, largest):
    """(n, rounds, reps, warm-up launches) of one speed measurement, drawn from a secret: from
    GRADE_SEED when the instructor set it (the same grade again gives the same draw), else from
    the operating system's randomness (the default seed is public). n is 2^26 (or `largest`)
    less up to 4095, so that neither the size nor the count of launches is one a launcher can
    wait for."""
    rng = random.Random(f"{seed}/speed/{attempt}" if seed_set else os.urandom(16))
    n = largest - rng.randrange(0, 4096) if largest > 8192 else largest
    return n, rng.randrange(6, 10), rng.randrange(15, 26), rng.randrange(2, 7)


def speed(b, cfg, it, made, sb, seed, seed_set):
    """The speed item: the share of a same-run memcpy, the student's against the course's;
    full marks at 0.9x the course's share or more, proportional below. A measurement whose
    memcpy times spread more than GRADE_SPREAD_PCT across its rounds is repeated, and after
    GRADE_RUNS tries reported as noisy, not scored. Each try draws its size and its counts of
    launches (speed_draw()); the harness checks every launch's output."""
    limit = float(os.environ.get("GRADE_SPREAD_PCT", "5"))
    tries = int(os.environ.get("GRADE_RUNS", "3"))
    largest = min(1 << 26, max_n() or (1 << 26))
    if cfg.get("radix"):
        if made.reference is None:
            it["output"] = "the course's radix sort did not build:\n" + tail(made.reference_log, 12)
            return
        measure = lambda n, rounds, reps, warmup: radix_speed(b, n, made.reference, sb)
    else:
        h = made.harness
        if h is None:
            it["output"] = "the speed harness did not build:\n" + tail(b.log, 20)
            return
        measure = lambda n, rounds, reps, warmup: harness_speed(h, cfg["speed"], n, rounds,
                                                                 reps, warmup, sb)
    lines = []
    for attempt in range(1, tries + 1):
        n, rounds, reps, warmup = speed_draw(seed, seed_set, attempt, largest)
        m, out = measure(n, rounds, reps, warmup)
        if m is None:
            it["output"] = "the measurement failed:\n" + tail(out, 12)
            return
        lines.append(f"try {attempt}: yours {m['student_pct']:.1f} %, the course's "
                     f"{m['reference_pct']:.1f} % of {m['what']}; spread of {m['what']} across "
                     f"rounds {m['spread']:.1f} %")
        if not m["right"]:
            it["output"] = "\n".join(lines) + ("\nyour output was wrong in the timed run"
                                               + (f" ({m['wrong']})" if m.get("wrong") else "")
                                               + ": 0")
            return
        if m["spread"] <= limit:
            ratio = m["student_pct"] / m["reference_pct"] if m["reference_pct"] > 0 else 0
            it["score"] = round(25 * min(1.0, ratio / 0.9), 2)
            it["output"] = "\n".join(lines) + (
                f"\nyours / the course's = {ratio:.3f}; full marks from 0.9 up: "
                f"{it['score']:g} of 25 (n = {n}, variant {cfg['speed']}"
                + (f", {m['checked']} launches each, every output checked" if m.get("checked")
                   else "") + ")")
            return
    it.update(status="noisy", max_score=0, score=0.0,
              output="\n".join(lines) + f"\nNOISY: the spread stayed above {limit:g} % in {tries} "
                     f"tries, so the speed is not scored (the grade is partial); grade it again "
                     f"on a quieter GPU")


def harness_speed(h, variant, n, rounds, reps, warmup, sb):
    if not sb.intact(h):
        return None, "the grader's speed harness changed while your code ran"
    status, out = sb.run([h, "--speed", variant, "-n", str(n), "--rounds", str(rounds),
                          "--reps", str(reps), "--warmup", str(warmup)])
    m = re.search(r"^speed: (.*)$", out, re.M)
    if not m:
        return None, out
    kv = dict(p.split("=", 1) for p in m.group(1).split())
    wrong = int(kv.get("student_wrong_blocks", "0"))
    return {"student_pct": float(kv["student_pct"]), "reference_pct": float(kv["reference_pct"]),
            "spread": float(kv["memcpy_spread_pct"]), "what": "memcpy",
            "checked": int(kv.get("launches_checked", "0")),
            "wrong": (f"{wrong} blocks of the output check found wrong elements in the "
                      f"{kv.get('launches_checked')} timed and warm-up launches") if wrong else "",
            "right": kv["student_right"] == "1" and status == 0}, out


def radix_reference(b):
    """The course's radix sort program (its speed is the reference), built now: (path, log)."""
    ref_run = os.path.join(ROOT, kit.RADIX_DIR, "run")
    status, out = run(["make", "-s", "-C", os.path.join(ROOT, kit.RADIX_DIR), "all"] +
                      b.env["MAKE_ARGS"])
    return (ref_run if status == 0 and os.access(ref_run, os.X_OK) else None), out


def radix_speed(b, n, ref_run, sb):
    """The radix sort: the student's program times its sort and CUB's, interleaved, in one run;
    the course's program does the same in another; both as a share of CUB."""
    results = []
    for binary in (b.run, ref_run):
        if binary == ref_run and not sb.intact(ref_run):
            return None, "the course's radix sort program changed while your code ran"
        status, out = (sb.run if binary == b.run else run)([binary, "-n", str(n), "--csv"])
        rows = [l for l in out.splitlines() if l and not l.startswith("#")]
        if status != 0 or len(rows) < 2:
            return None, out
        table = list(csv.DictReader(rows))
        mine = next((r for r in table if r.get("variant") == "radix-sort"), None)
        if not mine:
            return None, out
        results.append(mine)
    s, r = results
    return {"student_pct": float(s["pct_cub"]), "reference_pct": float(r["pct_cub"]),
            "spread": max(float(s["cub_spread_pct"]), float(r["cub_spread_pct"])),
            "what": "cub::DeviceRadixSort", "right": s.get("check") == "ok"}, ""


# ---------------------------------------------------------------------------------------------
# The table, one student and a class
# ---------------------------------------------------------------------------------------------

def print_table(result):
    """The instructor's view (the terminal, and Gradescope's stdout, which students do not see):
    every item with its output, hidden ones included, the notes for the instructor, the total."""
    extra = result["extra_data"]
    log(f"{'item':<60} {'score':>7} {'max':>5}  status")
    log("-" * 86)
    for t in result["tests"]:
        if t["name"] not in extra["status"]:
            continue
        status = extra["status"][t["name"]]
        if "status" in t:  # the honesty gate
            log(f"{t['name']:<60} {'-':>7} {'-':>5}  {t['status'].upper() if t['status'] == 'failed' else t['status']}")
        else:
            log(f"{t['name']:<60} {t['score']:>7g} {t['max_score']:>5g}  {status}"
                + ("" if t["visibility"] == "visible" else f" ({t['visibility']})"))
    log("-" * 86)
    for t in result["tests"]:
        log(f"== {t['name']}\n{t['output']}")
    log("")
    log(extra["summary"] + (f"\nstatus: {extra['verdict']}" if extra.get("verdict") else ""))
    log("what the student sees:\n  " + result["output"].replace("\n", "\n  "))


def parse_number(text):
    t = (text or "").strip().lower()
    if t == "radix":
        return "radix"
    if t.isdigit() and int(t) in CHAPTERS:
        return int(t)
    print(f"grade: CH='{text}' is not an assignment; give a chapter 1-8 or radix, e.g. make grade "
          f"CH=7 STUDENT=path", file=sys.stderr)
    sys.exit(2)


def gradescope_metadata(folder):
    """Gradescope's export (Review Grades, Export Submissions) has a submission_metadata.yml
    beside its submission_N/ folders: submission id -> {name, sid, email, created_at}, each
    joined by '; ' for a group. Read with a few patterns (the file is YAML written by Ruby, with
    :symbols as keys; the standard library has no YAML reader): {} when there is none."""
    path = os.path.join(folder, "submission_metadata.yml")
    if not os.path.isfile(path):
        return {}
    out, current = {}, None
    for line in open(path, encoding="utf-8", errors="replace"):
        top = re.match(r"^([A-Za-z0-9_.-]+):\s*$", line)
        if top:
            current = out.setdefault(top.group(1), {"name": [], "sid": [], "email": [],
                                                    "created_at": []})
            continue
        m = re.match(r"^\s*-?\s*:(name|sid|email|created_at):\s*(.*?)\s*$", line)
        if current is not None and m:
            value = m.group(2).strip().strip("'\"")
            current[m.group(1)].append(value)
    return {k: {f: "; ".join(v) for f, v in d.items()} for k, d in out.items()}


# What a class folder may hold besides the submissions: Gradescope's export's metadata, notes.
NOT_SUBMISSIONS = re.compile(r"(^submission_metadata\.ya?ml$|\.(ya?ml|json|csv|txt|md|pdf)$)")

CSV_HEAD = ["student", "score", "max_score", "partial"]
CSV_TAIL = ["status", "notes", "instructor_notes", "similarity", "name", "sid", "email",
            "submitted_at"]


def class_row(e, r, meta):
    """One student's row of grades.csv: their totals, each item, and why points were lost."""
    extra = r["extra_data"]
    cells = []
    for t in r["tests"]:
        if t["name"] not in extra["status"]:
            continue
        if "status" in t:
            cells.append(t["status"])
        elif extra["status"][t["name"]] == "graded":
            cells.append(f"{t['score']:g}")
        else:
            cells.append(extra["status"][t["name"]])
    m = meta.get(e, {})
    return ([e, f"{r['score']:g}", f"{extra['max_score']:g}", "yes" if extra["partial"] else "no"] +
            cells + [extra.get("verdict", ""), " | ".join(r["output"].splitlines()[1:]),
                     " | ".join(extra.get("instructor_notes", [])),
                     " ".join(f"{k}={v:.0%}" for k, v in extra.get("similarity", {}).items()),
                     m.get("name", ""), m.get("sid", ""), m.get("email", ""),
                     m.get("created_at", "")])


def grade_class(number, path, out, gpu, env, only):
    """Every submission in `path` into out/grades.csv (or, with `only`, those named, their rows
    replaced in the grades.csv already there), and out/gradescope_scores.csv."""
    meta = gradescope_metadata(path)
    entries = sorted(e for e in os.listdir(path) if not e.startswith(".") and not
                     (os.path.isfile(os.path.join(path, e)) and NOT_SUBMISSIONS.search(e)))
    if not entries:
        print(f"grade: {path} has no submissions: put one folder (or file) per student in it",
              file=sys.stderr)
        return 2
    csv_path = os.path.join(out, "grades.csv")
    old_rows, header = {}, None
    if only:
        unknown = [o for o in only if o not in entries]
        if unknown:
            print(f"grade: ONLY names {', '.join(unknown)}, which {path} does not hold; its "
                  f"submissions are: {' '.join(entries[:20])}", file=sys.stderr)
            return 2
        if os.path.isfile(csv_path):
            with open(csv_path, newline="") as f:
                table = list(csv.reader(f))
            header, old_rows = table[0], {row[0]: row for row in table[1:] if row}
        entries = only
    os.makedirs(out, exist_ok=True)
    rows, names = dict(old_rows), None
    for e in entries:
        d = os.path.join(out, re.sub(r"[^A-Za-z0-9_.-]", "_", e))
        os.makedirs(d, exist_ok=True)
        log(f"grading {e} ...")
        try:
            r = grade(number, os.path.join(path, e), d, gpu, env)
        except Exception as exc:  # one broken submission must not stop the class
            log(f"  {e}: the grader failed on it ({type(exc).__name__}: {exc}); grade it alone")
            rows[e] = [e, "", "", "", f"grader error: {type(exc).__name__}: {exc}"]
            continue
        names = names or [t["name"] for t in r["tests"] if t["name"] in r["extra_data"]["status"]]
        rows[e] = class_row(e, r, meta)
        log(f"  {e}: {r['score']:g} of {r['extra_data']['max_score']:g}"
            + (" (partial)" if r["extra_data"]["partial"] else "") + f": {r['extra_data']['verdict']}")
    head = CSV_HEAD + names + CSV_TAIL if names else header
    if header and head != header:
        log(f"note: {csv_path} had other columns; it is rewritten with this grader's")
    if not head:
        head = CSV_HEAD + ["status"]
    ordered = [rows[k] for k in sorted(rows)]
    with open(csv_path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        w.writerows(ordered)
    # Gradescope's score upload matches a row to a student by email or SID (its dialog asks which
    # column is which): the totals of the grader, for an assignment graded here on a GPU.
    at = {c: i for i, c in enumerate(head)}
    with open(os.path.join(out, "gradescope_scores.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Name", "SID", "Email", "Score"])
        for row in ordered:
            cell = lambda c: row[at[c]] if c in at and at[c] < len(row) else ""
            w.writerow([cell("name") or row[0], cell("sid"), cell("email"), cell("score")])
    log(f"grades.csv: {csv_path} ({len(ordered)} students"
        + (f", {len(entries)} regraded" if only else "") + "); gradescope_scores.csv beside it")
    return 0


def setup(number):
    """`make grade-setup CH=N`: build what grading chapter N needs once, ahead of the first
    submission (Gradescope's setup.sh runs it): the course's own objects of the chapter (with
    the last build's flags) and the grader's check."""
    env = course_env()
    folder, sources = next((f, s) for f, n, s in kit.assignments() if n == number)
    checker(env)
    if any(s.endswith(".cu") for s in sources) and not env.get("NVCC"):
        log(f"grade-setup: no nvcc here, so {folder} is not built: its submissions will get "
            f"'not graded here' for every item but honesty")
        return 0
    status, out = run(["make", "-s", "--no-print-directory", "-C", os.path.join(ROOT, folder),
                       "all"] + env["MAKE_ARGS"])
    if status:
        raise GradeError(f"the course's {folder} did not build:\n" + tail(out, 20))
    log(f"grade-setup: ready to grade {folder} (flags of build/flags.txt: {' '.join(env['MAKE_ARGS']) or 'defaults'})")
    return 0


def main(argv):
    if argv[:1] == ["setup"] and len(argv) == 2:
        return setup(parse_number(argv[1]))
    if len(argv) < 3 or argv[0] not in ("one", "class"):
        print("usage: grade.py one CH STUDENT [OUT] | grade.py class CH FOLDER [OUT [ONLY...]] | "
              "grade.py setup CH",
              file=sys.stderr)
        return 2
    mode, number, path = argv[0], parse_number(argv[1]), argv[2]
    if not path or not os.path.exists(path):
        print(f"grade: {path or '(empty)'} does not exist; give the student's file or folder, "
              f"e.g. STUDENT=submissions/ada", file=sys.stderr)
        return 2
    if number == "radix" and not os.path.isdir(os.path.join(ROOT, kit.RADIX_DIR)):
        print(f"grade: there is no {kit.RADIX_DIR}/ here", file=sys.stderr)
        return 2
    env = course_env()
    gpu = gpu_status()
    out = os.path.abspath(argv[3] if len(argv) > 3 and argv[3] else
                          os.path.join(env["BUILD"], "grade", "class" if mode == "class" else "one"))
    if mode == "one":
        os.makedirs(out, exist_ok=True)
        result = grade(number, path, out, gpu, env)
        print_table(result)
        log(f"results.json: {os.path.join(out, 'results.json')}")
        return 0
    return grade_class(number, path, out, gpu, env, " ".join(argv[4:]).split())


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except GradeError as e:
        print(f"grade: {e}", file=sys.stderr)
        sys.exit(3)
