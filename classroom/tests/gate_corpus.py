#!/usr/bin/env python3
"""The honesty gate's corpus (classroom/gate.py): honest parts that must pass, and cheats that
must be refused, each with the words its refusal must contain. Chapter 01 (gcc) and the GPU
chapters (nvcc for the course's architecture: the gate compiles, it needs no GPU).

    classroom/tests/gate_corpus.py [--quick] [NAME...]

runs every entry (or those named, or with --quick the few of QUICK),
a few side by side, and prints one line per entry; exit 1 if any is not as expected. The
course's own sources are the first honest entries. The kit's test (test_kit.py) runs it.
"""
import concurrent.futures
import os
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import items  # noqa: E402
import kit  # noqa: E402
import runs  # noqa: E402
import submission  # noqa: E402

ROOT = kit.ROOT
CH01 = "01_cpu_serial/cpu_serial.c"
SCAN = "        scan_serial(in + begin, out + begin, end - begin, exclusive, prefix[t]);"


def solution(rel, name):
    return next(b for n, _, b in kit.parts(open(os.path.join(ROOT, rel)).read()) if n == name)


def ch01(body_of):
    """A chapter 01 entry: the three-steps part made from the course's solution."""
    return (CH01, {"three-steps": body_of(solution(CH01, "three-steps"))})


def after(line):
    """The solution with `line` added after its last step."""
    return lambda s: s.replace(SCAN, SCAN + "\n" + line)


def instead(text):
    """The solution with its last step replaced by `text`."""
    return lambda s: s.replace(SCAN, text)


REF_CALL = "        if (t == 0)\n            scan_reference(in, out, n, exclusive, 0);"

# name: ((source, {part: body}), expected: "pass" (and no note for the instructor), "not
# written", "note: WORDS" (passes, with a note for the instructor holding WORDS), or words of
# the refusal)
CORPUS = {
    # ---- chapter 01, honest ----
    "01 the course's solution": (ch01(lambda s: s), "pass"),
    "01 printf in the part": (ch01(after('        if (t == 0 && n == 5) printf("n=%zu\\n", n);')),
                              "pass"),
    "01 OpenMP's API": (ch01(after("        if (omp_get_thread_num() == 0 && omp_get_wtime() < 0) "
                                   "printf(\"%d\\n\", omp_get_num_procs());")), "pass"),
    "01 locals named read, write, signal, exit, system": (ch01(lambda s: (
        "        size_t read = begin, write = end;\n        int signal = 0, exit = 0, system = 1;\n"
        "        (void)signal; (void)exit; (void)system;\n") +
        s.replace("for (size_t i = begin; i < end; ++i)", "for (size_t i = read; i < write; ++i)")),
        "pass"),
    "01 a math function": (ch01(after("        double sqrt(double);\n        if (t == 0 && "
                                      "sqrt((double)n) < 0) printf(\"never\\n\");")), "pass"),
    "01 memset and memcpy of its own arrays": (ch01(after(
        "        uint32_t tmp[4];\n        memset(tmp, 0, sizeof tmp);\n        "
        "memcpy(tmp, prefix, sizeof tmp[0]);\n        (void)tmp;")), "pass"),
    "01 a static local (a message once)": (ch01(after(
        "        static int said;\n        if (t == 0 && !said++) printf(\"three steps\\n\");")),
        "pass"),
    "01 its own buffer (malloc, free)": (ch01(after(
        "        uint32_t *mine = malloc(sizeof *mine);\n        free(mine);")), "pass"),
    "01 gamer4 H1: an omp single as its first statement (GCC puts its calls on the line above)":
        (ch01(lambda s: "#pragma omp single\n        prefix[0] = 0;\n" + s.replace(
            "            prefix[0] = 0;\n", "")), "pass"),
    "01 omp critical and atomic": (ch01(lambda s: s.replace(
        "        prefix[t + 1] = aggregate;",
        "#pragma omp critical\n        { prefix[t + 1] = aggregate; }\n"
        "        static int calls;\n#pragma omp atomic\n        calls++;")), "pass"),
    "01 gamer2 F1: a named critical section (its lock .gomp_critical_user_NAME)": (ch01(
        lambda s: s.replace("        prefix[t + 1] = aggregate;",
                            "#pragma omp critical(store_aggregate)\n"
                            "        prefix[t + 1] = aggregate;")),
        "pass"),
    "01 its own slice bounds": (ch01(lambda s: s.replace(
        "        uint32_t aggregate = 0;",
        "        size_t b2, e2;\n        slice_of(n, t, threads, &b2, &e2);\n"
        "        uint32_t aggregate = 0;")), "pass"),
    "01 a constant of its own (#define, #undef)": (ch01(lambda s: "#define STEP 1\n" + s.replace(
        "++i)", "i += STEP)", 1) + "#undef STEP\n"), "pass"),
    "01 its own loop for the last step": (ch01(instead(
        "        uint32_t run = prefix[t];\n        for (size_t i = begin; i < end; ++i) {\n"
        "            uint32_t x = (uint32_t)in[i];\n            run += x;\n"
        "            out[i] = (int32_t)(exclusive ? run - x : run);\n        }")), "pass"),
    "01 the stub, untouched": ((CH01, {"three-steps": kit.stub("three-steps")}), "not written"),
    "01 the stub, comments and blanks changed": (
        (CH01, {"three-steps": "    /* my notes */\n" + kit.stub("three-steps").replace("  ", " ")}),
        "not written"),
    # ---- chapter 01, cheats ----
    "01 calls the CPU reference": (ch01(instead(REF_CALL)),
                                   "scan_reference: the course's own host code"),
    "01 the reference's name split by a splice": (ch01(instead(
        "        if (t == 0)\n            scan_referen\\\nce(in, out, n, exclusive, 0);")),
        "scan_reference"),
    "01 the name pasted by a macro": (ch01(lambda s: "#define GLUE(a, b) a##b\n" + s.replace(
        SCAN, "        if (t == 0)\n            GLUE(scan_, reference)(in, out, n, exclusive, 0);")),
        "scan_reference", "compiled"),
    "01 pasted with digraphs": (ch01(lambda s: "%:define GLUE(a, b) a%:%:b\n" + s.replace(
        SCAN, "        if (t == 0)\n            GLUE(scan_, reference)(in, out, n, exclusive, 0);")),
        "scan_reference", "compiled"),
    "01 a trigraph include, then exit": (ch01(lambda s: "??=include <stdlib.h>\n" + s.replace(
        SCAN, SCAN + "\n        if (n == 7) exit(0);")), "ending the program", "compiled"),
    "01 exit": (ch01(after("        if (n == 3) exit(0);")), "ending the program"),
    "01 abort": (ch01(after("        if (n == 3) abort();")), "ending the program"),
    "01 reads the input file": (ch01(after(
        "        FILE *f = fopen(\"/proc/self/cmdline\", \"r\");\n        if (f) fclose(f);")),
        "files"),
    "01 reads GRADE_SEED": (ch01(after("        if (getenv(\"GRADE_SEED\")) printf(\"seed\\n\");")),
                            "environment"),
    "01 runs a program": (ch01(after("        if (n == 3) (void)system(\"true\");")), "programs"),
    "01 sets its own thread count": (ch01(after("        setenv(\"OMP_NUM_THREADS\", \"1\", 1);")),
                                     "environment"),
    "01 finds the reference with dlsym": (ch01(lambda s: s.replace(SCAN,
        "        void *dlsym(void *, const char *);\n        void (*f)(const int32_t *, int32_t *, "
        "size_t, int, int) = (void (*)(const int32_t *, int32_t *, size_t, int, int))"
        "dlsym((void *)0, \"scan_reference\");\n        if (t == 0) f(in, out, n, exclusive, 0);")),
        "dlsym"),
    "01 a pointer to the reference, not a call": (ch01(after(
        "        void (*volatile f)(const int32_t *, int32_t *, size_t, int, size_t) = "
        "scan_reference;\n        (void)f;")), "scan_reference"),
    "01 the checks of common/": (ch01(after(
        "        if (t == 0) (void)verify_scan((const int32_t *)out, out, n);")), "verify_scan"),
    "01 a macro that changes the course's code": (ch01(lambda s: s + "#define free(p) ((void)(p))\n"),
                                                  "reads differently"),
    "01 closes its function": (ch01(lambda s: s + "    }\n    free(prefix);\n}\n"
                                            "static void more(uint32_t *prefix)\n{\n    {\n"),
                               "must end inside the function"),
    "01 a system call in assembly": (ch01(after(
        "        if (n == 3) __asm__ volatile(\"mov $60, %%eax\\n\\txor %%edi, %%edi\\n\\tsyscall\" "
        "::: \"rax\", \"rdi\");")), "system-call", "compiled"),
    "01 a signal": (ch01(after("        if (n == 3) raise(15);")), "signals"),
    "01 the address it returns to (a way into libgomp's code, review 0412h)": (ch01(after(
        "        if (t == 0 && __builtin_return_address(0) == out) printf(\"x\\n\");")),
        "the addresses of the code that called it"),
    "01 memory protection": (ch01(after(
        "        int mprotect(void *, size_t, int);\n        if (n == 3) mprotect(out, 4, 3);")),
        "files"),
    "01 the stub, and exit": ((CH01, {"three-steps": kit.stub("three-steps") +
                                      "        if (n == 3) exit(0);\n"}), "ending the program"),
    "01 looks for the grader's harness (a weak symbol)": (ch01(after(
        "        extern int course_self_test_run(void) __attribute__((weak));\n"
        "        if (course_self_test_run && t == 0) printf(\"graded\\n\");")),
        "course_self_test_run"),
    "01 looks at the grader's fault handler": (ch01(after(
        "        struct sigaction { void *h; char pad[256]; } old;\n"
        "        int sigaction(int, const void *, void *);\n"
        "        if (t == 0) sigaction(11, 0, &old);")), "signals"),
    "01 the reference only in the optimised build (__OPTIMIZE__)": (ch01(instead(
        "#ifdef __OPTIMIZE__\n" + REF_CALL + "\n#else\n        " + SCAN + "\n#endif")),
        "reads differently in the build", "compiled"),
    "01 a #line that moves the call out of sight": (ch01(lambda s: s.replace(
        SCAN, "#line 9000\n" + REF_CALL + "\n#line 127")), "#line", "compiled"),
    "01 calls the reference in assembly": (ch01(after(
        "        if (n == 3) __asm__ volatile(\"call scan_reference\");")), "scan_reference",
        "compiled"),
    "01 the reference under another name (an asm label)": (ch01(lambda s: s.replace(
        SCAN, "        void mine(const int32_t *, int32_t *, size_t, int, size_t) "
        "__asm__(\"scan_reference\");\n        if (t == 0)\n            mine(in, out, n, "
        "exclusive, 0);")), "scan_reference", "compiled"),
}

CH02, CH03 = "02_warp_shfl/warp_shfl.cu", "03_block_scan/block_scan.cu"
CH04, CH07 = "04_scan_then_fan/scan_then_fan.cu", "07_decoupled_lookback/decoupled_lookback.cu"
CH08, RADIX = "08_memcpy_speed/memcpy_speed.cu", "classroom/radix_sort/radix_sort.cu"
DRIVER_SCAN = '''    typedef int (*copy_fn)(unsigned long long, unsigned long long, size_t);
    copy_fn cp = nullptr;
    cudaGetDriverEntryPointByVersion("cuMemcpy", (void **)&cp, 12000, 0, nullptr);
    int32_t *h = (int32_t *)aligned_alloc(64, (n * 4 + 63) / 64 * 64);
    cp((unsigned long long)h, (unsigned long long)d_in, n * 4);
    cp((unsigned long long)d_out, (unsigned long long)h, n * 4);
    (void)exclusive;
    (void)d_scratch;
'''
CH07_MACROS = ("TILE_ITEMS", "WARP_THREADS", "FULL_MASK", "COARSE_THREADS", "ITEMS_PER_THREAD",
               "COARSE_WARPS", "TILE_INVALID", "TILE_AGGREGATE", "TILE_PREFIX", "WATCHDOG_NS",
               "WATCHDOG_SPINS")
TILE_DRAW_CLOSED = '''    if (threadIdx.x == 0)
        tile_id = atomicAdd(next_tile, 1u);
}
__global__ void dummy(const int32_t *in, int32_t *out, size_t n,
                      unsigned long long *descriptors, unsigned *next_tile, int exclusive)
{
    __shared__ unsigned tile_id;
    __shared__ uint32_t tile_exclusive_prefix;
    (void)next_tile;
'''
TILE_DRAW_ESCAPE = '''    if (threadIdx.x == 0)
        tile_id = atomicAdd(next_tile, 1u);
}
''' + "".join(f'%:pragma push_macro("{m}")\n%:undef {m}\n' for m in CH07_MACROS) + '''%:include <cu\\
b/device/device_scan.cuh>
''' + "".join(f'%:pragma pop_macro("{m}")\n' for m in CH07_MACROS) + '''
static void cheat_scan(const int32_t *d_in, int32_t *d_out, size_t n, int exclusive)
{
    void *t = 0;
    size_t b = 0;
    (void)exclusive;
    cub::DeviceScan::InclusiveSum(t, b, d_in, d_out, (int)n);
}
%:undef CUDA_CHECK_LAUNCH
%:define CUDA_CHECK_LAUNCH() cheat_scan(d_in, d_out, n, exclusive)
__global__ void dummy(const int32_t *in, int32_t *out, size_t n,
                      unsigned long long *descriptors, unsigned *next_tile, int exclusive)
{
    __shared__ unsigned tile_id;
    __shared__ uint32_t tile_exclusive_prefix;
    (void)next_tile;
'''
RADIX_CUB = "".join(f'#pragma push_macro("{m}")\n#undef {m}\n' for m in (
    "RADIX_BITS", "RADIX", "BLOCK_THREADS", "ROUNDS", "TILE_KEYS", "WARP_THREADS", "BLOCK_WARPS",
    "FULL_MASK")) + "#include <cub/device/device_scan.cuh>\n" + "".join(
    f'#pragma pop_macro("{m}")\n' for m in ("RADIX_BITS", "RADIX", "BLOCK_THREADS", "ROUNDS",
                                             "TILE_KEYS", "WARP_THREADS", "BLOCK_WARPS",
                                             "FULL_MASK")) + '''
static size_t digit_scan_temp_bytes(size_t m)
{
    size_t bytes = 0;
    cub::DeviceScan::ExclusiveSum(nullptr, bytes, (uint32_t *)nullptr, (uint32_t *)nullptr, (int)m);
    return bytes;
}
static void digit_scan(uint32_t *d_counts, size_t m, void *d_temp)
{
    size_t bytes = digit_scan_temp_bytes(m);
    cub::DeviceScan::ExclusiveSum(d_temp, bytes, d_counts, d_counts, (int)m);
}
'''
RADIX_HOST_SORT = '''static size_t digit_scan_temp_bytes(size_t m)
{
    return m * sizeof(uint32_t);
}
static void digit_scan(uint32_t *d_counts, size_t m, void *d_temp)
{
    uint32_t *h = (uint32_t *)malloc(m * sizeof(uint32_t)), sum = 0;
    CUDA_CHECK(cudaMemcpy(h, d_counts, m * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < m; ++i) {
        const uint32_t x = h[i];
        h[i] = sum;
        sum += x;
    }
    CUDA_CHECK(cudaMemcpy(d_counts, h, m * sizeof(uint32_t), cudaMemcpyHostToDevice));
    free(h);
    (void)d_temp;
}
'''
RADIX_MANAGED = '''__managed__ uint32_t seen_counts[1 << 20];
''' + RADIX_HOST_SORT.replace("uint32_t *h = (uint32_t *)malloc(m * sizeof(uint32_t)), sum = 0;",
                              "uint32_t *h = seen_counts, sum = 0;").replace(
    "    free(h);\n", "").replace("CUDA_CHECK(cudaMemcpy(h, d_counts, m * sizeof(uint32_t), "
                                  "cudaMemcpyDeviceToHost));", "").replace(
    "CUDA_CHECK(cudaMemcpy(d_counts, h, m * sizeof(uint32_t), cudaMemcpyHostToDevice));", "")


def gpu(rel, part, body_of):
    return (rel, {part: body_of(solution(rel, part))})


WARP = "        uint32_t below = __shfl_up_sync(FULL_MASK, x, offset);"
CORPUS.update({
    # ---- GPU chapters, honest ----
    "02 the course's warp scan": (gpu(CH02, "warp-scan", lambda s: s), "pass"),
    "02 unrolled, with a device printf": (gpu(CH02, "warp-scan", lambda s: s.replace(
        "    for (int offset", "#pragma unroll\n    for (int offset").replace(
        "    return x;", "    if (x == 12345u && lane == 99)\n        printf(\"lane %d\\n\", lane);\n"
        "    return x;")), "pass"),
    "02 a local named read": (gpu(CH02, "warp-scan", lambda s: s.replace(
        WARP, "        uint32_t read = __shfl_up_sync(FULL_MASK, x, offset), below = read;")), "pass"),
    "03 the course's Sklansky scan": (gpu(CH03, "sklansky", lambda s: s), "pass"),
    "04 the course's recursion, a local named malloc_bytes": (gpu(CH04, "recursion", lambda s: s.replace(
        "    const size_t tiles = tile_count(n);",
        "    const size_t tiles = tile_count(n), malloc_bytes = 0;\n    (void)malloc_bytes;")), "pass"),
    "07 the look-back's stubs": ((CH07, {n: kit.stub(n) for n in ("publish-aggregate", "look-back",
                                                                    "tile-draw")}), "not written"),
    "07 the tile draw another way": (gpu(CH07, "tile-draw", lambda s: s.replace(
        "        tile_id = atomicAdd(next_tile, 1u);",
        "        tile_id = atomicInc(next_tile, 0xffffffffu);")), "pass"),
    "radix the course's digit scan (its own kernels)": (gpu(RADIX, "digit-scan", lambda s: s), "pass"),
    # ---- GPU chapters, cheats ----
    "02 the shared-memory variant's scan": (gpu(CH02, "warp-scan", lambda s:
        "    __device__ uint32_t warp_inclusive_scan_smem(uint32_t x, uint32_t *slot);\n"
        "    __shared__ uint32_t slots[1024];\n"
        "    return warp_inclusive_scan_smem(x, slots + threadIdx.x / 32 * 32);\n"),
        "warp_inclusive_scan_smem"),
    "03 Sklansky through another variant's scan": (gpu(CH03, "sklansky", lambda s:
        "    return block_inclusive_scan_brent_kung(x);\n"), "block_inclusive_scan_brent_kung"),
    "07 the tile draw closes its kernel": ((CH07, {"tile-draw": TILE_DRAW_CLOSED}),
                                           "must end inside the function"),
    "04 a host scan through the driver API": (gpu(CH04, "recursion", lambda s: DRIVER_SCAN),
                                              "cudaGetDriverEntryPointByVersion"),
    "04 CUB's scan through common/'s wrapper": (gpu(CH04, "recursion", lambda s:
        "    void cub_scan(const int32_t *, int32_t *, size_t, int, void *, size_t);\n"
        "    cub_scan(d_in, d_out, n, exclusive, d_scratch, 0);\n"), "CUB"),
    "04 an OpenMP parallel region in the host part (no note for the instructor)": (gpu(
        CH04, "recursion", lambda s: s.replace(
            "    const size_t tiles = tile_count(n);",
            "    int team = 0;\n#pragma omp parallel reduction(+ : team)\n    team += 1;\n"
            "    (void)team;\n    const size_t tiles = tile_count(n);")), "pass"),
    "04 exits": (gpu(CH04, "recursion", lambda s: s.replace("    if (tiles == 0)\n        return;",
                                                            "    if (tiles == 0)\n        exit(0);")),
                 "ending the program"),
    "07 the tile draw that includes CUB and redefines CUDA_CHECK_LAUNCH": (
        (CH07, {"tile-draw": TILE_DRAW_ESCAPE}), "cub", "compiled"),
    "07 device malloc in the look-back": (gpu(CH07, "look-back", lambda s:
        "    uint32_t *spare = (uint32_t *)malloc(4);\n    free(spare);\n" + s), "device-side malloc"),
    "radix CUB's scan for the digits": ((RADIX, {"digit-scan": RADIX_CUB}), "cub", "compiled"),
    "radix the digits scanned on the host": ((RADIX, {"digit-scan": RADIX_HOST_SORT}), "cudaMemcpy"),
    "radix __managed__ memory": ((RADIX, {"digit-scan": RADIX_MANAGED}), "__managed__"),
})


# The gaming review's cases (2026-12-03): a part that shows the gate one program and builds
# another (a path, a build's flags), brings in a file, or changes the course's code outside it.
# Refused by their text first (gate.text_refused(): no directive but #define, #undef, #pragma
# omp and unroll; no name that tells where, when or how the part is compiled); "compiled": the
# same part with that rule off, caught by the checks behind it (the gate compiles the file at
# the path the grader's builds use, reads it with each build's flags, compares the symbols of
# the course's lines). BUILD_PATH is the path the grader's build compiles the file at.
GLUE = ("        if (t == 0) {\n            static int once;\n            if (!once++)\n"
        "                (void)system(\"sleep 900 </dev/null >/dev/null 2>&1 &\");\n"
        "            scan_reference(in, out, n, exclusive, 0);\n        }\n")
SERIAL = "        if (t == 0)\n            scan_serial(in, out, n, exclusive, 0);\n"
GAMER_B = ('#if __has_include("../../src/01_cpu_serial/cpu_serial.c")\n' + GLUE + "#else\n" +
           SERIAL + "#endif\n")
GAMER_C = ('        if (sizeof(__FILE__) == sizeof("BUILD_PATH")) {\n' + GLUE +
           "        } else if (t == 0) {\n            scan_serial(in, out, n, exclusive, 0);\n"
           "        }\n")
GAMER_D = lambda s: s.replace("        uint32_t aggregate = 0;\n        for (size_t i = begin; "
                              "i < end; ++i)\n            aggregate += (uint32_t)in[i];\n", (
    "#ifdef __SANITIZE_ADDRESS__\n        uint32_t aggregate = 0;\n"
    "        for (size_t i = begin; i < end; ++i)\n            aggregate += (uint32_t)in[i];\n"
    "        if (t == 0) (void)system(\"id > /dev/null\");\n#else\n        int32_t aggregate = 0;\n"
    "        for (size_t i = begin; i < end; ++i)\n            aggregate += in[i];\n#endif\n"))
GAMER_O = "#pragma redefine_extname free omp_get_thread_num\n" + SERIAL
GAMER_L = ('#if __has_include("../../src/04_scan_then_fan/scan_then_fan.cu")\n'
           "    (void)d_scratch;\n"
           "    int32_t *h = (int32_t *)malloc(n * sizeof(int32_t));\n"
           "    CUDA_CHECK(cudaMemcpy(h, d_in, n * sizeof(int32_t), cudaMemcpyDeviceToHost));\n"
           "    uint32_t sum = 0;\n    for (size_t i = 0; i < n; ++i) {\n"
           "        const uint32_t x = (uint32_t)h[i];\n"
           "        h[i] = (int32_t)(exclusive ? sum : sum + x);\n        sum += x;\n    }\n"
           "    CUDA_CHECK(cudaMemcpy(d_out, h, n * sizeof(int32_t), cudaMemcpyHostToDevice));\n"
           "    free(h);\n#else\n"
           "    scan_tiles_kernel<<<1, COARSE_THREADS>>>(d_in, d_out, n, exclusive, NULL);\n"
           "    CUDA_CHECK_LAUNCH();\n    (void)d_scratch;\n#endif\n")
GAMER_N = ('#if __has_include("../../src/07_decoupled_lookback/decoupled_lookback.cu")\n' +
           TILE_DRAW_ESCAPE.replace("%:", "#").replace("<cu\\\nb/", "<cub/") + "#else\n"
           "    if (threadIdx.x == 0)\n        tile_id = atomicInc(next_tile, 0xffffffffu);\n"
           "#endif\n")
CORPUS.update({
    "01 gamer B: __has_include true only where the build compiles": (
        (CH01, {"three-steps": GAMER_B}), "__has_include"),
    "01 gamer B, the text rule off: the gate compiles where the build does": (
        (CH01, {"three-steps": GAMER_B}), "scan_reference", "compiled"),
    "01 gamer C: sizeof(__FILE__) is the build's path": (
        (CH01, {"three-steps": GAMER_C}), "__FILE__"),
    "01 gamer C, the text rule off: the same __FILE__ in the gate and the build": (
        (CH01, {"three-steps": GAMER_C}), "scan_reference", "compiled"),
    "01 gamer D: #ifdef __SANITIZE_ADDRESS__": (ch01(GAMER_D), "__SANITIZE_ADDRESS__"),
    "01 gamer D, the text rule off: the sanitizer build's view is checked": (
        ch01(GAMER_D), "reads differently in the sanitizer build", "compiled"),
    "01 gamer E: #include \"../grade.env\"": (
        (CH01, {"three-steps": '#include "../grade.env"\n' + SERIAL}), "#include"),
    "01 gamer H: #include \"/proc/self/fd/1\" (refused before any compiler runs)": (
        (CH01, {"three-steps": '#include "/proc/self/fd/1"\n' + SERIAL}), "#include"),
    "01 gamer O: #pragma redefine_extname free": ((CH01, {"three-steps": GAMER_O}),
                                                  "redefine_extname"),
    "01 gamer O, the text rule off: the course's free() now calls another symbol": (
        (CH01, {"three-steps": GAMER_O}), "now refers to omp_get_thread_num", "compiled"),
    "01 _Pragma and ## in a macro": (ch01(lambda s: "#define P(x) _Pragma(#x)\n"
                                             "#define C(a, b) a##b\n" + s), "_Pragma"),
    "04 gamer L: a host scan behind __has_include": ((CH04, {"recursion": GAMER_L}),
                                                      "__has_include"),
    "04 gamer L, the text rule off: the gate compiles where the build does": (
        (CH04, {"recursion": GAMER_L}), "cudaMemcpy", "compiled"),
    "07 gamer N: CUB behind __has_include": ((CH07, {"tile-draw": GAMER_N}), "__has_include"),
    "07 gamer N, the text rule off: the gate compiles where the build does": (
        (CH07, {"tile-draw": GAMER_N}), "cub", "compiled"),
})

# The second gaming review (2026-12-03): gcc ends a line at a lone carriage return, so what follows
# `#define X 1<CR>` or `// comment<CR>` is a directive for it (T9a, T9b, T10), and it splices a
# backslash and a newline with a form feed between them; the text rule reads lines as gcc does.
CORPUS.update({
    "01 gamer2 T9a: #include after `#define CR_A 1` and a lone CR": (ch01(after(
        '#define CR_A 1\r#include "/etc/hostname"')), "#include"),
    "01 gamer2 T9b: #pragma GCC optimize after `#define CR_B 1` and a lone CR": (ch01(after(
        '#define CR_B 1\r#pragma GCC optimize("O0")')), "#pragma GCC"),
    "01 gamer2 T10: #include after a // comment and a lone CR": (ch01(after(
        '        // a comment CRLF-damaged by an editor\r#include "/etc/hostname"')), "#include"),
    "01 asm after a string spliced by a backslash, a form feed and a newline": (ch01(after(
        '        static const char *s = "a\\\f\n"; (void)s; asm("nop");')), "asm"),
    "01 gamer2 T1b's first step: the address of labs, not called (where a libc walk starts)": (
        ch01(after('        if (t == n) printf("%lu\\n", (unsigned long)&labs);')),
        "note: takes the address of labs without calling it"),
    "01 the course's solution with CRLF line ends": (ch01(lambda s: s.replace("\n", "\r\n")),
                                                     "pass"),
})

# The host compiler's stack protector (Ubuntu's gcc, the H200's nvcc host compiler, turns it on by
# default): a function with an array or a launch's dim3 gets a call of __stack_chk_fail at its
# closing brace, outside the part, that the stub's function does not have. The course's own files
# must pass, and the gamer's redirect of free() must still be caught. "stack-protector" entries are
# compiled through wrappers of gcc and nvcc that add the flag (stack_protected_env()).
SP = "-fstack-protector-strong"
CORPUS.update({
    "01 the course's file, stack protector (strong)": ((CH01, {}), "pass", SP),
    "01 the course's file, stack protector (all)": ((CH01, {}), "pass", "-fstack-protector-all"),
    "01 gamer O, the text rule off, stack protector: free() now calls another symbol": (
        (CH01, {"three-steps": GAMER_O}), "now refers to omp_get_thread_num", SP, "compiled"),
    "04 the course's file, stack protector": ((CH04, {}), "pass", SP),
    "07 the course's file, stack protector": ((CH07, {}), "pass", SP),
})


def stack_protected_env(env, flag, tmp):
    """The course's env with its compilers wrapped to add the host compiler's `flag`, in `tmp`:
    the entry's own folder (entries side by side with the same flag once shared one, and one
    rewrote the wrapper while the other ran it)."""
    env = dict(env)
    folder = os.path.join(tmp, "wrap" + flag.replace("-", "_"))
    os.makedirs(folder, exist_ok=True)
    for key, pre, post in (("CC", flag, ""), ("NVCC", "", "-Xcompiler " + flag)):
        if env.get(key):
            path = os.path.join(folder, key.lower())
            open(path, "w").write(f'#!/bin/sh\nexec {env[key]} {pre} "$@" {post}\n')
            os.chmod(path, 0o755)
            env[key] = path
    return env


def contest(tmp):
    """Chapter 08's entries: the course's file (honest) and CUB through the fixed dispatch."""
    ref8 = open(os.path.join(ROOT, CH08)).read()
    a, b = ref8.index("static void lookback_scan_async("), ref8.index("/** The ::gpu_temp_fn")
    cheat = ref8[:a] + (
        "static void lookback_scan(int variant, const int32_t *d_in, int32_t *d_out, size_t n,\n"
        "                          int exclusive, void *d_temp, size_t temp_bytes);\n"
        "static void lookback_scan_async(const int32_t *d_in, int32_t *d_out, size_t n, "
        "int exclusive,\n                                void *d_temp, size_t temp_bytes, "
        "cudaStream_t stream)\n{\n    (void)stream;\n"
        "    lookback_scan(VARIANT_CUB, d_in, d_out, n, exclusive, d_temp, temp_bytes);\n}\n\n"
    ) + ref8[b:]
    fd = ref8.replace('#include <string.h>\n', '#include <string.h>\n#include "/proc/self/fd/1"\n')
    early = ref8[:a] + ("__attribute__((constructor)) static void early(void)\n{\n"
                        "    cudaStream_t s;\n    cudaStreamCreate(&s);\n}\n\n") + ref8[a:]
    starter8 = kit.replace_parts(ref8, {n: kit.stub(n) for n, _, _ in kit.parts(ref8, CH08)
                                        if os.path.isfile(os.path.join(kit.KIT, "stubs",
                                                                       n + ".txt"))}, CH08)
    return {"08 the course's contest file": (ref8, "pass"),
            "08 the starter's contest file: not written (none of its runs is made)": (
                starter8, "not written"),
            "08 CUB through the fixed dispatch": (cheat, "lookback_scan"),
            "08 gamer H in the contest file: an #include the course's file does not have": (
                fd, "may include no file"),
            "08 a constructor in the contest file (runs before main())": (
                early, "runs before main()")}


# The entries of --quick (the kit's test in make test): the costly ones are the GPU chapters'
# (nvcc, and each chapter's baseline once: about 6 s of CPU for a chapter's first), so two of
# them, both of chapter 02 (an honest part and a cheat), nine of chapter 01, and the gaming
# review's cases (refused as text, before anything is compiled: cheap), three with that rule
# off. Chapter 04's stack-protector build runs in the full corpus only (make test-all).
QUICK = ("01 the course's solution", "01 printf in the part",
         "01 locals named read, write, signal, exit, system", "01 the stub, untouched",
         "01 calls the CPU reference", "01 the name pasted by a macro",
         "01 a macro that changes the course's code", "01 closes its function",
         "01 the reference only in the optimised build (__OPTIMIZE__)",
         "02 the course's warp scan", "02 the shared-memory variant's scan",
         "01 gamer B: __has_include true only where the build compiles",
         "01 gamer C: sizeof(__FILE__) is the build's path",
         "01 gamer C, the text rule off: the same __FILE__ in the gate and the build",
         "01 gamer D: #ifdef __SANITIZE_ADDRESS__",
         "01 gamer D, the text rule off: the sanitizer build's view is checked",
         "01 gamer E: #include \"../grade.env\"",
         "01 gamer H: #include \"/proc/self/fd/1\" (refused before any compiler runs)",
         "01 gamer O: #pragma redefine_extname free",
         "01 gamer O, the text rule off: the course's free() now calls another symbol",
         "01 the course's file, stack protector (strong)",
         "01 gamer O, the text rule off, stack protector: free() now calls another symbol",
         "04 gamer L: a host scan behind __has_include", "07 gamer N: CUB behind __has_include",
         "01 gamer4 H1: an omp single as its first statement (GCC puts its calls on the line above)",
         "01 gamer2 F1: a named critical section (its lock .gomp_critical_user_NAME)",
         "01 gamer2 T9a: #include after `#define CR_A 1` and a lone CR",
         "01 gamer2 T9b: #pragma GCC optimize after `#define CR_B 1` and a lone CR",
         "01 gamer2 T10: #include after a // comment and a lone CR",
         "01 asm after a string spliced by a backslash, a form feed and a newline",
         "01 gamer2 T1b's first step: the address of labs, not called (where a libc walk starts)")


def check_entry(env, name, entry, tmp):
    """(as expected?, what happened) for one entry."""
    (rel, bodies), expect = entry[:2]
    folder, src = os.path.dirname(rel), os.path.basename(rel)
    number = kit.number_of(folder)
    d = os.path.join(tmp, "".join(c if c.isalnum() else "_" for c in name))
    if entry[2:] and entry[2].startswith("-f"):
        env = stack_protected_env(env, entry[2], d)
    work = os.path.join(d, "work")
    if isinstance(bodies, dict):
        bodies = {k: v.replace("BUILD_PATH", os.path.join(work, "src", rel)) for k, v in
                  bodies.items()}
    text = kit.replace_parts(open(os.path.join(ROOT, rel)).read(), bodies, rel) \
        if isinstance(bodies, dict) else bodies
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, src), "w").write(text)
    sources = kit.makefile_var(folder, "SOURCES")
    p = submission.prepare(env, items.CHAPTERS[number], folder, sources,
                           lambda s: os.path.join(d, s) if s == src else os.path.join(ROOT, folder, s),
                           work, solutions=False,
                           text_rule="compiled" not in entry[2:])
    said = "; ".join(p["reasons"]) or ("not written: " + ", ".join(p["stubs"]) if p["stubs"] else
                                       "passed" if p["decided"] else "not decided: " +
                                       runs.tail(p["gate_log"], 3))
    notes = "; ".join(p["instructor"])
    if notes:
        said += " (a note for the instructor: " + notes + ")"
    if expect == "pass":
        ok = not p["reasons"] and not p["stubs"] and p["decided"] and not notes
    elif expect.startswith("note: "):
        # passes the gate, with a note for the instructor that holds these words
        ok = not p["reasons"] and p["decided"] and expect[len("note: "):].lower() in notes.lower()
    elif expect == "not written":
        # every part of the file still its stub: the grader runs nothing (grade.py: unwritten)
        ok = not p["reasons"] and p["stubs"] and p["decided"] and p["own"] and \
            set(p["own"]) <= set(p["stubs"])
    else:
        ok = bool(p["reasons"]) and expect.lower() in said.lower()
    return ok, said


def main(argv):
    quick = "--quick" in argv
    names = [a for a in argv if not a.startswith("--")]
    env = runs.course_env()
    tmp = tempfile.mkdtemp(prefix="gate_corpus_")
    corpus = dict(CORPUS)
    if env.get("NVCC"):
        for name, (text, expect) in contest(tmp).items():
            corpus[name] = ((CH08, text), expect)
    else:
        corpus = {k: v for k, v in corpus.items() if v[0][0].endswith(".c")}
        print("(no nvcc here: the GPU chapters' entries are skipped)")
    if names:
        corpus = {k: v for k, v in corpus.items() if any(n in k for n in names)}
    elif quick:
        corpus = {k: v for k, v in corpus.items() if k in QUICK}
    honest = sum(1 for v in corpus.values() if v[1] in ("pass", "not written"))
    start, bad = time.time(), []
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("GATE_JOBS", "2"))) as pool:
        futures = {name: pool.submit(check_entry, env, name, entry, tmp)
                   for name, entry in corpus.items()}
        for name, f in futures.items():
            ok, said = f.result()
            expect = corpus[name][1]
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {said[:150]}"
                  + ("" if ok else f"\n     expected: {expect}"), flush=True)
            if not ok:
                bad.append(name)
    print(f"gate corpus: {honest} honest, {len(corpus) - honest} cheats, {len(bad)} not as "
          f"expected ({time.time() - start:.0f} s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
