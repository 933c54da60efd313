/**
 * \file harness_cpu.c
 * \brief The grader's in-place battery for chapter 01, the CPU chapter: the chapter's own scan,
 *        called with its output the same array as its input.
 *
 * The chapter's self-test scans into a separate output, so it cannot see a scan that reads an
 * element after writing it. The grader links the student's chapter 01 with this file and with a
 * copy of common/selftest.o whose self_test_run() is renamed course_self_test_run(); the
 * chapter's main() then calls the self_test_run() below, which runs the battery's sizes (up to
 * `-n N` when given, like the self-test), every pattern, inclusive and exclusive, every variant,
 * in place, and compares every element with the CPU reference. The input seed is GRADE_SEED from
 * the environment, when set. Run as `harness --self-test [-n N]`; exit 0 when every case passed,
 * 1 otherwise (docs/CONVENTIONS.md §4).
 *
 * The one-thread check. The grader's copy of the chapter calls grade_slice_seen(n) first thing
 * in scan_serial() (classroom/grade.py adds the call to the course's text, outside the parts),
 * which records the longest call and adds n to the count of the OpenMP thread that called it
 * (its thread number in the outermost parallel region, so a nested region of one thread counts
 * as its parent). After each call of the "threads" variant on T > 1 threads and n >= 2T
 * elements, each thread's slice holds at most ceil(n / T) elements, so the variant did the scan
 * on one thread if one call of scan_serial() scanned more than that, or if a thread scanned more
 * than that in all while some threads scanned nothing (one thread taking the slices one by
 * one). The line `ONE THREAD: ...` then says so (the grader takes it as an honesty failure). A
 * part that scans each slice twice is not caught, nor one that scans with a loop of its own
 * instead of scan_serial().
 */
#include "battery_sizes.h"
#include "data.h"
#include "io.h"
#include "selftest.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** Threads counted one by one by grade_slice_seen(); thread numbers above share the last count. */
#define COUNTED_THREADS 256

/** Elements each thread has scanned with scan_serial() since the counts were cleared. */
static size_t g_scanned[COUNTED_THREADS];

/** The most elements one call of scan_serial() has scanned since then. */
static size_t g_longest;

/** Called by the grader's copy of scan_serial(): n elements scanned by this thread. */
void grade_slice_seen(size_t n);
void grade_slice_seen(size_t n)
{
    const int t = omp_get_level() >= 1 ? omp_get_ancestor_thread_num(1) : 0;
    const int k = t < 0 ? 0 : t < COUNTED_THREADS ? t : COUNTED_THREADS - 1;
#pragma omp critical(grade_slice_seen)
    {
        g_scanned[k] += n;
        g_longest = n > g_longest ? n : g_longest;
    }
}

/** Why the threaded variant's last call did the scan on one thread (T threads, n elements),
    into `why`; 0 if it did not. */
static int one_thread(size_t n, size_t threads, char *why, size_t len)
{
    const size_t slice = (n + threads - 1) / threads;
    size_t most = 0, used = 0;
    int who = 0;
    for (int k = 0; k < COUNTED_THREADS; ++k) {
        used += g_scanned[k] > 0;
        if (g_scanned[k] > most) {
            most = g_scanned[k];
            who = k;
        }
    }
    if (threads < 2 || n < 2 * threads)
        return 0;
    if (g_longest > slice)
        snprintf(why, len, "one call of scan_serial() scanned %zu elements, more than a slice "
                 "(at most %zu)", g_longest, slice);
    else if (used < threads && most > slice)
        snprintf(why, len, "thread %d scanned %zu elements with scan_serial(), more than a slice "
                 "(at most %zu), while %zu threads scanned none", who, most, slice,
                 threads - used);
    else
        return 0;
    return 1;
}

/** The seed: GRADE_SEED when set (the instructor's), else the chapter's. */
static uint64_t grade_seed(uint64_t fallback)
{
    const char *s = getenv("GRADE_SEED");
    return s && *s ? strtoull(s, NULL, 10) : fallback;
}

int self_test_run(const scan_program *prog, const scan_options *opt, const self_test_config *cfg,
                  scan_fn fn, void *ctx)
{
    size_t sizes[IN_PLACE_MAX_SIZES], largest = 0;
    const size_t limit = opt->n_given ? opt->n : (size_t)-1;
    const int count = in_place_sizes(cfg->tile, limit, sizes);
    const uint64_t seed = grade_seed(opt->seed);
    long passed = 0, failed = 0, one_threads = 0;
    const size_t threads = (size_t)omp_get_max_threads();
    for (int i = 0; i < count; ++i)
        largest = sizes[i] > largest ? sizes[i] : largest;
    int32_t *in = (int32_t *)xmalloc(largest * sizeof(int32_t), "the input");
    int32_t *buf = (int32_t *)xmalloc(largest * sizeof(int32_t), "the in-place array");
    int32_t *ref = (int32_t *)xmalloc(largest * sizeof(int32_t), "the reference");
    printf("in-place battery of %s: %d sizes up to %zu, 4 patterns, inclusive and exclusive, "
           "every variant, seed %llu\n", prog->name, count, largest, (unsigned long long)seed);
    for (int i = 0; i < count; ++i) {
        const size_t n = sizes[i];
        for (int p = 0; p < PATTERN_COUNT; ++p) {
            generate_input(in, n, (data_pattern)p, seed);
            for (int exclusive = 0; exclusive <= 1; ++exclusive) {
                scan_reference(in, ref, n, exclusive, prog->segment);
                for (int v = 0; v < prog->variant_count; ++v) {
                    if (n)
                        memcpy(buf, in, n * sizeof(int32_t));
                    memset(g_scanned, 0, sizeof g_scanned);
                    g_longest = 0;
                    const int status = fn(ctx, v, buf, buf, n, exclusive);
                    char why[200];
                    if (strcmp(prog->variants[v], "threads") == 0 &&
                        one_thread(n, threads, why, sizeof why) && one_threads++ == 0)
                        printf("ONE THREAD: variant threads, n=%zu on %zu threads: %s: the "
                               "threads must share the scan\n", n, threads, why);
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
    free(in);
    free(buf);
    free(ref);
    printf("in place %s: %ld passed, %ld failed\n", failed ? "FAILED" : "passed", passed, failed);
    return failed ? EXIT_WRONG : EXIT_OK;
}
