/**
 * \file cpu_serial.c
 * \brief Chapter 01: the serial scan on one CPU core, and a two-pass multi-threaded scan.
 *
 * What is new: everything. The serial loop defines the operation every later chapter computes;
 * the threaded version is the first taste of chapter 05's reduce-then-scan: each thread reduces
 * its slice, the slice totals are scanned, each thread scans its slice again seeded with its
 * prefix. Both are timed against the CPU's own memcpy of the same size.
 *
 * Build and run: `make chapter-1 && ./run` from the top folder, or `make && ./run` here.
 * Follows Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back" (2016),
 * §2 (the serial scan and its dependency chain) and §3.2 (reduce-then-scan, Fig 3).
 */
#include "cli.h"
#include "data.h"
#include "io.h"
#include "report.h"
#include "selftest.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** Untimed runs before the timed ones: fault in pages, start the thread pool, warm the caches. */
#define WARMUP_RUNS 2

/** The variants, in table order. */
enum { VARIANT_SERIAL, VARIANT_THREADS, VARIANT_COUNT };

/** The baselines, timed like variants: memcpy on one thread, and on every OpenMP thread. */
enum { BASELINE_COPY_ONE = -1, BASELINE_COPY_ALL = -2 };

/** Names for `--variant`. */
static const char *const VARIANT_NAMES[VARIANT_COUNT] = {"serial", "threads"};

/** The default sweep: from L1-sized to far beyond the last-level cache. */
static const size_t DEFAULT_SIZES[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                       (size_t)1 << 24, (size_t)1 << 26};

/* ------------------------------------------------------------------------------------------ */
/* The lesson                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief The serial scan: one running sum, one pass.
 *
 * out[i] needs out[i-1]: a chain of n dependent additions, so no two iterations can run at the
 * same time, however many cores there are. It reads n and writes n elements, the least any scan
 * can move; the chain, not memory, is what later chapters must break to go parallel.
 * Sums are kept in uint32_t so that overflow wraps (defined in C; int32_t overflow is not).
 * \param in        input elements
 * \param out       receives the scan; may be the same array as `in`
 * \param n         element count
 * \param exclusive 1: out[i] excludes in[i] (out[0] = initial); 0: includes it
 * \param initial   the running sum to start from: 0 for a whole array, a slice's exclusive prefix
 *                  when the array is scanned in slices (scan_threads())
 */
static void scan_serial(const int32_t *in, int32_t *out, size_t n, int exclusive, uint32_t initial)
{
    uint32_t sum = initial;
    if (exclusive) {
        for (size_t i = 0; i < n; ++i) {
            uint32_t x = (uint32_t)in[i];
            out[i] = (int32_t)sum;
            sum += x;
        }
    } else {
        for (size_t i = 0; i < n; ++i) {
            sum += (uint32_t)in[i];
            out[i] = (int32_t)sum;
        }
    }
}

/**
 * \brief Thread t's slice [begin, end) when n elements are cut into `threads` contiguous
 *        slices whose sizes differ by at most one (some are empty when n < threads).
 */
static void slice_of(size_t n, size_t t, size_t threads, size_t *begin, size_t *end)
{
    *begin = n / threads * t + (t < n % threads ? t : n % threads);
    *end = *begin + n / threads + (t < n % threads ? 1 : 0);
}

/**
 * \brief The two-pass scan over T threads (reduce-then-scan).
 *
 * The array is cut into T contiguous slices, one per thread.
 *  1. Each thread reduces its slice to one aggregate (reads n in total).
 *  2. One thread scans the T aggregates: slice t's exclusive prefix is the sum of slices 0 … t-1.
 *  3. Each thread scans its slice again, starting from its exclusive prefix (reads n, writes n).
 * That is 3n element moves instead of 2n, but the longest dependency chain is now 2n/T + T
 * instead of n (a slice's reduction, the T aggregates, the slice's scan). How much of that the
 * clock shows depends on what starting and joining the threads costs and on memory bandwidth:
 * the chapter's notes measure it.
 * `in` and `out` may be the same array.
 */
static void scan_threads(const int32_t *in, int32_t *out, size_t n, int exclusive)
{
    int max_threads = omp_get_max_threads();
    uint32_t *prefix = (uint32_t *)xmalloc((size_t)(max_threads + 1) * sizeof(uint32_t),
                                           "the slice prefixes");
#pragma omp parallel
    {
        size_t t = (size_t)omp_get_thread_num(), threads = (size_t)omp_get_num_threads();
        size_t begin, end;
        slice_of(n, t, threads, &begin, &end);

        /* [student part: three-steps; explained in 01_cpu_serial/README.md, "The idea"] */
        uint32_t aggregate = 0;
        for (size_t i = begin; i < end; ++i)
            aggregate += (uint32_t)in[i];
        prefix[t + 1] = aggregate;

        /* Barrier: every aggregate must be written before one thread scans them; the implicit
           barrier at the end of `single` keeps the others from reading prefix[] too early. */
#pragma omp barrier
#pragma omp single
        {
            prefix[0] = 0;
            for (size_t k = 1; k <= threads; ++k)
                prefix[k] += prefix[k - 1];
        }

        scan_serial(in + begin, out + begin, end - begin, exclusive, prefix[t]);
        /* [end of student part: three-steps] */
    }
    free(prefix);
}

/* ------------------------------------------------------------------------------------------ */
/* Host driver                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/** \brief Run `variant` on host arrays; the ::scan_fn the self-test calls (`ctx` unused). */
static int scan_cpu(void *ctx, int variant, const int32_t *in, int32_t *out, size_t n,
                    int exclusive)
{
    (void)ctx;
    if (variant == VARIANT_SERIAL)
        scan_serial(in, out, n, exclusive, 0);
    else
        scan_threads(in, out, n, exclusive);
    return 0;
}

/** \brief Print the machine line: CPU model, logical CPUs, OpenMP threads. */
static void print_cpu_line(int csv)
{
    char model[256] = "unknown CPU", line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            char *colon = strchr(line, ':');
            if (strncmp(line, "model name", 10) == 0 && colon) {
                snprintf(model, sizeof model, "%s", colon + 2);
                model[strcspn(model, "\n")] = '\0';
                break;
            }
        }
        fclose(f);
    }
    report_note(stdout, csv, "CPU: %s, %d logical CPUs, %d OpenMP threads (no GPU needed)", model,
                omp_get_num_procs(), omp_get_max_threads());
    if (omp_get_max_threads() > omp_get_num_procs())
        report_note(stdout, csv, "note: more OpenMP threads than logical CPUs (oversubscribed): "
                    "threads take turns on the CPUs, so the threaded rows measure the turns, "
                    "not more parallel work");
}

/**
 * \brief The multi-threaded baseline: every thread copies its slice. One core cannot use all of
 *        the memory bandwidth, so the threaded scan is compared with this, not with memcpy().
 */
static void copy_threads(const int32_t *in, int32_t *out, size_t n)
{
#pragma omp parallel
    {
        size_t begin, end;
        slice_of(n, (size_t)omp_get_thread_num(), (size_t)omp_get_num_threads(), &begin, &end);
        if (end > begin) /* an empty slice may come with NULL arrays (n = 0) */
            memcpy(out + begin, in + begin, (end - begin) * sizeof(int32_t));
    }
}

/** \brief Median and spread, in seconds, of `reps` runs of `variant` (or of a baseline:
    BASELINE_COPY_*). */
static timing time_cpu(int variant, const int32_t *in, int32_t *out, size_t n, int exclusive,
                       int reps)
{
    double *times = (double *)xmalloc((size_t)reps * sizeof(double), "the timings");
    for (int r = -WARMUP_RUNS; r < reps; ++r) {
        double start = host_seconds();
        if (variant == BASELINE_COPY_ONE) {
            if (n > 0) /* memcpy() of NULL (n = 0) is undefined, even of 0 bytes */
                memcpy(out, in, n * sizeof(int32_t));
        } else if (variant == BASELINE_COPY_ALL) {
            copy_threads(in, out, n);
        } else {
            scan_cpu(NULL, variant, in, out, n, exclusive);
        }
        if (r >= 0)
            times[r] = host_seconds() - start;
    }
    const timing t = timing_of(times, reps);
    free(times);
    return t;
}

/** \brief The timing sweep: for each size, verify, time, verify again, print one row per variant. */
static int sweep(const scan_program *prog, const scan_options *opt)
{
    static const report_column COLS[] = {{"n", 10},   {"variant", -10},    {"time_us", 12},
                                         {"GB/s", 8}, {"pct_memcpy", 10}, {"spread_pct", 10},
                                         {"memcpy_spread_pct", 17}, {"noise", -17}, {"check", -5}};
    const int NCOLS = (int)(sizeof COLS / sizeof COLS[0]);
    char copy_all_name[32];
    /* on one thread, a name of its own: the same memcpy() as memcpy-1t, inside a parallel region */
    snprintf(copy_all_name, sizeof copy_all_name, "memcpy-%dt", omp_get_max_threads());
    if (omp_get_max_threads() == 1)
        snprintf(copy_all_name, sizeof copy_all_name, "memcpy-omp");
    int status = EXIT_OK;
    const size_t *sizes = opt->n_given ? &opt->n : prog->default_sizes;
    int count = opt->n_given ? 1 : prog->default_size_count;
    size_t largest = 0; /* sizes this machine cannot hold are refused before the table starts */
    for (int s = 0; s < count; ++s)
        largest = sizes[s] > largest ? sizes[s] : largest;
    char what[64];
    snprintf(what, sizeof what, "-n %zu", largest);
    io_require_host_memory(3.0 * sizeof(int32_t) * (double)largest, what);

    report_note(stdout, opt->csv, "%s scan, seed %llu, median of %d runs after %d warm-up runs",
                opt->exclusive ? "exclusive" : "inclusive", (unsigned long long)opt->seed,
                opt->reps, WARMUP_RUNS);
    report_note(stdout, opt->csv, "GB/s counts 2*n*4 bytes; pct_memcpy compares serial with "
                "memcpy-1t and threads with %s (same thread count)", copy_all_name);
    report_noise_note(stdout, opt->csv);
    report_header(stdout, COLS, NCOLS, opt->csv);
    for (int s = 0; s < count; ++s) {
        size_t n = sizes[s];
        char nbuf[32], tbuf[32], gbuf[32], pbuf[32], sbuf[32], cbuf[32];
        int32_t *in = (int32_t *)xmalloc(n * sizeof(int32_t), "the input");
        int32_t *out = (int32_t *)xmalloc(n * sizeof(int32_t), "the output");
        int32_t *ref = (int32_t *)xmalloc(n * sizeof(int32_t), "the reference");
        generate_input(in, n, PATTERN_RANDOM, opt->seed);
        scan_reference(in, ref, n, opt->exclusive, prog->segment);
        poison(out, n);

        /* The baselines: copying n elements moves the same 2n that a scan must. */
        timing copy_s[2];
        format_size(n, nbuf, sizeof nbuf);
        for (int b = 0; b < 2; ++b) {
            copy_s[b] = time_cpu(b ? BASELINE_COPY_ALL : BASELINE_COPY_ONE, in, out, n, 0, opt->reps);
            snprintf(tbuf, sizeof tbuf, "%.2f", copy_s[b].median * 1e6);
            /* n = 0 moves nothing: no rate, no share of a copy's */
            snprintf(gbuf, sizeof gbuf, n ? "%.1f" : "-",
                     gb_per_s(scan_min_bytes(n), copy_s[b].median * 1e3));
            const char *spread = format_spread(copy_s[b], n > 0, sbuf, sizeof sbuf);
            const char *copy_row[] = {nbuf, b ? copy_all_name : "memcpy-1t", tbuf, gbuf,
                                      n ? "100.0" : "-", spread, spread,
                                      noise_flag(copy_s[b], copy_s[b], 100.0, n > 0), "-"};
            report_row(stdout, COLS, NCOLS, opt->csv, copy_row);
        }

        for (int v = 0; v < VARIANT_COUNT; ++v) {
            if (!cli_variant_selected(opt, v))
                continue;
            poison(out, n);
            scan_cpu(NULL, v, in, out, n, opt->exclusive);
            verify_result before = verify_scan(ref, out, n);
            const timing t = time_cpu(v, in, out, n, opt->exclusive, opt->reps);
            const double s_time = t.median;
            verify_result after = verify_scan(ref, out, n);
            int ok = before.mismatches == 0 && after.mismatches == 0;
            snprintf(tbuf, sizeof tbuf, "%.2f", s_time * 1e6);
            snprintf(gbuf, sizeof gbuf, n ? "%.1f" : "-",
                     gb_per_s(scan_min_bytes(n), s_time * 1e3));
            /* like with like: the serial scan against a one-thread copy, the threaded one
               against a copy on as many threads */
            const timing copy = copy_s[v == VARIANT_SERIAL ? 0 : 1];
            const double pct = s_time > 0 ? 100.0 * copy.median / s_time : 0.0;
            snprintf(pbuf, sizeof pbuf, n && s_time > 0 ? "%.1f" : "-", pct);
            const char *row[] = {nbuf, VARIANT_NAMES[v], tbuf, gbuf, pbuf,
                                 format_spread(t, n > 0, sbuf, sizeof sbuf),
                                 format_spread(copy, n > 0, cbuf, sizeof cbuf),
                                 noise_flag(t, copy, pct, n > 0), ok ? "ok" : "WRONG"};
            report_row(stdout, COLS, NCOLS, opt->csv, row);
            if (!ok) {
                verify_report(stdout, before.mismatches ? &before : &after, ref, out, n);
                status = EXIT_WRONG;
            }
        }
        free(in);
        free(out);
        free(ref);
    }
    report_summary(stdout, opt->csv);
    return status;
}

/** \brief Parse, then self-test, scan a file, or run the timing sweep. */
int main(int argc, char **argv)
{
    const scan_program prog = {
        .name = "01_cpu_serial",
        .title = "the serial scan on one core and a two-pass scan over OpenMP threads",
        .variants = VARIANT_NAMES,
        .variant_count = VARIANT_COUNT,
        .default_sizes = DEFAULT_SIZES,
        .default_size_count = (int)(sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]),
        .default_reps = 10,
        .host_only = 1,
    };
    scan_options opt;
    cli_parse_or_exit(argc, argv, &prog, &opt);
    print_cpu_line(opt.csv);

    if (opt.self_test) {
        /* The threaded scan's boundaries are its slices: with T threads, size T-1 leaves one
           thread an empty slice, the case most easily got wrong, and T and T+1 are the boundary
           on either side. T goes in the config's `tile` field, which the self-test prints as
           "tile T". The n = 2^31 + 4099 case needs its three arrays (24 GiB) and a quarter
           more free, or it is skipped. */
        self_test_config cfg = {(size_t)omp_get_max_threads(), 1, SELF_TEST_BIG_N, NULL, NULL};
        size_t need = self_test_host_bytes(SELF_TEST_BIG_N);
        size_t have = host_memory_available();
        char reason[128];
        if (have < need + need / 4) {
            snprintf(reason, sizeof reason, "needs %.1f GiB of host memory, %.1f GiB available",
                     (double)(need + need / 4) / (1 << 30), (double)have / (1 << 30));
            cfg.big_n = 0;
            cfg.big_skip_reason = reason;
        }
        return self_test_run(&prog, &opt, &cfg, scan_cpu, NULL);
    }
    if (opt.input) {
        char err[512];
        int32_t *in = NULL;
        size_t n = 0;
        if (io_read_int32(opt.input, &in, &n, err, sizeof err))
            cli_fail(EXIT_USAGE, "%s", err);
        if (opt.output && io_output_begin(opt.output, err, sizeof err))
            cli_fail(EXIT_USAGE, "%s", err);
        int status = scan_file_run(&prog, &opt, in, n, scan_cpu, NULL);
        free(in);
        return status;
    }
    return sweep(&prog, &opt);
}
