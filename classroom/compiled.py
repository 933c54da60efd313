"""What the compiler makes of a chapter's source: the honesty gate's view (classroom/gate.py).

The gate does not read C itself. It asks the compilers, and reads what they say:

  - the preprocessor (`-E`): the text of every line of the source as the compiler sees it
    (comments gone; macros, trigraphs, digraphs, splices, pasting all done), and every header
    each line brought in (the line markers gcc writes when it enters and leaves a file);
  - the host object, compiled without optimisation, with line information (`-g -O0`), read back
    with `objdump -dlr`: every symbol each line of the source refers to (calls, addresses taken,
    data read), every function and the line it starts on, and any system-call instruction;
  - for CUDA sources, the device code as PTX compiled with `-G` (no inlining, line information):
    every function each line calls, where each function was defined (the chapter's file, a
    header, a library), and whether any variable is `__managed__`.

Python 3, standard library only; it needs gcc (and nvcc for a .cu), objdump and c++filt
(binutils). Used by gate.py, in the grader and in the students' copy (`make precheck`).
"""
import os
import re
import select
import signal
import subprocess
import time

# objdump's line markers: "/path/file.c:123" or "/path/file.c:123 (discriminator 4)"
LINE_MARK = re.compile(r"^(/[^:]*|[A-Za-z]:[^:]*):(\d+)(?: \(discriminator \d+\))?$")
FUNC_HEAD = re.compile(r"^[0-9a-f]+ <(.+)>:$")
RELOC = re.compile(r"^\s+[0-9a-f]+: (R_[A-Z0-9_]+)\s+(.*?)(?:[+-]0x[0-9a-f]+)?$")
INSN = re.compile(r"^\s+[0-9a-f]+:\s+(\S+)(?:\s+(.*))?$")
SYSCALL = re.compile(r"^(syscall|sysenter|int\s+\$0x80)\b")
PP_MARK = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"((?: \d)*)\s*$')


# What a command may take and say: a compiler that waits (`#include "/proc/self/fd/0"`) is
# stopped, and a program that floods its output is stopped too, its output kept in part.
COMPILE_TIMEOUT = 300
OUTPUT_LIMIT = 64 << 20   # a command that prints more is stopped (the largest -E is ~8 MiB)
OUTPUT_TAIL = 1 << 18     # bytes of a stream's end kept when it is cut


class _Capture:
    """One stream's output: its first `head` bytes and its last `tail`."""

    def __init__(self, head, tail):
        self.head, self.tail, self.total = bytearray(), bytearray(), 0
        self.head_max, self.tail_max = head, tail

    def add(self, data):
        self.total += len(data)
        room = self.head_max - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            del self.tail[:-self.tail_max]

    def text(self):
        left = self.total - len(self.head) - len(self.tail)
        middle = f"\n... ({left} bytes of output left out) ...\n".encode() if left > 0 else b""
        return (bytes(self.head) + middle + bytes(self.tail)).decode(errors="replace")


# The commands running now, in every thread of this process: stop_all() kills their groups when
# the grader itself is stopped (sandbox.stop_on_signals()), so that no run outlives its grader.
LIVE = set()


def stop_all():
    for p in list(LIVE):
        _kill_group(p)


def _kill_group(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run(cmd, cwd=None, timeout=COMPILE_TIMEOUT, env=None, after=None, head=OUTPUT_LIMIT,
        tail=OUTPUT_TAIL, limit=OUTPUT_LIMIT, pass_fds=()):
    """(exit status, output: stdout then stderr) of a command, run with no input, in a process
    group of its own, which is killed when the command ends (nothing it started stays behind;
    `after()`, when given, is called then too, to kill what left the group). Each stream keeps
    its first `head` bytes and its last `tail`. 124: it ran past `timeout` seconds, or printed
    more than `limit` bytes (the output ends with a line that says which); 127: it is not
    there. `pass_fds`: descriptors the command inherits (the grader's token pipe)."""
    try:
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True, pass_fds=tuple(pass_fds))
    except OSError as e:
        return 127, str(e)
    LIVE.add(p)
    try:
        return _follow(p, timeout, after, head, tail, limit)
    finally:
        LIVE.discard(p)


def _follow(p, timeout, after, head, tail, limit):
    out_c, err_c = _Capture(head, tail), _Capture(head, tail)
    streams = {p.stdout.fileno(): out_c, p.stderr.fileno(): err_c}
    open_fds, note, ended = set(streams), "", None
    deadline = time.monotonic() + timeout if timeout else None
    while open_fds:
        now = time.monotonic()
        if ended is None and p.poll() is not None:
            ended = now  # the command is done: what it left behind goes with its group
            _kill_group(p)
            if after:
                after()
        if ended is not None and now - ended > 5:
            break  # a pipe still held open by a process out of reach: stop reading
        if ended is None and deadline is not None and now > deadline:
            note = f"\n(stopped after {timeout} s: it did not finish)"
            _kill_group(p)
            deadline = None
        ready, _, _ = select.select(list(open_fds), [], [], 0.2)
        for fd in ready:
            data = os.read(fd, 1 << 16)
            if not data:
                open_fds.discard(fd)
            else:
                streams[fd].add(data)
        if not note and sum(c.total for c in streams.values()) > limit:
            note = (f"\n(stopped: it printed more than {limit >> 20} MiB; the grader keeps the "
                    f"start and the end of what it printed)")
            _kill_group(p)
    if ended is None:  # its output is closed: wait for the command itself, to its deadline
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()) if deadline else None)
        except subprocess.TimeoutExpired:
            note = note or f"\n(stopped after {timeout} s: it did not finish)"
    _kill_group(p)
    if after:
        after()
    p.stdout.close()
    p.stderr.close()
    status = p.wait()
    return (124 if note else status), out_c.text() + err_c.text() + note


# A compiler's diagnostic: gcc's "file:line[:col]: error: ..." and "file: In function ...", nvcc's
# front end's "file(line): error: ...". The lines after it that start with a blank quote the file.
DIAGNOSTIC = re.compile(r"^(?:(?P<edg>[^\s(][^(]*?)\((?P<l1>\d+)\)|(?P<gcc>[^\s:][^:]*?)"
                        r"(?::(?P<l2>\d+))?(?::\d+)?): (?P<what>.*)$")


def shown_diagnostics(out, shown):
    """A compiler's output as a student may see it: a diagnostic in a file that is not in
    `shown` (paths, or folders ending in "/": the student's source, the course's headers) is
    cut to its place and kind, without the lines that quote the file, so that no file the grader
    can read but the student did not write is shown to them (an #include that reached the
    compiler: the second gaming review, T9a and T10)."""
    lines, hiding = [], False
    for line in out.split("\n"):
        if hiding and line[:1].isspace():
            continue
        hiding = False
        m = DIAGNOSTIC.match(line)
        if m and not line.startswith(("In file included from", "compilation terminated")):
            path = m.group("edg") or m.group("gcc")
            if not any(path == p or (p.endswith("/") and path.startswith(p)) for p in shown):
                hiding = True
                kind = re.match(r"(fatal error|error|warning|note|remark|In function|At )",
                                m.group("what"))
                where = path + (":" + (m.group("l1") or m.group("l2"))
                                if m.group("l1") or m.group("l2") else "")
                line = (f"{where}: {kind.group(1) if kind else 'a message'} in a file you did "
                        f"not write (its text is not shown)")
        lines.append(line)
    return "\n".join(lines)


def demangle(names):
    """C++ names demangled by c++filt (C names come back as they are)."""
    names = list(names)
    if not names:
        return {}
    try:
        r = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
        out = r.stdout.splitlines()
    except OSError:
        out = []
    return dict(zip(names, out if len(out) == len(names) else names))


def base_name(name):
    """`scan_tiles_kernel(int const*, ...)` -> `scan_tiles_kernel`; `ns::f<int>(x)` -> `ns::f`;
    a section name `.text.scan_serial` -> `scan_serial`."""
    if name.startswith(".text."):
        name = name[len(".text."):]
    depth, out = 0, []
    for c in name:
        if c in "<(":
            depth += 1
        elif c in ">)":
            depth -= 1
        elif depth == 0:
            out.append(c)
    name = "".join(out).strip()
    return name.split()[-1] if name else name


class View:
    """What the compiler made of one source. Lines are the source's own line numbers.

    refs:       [(line, symbol, how, function)]: every symbol a line of the source refers to;
                how is 'host' (a relocation in the host object) or 'device' (a call in the PTX),
                function the one whose code it is in
    functions:  {symbol: (origin, first line, side)}: origin is 'main' (the source itself),
                'generated' (code nvcc writes), a header's path, or 'library' (no line info)
    calls_in:   {symbol: [(symbol, how)]}: what each function of the object refers to, for
                following header functions (a template's body) to what they call
    kernels:    names (demangled, base) of the source's __global__ functions
    lines_of:   {symbol: set of the source's lines its code comes from}
    includes:   [(line, path)]: each header the source's line `line` included itself
    pp:         {line: text}: each line of the source after preprocessing (blanks collapsed),
                with the flags of the gate's own compile (GATE_C, GATE_CU)
    moved:      lines after which the preprocessor's line markers jump where no preprocessing
                of this file puts them (a #line directive: it would move code to other lines)
    syscalls:   lines that hold a system-call instruction
    init:       functions run before main() or at exit (.init_array, .fini_array, .ctors)
    managed:    names of __managed__ variables
    addresses:  [(line, symbol)]: a symbol the line refers to other than by calling it (its
                address taken or data read: `(unsigned long)&labs`, `stdout`)
    """

    def __init__(self):
        self.refs, self.functions, self.calls_in = [], {}, {}
        self.kernels, self.includes, self.pp = set(), [], {}
        self.syscalls, self.init, self.managed = [], set(), []
        self.lines_of, self.moved, self.addresses = {}, [], []

    def function_at(self, line, side):
        """The functions (host or device side) whose code comes from this line of the source."""
        return {f for f, ls in self.lines_of.items() if line in ls and
                self.functions.get(f, ("", 0, ""))[2] == side}


# The gate's own compile: no optimisation, no inlining (every call stays a call), line
# information; the preprocessing of the gate's view uses the same flags.
GATE_C = ["-O0", "-fno-inline", "-g"]
GATE_CU = ["-G", "-g", "-O0", "-Xcompiler", "-O0,-fno-inline"]


# The grader's sanitizer build of chapter 01 (ASan, UBSan): these flags, then ASAN_FLAGS.
ASAN_BASE = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-fopenmp", "-O0"]


def build_flags(env, rel, cuda, sanitizer=False):
    """The flags (all but -c, -o and the file) of a grader's build of a student's source at
    rel: the build (the course's flags), or chapter 01's sanitizer build. classroom/runs.py
    builds with these, and the gate preprocesses with them (build_configs())."""
    if sanitizer:
        return ASAN_BASE + env["ASAN_FLAGS"].split() + ["-I", os.path.join(env["ROOT"], "common")]
    return (env["NVCCFLAGS"] if cuda else env["CFLAGS"]).split() + \
        ["-I", os.path.join(env["ROOT"], os.path.dirname(rel))]


def build_configs(env, rel, cuda):
    """[(what, flags)] of every build of a student's source: the gate checks that each reads
    as its own compile does (gate.how_compiled, gate.outside_changed)."""
    out = [("the build", build_flags(env, rel, cuda))]
    if not cuda and env.get("ASAN_FLAGS"):
        out.append(("the sanitizer build", build_flags(env, rel, False, True)))
    return out


def preprocess(env, rel, text, top, cuda, extra=None, host=False, flags=None):
    """The source `text`, written to top/rel and preprocessed from `top` (so that __FILE__ is
    `rel` whatever `top` is), with the gate's flags, or `extra` beside the course's -I and -D,
    or `flags` alone (a build's: build_flags()); for a .cu, the device side, or the host side
    when `host`: (status, {line: text}, [(line, header)], output, moved)."""
    path = os.path.join(top, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    folder = os.path.join(env["ROOT"], os.path.dirname(rel))
    if flags is not None:
        cmd = [env["NVCC"] if cuda else env["CC"] or "gcc", "-E"] + list(flags) + \
            (["-U__CUDA_ARCH__"] if cuda and host else []) + [rel]
    elif cuda:
        arch = gate_arch(env)  # the architecture of the gate's PTX, and the build's first
        cmd = [env["NVCC"], "-std=c++20", "-E", "-Xcompiler", "-fopenmp", "-I", folder,
               "-gencode", f"arch=compute_{arch},code=compute_{arch}"] + \
            (GATE_CU if extra is None else list(extra)) + (["-U__CUDA_ARCH__"] if host else []) + \
            includes_of(env["NVCCFLAGS"]) + [rel]
    else:
        cmd = [env["CC"] or "gcc", "-std=c11", "-fopenmp", "-E", "-I", folder] + \
            (GATE_C if extra is None else list(extra)) + includes_of(env["CFLAGS"]) + [rel]
    status, out = run(cmd, cwd=top)
    if status:
        return status, {}, [], out, []
    lines, includes, moved = read_pp(out, rel, text.count("\n") + 1)
    return 0, lines, includes, "", moved


def includes_of(flags):
    """The -I and -D options of a flags string."""
    words, out = flags.split(), []
    for i, w in enumerate(words):
        if w in ("-I", "-D") and i + 1 < len(words):
            out += [w, words[i + 1]]
        elif w.startswith(("-I", "-D")) and len(w) > 2:
            out.append(w)
    return out


def read_pp(out, rel, count=None):
    """The preprocessor's output: the text of each line of file `rel`, each header that one of
    its lines included (gcc's line markers: flag 1 enters a file, flag 2 returns to one), and
    the lines after which a marker moved the numbering as no include or blank lines do (back,
    past the file's `count` lines, or to another file without entering it: a #line)."""
    lines, includes, moved = {}, [], []
    current, number, entered = None, 0, None
    for raw in out.split("\n"):
        m = PP_MARK.match(raw)
        if m:
            where, flags = m.group(2), m.group(3).split()
            if "1" in flags and current == rel:
                entered = where
            if "2" in flags and where == rel and entered:
                includes.append((int(m.group(1)) - 1, entered))
                entered = None
            # (gcc itself steps back one line after a #pragma, to resync its numbering)
            if current == rel and number > 0 and not flags and not where.startswith("<") and \
                    (where != rel or int(m.group(1)) < number - 1 or
                                                 (count and int(m.group(1)) > count + 1)):
                moved.append(number)
            current, number = where, int(m.group(1))
            continue
        if raw.startswith("#") and not raw.startswith("#pragma"):
            continue
        if current == rel:
            text = " ".join(raw.split())
            if text:
                lines[number] = (lines.get(number, "") + " " + text).strip()
        number += 1
    return lines, includes, moved


def compile_view(env, rel, text, top, cuda, main_paths=(), out_dir=None):
    """Compile `text` (the source at top/rel: the grader's build compiles the student's text at
    the same path) for the gate, its object and nvcc's files in out_dir (default top): (View,
    None), or (None, the compiler's output) when it does not compile (the build item says so;
    the gate cannot)."""
    view = View()
    status, view.pp, view.includes, out, view.moved = preprocess(env, rel, text, top, cuda)
    if status:
        return None, out
    path = os.path.join(top, rel)
    out_dir = out_dir or top
    os.makedirs(out_dir, exist_ok=True)
    obj = os.path.join(out_dir, "gate.o")
    folder = os.path.join(env["ROOT"], os.path.dirname(rel))
    if cuda:
        keep = os.path.join(out_dir, "keep")
        os.makedirs(keep, exist_ok=True)
        arch = gate_arch(env)
        cmd = [env["NVCC"], "-std=c++20"] + GATE_CU + [
            "-Xcompiler", "-ffunction-sections,-fopenmp", "-gencode",
            f"arch=compute_{arch},code=compute_{arch}", "--keep", "--keep-dir", keep,
            "-I", folder] + includes_of(env["NVCCFLAGS"]) + ["-c", path, "-o", obj]
    else:
        cmd = [env["CC"] or "gcc", "-std=c11", "-fopenmp", "-ffunction-sections"] + GATE_C + \
            ["-I", folder] + includes_of(env["CFLAGS"]) + ["-c", path, "-o", obj]
    status, out = run(cmd, cwd=top)
    if status:
        return None, out
    mains = {os.path.realpath(path)} | {os.path.realpath(p) for p in main_paths}
    stand_ins = set()
    if cuda:
        stem = os.path.splitext(os.path.basename(rel))[0]
        cpp = os.path.join(keep, stem + ".cudafe1.cpp")
        if os.path.isfile(cpp):
            stand_ins = device_stand_ins(open(cpp, errors="replace").read())
    read_host(view, obj, mains, stand_ins)
    if cuda:
        ptx = os.path.join(keep, stem + ".ptx")
        if os.path.isfile(ptx):
            read_ptx(view, open(ptx).read(), mains)
    return view, None


def gate_arch(env):
    """The first architecture of the course's flags (the gate's PTX is for one; any will do)."""
    m = re.search(r"compute_(\d+)", env.get("NVCCFLAGS", ""))
    return m.group(1) if m else "90"


# Functions nvcc writes into its host copy of the source (cudafe1.cpp): nvcc's, not the source's.
GENERATED = re.compile(r"^(__nv_|__cuda|__device_stub__|__sti__|_GLOBAL__)")


def origin_of(path, mains):
    """'main' for the source itself, 'generated' for nvcc's stub file, else the path."""
    if os.path.realpath(path) in mains:
        return "main"
    if path.endswith(".cudafe1.cpp"):
        return "main"  # nvcc's host copy of the source keeps its line numbers
    if path.endswith((".cudafe1.stub.c", ".fatbin.c")) or "/crt/host_runtime.h" in path:
        return "generated"
    return path


# nvcc's host stand-in for a __device__ function: a body that calls exit(), with the real body
# after it in `#if 0` (cudafe1.cpp); its references are nvcc's, not the source's.
STAND_IN = re.compile(r"__attribute__\(\(unused\)\)[^;{}]*?\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\n"
                      r"(?:#[^\n]*\n)*\{int volatile ___ = 1;[^\n]*\n(?:#[^\n]*\n)*"
                      r"(?:[^\n]*exit\(___\);\}\n)(?:#[^\n]*\n)*#if 0\n")


def device_stand_ins(cpp):
    """Names of the functions cudafe1.cpp replaced by a stand-in (device-only functions)."""
    return {m.group(1) for m in STAND_IN.finditer(cpp)}


def read_host(view, obj, mains, stand_ins=frozenset()):
    """The host object's functions and what each line refers to (objdump -dlr); the functions
    named in stand_ins (nvcc's host stand-ins for device functions) refer to nothing."""
    status, out = run(["objdump", "-dlr", "--no-show-raw-insn", "-C", obj])
    if status:
        return
    func, origin, line, first, sections, called = None, None, 0, {}, {}, False
    for raw in out.splitlines():
        m = FUNC_HEAD.match(raw)
        if m:
            func, origin, line = m.group(1), None, 0
            view.calls_in.setdefault(func, [])
            continue
        m = LINE_MARK.match(raw)
        if m:
            origin, line = origin_of(m.group(1), mains), int(m.group(2))
            if func and func not in first:
                first[func] = (origin, line)
            if func and origin == "main" and line:
                view.lines_of.setdefault(func, set()).add(line)
            continue
        if func is None:
            continue
        m = RELOC.match(raw)
        if m:
            symbol = m.group(2).strip()
            if symbol.startswith(".text."):
                symbol = sections.setdefault(symbol, symbol[len(".text."):])
            if not symbol or symbol.startswith((".rodata", ".bss", ".data", ".debug",
                                                ".LC", ".eh_frame", ".nv_fatbin")):
                continue
            if base_name(func) in stand_ins:
                continue
            view.calls_in[func].append((symbol, "host"))
            if origin == "main":
                view.refs.append((line, symbol, "host", func))
                if not called:
                    view.addresses.append((line, symbol))
            continue
        m = INSN.match(raw)
        if m:
            called = m.group(1).startswith(("call", "jmp"))
        if m and SYSCALL.match(" ".join(filter(None, m.groups()))) and origin == "main":
            view.syscalls.append(line)
    # a local function is referred to by its section (.text._ZL10tile_countm): its name
    names = demangle(sections.values())
    rename = {k: names.get(v, v) for k, v in sections.items()}
    view.refs = [(l, rename.get(".text." + s, s) if ".text." + s in rename else s, h, f)
                 for l, s, h, f in view.refs]
    for f, calls in view.calls_in.items():
        view.calls_in[f] = [(rename.get(".text." + s, s), h) for s, h in calls]
    for func, (origin, line) in first.items():
        view.functions[func] = ("generated" if GENERATED.match(func) else origin, line, "host")
    for name in list(view.calls_in):
        view.functions.setdefault(name, ("library", 0, "host"))
    status, out = run(["readelf", "-rW", obj])
    section = ""
    for raw in out.splitlines():
        m = re.match(r"^Relocation section '([^']+)'", raw)
        if m:
            section = m.group(1)
            continue
        if section in (".rela.init_array", ".rela.fini_array", ".rela.ctors", ".rela.dtors"):
            parts = raw.split()
            if len(parts) >= 5 and parts[2].startswith("R_"):
                # a local function is named by its section (.text._ZL5earlyv): its name, as
                # view.functions has it (without this, no constructor of a part was found)
                name = parts[4][len(".text."):] if parts[4].startswith(".text.") else parts[4]
                view.init.add(demangle([name]).get(name, name))


def read_ptx(view, ptx, mains):
    """The device code: each function's origin and first line, each line's calls (PTX with -G:
    every call is a `call` instruction after the `.loc` of its line). A function's header is
    followed by `{` at the start of a line (its body, to the `}` at the start of a line) or by
    `;` (a declaration, such as vprintf's)."""
    files = {m.group(1): m.group(2)
             for m in re.finditer(r'^\s*\.file\s+(\d+)\s+"([^"]*)"', ptx, re.M)}
    raw_names, body_of = set(), {}
    header, func, origin, line, pending = None, None, None, 0, None
    for raw in ptx.splitlines():
        s = raw.strip()
        if func is None:
            m = re.match(r"^(?:\.(?:visible|weak|extern)\s+)*\.(entry|func)\b(.*)$", s)
            if m and raw[:1] == ".":
                rest = re.sub(r"\(\s*\.param[^)]*\)", " ", m.group(2))
                name = re.findall(r"[A-Za-z_$][\w$.]*", rest)
                header = (name[0], m.group(1) == "entry") if name else None
                if header:
                    raw_names.add(header[0])
            elif raw.startswith("{") and header:
                func = header[0]
                body_of[func] = {"entry": header[1], "origin": None, "line": 0, "calls": [],
                                 "lines": set()}
                header, origin, line = None, None, 0
            elif raw.startswith(";"):
                header = None
            elif ".attribute(.managed)" in s:
                view.managed += re.findall(r"([A-Za-z_$][\w$]*)\s*(?:\[[^\]]*\])?\s*(?:=.*)?;$", s)
            continue
        if raw.startswith("}"):
            func = None
            continue
        m = re.match(r"^\.loc\s+(\d+)\s+(\d+)", s)
        if m:
            where = files.get(m.group(1))
            origin = origin_of(where, mains) if where else None
            line = int(m.group(2))
            if body_of[func]["origin"] is None and line and origin:
                body_of[func]["origin"], body_of[func]["line"] = origin, line
            if origin == "main" and line:
                body_of[func]["lines"].add(line)
            continue
        if re.match(r"^call(\.uni)?\b", s):
            pending = s[s.index("call") + 4:]
        elif pending is not None:
            pending += " " + s
        if pending is not None:
            target = re.sub(r"\([^)]*\)", " ", re.sub(r"^\.uni", "", pending.strip()))
            names = re.findall(r"[A-Za-z_$][\w$]*", target)
            if names:
                body_of[func]["calls"].append(names[0])
                raw_names.add(names[0])
                if origin == "main" and line:
                    view.refs.append((line, names[0], "device", func))
                pending = None
            elif ";" in pending:
                pending = None
    names = demangle(raw_names)
    view.refs = [(l, names.get(n, n), how, names.get(f, f)) if how == "device" else (l, n, how, f)
                 for l, n, how, f in view.refs]
    for raw, info in body_of.items():
        name = names.get(raw, raw)
        view.functions[name] = (info["origin"] or "library", info["line"], "device")
        if info["lines"]:
            view.lines_of[name] = info["lines"]
        view.calls_in[name] = [(names.get(c, c), "device") for c in info["calls"]]
        if info["entry"]:
            view.kernels.add(base_name(name))
    for raw in raw_names - set(body_of):
        view.functions.setdefault(names.get(raw, raw), ("library", 0, "device"))
