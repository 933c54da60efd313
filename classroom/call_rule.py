"""What a student's part may call: the honesty gate's lists and the rule that reads them
(classroom/gate.py applies it to every reference a part's compiled code makes; text_rule.py says
what a part may hold as text, before anything is compiled). docs/instructor.md ("The honesty
gate") and the students' ASSIGNMENT.md say the same in words.
"""
import os
import re

import compiled

# The course's functions (outside the parts) that the course's solution of each part calls:
# a part may call these, its own functions and the student's other parts, not the course's
# other functions (classroom/tests/test_kit.py checks that every solution passes).
PART_MAY_CALL = {
    "three-steps": {"scan_serial"},
    "warp-scan": set(),
    "sklansky": {"warp_exclusive_from_inclusive"},
    "ragged-load": set(),
    "ragged-store": set(),
    "recursion": {"tile_count", "scratch_slice", "scan_tiles_kernel", "add_carries_kernel"},
    "carry-kernel": set(),
    "seeded-scan": {"load_tile", "block_scan_tile", "store_tile"},
    "wait-and-publish": {"load_descriptor", "watchdog", "store_descriptor"},
    "publish-aggregate": {"pack_descriptor", "store_descriptor"},
    "look-back": {"load_descriptor", "pack_descriptor", "watchdog", "warp_reduce",
                  "store_descriptor"},
    "tile-draw": set(),
    "histogram": {"digit_of"},
    "digit-scan": set(),
    "scatter": {"digit_of"},
}

# Functions of chapter 08 a contestant may not change (the variant dispatch, the scratch sizes,
# the description line, the modes and main): the kernel is theirs to tune, what is timed and
# checked is not.
CONTEST_FIXED = ["lookback_temp_bytes", "lookback_scan", "describe_tiles", "two_streams_mode",
                 "main"]

ALLOWED = [
    ("output", r"(printf|puts|putchar|fprintf|fputs|fputc|putc|fflush|vprintf|vfprintf|snprintf|"
               r"sprintf|vsnprintf|vsprintf|perror|fwrite|stdout|stderr|__printf_chk|"
               r"__fprintf_chk|__sprintf_chk|__snprintf_chk)"),
    # (a named `#pragma omp critical(NAME)` refers to its lock, .gomp_critical_user_NAME)
    ("OpenMP", r"(omp_\w+|GOMP_\w+|\.gomp_critical_user_\w+)"),
    ("math", r"((a?(sin|cos|tan)h?|atan2|exp(2|10|m1)?|log(2|10|1p|b)?|pow|sqrt|cbrt|hypot|fabs|"
             r"floor|ceil|round|l?lround|l?lrint|trunc|fmod|remainder|remquo|fmin|fmax|fdim|fma|"
             r"ldexp|frexp|modf|nearbyint|rint|copysign|nan|erfc?|tgamma|lgamma|scalbl?n|ilogb|"
             r"nextafter|nexttoward)[fl]?|l?l?abs|l?l?div|__isnan\w*|__isinf\w*|__finite\w*|"
             r"__fpclassify\w*|__signbit\w*)"),
    ("strings and memory of the part's own arrays",
     r"(mem(cpy|set|move|cmp|chr)|str(n?len|n?cmp|r?chr|str|n?cpy|n?cat|c?spn|pbrk)|"
     r"__mem\w+_chk|__str\w+_chk|qsort|bsearch|s?rand|rand_r|is(alnum|alpha|digit|space|upper|"
     r"lower|xdigit|punct|print)|to(upper|lower)|__ctype_\w+)"),
    ("time", r"(clock|clock_gettime|time|gettimeofday)"),
    ("the compiler's helpers", r"(__stack_chk_fail|__assert_fail|__assertfail|__cxa_pure_virtual|"
                               r"__cxa_guard_(acquire|release|abort)|_Unwind_Resume|"
                               r"__gxx_personality_v0|"
                               r"__(u?(div|mod|mul)[sdt]i3|popcount[sdt]i2|clz[sdt]i2|ctz[sdt]i2|"
                               r"parity[sdt]i2|bswap[sd]i2|(ash|lsh)[lr][sdt]i3|neg[sdt]i2|"
                               r"fix\w+|float\w+|extend\w+|trunc\w+|mul[sdx]c3|div[sdx]c3|"
                               r"powi[sdx]f2))"),
    ("a launcher's CUDA calls", r"(cudaLaunchKernel\w*|__cudaPushCallConfiguration|"
                               r"__cudaPopCallConfiguration|cudaGetLastError|cudaPeekAtLastError|"
                               r"cudaGetErrorString|cudaGetErrorName|cuda_fail|cudaMemset\w*|"
                               r"cudaDeviceSynchronize|cudaStream(Synchronize|Query|WaitEvent|"
                               r"Create\w*|Destroy)|cudaGetDevice\w*|cudaDeviceGetAttribute|"
                               r"cudaOccupancy\w+|cudaFunc(GetAttributes|SetAttribute|"
                               r"SetCacheConfig|SetSharedMemConfig)|cudaEvent\w+|"
                               r"cudaLaunchCooperativeKernel\w*|cudaDeviceGetLimit|"
                               r"cudaMemGetInfo|cudaDriverGetVersion|cudaRuntimeGetVersion)"),
]
CPU_MEMORY = r"(malloc|calloc|realloc|free|aligned_alloc|posix_memalign|xmalloc)"
# Device code: what PTX may call beyond the source's and headers' functions (libdevice's __nv_*,
# the intrinsics) is allowed, but for these.
DEVICE_REFUSED = [(r"(malloc|free|__nv_aligned_device_malloc)",
                   "device-side malloc: memory outside the scratch the launcher is given")]
REFUSED = [
    (r"(exit|_exit|_Exit|quick_exit|abort|atexit|at_quick_exit|__cxa_atexit|__cxa_thread_atexit\w*|"
     r"longjmp|_?setjmp|siglongjmp|sigsetjmp|__longjmp_chk|__sigsetjmp|pthread_exit|raise|kill|"
     r"signal|sigaction|sigprocmask|pthread_kill|pthread_sigmask|alarm|setitimer)",
     "ending the program early, or signals"),
    (r"(fopen|fopen64|freopen|fdopen|fclose|fread|fgets|fgetc|getc|getchar|fscanf|scanf|sscanf|"
     r"open|open64|openat|creat|read|pread\w*|write|pwrite\w*|close|mmap\w*|munmap|mprotect|"
     r"madvise|dup\d?|pipe\d?|popen|pclose|system|fork|vfork|clone\w*|exec\w*|posix_spawn\w*|"
     r"dlopen|dlsym|dlvsym|dladdr|getenv|secure_getenv|setenv|putenv|unsetenv|environ|__environ|"
     r"syscall|ioctl|fcntl\w*|stdin|unlink|remove|rename|stat\w*|fstat\w*|lstat\w*|"
     r"pthread_create|sched_\w+|ptrace|prctl)",
     "files, other programs, threads other than OpenMP's, or the environment"),
    (r"(?i)(\w*::)*(cub|thrust)(::|_)\w*.*|\w*_(cub|thrust)\w*",
     "a library scan or sort (CUB, Thrust)"),
    (r"(cuda(Memcpy\w*|Malloc\w*|Free\w*|Host\w+|MemPrefetch\w*|MemAdvise\w*|Graph\w*|"
     r"GetDriverEntryPoint\w*|LaunchHostFunc|StreamAddCallback|StreamAttachMemAsync|MemPool\w*|"
     r"IpcOpen\w*|ImportExternal\w*|GetSymbolAddress|MemcpyToSymbol\w*)|cuGetProcAddress\w*|"
     r"cu[A-Z]\w*)",
     "copies or allocations (a scan on the host, or memory outside the scratch the launcher is "
     "given), or the driver's functions"),
    (r"(malloc|calloc|realloc|free|aligned_alloc|posix_memalign|memalign|valloc|pvalloc|xmalloc|"
     r"operator new.*|operator delete.*|__libc_\w+)", "host memory (a scan on the host)"),
]
# Headers a part's line may include: the C library's and the compiler's, and CUDA's own, but the
# libraries.
HEADER_REFUSED = re.compile(r"(?i)/(cub|thrust)/|/cub\.cuh$|/thrust\w*\.h")


def extra_allowed():
    """Names the instructor allows beyond the lists (GRADE_ALLOW="name ...")."""
    return set(os.environ.get("GRADE_ALLOW", "").split())


# course_host_names()'s answers, by the objects' paths, sizes and times: a class's grading (and
# the gate's corpus) asks once per part, and each nm costs about 60 ms.
_HOST_NAMES = {}


def course_host_names(env):
    """The functions common/ defines (the CPU reference, the checks, the readers), from its
    objects, when they are built: named in the refusal of a call to one. One nm for all of them,
    asked again only when an object changed."""
    objs = [obj for key in ("COMMON_HOST_OBJS", "COMMON_CUDA_OBJS", "COMMON_BASELINE_OBJS")
            for obj in env.get(key, "").split() if os.path.isfile(obj)]
    stamp = tuple((obj, os.stat(obj).st_size, os.stat(obj).st_mtime_ns) for obj in objs)
    if stamp not in _HOST_NAMES:
        names = set()
        if objs:
            status, out = compiled.run(["nm", "-g", "--defined-only", "-C"] + objs)
            names = {compiled.base_name(l.split(None, 2)[2]) for l in out.splitlines()
                     if len(l.split(None, 2)) == 3 and l.split()[1] in "TDBRW"}
        _HOST_NAMES[stamp] = frozenset(names - {"cuda_fail", "xmalloc"})
    return set(_HOST_NAMES[stamp])


def refused(symbol, cpu, course_host):
    """Why a reference from a part to `symbol` (a name the compiled code refers to that is not a
    function of the source itself) is not allowed; None when it is."""
    name = compiled.base_name(symbol) if "(" in symbol or "<" in symbol else symbol
    if name in extra_allowed() or symbol in extra_allowed():
        return None
    if cpu and re.fullmatch(CPU_MEMORY, name):
        return None
    for pattern, why in REFUSED:
        if re.fullmatch(pattern, name) or re.fullmatch(pattern, symbol):
            return why
    for _, pattern in ALLOWED:
        if re.fullmatch(pattern, name):
            return None
    if name in course_host:
        return "the course's own host code (the CPU reference, the checks, the files)"
    return ("not on the list of what a part may call (classroom/call_rule.py; your instructor can "
            "allow it with GRADE_ALLOW)")
