/**
 * \file harness_cpu.c
 * \brief The grader's runs of chapter 01, the CPU chapter, through the chapter's own scan: the
 *        in-place battery, the check that the threads share the work, and the n > 2^31 case,
 *        every output judged by a process that never runs the student's code (verdict.h).
 *
 * The chapter's self-test scans into a separate output, so it cannot see a scan that reads an
 * element after writing it. The grader links the student's chapter 01 with this file and with a
 * copy of common/selftest.o whose self_test_run() is renamed course_self_test_run(); the
 * chapter's main() then calls the self_test_run() below with its own scan. Run as
 * `harness --self-test [-n N]`. Two processes (verdict.h): the child runs main(), the student's
 * scan and the witnesses below, and shows each output to the judge; the judge checks it, times
 * the threaded variant, and prints the verdicts (judge_verdicts(), at the end of this file).
 *
 * - the in-place battery: the battery's sizes (up to N when given, like the self-test), every
 *   pattern, inclusive and exclusive, every variant, in place, every element compared by the
 *   judge with its own reference; the seed is this run's, from the grader through the judge;
 * - the work sharing, on every call of the "threads" variant (on T > 1 threads) of at least 16
 *   pages per thread: the battery's large sizes, and a size of its own (1024 pages per thread and
 *   a few more from the run's seed; not capped by -n), in place and out of place. Two witnesses
 *   in the child: the output's pages are made read-only, and the first write to each page (a fault, caught here) records which OpenMP thread made
 *   it, then lets it through (every 100 us the pages are made read-only again: the last writer
 *   too); and each thread's CPU time during a call of its own (the grader sets
 *   OMP_WAIT_POLICY=passive, so a thread that waits sleeps). If one thread wrote first (or last)
 *   to 90 % of the pages, or spent 75 % of the threads' CPU time, the child tells the judge
 *   `ONE THREAD: ...`, which the judge believes (a claim against the part); a "shared" from the
 *   child it does not believe alone. Then the judge times the threaded variant itself against
 *   its own serial scan and the course's two-pass scan (judge_serve(), timing_finding()) and
 *   says `ONE THREAD: ...` where the machine could tell and the part gained nothing. The timed
 *   calls are in place at the work-sharing size, like the battery's, on inputs from a fresh
 *   draw of the judge's own getrandom() for each; a part can still tell them apart by their
 *   address (the judge's box) or by coming after the battery (docs/instructor.md). Between a
 *   timed call's return and the next, the judge also looks for what runs beside the part's
 *   OpenMP team (beside_team(), started_process(), last_pid());
 * - with GRADE_BIG=N in the environment, instead: the n > 2^31 case, the "threads" variant,
 *   inclusive, in place on one array of N elements (4N bytes: the grader's only host memory of
 *   that size), the input from vector_gen.h with the run's seed, the output shown to the judge as
 *   a stream and checked against the vector made again. The judge says `big: ... right` (exit 0)
 *   or WRONG; `big: not run here: ...` (exit 0) when it finds the memory is not there.
 * Exit 0 when every case passed, 1 otherwise (docs/CONVENTIONS.md §4).
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS */
#include "battery_sizes.h"
#include "data.h"
#include "io.h"
#include "selftest.h"
#include "share_rule.h"
#include "vector_gen.h"
#include "verdict.h"

#include <omp.h>
#include <pthread.h>
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
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

/** The work-sharing check's own size on T threads: 1024 pages per thread (4 MiB: time enough for
    the CPU clocks), and up to 16 pages and 1023 elements more, from the seed (0 on one thread). */
static size_t sharing_size(size_t threads, uint64_t seed)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return threads > 1 ? (1024 * threads + grade_mix(seed) % 16) * page / sizeof(int32_t) +
                         grade_mix(seed + 1) % 1024 : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* The child: runs the student's scan, shows every output to the judge (verdict.h)              */
/* ------------------------------------------------------------------------------------------ */

/** Show one case to the judge (in a batch: the judge prints what was wrong, at the end). */
static void judged(const char *what, int variant, int pattern, int exclusive, const int32_t *out,
                   size_t n, int status)
{
    judge_case_out(what, variant, pattern, exclusive, out, n, status, 0);
}

/** GRADE_BIG=N: the threaded variant on N elements in place, shown to the judge as a stream. */
static int big_case(const scan_program *prog, scan_fn fn, void *ctx, size_t n, uint64_t seed)
{
    const int v = threads_variant(prog);
    if (g_box && g_box->skip) {
        printf("big: not run here (the judge found too little host memory)\n");
        return EXIT_OK;
    }
    int32_t *a = page_array(n, "the n > 2^31 array");
    const uint64_t key = grade_vector_key(seed, n);
    const long long blocks = (long long)((n + (1u << 20) - 1) >> 20);
#pragma omp parallel for schedule(static)
    for (long long b = 0; b < blocks; ++b)
        for (size_t i = (size_t)b << 20; i < n && i < ((size_t)b + 1) << 20; ++i)
            a[i] = grade_vector_at(key, i);
    const int status = v < 0 ? 1 : fn(ctx, v, a, a, n, 0);
    judged("big: variant threads, inclusive, in place", v, JUDGE_VECTOR, 0, a, n, status);
    munmap(a, n * sizeof(int32_t));
    return EXIT_OK; /* the judge's verdict decides */
}

int self_test_run(const scan_program *prog, const scan_options *opt, const self_test_config *cfg,
                  scan_fn fn, void *ctx)
{
    const uint64_t seed = run_seed();
    const char *big = getenv("GRADE_BIG");
    if (big && *big)
        return big_case(prog, fn, ctx, (size_t)strtoull(big, NULL, 10), seed);
    size_t sizes[IN_PLACE_MAX_SIZES], largest = 0;
    const size_t limit = opt->n_given ? opt->n : (size_t)-1;
    const int count = in_place_sizes(cfg->tile, limit, sizes);
    long one_threads = 0;
    char one_why[400] = "";
    const size_t threads = (size_t)omp_get_max_threads();
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t sharing = sharing_size(threads, seed);
    team_clocks();
    for (int i = 0; i < count; ++i)
        largest = sizes[i] > largest ? sizes[i] : largest;
    int32_t *in = (int32_t *)xmalloc((largest ? largest : 1) * sizeof(int32_t), "the input");
    int32_t *buf = page_array(largest, "the in-place array");
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
                for (int v = 0; v < prog->variant_count; ++v) {
                    if (n)
                        memcpy(buf, in, n * sizeof(int32_t));
                    const int tracked = strcmp(prog->variants[v], "threads") == 0 &&
                                        threads > 1 && n >= 16 * threads * page / sizeof(int32_t);
                    if (tracked)
                        track_begin(buf, n);
                    const int status = fn(ctx, v, buf, buf, n, exclusive);
                    char why[200], what[160];
                    if (tracked && track_end(threads, why, sizeof why) && one_threads++ == 0)
                        snprintf(one_why, sizeof one_why, "variant threads, n=%zu: %s", n, why);
                    snprintf(what, sizeof what, "in place: n=%zu pattern=%s variant=%s %s", n,
                             pattern_name((data_pattern)p), prog->variants[v],
                             exclusive ? "exclusive" : "inclusive");
                    judged(what, v, p, exclusive, buf, n, status);
                    /* and out of place (the self-test's way, judged: its item's evidence) */
                    const int s2 = fn(ctx, v, in, buf, n, exclusive);
                    snprintf(what, sizeof what, "out of place: n=%zu pattern=%s variant=%s %s", n,
                             pattern_name((data_pattern)p), prog->variants[v],
                             exclusive ? "exclusive" : "inclusive");
                    judged(what, v, p, exclusive, buf, n, s2);
                }
            }
        }
    }
    /* the work-sharing check's own size, in place and out of place (a part cannot behave only
       when in == out), inclusive, random input */
    const int tv = threads_variant(prog);
    if (sharing && tv >= 0) {
        /* the CPU-time call is 4 times as large: its serial time must dwarf the threads' own */
        const size_t big_n = 4 * sharing;
        int32_t *src = (int32_t *)xmalloc(big_n * sizeof(int32_t), "the work-sharing input");
        int32_t *out = page_array(big_n, "the work-sharing output");
        generate_input(src, big_n, PATTERN_RANDOM, seed);
        /* a serial scan's CPU time on this n (into out: its pages touched already): the floor
           below which the threads' CPU time cannot say who did the work */
        const clockid_t self = CLOCK_THREAD_CPUTIME_ID;
        const double serial0 = cpu_seconds(self);
        scan_reference(src, out, big_n, 0, 0);
        const double cpu_floor = 0.5 * (cpu_seconds(self) - serial0);
        /* 2: in place, pages tracked; 1: out of place, pages tracked; 0: in place, CPU time */
        for (int k = 2; k >= 0; --k) {
            const int in_place = k != 1;
            const size_t n = k ? sharing : big_n;
            memcpy(out, src, n * sizeof(int32_t));
            char why[200], what[160];
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
            snprintf(what, sizeof what, "%s: the work-sharing size, pattern=random variant=threads "
                     "inclusive", in_place ? "in place" : "out of place");
            judged(what, tv, PATTERN_RANDOM, 0, out, n, status);
        }
        munmap(out, big_n * sizeof(int32_t));
        free(src);
    }
    signal(SIGSEGV, SIG_DFL);
    free(in);
    munmap(buf, (largest ? largest : 1) * sizeof(int32_t));
    free(g_owner);
    free(g_last);
    /* what this process's witnesses found (the judge believes them only against the part) */
    if (one_threads)
        judge_claim("ONE THREAD: %s", one_why);
    else if (g_checked)
        judge_claim("shared: each thread wrote first to its own pages, on %zu threads", threads);
    else
        judge_claim("too little: the threaded variant wrote too little of its output to tell");
    /* then the runs the judge times: input written by the judge just before each */
    while (judge_call(JUDGE_SERVE) == 0 && g_box->op == JUDGE_TIMED) {
        omp_set_num_threads(g_box->status);
        /* in place, at the work-sharing check's own size: the shape of the battery's call
           just above (the fourth gaming review, S04, told the timed calls apart by out ==
           in + 2^22 and their n) */
        const size_t n = g_box->n <= 2 * JUDGE_CHUNK ? g_box->n : 2 * JUDGE_CHUNK;
        fn(ctx, g_box->variant, g_box->data, g_box->data, n, 0);
        omp_set_num_threads((int)threads);
    }
    return EXIT_OK; /* the judge's verdicts decide */
}

/* ------------------------------------------------------------------------------------------ */
/* The judge: the plan of cases, the timing of the work sharing, the verdicts                   */
/* ------------------------------------------------------------------------------------------ */

/** The judge's word on the n > 2^31 case when this machine lacks its memory (judge_before()). */
static char g_big_skip[200];

/** GRADE_BIG's N, or 0. */
static size_t big_n_asked(void)
{
    const char *big = getenv("GRADE_BIG");
    return big && *big ? (size_t)strtoull(big, NULL, 10) : 0;
}

/** The judge's scheduling and limits as they were before any of the student's code ran (the
    fourth gaming review, S02 and S08: a part pinned its judge to one CPU, or lowered its
    RLIMIT_NOFILE, and so made the timing "not decided" on any machine). A process of the run's
    user may change them (sched_setaffinity, setpriority, sched_setscheduler and prlimit need no
    more than the same uid; undumpability does not guard them), and nothing else in the run
    does: a change counts against the part (judge_verdicts()). */
static struct {
    int taken;
    cpu_set_t cpus;
    int nice, policy;
    struct rlimit lim[RLIM_NLIMITS];
    char changed[160]; /* what changed, once one has */
} g_guard;

static void guard_take(void)
{
    CPU_ZERO(&g_guard.cpus);
    if (sched_getaffinity(0, sizeof g_guard.cpus, &g_guard.cpus) != 0)
        CPU_SET(0, &g_guard.cpus);
    errno = 0;
    g_guard.nice = getpriority(PRIO_PROCESS, 0);
    g_guard.policy = sched_getscheduler(0);
    for (int r = 0; r < RLIM_NLIMITS; ++r)
        getrlimit(r, &g_guard.lim[r]);
    g_guard.taken = 1;
}

/** 1 when the judge's scheduling or limits are not as guard_take() found them (g_guard.changed
    says what), else 0. */
static int guard_changed(void)
{
    if (!g_guard.taken || g_guard.changed[0])
        return g_guard.changed[0] != 0;
    cpu_set_t now;
    CPU_ZERO(&now);
    struct rlimit lim;
    if (sched_getaffinity(0, sizeof now, &now) != 0 || !CPU_EQUAL(&now, &g_guard.cpus))
        snprintf(g_guard.changed, sizeof g_guard.changed, "CPU affinity (%d CPUs, was %d)",
                 CPU_COUNT(&now), CPU_COUNT(&g_guard.cpus));
    else if (getpriority(PRIO_PROCESS, 0) != g_guard.nice)
        snprintf(g_guard.changed, sizeof g_guard.changed, "nice value (%d, was %d)",
                 getpriority(PRIO_PROCESS, 0), g_guard.nice);
    else if (sched_getscheduler(0) != g_guard.policy)
        snprintf(g_guard.changed, sizeof g_guard.changed, "scheduling policy (%d, was %d)",
                 sched_getscheduler(0), g_guard.policy);
    for (int r = 0; r < RLIM_NLIMITS && !g_guard.changed[0]; ++r)
        if (getrlimit(r, &lim) != 0 || lim.rlim_cur != g_guard.lim[r].rlim_cur ||
            lim.rlim_max != g_guard.lim[r].rlim_max)
            snprintf(g_guard.changed, sizeof g_guard.changed, "resource limit %d (prlimit)", r);
    return g_guard.changed[0] != 0;
}

/** guard_changed() in each thread of a team of T, the yardstick's (libgomp gives a team of the
    same size the same pool threads): a thread's CPU affinity, nice value and policy are its own
    on Linux, and the run's processes can change those of the judge's worker threads as well as
    its main thread's (a review of 2026-12-04 pinned the workers to one CPU, unseen). */
static void guard_team(int T)
{
#pragma omp parallel num_threads(T)
    {
#pragma omp critical(judge_guard)
        guard_changed();
    }
}

/** Whether every process of this run's user is the run's own (the grader's sandbox: a user of
    its own per run, GRADE_RUN_OWN_UID=1); else the run's processes are those of its session. */
static int g_own_uid;

/** Whether the run has a PID namespace of its own (the grader's sandbox, GRADE_RUN_PID_NS=1):
    then every PID allocated in it is the run's (last_pid()). */
static int g_pid_ns;

/** Whether the judge is the run's subreaper (judge_before()); else started_process() cannot
    see every process the part started, and the rounds are void. */
static int g_reaper;

static void judge_before(judge_box *box, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    guard_take();
    /* an orphan of the child's is adopted by the judge, not by init: started_process() */
    g_reaper = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
    const char *own = getenv("GRADE_RUN_OWN_UID");
    g_own_uid = own && strcmp(own, "1") == 0;
    const char *ns = getenv("GRADE_RUN_PID_NS");
    g_pid_ns = ns && strcmp(ns, "1") == 0;
    const size_t n = big_n_asked();
    if (!n)
        return;
    const size_t need = n * sizeof(int32_t) + ((size_t)1 << 28);
    const size_t have = host_memory_available();
    if (have && have < need) {
        snprintf(g_big_skip, sizeof g_big_skip, "n = %zu needs %.1f GiB of host memory, %.1f "
                 "GiB available", n, (double)need / (1 << 30), (double)have / (1 << 30));
        box->skip = 1;
    }
}

/** The course's two-pass scan over k threads (01_cpu_serial/cpu_serial.c, scan_threads()):
    the yardstick of the timing, run by the judge in its own process. */
static void yardstick(const int32_t *in, int32_t *out, size_t n, int k)
{
    uint32_t prefix[257];
#pragma omp parallel num_threads(k)
    {
        const size_t t = (size_t)omp_get_thread_num(), T = (size_t)omp_get_num_threads();
        const size_t begin = n / T * t + (t < n % T ? t : n % T);
        const size_t end = begin + n / T + (t < n % T ? 1 : 0);
        uint32_t s = 0;
        for (size_t i = begin; i < end; ++i)
            s += (uint32_t)in[i];
        prefix[t + 1] = s;
#pragma omp barrier
#pragma omp single
        {
            prefix[0] = 0;
            for (size_t q = 1; q <= T; ++q)
                prefix[q] += prefix[q - 1];
        }
        s = prefix[t];
        for (size_t i = begin; i < end; ++i) {
            s += (uint32_t)in[i];
            out[i] = (int32_t)s;
        }
    }
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/** The work-sharing timing (docs/instructor.md): TIMING_ROUNDS rounds of the judge's serial
    scan, the yardstick on T threads and the part's threaded variant on T threads, each on a fresh
    input the judge writes just before the run. The part is taken at its fastest round (a busy
    machine only adds time), and its speed-up is against the judge's own serial scan (a part's
    own one-thread time would be the part's to slow down). */
#define TIMING_ROUNDS 7
/** Rounds a run may lose (the program's threads ran while the judge timed its own scans) before
    the judge gives up timing it. */
#define TIMING_VOID_MAX (2 * TIMING_ROUNDS)

/** The most threads of the child the judge follows (thread_places()): more than the grader's
    sandbox lets a run's user have (classroom/sandbox.py, NPROC), so only a run outside it can
    have more, whose rounds are then void. */
#define PLACES_MAX 1024

static struct {
    int step, pending, wrong, voided, stopped;
    size_t n;
    double sent, round_serial, round_yard;
    double serial[TIMING_ROUNDS], yard[TIMING_ROUNDS], part[TIMING_ROUNDS];
    int32_t *in, *ref;
    uint64_t state;
    long conts;    /* g_conts when the round began */
    int busy;      /* the program's processes ran while the judge timed its own scans */
    int unchecked; /* rounds void because the judge could not read the run's CPU times */
    long started;  /* a process the part started, seen after it returned (started_process()) */
    long pid_wake; /* the run's PID namespace's last PID when the judge woke (last_pid()) */
    long spawned;  /* its last PID when the judge handed over the next call, where it moved */
    int beside;    /* the most threads seen beside the child's team (beside_team()) */
    long long child_wake; /* the child's CPU time when the judge woke (process_cpu_ns()) */
    int unlooked;  /* turns in which the judge could not read where the child's threads wait */
    int wake_n;    /* the child's threads but its main thread when the judge woke, and... */
    long wake_tid[PLACES_MAX];
    unsigned long wake_pc[PLACES_MAX]; /* ...where each waited (thread_places()) */
} g_time;

/** SIGCONTs the judge has had: each ends a stop (SIGSTOP: the judge cannot ignore it), which
    only the program's own processes can send it (review 3, #6). */
static volatile sig_atomic_t g_conts;

static void on_cont(int sig)
{
    (void)sig;
    ++g_conts;
}

/** The CPUs this process could run on before any of the student's code ran (g_guard). */
static int cpus_here(void)
{
    cpu_set_t set;
    if (g_guard.taken)
        return CPU_COUNT(&g_guard.cpus);
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

/** The fewest CPUs on which the yardstick (3n element moves against the serial scan's 2n) can
    gain YARD_MIN: below them the judge does not time. GRADE_TIMING_MIN_CPUS lowers it for the
    kit's own test (the grader never sets it; the child cannot set the judge's environment). */
static int timing_min_cpus(void)
{
    const char *s = getenv("GRADE_TIMING_MIN_CPUS");
    return s && *s ? atoi(s) : 3;
}

/** Nanoseconds of CPU time of process `pid` added to *total: its CPU-time clock
    (clock_getcpuclockid()), which counts every thread it has had, those that ended included
    (the reviews of 2026-12-04 slowed the yardstick with threads that spun and ended between the
    judge's two looks, unseen by their /proc/PID/task entries); 0, or -1 where the kernel does
    not say (a process that is gone meanwhile adds 0). */
static int process_cpu_ns(pid_t pid, long long *total)
{
    clockid_t clock;
    struct timespec ts;
    const int e = clock_getcpuclockid(pid, &clock);
    if (e)
        return e == ESRCH ? 0 : -1;
    if (clock_gettime(clock, &ts) != 0)
        return errno == ESRCH || errno == EINVAL ? 0 : -1; /* gone meanwhile */
    *total += (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    return 0;
}

/** /proc/PID/stat of process `pid` into buf (len bytes): where its fields after the command's
    name begin (the name may hold ')'), or NULL where it cannot be read: 1 into *gone for a
    process that is gone meanwhile (no file, or an empty one), else 0. */
static const char *proc_stat(const char *pid, char *buf, size_t len, int *gone)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%.20s/stat", pid);
    FILE *f = fopen(path, "r");
    *gone = !f && (errno == ENOENT || errno == ESRCH);
    if (!f)
        return NULL;
    const size_t got = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[got] = '\0';
    *gone = got == 0;
    const char *p = strrchr(buf, ')');
    return p ? p + 1 : NULL;
}

/** Clock ticks of CPU time of process `pid`'s waited-for children (/proc/PID/stat: cutime +
    cstime) added to *total: 0, or -1 where the kernel does not say. Coarse (a tick is
    1/sysconf(_SC_CLK_TCK) s, 10 ms where it is 100), but it holds the time of a process of the
    run that ended and was reaped between two looks. */
static int process_ticks(const char *pid, long long *total)
{
    char buf[1024];
    int gone;
    const char *p = proc_stat(pid, buf, sizeof buf, &gone);
    long long cutime, cstime;
    /* fields 3-15 (state ... utime stime: process_cpu_ns()'s, to the nanosecond), then 16-17 */
    if (!p || sscanf(p, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %lld %lld",
                     &cutime, &cstime) != 2)
        return gone ? 0 : -1;
    *total += cutime + cstime;
    return 0;
}

/** Is process `pid` one of this run's: its user's (every process of which is the run's, under
    the grader's sandbox), else its user's and of the judge's session. 1, 0, or -1 unknown. */
static int of_this_run(const char *pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%.20s/status", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT || errno == ESRCH ? 0 : -1;
    int mine = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned uid;
        if (sscanf(line, "Uid: %u", &uid) == 1) {
            mine = uid == (unsigned)getuid();
            break;
        }
    }
    fclose(f);
    if (!mine || g_own_uid)
        return mine;
    const pid_t p = (pid_t)atol(pid);
    const pid_t sid = getsid(p);
    return sid < 0 ? 0 : sid == getsid(0);
}

/** The CPU time every process of the run but the judge has run (the child's threads, and every
    process it started: the fourth gaming review's S05 made its grandchildren spin): *ns, the
    processes' CPU-time clocks, ended threads included (process_cpu_ns()), and *ticks, their
    reaped children's clock ticks (process_ticks()). 0, or -1 where the judge cannot read them
    (the round is then void: never a check switched off, S08). */
static int run_cpu(long long *ns, long long *ticks)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    *ns = *ticks = 0;
    const pid_t me = getpid();
    struct dirent *e;
    int ok = 0;
    while (ok == 0 && (e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9' || (pid_t)atol(e->d_name) == me)
            continue;
        const int mine = of_this_run(e->d_name);
        if (mine < 0)
            ok = -1;
        else if (mine)
            ok = process_cpu_ns((pid_t)atol(e->d_name), ns) || process_ticks(e->d_name, ticks)
                     ? -1 : 0;
    }
    closedir(d);
    return ok;
}

/** The threads of process `pid` but its main thread (at most max): into tid[] their ids, into
    pc[] the address each waits at in the kernel (/proc/PID/task/TID/syscall's last field; 0
    for one that runs). Their count, or -1 where the kernel does not say. */
static int thread_places(pid_t pid, long *tid, unsigned long *pc, int max)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int n = 0, ok = 1;
    struct dirent *e;
    while (ok && (e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9' || atol(e->d_name) == (long)pid)
            continue;
        char file[96], buf[256];
        snprintf(file, sizeof file, "/proc/%ld/task/%.20s/syscall", (long)pid, e->d_name);
        FILE *f = fopen(file, "r");
        if (!f) {
            ok = errno == ENOENT || errno == ESRCH; /* a thread that ended meanwhile */
            continue;
        }
        const size_t got = fread(buf, 1, sizeof buf - 1, f);
        const int failed = got == 0 || ferror(f); /* a read the kernel refused (ptrace rules) */
        fclose(f);
        buf[got] = '\0';
        if (n == max || failed) {
            ok = 0;
            break;
        }
        const char *last = strrchr(buf, ' ');
        tid[n] = atol(e->d_name);
        pc[n++] = strncmp(buf, "running", 7) == 0 || !last ? 0 : strtoul(last + 1, NULL, 16);
    }
    closedir(d);
    return ok ? n : -1;
}

/** Where OpenMP's own code lies: the executable mappings of libgomp in the judge (read once,
    at its first look: the child is the judge's fork, with the same libgomp at the same
    address). On x86-64 an idle worker of the pool waits in a system call made there (libgomp's
    config/linux/x86/futex.h makes its futex calls itself; elsewhere they go through libc's
    syscall(), and the look at the threads is off: beside_team()), and a thread waiting there
    can be woken only by another thread of the run: one outside OpenMP waits elsewhere
    (nanosleep, a futex of its own). */
static unsigned long g_gomp[4][2];
static int g_gomp_n;

static void learn_gomp(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    while (f && g_gomp_n < 4 && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[8];
        if (strstr(line, "libgomp") && sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 &&
            perms[2] == 'x') {
            g_gomp[g_gomp_n][0] = lo;
            g_gomp[g_gomp_n++][1] = hi;
        }
    }
    if (f)
        fclose(f);
}

/** Was a thread at `pc` (thread_places()) asleep outside OpenMP's code? One that runs (pc 0) is
    not: it may be a worker on its way to the pool on a crowded machine, and what it runs is
    the CPU-time checks' to see. */
static int asleep_elsewhere(unsigned long pc)
{
    for (int k = 0; k < g_gomp_n; ++k)
        if (pc >= g_gomp[k][0] && pc < g_gomp[k][1])
            return 0;
    return pc != 0;
}

/** The child's threads that were asleep outside OpenMP's code both when the judge woke
    (g_time.wake_*) and now (neither its main thread nor idle in OpenMP's pool): threads outside
    OpenMP (a follower, a loader of the judge's window), which no function a part may call can
    start (classroom/call_rule.py refuses pthread_create, fork, clone and the like; review 0412h
    reached them through libc's own symbols). A worker on its way to the pool, or out of it (a
    team smaller or larger than T, a nested region), is at neither look. Their count, or -1
    where the kernel does not say. */
static int beside_team(void)
{
#if !defined(__x86_64__)
    return 0;
#endif
    static long tid[PLACES_MAX];
    static unsigned long pc[PLACES_MAX];
    const int n = thread_places(g_judge_child, tid, pc, PLACES_MAX);
    if (g_gomp_n == 0)
        learn_gomp();
    if (n < 0 || g_time.wake_n < 0 || g_gomp_n == 0)
        return -1;
    int beside = 0;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < g_time.wake_n; ++k)
            if (g_time.wake_tid[k] == tid[i] && asleep_elsewhere(g_time.wake_pc[k]) &&
                asleep_elsewhere(pc[i]))
                ++beside;
    return beside;
}

/** A process the part started: one whose parent is the child, or the judge but not the child
    (the judge is the run's subreaper, judge_before(), so it adopts an orphan of the child's),
    zombies too: its pid, 0 where there is none, -1 where /proc cannot be read. */
static long started_process(void)
{
    DIR *d = opendir("/proc");
    if (!d || !g_reaper) {
        if (d)
            closedir(d);
        return -1;
    }
    const long me = (long)getpid(), child = (long)g_judge_child;
    long found = 0;
    struct dirent *e;
    while (found == 0 && (e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char buf[512];
        int gone;
        const char *p = proc_stat(e->d_name, buf, sizeof buf, &gone);
        long parent;
        const long pid = atol(e->d_name);
        if (!p)
            found = gone ? 0 : -1; /* a process that is gone meanwhile, or an unread one */
        else if (sscanf(p, " %*c %ld", &parent) == 1 &&
                 (parent == child || (parent == me && pid != child)))
            found = pid;
    }
    closedir(d);
    return found;
}

/** The last PID allocated in the run's PID namespace (/proc/loadavg's last field, where the run
    has one: g_pid_ns), which moves with every thread or process started in it; -1 where it
    cannot be read. */
static long last_pid(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f)
        return -1;
    long pid = -1;
    if (fscanf(f, "%*f %*f %*f %*d/%*d %ld", &pid) != 1)
        pid = -1;
    fclose(f);
    return pid;
}

/** 0 builds a judge without its looks at what a part left running (beside_team(),
    started_process(), last_pid()), as the kit's test does to test the CPU-time checks behind
    them (classroom/tests/judge_cases.py); the grader builds it with. */
#ifndef JUDGE_LEFT_BEHIND
#define JUDGE_LEFT_BEHIND 1
#endif

/** The share of the wall time since it last looked that the run's processes may have run (woken
    and gone back to sleep) where the judge needs them asleep; more makes the round void. */
#define BUSY_SHARE 0.1

/** The CPU time the child may use in a turn of the judge's, from a timed call's return to the
    next (its threads on their way to sleep take microseconds); more voids both calls. */
#define CHILD_TURN_NS 500000LL

/** Did the run's processes run since run_cpu() gave (ns0, ticks0) at wall time w0 (its result
    read0)? They did if they ran BUSY_SHARE of the time since, or one of them ended (its time leaves
    the sum), or their reaped children's ticks moved by 3 or more (a tick's rounding in each of
    cutime and cstime can move them by 2 where nothing ran); and a reading that failed counts as
    busy, and is said (g_time.unchecked, timing_finding()). */
static int run_busy(int read0, long long ns0, long long ticks0, double w0)
{
    long long ns1, ticks1;
    const int read1 = run_cpu(&ns1, &ticks1);
    if (read0 || read1) {
        ++g_time.unchecked;
        return 1;
    }
    return llabs(ns1 - ns0) > BUSY_SHARE * 1e9 * (wall_seconds() - w0) ||
           llabs(ticks1 - ticks0) >= 3;
}

static double thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/** The readings a turn of the judge's begins with, checked at its end (judge_serve()): the
    child's CPU time into *c0 and g_time.child_wake (-1 where unread), the run's last PID, and
    where each of the child's threads waits. 0, or -1 where the child's CPU time was unread. */
static int turn_begin(long long *c0)
{
    const int unread = process_cpu_ns(g_judge_child, c0);
    g_time.child_wake = unread ? -1 : *c0;
    g_time.pid_wake = g_pid_ns ? last_pid() : 0;
    g_time.wake_n = thread_places(g_judge_child, g_time.wake_tid, g_time.wake_pc, PLACES_MAX);
    return unread;
}

static int judge_serve(judge_box *box, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    const int T = omp_get_max_threads();
    if (T < 2 || big_n_asked() || (T < cpus_here() ? T : cpus_here()) < timing_min_cpus() ||
        guard_changed())
        return 0;
    int woke = 0;     /* the judge took a wake's readings (from a timed call, or the first) */
    int recorded = 0; /* and took that call's time */
    if (g_time.pending) {
        const double part = wall_seconds() - g_time.sent;
        /* from the part's return the run's threads sleep while the judge checks the output: a
           thread that went on scanning after the part returned, ahead of the check (review
           0412h's "lazy completion"), voids the round; the child's own clock is read first, as
           soon as the judge wakes (run_cpu() reads every process of /proc: slower) */
        long long c0 = 0, c1 = 0, ns0, ticks0;
        const int child0 = turn_begin(&c0);
        woke = 1;
        const double w0 = wall_seconds();
        g_time.pending = 0;
        const int read0 = run_cpu(&ns0, &ticks0);
        if (memcmp(box->data, g_time.ref, g_time.n * sizeof(int32_t)) != 0)
            ++g_time.wrong;
        const int child1 = process_cpu_ns(g_judge_child, &c1);
        const int after = run_busy(read0, ns0, ticks0, w0) || child0 || child1 ||
                          c1 - c0 > BUSY_SHARE * 1e9 * (wall_seconds() - w0);
        /* a process the part started, there after it returned: the verdict's (tampering) */
        const long started = JUDGE_LEFT_BEHIND ? started_process() : 0;
        if (started < 0)
            ++g_time.unchecked; /* never a check switched off: the round is void */
        if (g_conts != g_time.conts) {
            ++g_time.stopped; /* the judge was stopped during the round */
            ++g_time.voided;
        } else if (g_time.busy || after || guard_changed() || started < 0) {
            ++g_time.voided;
        } else {
            g_time.serial[g_time.step] = g_time.round_serial;
            g_time.yard[g_time.step] = g_time.round_yard;
            g_time.part[g_time.step++] = part;
            recorded = 1;
        }
        if (started > 0) {
            g_time.started = started;
            return 0; /* no more rounds: judge_verdicts() says it */
        }
    }
    if (g_time.step == TIMING_ROUNDS || g_time.voided >= TIMING_VOID_MAX || guard_changed())
        return 0;
    if (!g_time.in) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_cont;
        sa.sa_flags = SA_RESTART;
        sigaction(SIGCONT, &sa, NULL);
        signal(SIGTSTP, SIG_IGN); /* the stops it can refuse */
        signal(SIGTTIN, SIG_IGN);
        signal(SIGTTOU, SIG_IGN);
        g_time.in = (int32_t *)xmalloc(2 * JUDGE_CHUNK * sizeof(int32_t), "the judge's input");
        g_time.ref = (int32_t *)xmalloc(2 * JUDGE_CHUNK * sizeof(int32_t), "the judge's scan");
        /* the size of the battery's work-sharing calls (sharing_size()), which the child
           makes in place just as it makes the timed calls */
        const size_t share = sharing_size((size_t)T, g_judge.seed);
        g_time.n = share && share <= 2 * JUDGE_CHUNK ? share : 2 * JUDGE_CHUNK;
        /* the first turn is watched as the others (review 0412i3): the judge's own team made
           first, so that its threads do not move the run's last PID, then the readings a wake
           takes */
        guard_team(T);
        long long c0 = 0;
        turn_begin(&c0);
        woke = 1;
    }
    /* a fresh input, the judge's serial scan of it (timed), the yardstick (timed) */
    const size_t n = g_time.n;
    /* each round's input from a fresh draw of the judge's own getrandom(): the run's seed
       (which the child has) and the clock let the fourth gaming review's S03 predict them, and
       from one round's input a part can solve the generator's state (xorshift64 is linear), so
       a state carried from round to round told review 0412i's part every later input */
    uint64_t fresh;
    if (getrandom(&fresh, sizeof fresh, 0) != (ssize_t)sizeof fresh)
        fresh = (uint64_t)(wall_seconds() * 1e9) ^ ((uint64_t)getpid() << 40) ^ g_time.state;
    g_time.state = grade_mix(fresh);
    uint64_t x = g_time.state | 1;
    for (size_t i = 0; i < n; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        g_time.in[i] = (int32_t)(uint32_t)(x >> 32);
    }
    /* the serial scan in the judge's own CPU time (a stop or a wait for a CPU does not lengthen
       it, a crowded memory does; the judge's slow rounds in docs/experiments/runs_2026-12-04e
       may be that, a hypothesis);
       the yardstick in wall time, the program's threads asleep meanwhile (passive waiting: a
       round in which they ran is void) */
    g_time.conts = g_conts;
    long long ns0, ticks0;
    const int read0 = run_cpu(&ns0, &ticks0);
    const double w0 = wall_seconds();
    double t0 = thread_cpu_seconds();
    scan_reference(g_time.in, g_time.ref, n, 0, 0);
    g_time.round_serial = thread_cpu_seconds() - t0;
    t0 = wall_seconds();
    yardstick(g_time.in, g_time.ref, n, T); /* the same scan into the same array */
    g_time.round_yard = wall_seconds() - t0;
    guard_team(T); /* after the yardstick: a change fails the gate (judge_verdicts()) */
    /* the input into the box inside the window too: a thread that scans behind the copy
       (review 0412h's "follower") runs while the judge watches */
    memcpy(box->data, g_time.in, n * sizeof(int32_t)); /* the child scans it in place */
    g_time.busy = run_busy(read0, ns0, ticks0, w0);
    if (JUDGE_LEFT_BEHIND && woke) {
        /* what ran beside the team through the judge's whole turn, from its wake to now: a
           thread outside OpenMP (the verdict's "not decided"), or a thread or process started
           meanwhile, which moved the run's last PID (the verdict's tampering; review 0412i's
           timer that forked loads while the judge timed, gone before the next look) */
        const int beside = beside_team();
        const long pid_now = g_pid_ns ? last_pid() : 0;
        if (pid_now < 0 || g_time.pid_wake < 0) {
            ++g_time.unchecked; /* the next round is void */
            g_time.busy = 1;
        } else if (pid_now != g_time.pid_wake) {
            g_time.spawned = pid_now;
            return 0; /* no more rounds: judge_verdicts() says it */
        }
        /* the look at the threads is a tripwire: where the kernel does not let the judge read
           them (Yama's ptrace_scope 2 or 3, a child made undumpable) it is said, and the
           CPU-time checks hold alone */
        if (beside < 0)
            ++g_time.unlooked;
        else if (beside > g_time.beside)
            g_time.beside = beside;
    }
    long long c_now = 0;
    if (woke && (process_cpu_ns(g_judge_child, &c_now) || g_time.child_wake < 0 ||
                 c_now - g_time.child_wake > CHILD_TURN_NS)) {
        /* the child ran during the judge's turn (an honest one sleeps: its main thread waits
           for the judge, its workers in OpenMP's pool): the call before it and the next are
           void, whatever thread ran (a signal handler too; review 0412i2's threads that work
           between the judge's two looks at them) */
        if (recorded) {
            --g_time.step;
            ++g_time.voided;
        }
        g_time.busy = 1;
    }
    box->op = JUDGE_TIMED;
    box->variant = 1; /* chapter 01's table: serial, threads */
    box->status = T;
    box->n = n;
    g_time.pending = 1;
    g_time.sent = wall_seconds();
    return 1;
}

/** Into `why`, the timing's finding: 1 one thread did the scan, 0 shared, -1 not judged. */
static int timing_rule(char *why, size_t len)
{
    const int T = omp_get_max_threads(), cpus = cpus_here();
    if ((T < cpus ? T : cpus) < timing_min_cpus()) {
        snprintf(why, len, "not timed here: %d threads on %d CPUs, and the course's own scan cannot "
                 "gain %.1fx over a serial scan on fewer than %d", T, cpus, YARD_MIN,
                 timing_min_cpus());
        return -1;
    }
    if (g_time.stopped) {
        snprintf(why, len, "the judge was stopped (SIGSTOP) in %d of its timing rounds, which only "
                 "the program's own processes can do", g_time.stopped);
        return 1;
    }
    if (g_time.step < TIMING_ROUNDS && getenv("GRADE_SHARE_DEBUG"))
        fprintf(stderr, "share: T=%d not timed: %d of %d rounds, %d void\n", T, g_time.step,
                TIMING_ROUNDS, g_time.voided);
    if (g_time.step < TIMING_ROUNDS) {
        snprintf(why, len, "the judge could not time the threaded variant (%d of %d rounds; %d "
                 "void: the program's processes ran while the judge timed its own scans%s)",
                 g_time.step, TIMING_ROUNDS, g_time.voided,
                 g_time.unchecked ? ", or the judge could not read their CPU times, threads or "
                 "processes" : "");
        return -1;
    }
    qsort(g_time.serial, TIMING_ROUNDS, sizeof(double), cmp_double);
    qsort(g_time.yard, TIMING_ROUNDS, sizeof(double), cmp_double);
    qsort(g_time.part, TIMING_ROUNDS, sizeof(double), cmp_double);
    const double serial = g_time.serial[0];
    const double yard = serial / g_time.yard[0];
    /* the machine is judged quiet from the yardstick's median round, not its fastest: on a
       crowded machine one quiet round can give the yardstick its 2x while every round of the
       part's was crowded (make test on the H200 once failed the course's own part, for a reason
       not seen: a hypothesis; where the yardstick's fastest round reached 2x in the runs of
       docs/experiments/runs_2026-12-04e, the course's part gained at least 0.79 of it, and 0.83
       of its median round) */
    const double yard_median = serial / g_time.yard[TIMING_ROUNDS / 2];
    const double part = serial / g_time.part[0];
    if (getenv("GRADE_SHARE_DEBUG"))
        fprintf(stderr, "share: T=%d serial %.2f ms, yardstick x%.2f (median round x%.2f), "
                "part x%.2f; %d rounds void\n", T, 1e3 * serial, yard, yard_median, part,
                g_time.voided);
    /* rounds void on the way (the program's processes ran while the judge timed), said in
       either finding: on an idle machine they are the part's doing (a review of 2026-12-04) */
    char voided[160] = "";
    if (g_time.voided)
        snprintf(voided, sizeof voided, "; %d other round(s) void: the program's processes ran "
                 "while the judge timed its own scans", g_time.voided);
    const enum share_finding found = share_rule(T, yard_median, part);
    if (found == SHARE_NOT_TIMED) {
        snprintf(why, len, "not timed here: on %d threads the course's own scan ran only %.2fx "
                 "as fast as one thread's serial scan (%.1f ms) in its median round (%.2fx in "
                 "its fastest); the judge needs %.1fx (more idle cores than this machine gave "
                 "it)%s", T, yard_median, 1e3 * serial, yard, YARD_MIN, voided);
        return -1;
    }
    /* the timings, and for an undecided one what it lacked */
    char lacked[128] = "";
    if (found == SHARE_FEW_THREADS)
        snprintf(lacked, sizeof lacked, "; the judge says 'shared' only on %d threads or more",
                 SHARE_MIN_THREADS);
    else if (found == SHARE_TOO_SLOW)
        snprintf(lacked, sizeof lacked,
                 "; 'shared' needs %.2fx (%.1f of the course's own scan's gain in its median "
                 "round)", PART_OF_YARD * yard_median, PART_OF_YARD);
    snprintf(why, len, "%son %d threads the threaded variant ran %.2fx as fast as the judge's "
             "serial scan (%.1f ms) in its fastest round, the course's own scan %.2fx (%.2fx in "
             "its median round)%s%s",
             found == SHARE_TOO_SLOW      ? "too slow to tell: "
             : found == SHARE_FEW_THREADS ? "too few threads to tell: "
                                          : "",
             T, part, 1e3 * serial, yard, yard_median, voided, lacked);
    return found == SHARE_ONE_THREAD ? 1 : found == SHARE_SHARED ? 0 : -1;
}

/** timing_rule()'s finding, not "shared" where a thread ran beside the part's team through a
    turn of the judge's (beside_team()): the timing cannot see what such a thread did while the
    judge's clock was stopped. */
static int timing_finding(char *why, size_t len)
{
    const int found = timing_rule(why, len);
    if (g_time.unlooked && found != 1) {
        const size_t used = strlen(why);
        snprintf(why + used, len - used, "; the judge could not see where the program's threads "
                 "waited in %d turn(s)", g_time.unlooked);
    }
    if (!g_time.beside || found == 1)
        return found;
    const size_t used = strlen(why);
    snprintf(why + used, len - used, "; the judge does not call it shared: the program had %d "
             "thread(s) beside its main thread and its idle OpenMP workers through a turn of "
             "the judge's, from the part's return to the next call (a thread OpenMP did not "
             "start: a part may start threads only through OpenMP); read the part",
             g_time.beside);
    return -1;
}

/** Does case `c` match the plan's entry? */
static int as_planned(const judge_case *c, size_t n, int pattern, int exclusive, int variant)
{
    return c->n == n && c->pattern == pattern && c->exclusive == exclusive &&
           c->variant == variant;
}

static int judge_verdicts(const judge_case *log, int cases, char claims[][512], int claim_count,
                          int child_status, const char *ended, int argc, char **argv)
{
    (void)child_status; /* `ended` says it */
    const size_t big = big_n_asked();
    const int T = omp_get_max_threads();
    if (big) {
        if (g_big_skip[0]) {
            verdict("big: not run here: %s", g_big_skip);
            return EXIT_OK;
        }
        const judge_case *c = cases == 1 ? &log[0] : NULL;
        const int right = c && as_planned(c, big, JUDGE_VECTOR, 0, 1) && c->covered == big &&
                          c->wrong == 0 && c->status == 0;
        if (right)
            verdict("big: n = %zu, variant threads, inclusive, in place, %d OpenMP threads: right",
                    big, T);
        else if (c && c->wrong && c->covered == big)
            verdict("big: n = %zu, variant threads, inclusive, in place, %d OpenMP threads: "
                    "WRONG: %zu of %zu elements wrong; the first at index %zu: expected %d, got "
                    "%d", big, T, c->wrong, big, c->first_wrong, c->want, c->got);
        else
            verdict("big: n = %zu, variant threads, inclusive, in place, %d OpenMP threads: "
                    "WRONG: the judge saw %s (%s)", big, T, c ? "an incomplete output or a scan "
                    "that returned an error" : cases ? "more than one output" : "no output",
                    ended);
        return right ? EXIT_OK : EXIT_WRONG;
    }
    /* the plan: the battery (sizes, patterns, inclusive and exclusive, chapter 01's two
       variants), then the work-sharing size in place, out of place, and four times it */
    size_t limit = (size_t)-1;
    for (int i = 1; i + 1 < argc; ++i)
        if (strcmp(argv[i], "-n") == 0)
            limit = (size_t)strtoull(argv[i + 1], NULL, 10);
    size_t sizes[IN_PLACE_MAX_SIZES];
    const int count = in_place_sizes((size_t)T, limit, sizes);
    const size_t sharing = sharing_size((size_t)T, g_judge.seed); /* its own seed, not the box's */
    long passed = 0, failed = 0, out_passed = 0, out_failed = 0;
    int at = 0;
    for (int i = 0; i < count; ++i)
        for (int p = 0; p < PATTERN_COUNT; ++p)
            for (int e = 0; e <= 1; ++e)
                for (int v = 0; v < 2; ++v)
                    for (int in_place = 1; in_place >= 0; --in_place, ++at) {
                        const judge_case *c = at < cases ? &log[at] : NULL;
                        const int right = c && as_planned(c, sizes[i], p, e, v) &&
                                          c->covered == c->n && c->wrong == 0 && c->status == 0;
                        if (in_place)
                            right ? ++passed : ++failed;
                        else
                            right ? ++out_passed : ++out_failed;
                    }
    const size_t share_n[3] = {sharing, sharing, 4 * sharing};
    for (int k = 0; sharing && k < 3; ++k, ++at) {
        const judge_case *c = at < cases ? &log[at] : NULL;
        if (c && as_planned(c, share_n[k], PATTERN_RANDOM, 0, 1) && c->covered == c->n &&
            c->wrong == 0 && c->status == 0)
            ++passed;
        else
            ++failed;
    }
    if (cases > at)
        failed += cases - at; /* cases the plan does not hold */
    if (failed > 4)
        printf("  (the judge found %ld cases wrong, missing or not planned; the first are above)\n",
               failed);
    if (g_time.wrong)
        failed += g_time.wrong;
    /* the work sharing: the program's own witnesses count only against it (their claim is
       text in the box, which the child and anything it started can write: review 3, #2); only
       the judge's own timing says "shared", and where it cannot time, nothing does */
    const char *claim = claim_count == 1 ? claims[0] : NULL;
    char why[1024];
    const int timed = T >= 2 ? timing_finding(why, sizeof why) : -1;
    if (!claim) {
        ++failed;
        verdict("work sharing not checked: the program ended before its run was over (%s)",
                ended);
    } else if (guard_changed()) {
        verdict("ONE THREAD: the judge's %s was changed while the program ran, which only the "
                "program's own processes can do (tampering with the grader's timing)",
                g_guard.changed);
    } else if (g_time.started) {
        verdict("ONE THREAD: a process the program started (pid %ld) was there after its "
                "threaded variant returned, which no function a part may call can start "
                "(tampering with the grader's timing)", g_time.started);
    } else if (g_time.spawned) {
        verdict("ONE THREAD: the program started a thread or a process between a timed call's "
                "return and the next (its PID namespace's last PID moved from %ld to %ld), which "
                "no function a part may call can do (tampering with the grader's timing)",
                g_time.pid_wake, g_time.spawned);
    } else if (T < 2) {
        verdict("work sharing not checked: %d thread(s)", T);
    } else if (strncmp(claim, "ONE THREAD: ", 12) == 0) {
        verdict("ONE THREAD: %s", claim + 12);
    } else if (timed == 1) {
        verdict("ONE THREAD: %s (the judge's timing)", why);
    } else if (timed == 0) {
        verdict("threads shared the work: %s", why);
    } else if (strncmp(claim, "too little: ", 12) == 0 && failed) {
        /* believable only of a part whose outputs were wrong (a right scan writes its whole
           output), which loses its correctness items anyway */
        verdict("work sharing not checked: %s, on %d threads", claim + 12, T);
    } else {
        verdict("work sharing not decided here: %s (the program's own witnesses saw no one "
                "thread do the scan, but they run in its process, where a part can fool them)",
                why);
    }
    if (!claim)
        ++out_failed;
    verdict("out of place %s: %ld passed, %ld failed", out_failed ? "FAILED" : "passed",
            out_passed, out_failed);
    verdict("in place %s: %ld passed, %ld failed", failed ? "FAILED" : "passed", passed, failed);
    return failed ? EXIT_WRONG : EXIT_OK; /* the in-place item's; the other is a verdict */
}
