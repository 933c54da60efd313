/**
 * \file harness_cpu.c
 * \brief The grader's runs of chapter 01, the CPU chapter, through the chapter's own scan: the
 *        in-place battery, the check that the threads share the work, and the n > 2^31 case.
 *
 * The chapter's self-test scans into a separate output, so it cannot see a scan that reads an
 * element after writing it. The grader links the student's chapter 01 with this file and with a
 * copy of common/selftest.o whose self_test_run() is renamed course_self_test_run(); the
 * chapter's main() then calls the self_test_run() below with its own scan. Run as
 * `harness --self-test [-n N]`:
 *
 * - the in-place battery: the battery's sizes (up to N when given, like the self-test), every
 *   pattern, inclusive and exclusive, every variant, in place, every element compared with the
 *   CPU reference; the seed is this run's, from the grader (verdict.h);
 * - the work-sharing check, on every call of the "threads" variant (on T > 1 threads) of at
 *   least 16 pages per thread: the battery's large sizes, and a size of its own (1024 pages per
 *   thread and a few more from the run's seed, so that a part cannot tell it apart; not capped by
 *   -n, and never printed: its verdict says "the check's own size" and shares in percent), in
 *   place and out of place. Two witnesses: the output's pages are made read-only, and the first write to
 *   each page (a fault, caught here) records which OpenMP thread made it, then lets it through;
 *   and each thread's CPU time during the call is read from its clock (the grader sets
 *   OMP_WAIT_POLICY=passive, so a thread that waits sleeps). A variant whose threads share the
 *   scan has each thread write first to its own slice's pages and spend about its share of the
 *   time (its CPU time read on a call of its own, without the pages' faults); if one thread
 *   wrote first to 90 % of the pages, or spent 75 % of the threads' time, the verdict
 *   `ONE THREAD: ...` says so (the grader's work-sharing item: docs/instructor.md); the CPU
 *   time is not judged when the threads spent less in all than half a serial scan of the same n
 *   (a stub's noise). It
 *   does not depend on how the part is written (scan_serial() or a loop of its own), and the
 *   outputs are checked like the battery's;
 * - with GRADE_BIG=N in the environment, instead: the n > 2^31 case, the "threads" variant,
 *   inclusive, in place on one array of N elements (4N bytes: the grader's only host memory of
 *   that size), the input from vector_gen.h with the run's seed, the output checked as a stream
 *   against the vector made again. It prints `big: ...` and exits 0 when right; `big: not run
 *   here: ...` (exit 0) when the memory is not there.
 * Exit 0 when every case passed, 1 otherwise (docs/CONVENTIONS.md §4).
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS */
#include "battery_sizes.h"
#include "data.h"
#include "io.h"
#include "selftest.h"
#include "vector_gen.h"
#include "verdict.h"

#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/** The tracked array: [g_base, g_base + g_bytes), the thread that first wrote each page, and
    the last thread seen writing it (the pages are made read-only again every SAMPLE_US). */
static char *g_base;
static size_t g_bytes, g_page;
static int *g_owner, *g_last;
static volatile int g_watching;
static long g_checked; /* tracked calls that wrote enough of their output to tell */
#define SAMPLE_US 100

/** A write to a read-only page of the tracked array: note the writing thread, let it through. */
static void on_fault(int sig, siginfo_t *info, void *unused)
{
    (void)unused;
    char *at = (char *)info->si_addr;
    if (!g_base || at < g_base || at >= g_base + g_bytes) {
        signal(sig, SIG_DFL); /* a real fault: crash as it would have */
        return;
    }
    const size_t page = (size_t)(at - g_base) / g_page;
    const int t = omp_get_level() >= 1 ? omp_get_ancestor_thread_num(1) : 0;
    __atomic_compare_exchange_n(&g_owner[page], &(int){-1}, t, 0, __ATOMIC_RELAXED,
                                __ATOMIC_RELAXED);
    __atomic_store_n(&g_last[page], t, __ATOMIC_RELAXED);
    mprotect(g_base + page * g_page, g_page, PROT_READ | PROT_WRITE);
}

/** An array of n int32 on whole pages (mmap), so that its pages can be tracked. */
static int32_t *page_array(size_t n, const char *what)
{
    const size_t bytes = (n ? n : 1) * sizeof(int32_t);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "harness: cannot map %zu bytes for %s\n", bytes, what);
        exit(EXIT_USAGE);
    }
    return (int32_t *)p;
}

/** The CPU-time clock of each thread of the OpenMP team, and its reading when tracking began. */
static clockid_t g_clock[256];
static double g_cpu0[256];
static int g_team;

static double cpu_seconds(clockid_t c)
{
    struct timespec ts;
    return clock_gettime(c, &ts) == 0 ? (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec : 0.0;
}

/** The clocks of the team's threads (the same threads run the part's parallel region: libgomp
    keeps its team of that size). */
static void team_clocks(void)
{
#pragma omp parallel
    {
        const int t = omp_get_thread_num();
        if (t < 256)
            pthread_getcpuclockid(pthread_self(), &g_clock[t]);
#pragma omp single
        g_team = omp_get_num_threads() < 256 ? omp_get_num_threads() : 256;
    }
}

/** Begin reading the threads' CPU time. */
static void cpu_begin(void)
{
    for (int t = 0; t < g_team; ++t)
        g_cpu0[t] = cpu_seconds(g_clock[t]);
}

/** Into `why`, why one thread did the scan by its CPU time since cpu_begin(), returning 1, or
    0; or -1 and why it cannot be judged: the threads spent less than `cpu_floor` seconds in all
    (half a serial scan of the same n: too little work to tell who did it; a stub's noise).
    (Not on a call whose pages are tracked: the faults' cost would be counted too.) */
static int cpu_end(size_t threads, double cpu_floor, char *why, size_t len)
{
    double total = 0, busiest = 0;
    int busy = 0;
    for (int t = 0; t < g_team; ++t) {
        const double spent = cpu_seconds(g_clock[t]) - g_cpu0[t];
        total += spent;
        if (spent > busiest) {
            busiest = spent;
            busy = t;
        }
    }
    if (getenv("GRADE_SHARE_DEBUG"))
        fprintf(stderr, "share: cpu %.3f ms, thread %d %.3f ms\n", 1e3 * total, busy,
                1e3 * busiest);
    if (threads >= 2 && total < cpu_floor) {
        snprintf(why, len, "the threads spent %.1f ms of CPU time in all, less than half of a "
                 "serial scan's %.1f ms: too little work to tell who did it", 1e3 * total,
                 2e3 * cpu_floor);
        return -1;
    }
    if (threads < 2 || busiest < 0.75 * total)
        return 0;
    snprintf(why, len, "thread %d spent %.0f %% of the threads' CPU time (%.1f of %.1f ms) on "
             "%zu threads", busy, 100.0 * busiest / total, 1e3 * busiest, 1e3 * total, threads);
    return 1;
}

/** While a call is tracked: every SAMPLE_US, every page read-only again, so that the next write
    to it is seen too (its writer becomes the page's last writer). Threads that touch their pages
    first and then wait while one thread writes the output are seen as what they are. */
static void *watch(void *unused)
{
    (void)unused;
    const struct timespec pause = {0, SAMPLE_US * 1000L};
    while (g_watching) {
        nanosleep(&pause, NULL);
        if (g_watching)
            mprotect(g_base, g_bytes, PROT_READ);
    }
    return NULL;
}

static pthread_t g_watcher;

/** Begin tracking the first and the last writer of each page of a[0..n). */
static void track_begin(int32_t *a, size_t n)
{
    g_page = (size_t)sysconf(_SC_PAGESIZE);
    g_bytes = (n * sizeof(int32_t) + g_page - 1) / g_page * g_page;
    for (size_t p = 0; p < g_bytes / g_page; ++p)
        g_owner[p] = g_last[p] = -1;
    g_base = (char *)a;
    mprotect(g_base, g_bytes, PROT_READ);
    g_watching = 1;
    if (pthread_create(&g_watcher, NULL, watch, NULL) != 0)
        g_watching = 0;
}

/** The thread that holds the most pages of `owner` (into *who), how many (into *most), and of
    how many pages written (returned). */
static size_t busiest(const int *owner, size_t pages, int *who, size_t *most)
{
    size_t count[256] = {0}, written = 0;
    *who = 0;
    *most = 0;
    for (size_t p = 0; p < pages; ++p) {
        const int t = owner[p];
        if (t < 0)
            continue;
        ++written;
        const int k = t < 256 ? t : 255;
        if (++count[k] > *most) {
            *most = count[k];
            *who = k;
        }
    }
    return written;
}

/** End tracking; into `why`, why one thread did the scan (T threads), returning 1, or 0. */
static int track_end(size_t threads, char *why, size_t len)
{
    if (g_watching) {
        g_watching = 0;
        pthread_join(g_watcher, NULL);
    }
    mprotect(g_base, g_bytes, PROT_READ | PROT_WRITE);
    const size_t pages = g_bytes / g_page;
    size_t most, last_most;
    int who, last_who;
    const size_t written = busiest(g_owner, pages, &who, &most);
    busiest(g_last, pages, &last_who, &last_most);
    g_base = NULL;
    if (getenv("GRADE_SHARE_DEBUG"))
        fprintf(stderr, "share: %zu pages, thread %d wrote first to %zu, thread %d last to %zu\n",
                written, who, most, last_who, last_most);
    if (threads < 2 || written < 8 * threads)
        return 0;
    ++g_checked;
    if (10 * most >= 9 * written) {
        /* a share, not page counts: the check's own size comes from the seed (review 2, #3) */
        snprintf(why, len, "thread %d wrote first to %.0f %% of the output's pages on %zu threads",
                 who, 100.0 * (double)most / (double)written, threads);
        return 1;
    }
    if (10 * last_most >= 9 * written) {
        snprintf(why, len, "thread %d was the last seen writing %.0f %% of the output's pages on "
                 "%zu threads", last_who, 100.0 * (double)last_most / (double)written, threads);
        return 1;
    }
    return 0;
}

/** The index of the "threads" variant, or -1. */
static int threads_variant(const scan_program *prog)
{
    for (int v = 0; v < prog->variant_count; ++v)
        if (strcmp(prog->variants[v], "threads") == 0)
            return v;
    return -1;
}

/** GRADE_BIG=N: the threaded variant on N elements in place, checked as a stream. */
static int big_case(const scan_program *prog, scan_fn fn, void *ctx, size_t n, uint64_t seed)
{
    const int v = threads_variant(prog);
    const size_t need = n * sizeof(int32_t) + ((size_t)1 << 28);
    const size_t have = host_memory_available();
    if (v < 0 || (have && have < need)) {
        verdict("big: not run here: n = %zu needs %.1f GiB of host memory, %.1f GiB available",
               n, (double)need / (1 << 30), (double)have / (1 << 30));
        return EXIT_OK;
    }
    int32_t *a = page_array(n, "the n > 2^31 array");
    const uint64_t key = grade_vector_key(seed, n);
    const long long blocks = (long long)((n + (1u << 20) - 1) >> 20);
#pragma omp parallel for schedule(static)
    for (long long b = 0; b < blocks; ++b)
        for (size_t i = (size_t)b << 20; i < n && i < ((size_t)b + 1) << 20; ++i)
            a[i] = grade_vector_at(key, i);
    const int status = fn(ctx, v, a, a, n, 0);
    /* The check: each block's sum of the input, their exclusive scan, then each block compared
       with the running sum from its prefix, all in parallel; the first wrong index is kept. */
    uint32_t *prefix = (uint32_t *)xmalloc((size_t)(blocks + 1) * sizeof(uint32_t), "the sums");
#pragma omp parallel for schedule(static)
    for (long long b = 0; b < blocks; ++b) {
        uint32_t s = 0;
        for (size_t i = (size_t)b << 20; i < n && i < ((size_t)b + 1) << 20; ++i)
            s += (uint32_t)grade_vector_at(key, i);
        prefix[b + 1] = s;
    }
    prefix[0] = 0;
    for (long long b = 0; b < blocks; ++b)
        prefix[b + 1] += prefix[b];
    size_t first = n, wrong = 0;
#pragma omp parallel for schedule(static) reduction(+ : wrong) reduction(min : first)
    for (long long b = 0; b < blocks; ++b) {
        uint32_t s = prefix[b];
        for (size_t i = (size_t)b << 20; i < n && i < ((size_t)b + 1) << 20; ++i) {
            s += (uint32_t)grade_vector_at(key, i);
            if (a[i] != (int32_t)s) {
                ++wrong;
                first = i < first ? i : first;
            }
        }
    }
    if (wrong) {
        uint32_t s = prefix[first >> 20];
        for (size_t i = first >> 20 << 20; i <= first; ++i)
            s += (uint32_t)grade_vector_at(key, i);
        verdict("big: n = %zu, variant threads, inclusive, in place, %d OpenMP threads: WRONG: "
                "%zu of %zu elements wrong; the first at index %zu: expected %d, got %d", n,
               omp_get_max_threads(), wrong, n, first, (int32_t)s, a[first]);
    } else {
        verdict("big: n = %zu, variant threads, inclusive, in place, %d OpenMP threads: right%s",
                n, omp_get_max_threads(), status ? " (but the scan returned an error)" : "");
    }
    free(prefix);
    munmap(a, n * sizeof(int32_t));
    return wrong || status ? EXIT_WRONG : EXIT_OK;
}

int self_test_run(const scan_program *prog, const scan_options *opt, const self_test_config *cfg,
                  scan_fn fn, void *ctx)
{
    const uint64_t seed = run_seed(opt->seed);
    const char *big = getenv("GRADE_BIG");
    if (big && *big)
        return big_case(prog, fn, ctx, (size_t)strtoull(big, NULL, 10), seed);
    size_t sizes[IN_PLACE_MAX_SIZES], largest = 0;
    const size_t limit = opt->n_given ? opt->n : (size_t)-1;
    const int count = in_place_sizes(cfg->tile, limit, sizes);
    long passed = 0, failed = 0, one_threads = 0;
    char one_why[400] = "";
    const size_t threads = (size_t)omp_get_max_threads();
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    /* the check's own size: 1024 pages per thread (4 MiB: time enough for the CPU clocks), and
       up to 16 pages more, from the seed */
    const size_t sharing = threads > 1 ? (1024 * threads + grade_mix(seed) % 16) * page /
                                         sizeof(int32_t) + grade_mix(seed + 1) % 1024 : 0;
    team_clocks();
    for (int i = 0; i < count; ++i)
        largest = sizes[i] > largest ? sizes[i] : largest;
    int32_t *in = (int32_t *)xmalloc((largest ? largest : 1) * sizeof(int32_t), "the input");
    int32_t *buf = page_array(largest, "the in-place array");
    int32_t *ref = (int32_t *)xmalloc((largest ? largest : 1) * sizeof(int32_t), "the reference");
    const size_t most = largest > 4 * sharing ? largest : 4 * sharing;
    g_owner = (int *)xmalloc((most * sizeof(int32_t) / page + 2) * sizeof(int), "the pages");
    g_last = (int *)xmalloc((most * sizeof(int32_t) / page + 2) * sizeof(int), "the pages");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    printf("in-place battery of %s: %d sizes up to %zu, 4 patterns, inclusive and exclusive, "
           "every variant\n", prog->name, count, largest);
    for (int i = 0; i < count; ++i) {
        const size_t n = sizes[i];
        for (int p = 0; p < PATTERN_COUNT; ++p) {
            generate_input(in, n, (data_pattern)p, seed);
            for (int exclusive = 0; exclusive <= 1; ++exclusive) {
                scan_reference(in, ref, n, exclusive, prog->segment);
                for (int v = 0; v < prog->variant_count; ++v) {
                    if (n)
                        memcpy(buf, in, n * sizeof(int32_t));
                    const int tracked = strcmp(prog->variants[v], "threads") == 0 &&
                                        threads > 1 && n >= 16 * threads * page / sizeof(int32_t);
                    if (tracked)
                        track_begin(buf, n);
                    const int status = fn(ctx, v, buf, buf, n, exclusive);
                    char why[200];
                    if (tracked && track_end(threads, why, sizeof why) && one_threads++ == 0)
                        snprintf(one_why, sizeof one_why, "variant threads, n=%zu: %s", n, why);
                    const verify_result r = verify_scan(ref, buf, n);
                    if (status == 0 && r.mismatches == 0) {
                        ++passed;
                        continue;
                    }
                    if (++failed <= 4) {
                        printf("  FAIL in place: n=%zu pattern=%s variant=%s %s\n", n,
                               pattern_name((data_pattern)p), prog->variants[v],
                               exclusive ? "exclusive" : "inclusive");
                        verify_report(stdout, &r, ref, buf, n);
                    }
                }
            }
        }
    }
    /* the work-sharing check's own size, in place and out of place (a part cannot behave only
       when in == out), inclusive, random input */
    const int tv = threads_variant(prog);
    if (sharing && tv >= 0) {
        /* the CPU-time call is 4 times as large: its serial time must dwarf the threads' own */
        const size_t big = 4 * sharing;
        int32_t *src = (int32_t *)xmalloc(big * sizeof(int32_t), "the work-sharing input");
        int32_t *want = (int32_t *)xmalloc(big * sizeof(int32_t), "the reference");
        int32_t *out = page_array(big, "the work-sharing output");
        generate_input(src, big, PATTERN_RANDOM, seed);
        scan_reference(src, want, big, 0, prog->segment);
        /* a serial scan's CPU time on this n (its pages touched already): the floor below which
           the threads' CPU time cannot say who did the work */
        const clockid_t self = CLOCK_THREAD_CPUTIME_ID;
        const double serial0 = cpu_seconds(self);
        scan_reference(src, want, big, 0, prog->segment);
        const double cpu_floor = 0.5 * (cpu_seconds(self) - serial0);
        /* 2: in place, pages tracked; 1: out of place, pages tracked; 0: in place, CPU time */
        for (int k = 2; k >= 0; --k) {
            const int in_place = k != 1;
            const size_t n = k ? sharing : big;
            memcpy(out, src, n * sizeof(int32_t));
            char why[200];
            if (k)
                track_begin(out, n);
            else
                cpu_begin();
            const int status = fn(ctx, tv, in_place ? out : src, out, n, 0);
            const int one = k ? track_end(threads, why, sizeof why) :
                                cpu_end(threads, cpu_floor, why, sizeof why);
            if (one > 0 && one_threads++ == 0) /* one < 0: too little CPU time to judge */
                snprintf(one_why, sizeof one_why, "variant threads, the check's own size (a few "
                         "million elements), %s: %s", in_place ? "in place" : "out of place", why);
            const verify_result r = verify_scan(want, out, n);
            if (status == 0 && r.mismatches == 0) {
                ++passed;
            } else if (++failed <= 4) {
                printf("  FAIL %s: n=%zu pattern=random variant=threads inclusive\n",
                       in_place ? "in place" : "out of place", n);
                verify_report(stdout, &r, want, out, n);
            }
        }
        munmap(out, big * sizeof(int32_t));
        free(src);
        free(want);
    }
    signal(SIGSEGV, SIG_DFL);
    free(in);
    munmap(buf, (largest ? largest : 1) * sizeof(int32_t));
    free(ref);
    free(g_owner);
    free(g_last);
    /* the verdicts, last, each once: the work sharing (on one thread: not checked), then the
       battery */
    if (one_threads)
        verdict("ONE THREAD: %s: the threads must share the scan", one_why);
    else if (g_checked)
        verdict("threads shared the work: each wrote first to its own pages, on %zu threads",
                threads);
    else if (threads < 2 || tv < 0)
        verdict("work sharing not checked: %zu thread(s)", threads);
    else
        verdict("work sharing not checked: the threaded variant wrote too little of its output "
                "to tell, on %zu threads", threads);
    verdict("in place %s: %ld passed, %ld failed", failed ? "FAILED" : "passed", passed, failed);
    return failed ? EXIT_WRONG : EXIT_OK;
}
