"""The grader's runs: the course's build environment, the student's build, the grader's own
programs and hidden vectors, and how the student's programs are run (classroom/grade.py).

What is the same for every student of a class (the course's objects, the harnesses' own objects,
chapter 01's sanitizer build of common/, the checker, the hidden vectors, the gate's baselines)
is made once per grading process, before any student's code runs, and reused: `make
grade-class` pays for it once. The grader's own files that a student's program runs beside (the
checker, the harnesses) are hashed when made and compared before each use (Sandbox.intact()).
The hidden vectors need no hash: the checker makes each vector again as it reads an output
(classroom/grader/vector_gen.h), so a program that changes its input gains nothing.
"""
import concurrent.futures
import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import secrets
import threading

import compiled
import kit

ROOT = kit.ROOT
# Seconds any one run may take (GRADE_TIMEOUT): a hang is a failure, not a stuck grader.
TIMEOUT = int(os.environ["GRADE_TIMEOUT"]) if os.environ.get("GRADE_TIMEOUT", "").isdigit() else 600


class GradeError(Exception):
    """The grader itself cannot go on (exit 3)."""


class MachineFault(GradeError):
    """The grading machine's own trouble (no space for the grader's files, an I/O error of its
    own): never the student's failure. The submission is not scored ("interrupted: regrade")."""


# A compiler's or linker's own write failing (the fourth gaming review, S07: a part filled
# $TMPDIR and the next student's build failed "error writing to /tmp/ccAtXdhB.s: No space left
# on device", scored 0): the tool's message, at the end of its line (not a line of the source
# that a diagnostic quotes, "  112 | ...", nor a part's `#error`; the gate refuses #include).
MACHINE_FAULT = re.compile(r"^(?!\s*\d*\s*[|+])(?!.*#\s*(error|warning)\b).*(No space left on "
                           r"device|Disk quota exceeded|Input/output error|Read-only file "
                           r"system)\s*$", re.M)


def machine_fault(text):
    """The line of a tool's output that says the machine, not the code, failed, or None."""
    m = MACHINE_FAULT.search(text or "")
    return m and m.group(0).strip()


def free_space(paths):
    """The grader's folders with less free space than GRADE_MIN_FREE_MB (default 256) as
    'PATH: N MiB free' texts: grading there would fail for the machine's want of space."""
    need = int(os.environ.get("GRADE_MIN_FREE_MB") or 256)
    short, seen = [], set()
    for p in paths:
        try:
            st, dev = os.statvfs(p), os.stat(p).st_dev
        except OSError:
            continue
        if dev in seen:
            continue
        seen.add(dev)
        free = st.f_bavail * st.f_frsize >> 20
        if free < need:
            short.append(f"{p}: {free} MiB free (the grader needs {need}, GRADE_MIN_FREE_MB)")
    return short


def log(msg):
    print(msg, flush=True)


def run(cmd, cwd=None, timeout=TIMEOUT, env=None, **how):
    """Run a command; return (exit status, combined output). A timeout is status 124; so is a
    program stopped for printing too much (compiled.run(): no input, its process group killed
    when it ends, `how`: what of its output is kept, descriptors it inherits)."""
    return compiled.run(cmd, cwd=cwd, timeout=timeout, env=env, **how)


LINE_MAX = 400  # characters of a line shown in an item


def clip(line):
    return line if len(line) <= LINE_MAX else line[:LINE_MAX] + f" ... ({len(line)} characters)"


def tail(text, n=12):
    lines = [clip(l) for l in text.strip().splitlines() if l.strip()]
    return "\n".join(lines[-n:])


def shown_diagnostics(out, path):
    """The compiler's output on the student's source at `path`, as the student may see it: only
    the text of that source and of the course's headers (common/) is quoted."""
    return compiled.shown_diagnostics(out, [path, os.path.join(ROOT, "common") + os.sep])


def max_n():
    v = os.environ.get("GRADE_MAX_N", "")
    return int(v) if v.isdigit() else None


_SEED = []


def grade_seed():
    """(the seed, whether the instructor set it): GRADE_SEED, read once and then taken out of
    this process's environment, so that nothing the grader starts (a compiler, a student's
    program) inherits it; the harnesses get seeds of their own (run_seed())."""
    with _LOCK:
        if not _SEED:
            v = os.environ.pop("GRADE_SEED", "")
            _SEED.append((int(v), True) if v.isdigit() else (20261201, False))
    return _SEED[0]


def jobs(cpu):
    """How many of a student's correctness runs go side by side (GRADE_JOBS): a few on a GPU
    machine (they share the GPU; the speed item runs alone, after them); one for chapter 01,
    whose runs use 7 threads each."""
    v = os.environ.get("GRADE_JOBS", "")
    if v.isdigit() and int(v) > 0:
        return int(v)
    cores = os.cpu_count() or 1
    return 1 if cpu and cores < 16 else max(1, min(6, cores // 3))


@contextlib.contextmanager
def gpu_lock(exclusive):
    """The GPU shared by the grader's runs, in this process and in others (make grade-class
    grading several students at once, classroom/tests/gpu_batch.py): a correctness run holds
    build/grade/gpu.lock shared, a speed measurement alone (flock), so that nothing else runs
    on the GPU while it is timed."""
    path = os.path.join(ROOT, "build", "grade", "gpu.lock")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def class_jobs(cpu, gpu):
    """How many students make grade-class grades at once (GRADE_CLASS_JOBS): on a GPU machine
    with the cores for it, three (their correctness runs share the GPU; each speed measurement
    runs alone: gpu_lock()); else one."""
    v = os.environ.get("GRADE_CLASS_JOBS", "")
    if v.isdigit() and int(v) > 0:
        return int(v)
    return 3 if gpu and not cpu and (os.cpu_count() or 1) >= 16 else 1


# ---------------------------------------------------------------------------------------------
# The environment: the course's flags and objects, the GPU, compute-sanitizer
# ---------------------------------------------------------------------------------------------

_ENV = {}


def course_env():
    """The compilers, flags and objects of the course's last build. The flags come from
    build/flags.txt, which every make rewrites when its flags change (make grade takes SMS and
    DEBUG from it unless given, so it rebuilds nothing): the students' code is then built
    exactly as the chapters were. `make classroom-env` is asked with a build folder of its own
    for the rest, because a make with other flags than the last build's would rewrite
    build/flags.txt, and the next make would rebuild everything."""
    if _ENV:
        return dict(_ENV)
    build = os.path.join(ROOT, "build")
    flags_file = os.path.join(build, "flags.txt")
    if not os.path.isfile(flags_file):
        raise GradeError("build/flags.txt is missing: run make common (make grade does) first")
    scratch = os.path.join(build, "grade", "env")
    status, out = run(["make", "-s", "--no-print-directory", "classroom-env", "BUILD=" + scratch],
                      cwd=ROOT)
    if status != 0:
        raise GradeError("make classroom-env failed: " + out.strip())
    env = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    for key in ("COMMON_HOST_OBJS", "COMMON_CUDA_OBJS", "COMMON_BASELINE_OBJS"):
        env[key] = env[key].replace(scratch, build)
    env["BUILD"], env["ROOT"] = build, ROOT
    cc_line, nvcc_line = (open(flags_file).read().splitlines() + ["", ""])[:2]
    env["CC"], _, env["CFLAGS"] = cc_line.partition(" ")
    if nvcc_line.startswith(" ") or not nvcc_line:
        env["NVCC"], env["NVCCFLAGS"], env["GENCODE"] = "", "", ""
    else:
        env["NVCC"], _, env["NVCCFLAGS"] = nvcc_line.partition(" ")
        env["GENCODE"] = " ".join(re.findall(r"-gencode \S+", env["NVCCFLAGS"]))
    sms = re.findall(r"code=sm_(\d+)", env["GENCODE"])
    env["MAKE_ARGS"] = ([f"SMS={' '.join(sms)}"] if sms else []) + \
        (["DEBUG=1"] if " -G " in f" {env['NVCCFLAGS']} " else [])
    _ENV.update(env)
    return dict(env)


def gpu_status():
    """(True, probe line) when a CUDA device runs code here, else (False, why not)."""
    probe = os.path.join(ROOT, "build", "tests", "cuda_probe")
    if not os.access(probe, os.X_OK):
        return False, "no CUDA compiler (nvcc) found, so no GPU code was built"
    status, out = run([probe])
    line = out.strip().splitlines()
    return status == 0, (line[-1] if line else f"the CUDA probe exited {status}")


def sanitizer_path(env):
    nvcc_dir = os.path.dirname(env.get("NVCC", "")) if env.get("NVCC") else ""
    for cand in ([os.path.join(nvcc_dir, "compute-sanitizer")] if nvcc_dir else []) + \
            [shutil.which("compute-sanitizer") or ""]:
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def find_source(student, name):
    """The student's copy of source `name` in `student` (a file or a folder), or raise. Links
    are not followed (submission.read_text() refuses a link or anything but a plain file)."""
    if not os.path.isdir(student) or os.path.islink(student):
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


# ---------------------------------------------------------------------------------------------
# The grader's own files: made once per process, hashed, checked before each use
# ---------------------------------------------------------------------------------------------

TRUSTED = {}
_LOCK = threading.RLock()


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 24), b""):
            h.update(chunk)
    return h.hexdigest()


def trust(path):
    TRUSTED[path] = sha256_of(path)
    return path


def private_name(path):
    """A temporary name beside `path` that no other grader uses (graders run at once: gpu_batch,
    grade-class): a file is made under it, then os.replace()d onto `path`, so that a reader never
    sees a partial one."""
    return f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"


def put_in_place(tmp, path):
    """os.replace(tmp, path), `path` trusted with tmp's hash (another grader may replace it next:
    with the same bytes, or still_trusted() says it changed)."""
    digest = sha256_of(tmp)
    os.replace(tmp, path)
    TRUSTED[path] = digest
    return path


def still_trusted(path):
    return path in TRUSTED and os.path.isfile(path) and sha256_of(path) == TRUSTED[path]


def cache_dir(env):
    d = os.path.join(env["BUILD"], "grade", "cache")
    os.makedirs(d, exist_ok=True)
    return d


def checker(env):
    """build/grade/check_output (classroom/grader/check_output.c): the grader's own check of an
    output and the maker of the hidden vectors, built once per process (again if it changed)."""
    src = os.path.join(kit.KIT, "grader", "check_output.c")
    binary = os.path.join(env["BUILD"], "grade", "check_output")
    with _LOCK:
        if not still_trusted(binary):
            os.makedirs(os.path.dirname(binary), exist_ok=True)
            tmp = private_name(binary)
            status, out = run([env["CC"] or "gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
                               src, "-o", tmp])
            if status:
                raise GradeError("classroom/grader/check_output.c did not build:\n" + tail(out))
            put_in_place(tmp, binary)
    return binary


_VECTORS = {}


def c_seed(seed):
    """The seed as the grader's C programs read it (64 bits): a seed of 2^63 or more (128-bit
    ones from make gradescope-zip) is hashed down; a smaller one is passed as it is."""
    return seed if seed < 1 << 63 else \
        int.from_bytes(hashlib.sha256(f"{seed}/vectors".encode()).digest()[:8], "little") >> 1


def vector_key(env):
    """A random key of this build (build/grade/vector.key, the grader's user's alone, made once
    and shared by graders at once) that the hidden vectors' names are hashed with."""
    path = os.path.join(env["BUILD"], "grade", "vector.key")
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = private_name(path)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, secrets.token_hex(32).encode())
        os.close(fd)
        try:
            os.link(tmp, path)  # the first grader's key wins; the others read it
        except FileExistsError:
            pass
        os.unlink(tmp)
    with open(path) as f:
        return f.read().strip()


def vector_file(env, folder, seed, n):
    """The hidden vector of n int32 for this seed (vector_gen.h), written once per process by
    the checker: a file left by an earlier run is not used."""
    # named by a hash keyed with a secret of this build (vector_key()): the student's program
    # reads this path, and a hash of the seed alone would give a small seed away to a search
    name = hashlib.sha256(f"{vector_key(env)}/{seed}/vector/{n}".encode()).hexdigest()[:20]
    path = os.path.join(folder, f"vector_{name}_{n}.bin")
    with _LOCK:
        if _VECTORS.get(path) != os.path.getmtime(path) if os.path.exists(path) else True:
            tmp = private_name(path)
            status, out = run([checker(env), "gen", str(c_seed(seed)), str(n), tmp])
            if status:
                if os.path.exists(tmp):
                    os.unlink(tmp)
                raise GradeError(f"the hidden vector of n = {n} could not be written: "
                                 f"{out.strip()}")
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
            _VECTORS[path] = os.path.getmtime(path)
    return path


_OBJECTS, _OBJECT_LOCKS = {}, {}


def shared_object(env, src, extra=()):
    """An object of the grader's own source `src` (a harness), compiled once per process with
    the course's flags (the same for every student), and hashed. Objects of other sources or
    flags compile at the same time (a lock per object)."""
    key = (src, tuple(extra))
    with _LOCK:
        lock = _OBJECT_LOCKS.setdefault(key, threading.Lock())
    with lock:
        obj = _OBJECTS.get(key)
        if obj and still_trusted(obj):
            return obj, ""
        # one object per source and flags: graders at once may build the same with other flags
        obj = os.path.join(cache_dir(env), os.path.splitext(os.path.basename(src))[0] +
                           (hashlib.sha256(repr(extra).encode()).hexdigest()[:8] if extra
                            else "") + ".o")
        tmp = private_name(obj)
        if src.endswith(".c"):
            cmd = [env["CC"]] + env["CFLAGS"].split() + list(extra) + ["-c", src, "-o", tmp]
        else:
            cmd = [env["NVCC"]] + env["NVCCFLAGS"].split() + list(extra) + ["-c", src, "-o", tmp]
        status, out = run(cmd)
        if status:
            return None, " ".join(cmd) + "\n" + out
        _OBJECTS[key] = put_in_place(tmp, obj)
        return obj, ""


def asan_common(env):
    """common/'s host sources under AddressSanitizer and UBSan, once per process (chapter 01's
    sanitizer build links the student's chapter with them)."""
    sources = [os.path.join(ROOT, "common", c)
               for c in ("cli.c", "data.c", "io.c", "report.c", "selftest.c")]
    with concurrent.futures.ThreadPoolExecutor(len(sources)) as pool:
        made = list(pool.map(lambda c: shared_object(env, c, ["-O0"] + env["ASAN_FLAGS"].split()),
                             sources))
    for obj, out in made:
        if obj is None:
            return None, out
    return [obj for obj, _ in made], ""


_RENAMED = {}


def renamed_reference(work, obj):
    """The course's object `obj` with every symbol it defines renamed ref_* (main: ref_main),
    for harness_gpu.cu: once per process."""
    with _LOCK:
        if obj in _RENAMED and still_trusted(_RENAMED[obj]):
            return _RENAMED[obj]
        status, syms = run(["nm", "--defined-only", "-g", obj])
        base = os.path.join(work, "ref_" + hashlib.sha256(obj.encode()).hexdigest()[:12])
        with open(base + ".syms", "w") as f:
            for line in syms.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] in "TDBR":
                    new = "ref_main" if parts[2] == "main" else "ref_" + parts[2]
                    f.write(f"{parts[2]} {new}\n")
        if run(["objcopy", "--redefine-syms=" + base + ".syms", obj, base + ".o"])[0]:
            return None
        _RENAMED[obj] = trust(base + ".o")
        return _RENAMED[obj]


# ---------------------------------------------------------------------------------------------
# Building the student's chapter
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

    def compile(self, path, obj):
        """The student's text at path (where the honesty gate compiled it: the same __FILE__,
        the same includes) with the flags the gate checked (compiled.build_flags())."""
        cuda = path.endswith(".cu")
        cmd = [self.env["NVCC"] if cuda else self.env["CC"]] + compiled.build_flags(
            self.env, os.path.join(self.folder, os.path.basename(path)), cuda) + \
            ["-c", path, "-o", obj]
        status, out = run(cmd)
        self.log += " ".join(cmd) + "\n" + shown_diagnostics(out, path)
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
        """The course's own objects of these sources, built by its Makefile when missing (one
        make at a time: students graded at once share them)."""
        with _LOCK:
            if all(os.path.isfile(self.course_object(s)) for s in sources):
                return True
            status, out = run(["make", "-s", "--no-print-directory", "-C",
                               os.path.join(ROOT, self.folder), "all"] + self.env["MAKE_ARGS"])
        self.log += out
        return status == 0 and all(os.path.isfile(self.course_object(s)) for s in sources)

    def asan(self):
        """Chapter 01 under AddressSanitizer and UBSan (as make test builds it): the student's
        source compiled here, common/ once per process."""
        objs, out = asan_common(self.env)
        if objs is None:
            return None, out
        path = os.path.join(self.work, "src", self.folder, self.sources[0])
        obj = os.path.join(self.work, "asan.o")
        # the file the gate compiled, with the flags it checked (compiled.build_configs())
        flags = compiled.build_flags(self.env, os.path.join(self.folder, self.sources[0]), False,
                                     sanitizer=True)
        status, out = run([self.env["CC"]] + flags + ["-c", path, "-o", obj])
        if status:
            return None, shown_diagnostics(out, path)
        out_bin = os.path.join(self.work, "run_asan")
        status, out = run([self.env["CC"]] + flags + [obj] + objs + ["-o", out_bin, "-lgomp"])
        return (out_bin if status == 0 else None), out

    def harness_cpu(self):
        """Chapter 01 linked with classroom/grader/harness_cpu.c (the in-place battery, the
        work-sharing check and the n > 2^31 case) and common/ with self_test_run() renamed."""
        h, out = shared_object(self.env, os.path.join(kit.KIT, "grader", "harness_cpu.c"),
                               ["-I", os.path.join(kit.KIT, "grader")])
        self.log += out
        if h is None:
            return None
        objs = self.env["COMMON_HOST_OBJS"].split()
        sel = [o for o in objs if o.endswith("/selftest.o")][0]
        renamed = os.path.join(self.work, "selftest_renamed.o")
        if run(["objcopy", "--redefine-sym", "self_test_run=course_self_test_run", sel,
                renamed])[0]:
            return None
        out_bin = os.path.join(self.work, "harness")
        cmd = [self.env["CC"]] + self.env["CFLAGS"].split() + [h] + self.objects + \
              [o for o in objs if o != sel] + [renamed, "-o", out_bin] + self.env["LDLIBS"].split()
        status, out = run(cmd)
        self.log += out
        return out_bin if status == 0 else None

    def harness_gpu(self):
        """The student's chapter, the course's (symbols renamed ref_*) and harness_gpu.cu, in
        one program: the in-place battery, the n > 2^31 case and the interleaved speed."""
        mine_srcs = [s for s in self.sources if s in self.graded]
        if not self.course_objects(mine_srcs):
            return None
        linked = [self.course_object(s) for s in self.sources if s not in self.graded]
        for k, s in enumerate(mine_srcs):
            mine = os.path.join(self.work, os.path.splitext(s)[0] + ".o")
            m = os.path.join(self.work, f"student_{k}.o")
            if run(["objcopy", "--redefine-sym", "main=student_main", mine, m])[0]:
                return None
            r = renamed_reference(cache_dir(self.env), self.course_object(s))
            if r is None:
                return None
            linked += [m, r]
        h, out = shared_object(self.env, os.path.join(kit.KIT, "grader", "harness_gpu.cu"),
                               ["-I", os.path.join(kit.KIT, "grader")])
        self.log += out
        if h is None:
            return None
        objs = self.env["COMMON_HOST_OBJS"].split() + \
            [o for o in self.env["COMMON_CUDA_OBJS"].split() if not o.endswith("/gpu_driver.o")]
        out_bin = os.path.join(self.work, "harness")
        cmd = [self.env["NVCC"]] + self.env["GENCODE"].split() + [h] + linked + self.baselines + \
              objs + ["-o", out_bin] + self.env["LDLIBS"].split()
        status, out = run(cmd)
        self.log += " ".join(cmd) + "\n" + out
        return out_bin if status == 0 else None


def radix_reference(b):
    """The course's radix sort program (its speed is the reference), built now: (path, log)."""
    ref_run = os.path.join(ROOT, kit.RADIX_DIR, "run")
    status, out = run(["make", "-s", "-C", os.path.join(ROOT, kit.RADIX_DIR), "all"] +
                      b.env["MAKE_ARGS"])
    return (ref_run if status == 0 and os.access(ref_run, os.X_OK) else None), out


class Made:
    """What the grader runs beside the student's code, made before any of it runs: the
    checker, the hidden vectors (once per process), the harness (in place, the n > 2^31 case,
    speed), chapter 01's sanitizer build, the radix sort's reference program. Each program is
    hashed (TRUSTED)."""

    def __init__(self, b, cfg, env, vectors, runs, harness):
        self.check = checker(env)
        self.runs = runs
        self.vector = {n: vector_file(env, vectors, runs.seed, n)
                       for n in sorted({r[0] for r in runs.files})}
        self.harness = self.asan = self.asan_log = self.reference = None
        # the harness and chapter 01's sanitizer build compile at the same time
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            asan = pool.submit(b.asan) if cfg.get("cpu") else None
            if harness:
                self.harness = b.harness_cpu() if cfg.get("cpu") else b.harness_gpu()
                if self.harness:
                    trust(self.harness)
            if asan:
                self.asan, self.asan_log = asan.result()
                if self.asan:
                    trust(self.asan)
        if cfg.get("radix"):
            self.reference, self.reference_log = radix_reference(b)
            if self.reference:
                trust(self.reference)
