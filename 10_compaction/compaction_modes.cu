/**
 * \file compaction_modes.cu
 * \brief Chapter 10's host side for the compaction's mode: its inputs, reference and check, and
 *        the battery, stress test, files and sweep (compaction_modes.h). Chapter 09's
 *        operator_modes.cu, with one operator left.
 */
#include "compaction_modes.h"

#include "cuda_util.h"
#include "data.h"
#include "io.h"
#include "report.h"
#include "selftest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/**
 * \brief Compare d->got with the reference: every kept element, and the count. Prints the first
 *        difference (unless `what` is NULL).
 * \return the number of elements that differ (a wrong count counts as one more)
 */
static size_t check_output(const compact_data *d, const char *what)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < d->ref_count; ++i)
        if (d->got[i] != d->ref[i] && bad++ == 0)
            first = i;
    if (bad && what)
        printf("  %s: %zu of %zu elements wrong; first at %zu: got %d, expected %d\n", what, bad,
               d->ref_count, first, d->got[first], d->ref[first]);
    if (d->got_count != d->ref_count) {
        if (what)
            printf("  %s: kept %u elements, expected %zu\n", what, d->got_count, d->ref_count);
        ++bad;
    }
    return bad;
}

/** Compaction inputs: the battery's patterns (data.h). */
const char *const COMPACT_PATTERNS[] = {"random", "small", "ones", "alternating"};

void compact_generate(compact_data *d, int pattern, uint64_t seed)
{
    generate_input(d->in, d->n, (data_pattern)pattern, seed);
}

void compact_reference(compact_data *d)
{
    size_t kept = 0;
    for (size_t i = 0; i < d->n; ++i)
        if (d->in[i] > 0)
            d->ref[kept++] = d->in[i];
    d->ref_count = kept;
}

double compact_bytes(int variant, const compact_data *d)
{
    (void)variant;
    return 4.0 * (double)d->n + 4.0 * (double)d->ref_count + 4.0;
}

/* ------------------------------------------------------------------------------------------ */
/* The mode: battery, stress test, files, sweep                                               */
/* ------------------------------------------------------------------------------------------ */

/** Host bytes compact_alloc_host() takes for n elements. */
static size_t host_bytes(size_t n)
{
    return 12 * n;
}

/** Device bytes compact_reserve_device() takes for n elements, scratch of `variant` included. */
static size_t device_bytes(const compact_mode *m, size_t n, int variant)
{
    return 8 * n + m->temp_bytes(variant, n);
}

/** Allocate the host arrays of d for n elements; its device arrays, if any, are kept (they grow
    with d->n in compact_reserve_device()). */
static void compact_alloc_host(compact_data *d, size_t n)
{
    d->n = n;
    d->ref_count = 0;
    d->in = (int32_t *)xmalloc(n * sizeof(int32_t), "the input");
    d->ref = (int32_t *)xmalloc(n * sizeof(int32_t), "the reference");
    d->got = (int32_t *)xmalloc(n * sizeof(int32_t), "the output");
}

/** Allocate (or keep, if large enough) the device arrays of d. */
static void compact_reserve_device(compact_data *d)
{
    if (d->n > d->capacity) {
        CUDA_CHECK(cudaFree(d->d_in));
        CUDA_CHECK(cudaFree(d->d_pristine));
        d->d_in = NULL, d->d_pristine = NULL;
        CUDA_CHECK(cudaMalloc((void **)&d->d_in, d->n * sizeof(int32_t)));
        CUDA_CHECK(cudaMalloc((void **)&d->d_pristine, d->n * sizeof(int32_t)));
        d->capacity = d->n;
    }
    if (!d->d_count)
        CUDA_CHECK(cudaMalloc((void **)&d->d_count, sizeof(uint32_t)));
}

/** Copy the host input to the device, and keep a pristine copy there. */
static void compact_upload(compact_data *d)
{
    compact_reserve_device(d);
    CUDA_CHECK(cudaMemcpy(d->d_in, d->in, d->n * sizeof(int32_t), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->d_pristine, d->in, d->n * sizeof(int32_t), cudaMemcpyHostToDevice));
}

/** Free the host arrays. */
static void compact_free_host(compact_data *d)
{
    free(d->in);
    free(d->ref);
    free(d->got);
    d->in = d->ref = d->got = NULL;
}

/** Free the device arrays and the scratch. */
static void compact_free_device(compact_data *d)
{
    CUDA_CHECK(cudaFree(d->d_in));
    CUDA_CHECK(cudaFree(d->d_pristine));
    CUDA_CHECK(cudaFree(d->d_count));
    for (int v = 0; v < VARIANT_COUNT; ++v)
        CUDA_CHECK(cudaFree(d->d_temp[v]));
    d->d_in = d->d_pristine = NULL, d->d_count = NULL, d->capacity = 0;
    for (int v = 0; v < VARIANT_COUNT; ++v)
        d->d_temp[v] = NULL, d->temp_bytes[v] = 0;
}

/** Prepare one run of `variant`: grow its scratch (the pass's: zeroed once, then left to it;
    CUB's: poisoned), restore the input (both variants work in place), poison the count. */
static void compact_prepare(const compact_mode *m, compact_data *d, int variant)
{
    const size_t need = m->temp_bytes(variant, d->n);
    const int state = variant == VARIANT_LOOKBACK; /* the pass keeps state in its scratch */
    if (need > d->temp_bytes[variant]) {
        CUDA_CHECK(cudaFree(d->d_temp[variant]));
        d->d_temp[variant] = NULL;
        CUDA_CHECK(cudaMalloc(&d->d_temp[variant], need));
        d->temp_bytes[variant] = need;
        if (state)
            CUDA_CHECK(cudaMemset(d->d_temp[variant], 0, need)); /* the scratch contract */
    }
    if (!state && d->temp_bytes[variant])
        CUDA_CHECK(cudaMemset(d->d_temp[variant], POISON_BYTE, d->temp_bytes[variant]));
    /* the input as it was before the last in-place compaction */
    CUDA_CHECK(cudaMemcpy(d->d_in, d->d_pristine, d->n * sizeof(int32_t),
                          cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemset(d->d_count, POISON_BYTE, sizeof(uint32_t)));
}

/** Copy a run's result back to d->got (and the count). */
static void compact_fetch(compact_data *d)
{
    CUDA_CHECK(cudaMemcpy(d->got, d->d_in, d->n * sizeof(int32_t), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&d->got_count, d->d_count, sizeof d->got_count,
                          cudaMemcpyDeviceToHost));
}

/** One checked run: prepare, launch, fetch, compare. Returns the elements wrong. */
static size_t compact_run_checked(const compact_mode *m, compact_data *d, int variant,
                                  const char *what)
{
    compact_prepare(m, d, variant);
    m->launch(variant, d);
    CUDA_CHECK_LAUNCH();
    compact_fetch(d);
    return check_output(d, what);
}

/** Sizes of the battery, as multiples of the tile where that matters. */
static size_t battery_size(size_t tile, int k)
{
    const size_t sizes[] = {0, 1, 31, 32, 33, 1000, tile - 1, tile, tile + 1, 3 * tile + 7,
                            33 * tile + 5, 300 * tile - 3, ((size_t)1 << 20) + 3,
                            ((size_t)1 << 24) + 1};
    return k < (int)(sizeof sizes / sizeof sizes[0]) ? sizes[k] : 0;
}

/** Sizes in the battery. */
#define BATTERY_SIZES 14

/**
 * \brief The battery: every size of battery_size() (up to `-n`), every pattern, every selected
 *        variant, several runs each (single-pass bugs are races), every element checked; then
 *        one n > 2^31 with this chapter's pass, where host and GPU have the memory (the count
 *        and every position are uint32, so 2^31 + 4099 still fits).
 */
static int compact_self_test(const compact_mode *m, const scan_options *opt)
{
    const int patterns = (int)(sizeof COMPACT_PATTERNS / sizeof COMPACT_PATTERNS[0]);
    long cases = 0, failed = 0;
    compact_data d = {}; /* one set of device arrays, grown from size to size */
    report_note(stdout, opt->csv, "self-test of %s: %d sizes x %d patterns x variants, "
                "every element checked", m->name, BATTERY_SIZES, patterns);
    for (int k = 0; k < BATTERY_SIZES; ++k) {
        const size_t n = battery_size(m->tile, k);
        if (opt->n_given && n > opt->n)
            continue;
        compact_alloc_host(&d, n);
        long size_failed = 0, size_cases = 0;
        const int repeats = n <= ((size_t)1 << 20) ? 3 : 1;
        for (int p = 0; p < patterns; ++p) {
            compact_generate(&d, p, opt->seed + (uint64_t)p);
            compact_reference(&d);
            compact_upload(&d);
            for (int v = 0; v < VARIANT_COUNT; ++v) {
                if (!cli_variant_selected(opt, v))
                    continue;
                for (int r = 0; r < repeats; ++r) {
                    char what[160];
                    snprintf(what, sizeof what, "n = %zu, %s, %s, run %d", n,
                             COMPACT_PATTERNS[p], v == VARIANT_CUB ? m->cub_name : m->name, r);
                    ++size_cases;
                    if (compact_run_checked(m, &d, v, what))
                        ++size_failed;
                }
            }
        }
        printf("n = %-10zu %3ld cases, %s\n", n, size_cases,
               size_failed ? "FAILED" : "all right");
        cases += size_cases, failed += size_failed;
        compact_free_host(&d); /* the device arrays stay for the next size */
    }
    compact_free_device(&d);

    const size_t big = SELF_TEST_BIG_N;
    if (opt->n_given && opt->n < big) {
        printf("SKIP n = %zu: -n %zu limits the sizes\n", big, opt->n); /* make test lists it */
    } else {
        const size_t host_need = host_bytes(big), dev_need = device_bytes(m, big, 0);
        /* make test runs self-tests side by side: wait for room in the memory they share */
        self_test_big_case_begin(host_need + host_need / 4);
        const size_t host_have = host_memory_available(), dev_have = cuda_free_bytes();
        if (!cli_variant_selected(opt, VARIANT_LOOKBACK)) {
            printf("SKIP n = %zu: only this chapter's pass runs beyond 2^31\n", big);
        } else if (host_have < host_need + host_need / 4 || dev_have < dev_need + dev_need / 16) {
            printf("SKIP n = %zu: needs %.1f GiB of host and %.1f GiB of GPU memory; %.1f and "
                   "%.1f GiB free\n", big, (double)(host_need + host_need / 4) / (1 << 30),
                   (double)(dev_need + dev_need / 16) / (1 << 30),
                   (double)host_have / (1 << 30), (double)dev_have / (1 << 30));
        } else {
            compact_data b = {};
            compact_alloc_host(&b, big);
            compact_generate(&b, 0, opt->seed);
            compact_reference(&b);
            compact_upload(&b);
            char what[96];
            snprintf(what, sizeof what, "n = %zu, %s, %s", big, COMPACT_PATTERNS[0], m->name);
            const size_t wrong = compact_run_checked(m, &b, VARIANT_LOOKBACK, what);
            printf("n = %zu   1 case, %s\n", big, wrong ? "FAILED" : "all right");
            ++cases, failed += wrong != 0;
            compact_free_host(&b);
            compact_free_device(&b);
        }
        self_test_big_case_end();
    }
    printf("self-test of %s %s: %ld cases, %ld failed\n", m->name,
           failed ? "FAILED" : "passed", cases, failed);
    return failed ? EXIT_WRONG : EXIT_OK;
}

/** Largest grid of the stress test's small sizes, in tiles. */
#define STRESS_SMALL_TILES 300

/**
 * \brief `--stress R`: R runs of the first selected variant on each of a few grids and on 2^24
 *        elements (or on `-n`), every element of every run checked.
 */
static int compact_stress(const compact_mode *m, const scan_options *opt)
{
    const size_t t = m->tile;
    const size_t sizes[] = {1, t + 1, 33 * t + 5, STRESS_SMALL_TILES * t - 3, (size_t)1 << 24};
    const size_t *list = opt->n_given ? &opt->n : sizes;
    const int count = opt->n_given ? 1 : (int)(sizeof sizes / sizeof sizes[0]);
    const int variant = cli_variant_selected(opt, VARIANT_LOOKBACK) ? VARIANT_LOOKBACK
                                                                    : VARIANT_CUB;
    int status = EXIT_OK;
    report_note(stdout, opt->csv, "stress test of %s: %d runs per size, every element checked",
                variant == VARIANT_CUB ? m->cub_name : m->name, opt->stress);
    for (int s = 0; s < count; ++s) {
        compact_data d = {};
        compact_alloc_host(&d, list[s]);
        compact_generate(&d, 0, opt->seed + (uint64_t)s);
        compact_reference(&d);
        compact_upload(&d);
        long wrong = 0;
        for (int r = 0; r < opt->stress; ++r) {
            char what[96];
            snprintf(what, sizeof what, "n = %zu, run %d", d.n, r);
            if (compact_run_checked(m, &d, variant, wrong ? NULL : what) && wrong++ == 0)
                status = EXIT_WRONG;
        }
        report_note(stdout, opt->csv, "n = %zu: %d runs, %ld wrong", d.n, opt->stress, wrong);
        compact_free_host(&d);
        compact_free_device(&d);
    }
    printf("stress test %s\n", status == EXIT_OK ? "passed: no run was wrong" : "FAILED");
    return status;
}

/** `--input F [--output G]`: compact the int32 values of F with every selected variant, check
    each, and write G (the kept values, in order) only when all were right. */
static int compact_file(const compact_mode *m, const scan_options *opt, const int32_t *file,
                        size_t words)
{
    char err[256];
    compact_data d = {};
    compact_alloc_host(&d, words);
    memcpy(d.in, file, words * sizeof(int32_t));
    compact_reference(&d);
    compact_upload(&d);
    int status = EXIT_OK;
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        if (!cli_variant_selected(opt, v))
            continue;
        const char *name = v == VARIANT_CUB ? m->cub_name : m->name;
        const size_t wrong = compact_run_checked(m, &d, v, name);
        printf("%s of %s (n = %zu): %s\n", name, opt->input, d.n, wrong ? "WRONG" : "right");
        if (wrong)
            status = EXIT_WRONG;
    }
    if (status == EXIT_OK && opt->output) {
        /* the report's last line before the file is renamed into place (common/io.h) */
        if (io_output_write(d.got, d.ref_count, err, sizeof err))
            cli_fail(EXIT_WRITE, "%s", err);
        printf("wrote %zu int32 words to %s\n", d.ref_count, opt->output);
        if (io_output_publish(err, sizeof err))
            cli_fail(EXIT_WRITE, "%s", err);
    }
    compact_free_host(&d);
    compact_free_device(&d);
    return status;
}

/** Median time of `variant` in ms, each run bracketed by events; the input is restored before
    each run (both variants work in place), outside the events. */
static double compact_time(const compact_mode *m, compact_data *d, int variant, int reps)
{
    const int warmup = 3;
    double *times = (double *)xmalloc((size_t)reps * sizeof(double), "the timings");
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int r = 0; r < warmup + reps; ++r) {
        CUDA_CHECK(cudaMemcpy(d->d_in, d->d_pristine, d->n * sizeof(int32_t),
                              cudaMemcpyDeviceToDevice));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventRecord(start, 0));
        m->launch(variant, d);
        CUDA_CHECK(cudaEventRecord(stop, 0));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (r >= warmup)
            times[r - warmup] = ms;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    const double result = median(times, reps);
    free(times);
    return result;
}

/** Median time of a device-to-device cudaMemcpy that moves `bytes` in all (reads half, writes
    half), in ms. */
static double memcpy_moving_ms(double bytes, int reps)
{
    const size_t half = ((size_t)(bytes / 2.0) + 15) / 16 * 16;
    void *buffer = NULL;
    CUDA_CHECK(cudaMalloc(&buffer, 2 * half));
    const double ms = cuda_memcpy_ms((char *)buffer + half, buffer, half, reps);
    CUDA_CHECK(cudaFree(buffer));
    return ms;
}

/** Default sizes of the sweep. */
static const size_t SWEEP_SIZES[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                     (size_t)1 << 24, (size_t)1 << 26, (size_t)1 << 28};

/**
 * \brief The sweep: per size, a memcpy row, then this chapter's pass and CUB's baseline, each
 *        checked, timed, checked again. GB/s counts the bytes each really moves; pct_memcpy
 *        compares with a cudaMemcpy that moves as many bytes, timed in this run.
 */
static int compact_sweep(const compact_mode *m, const scan_options *opt)
{
    report_column cols[] = {{"n", 10},   {"variant", -22}, {"time_us", 11},   {"bytes", 7},
                            {"GB/s", 8}, {"pct_memcpy", 10}, {"x_cub", 6}, {"check", -5}};
    const int ncols = (int)(sizeof cols / sizeof cols[0]);
    const size_t *sizes = opt->n_given ? &opt->n : SWEEP_SIZES;
    const int count = opt->n_given ? 1 : (int)(sizeof SWEEP_SIZES / sizeof SWEEP_SIZES[0]);
    int status = EXIT_OK;
    size_t largest = 0; /* sizes this machine cannot hold are refused before the table starts */
    for (int s = 0; s < count; ++s)
        largest = sizes[s] > largest ? sizes[s] : largest;
    char what[64];
    snprintf(what, sizeof what, "-n %zu", largest);
    io_require_host_memory((double)host_bytes(largest), what);
    const double device_need = (double)device_bytes(m, largest, VARIANT_LOOKBACK) +
                               (double)m->temp_bytes(VARIANT_CUB, largest) +
                               12.0 * (double)largest; /* the copy that moves as many bytes */
    if (device_need > (double)cuda_free_bytes())
        cli_fail(EXIT_USAGE, "%s needs %.2f GiB of GPU memory; %.2f GiB are free: try a smaller -n",
                 what, device_need / (1 << 30), (double)cuda_free_bytes() / (1 << 30));
    report_note(stdout, opt->csv, "%s, seed %llu, median of %d runs after 3 warm-up runs",
                m->name, (unsigned long long)opt->seed, opt->reps);
    report_note(stdout, opt->csv, "bytes: what each variant reads and writes per element; GB/s "
                "counts those bytes; pct_memcpy: a cudaMemcpy moving as many bytes, timed in this "
                "run; x_cub: CUB's time / this time");
    report_header(stdout, cols, ncols, opt->csv);
    for (int s = 0; s < count; ++s) {
        compact_data d = {};
        compact_alloc_host(&d, sizes[s]);
        compact_generate(&d, 0, opt->seed);
        compact_reference(&d);
        compact_upload(&d);
        double ms[VARIANT_COUNT] = {0, 0}, copy[VARIANT_COUNT] = {0, 0};
        double moved[VARIANT_COUNT] = {0, 0};
        int ok[VARIANT_COUNT] = {1, 1};
        for (int v = 0; v < VARIANT_COUNT; ++v) {
            if (!cli_variant_selected(opt, v) || d.n == 0)
                continue;
            const char *name = v == VARIANT_CUB ? m->cub_name : m->name;
            ok[v] = compact_run_checked(m, &d, v, name) == 0;
            ms[v] = compact_time(m, &d, v, opt->reps);
            CUDA_CHECK_LAUNCH();
            compact_fetch(&d);
            ok[v] = ok[v] && check_output(&d, name) == 0;
            moved[v] = compact_bytes(v, &d);
            copy[v] = memcpy_moving_ms(moved[v], opt->reps);
        }
        char nbuf[32], cells[VARIANT_COUNT + 1][5][32];
        format_size(d.n, nbuf, sizeof nbuf);
        const double copy8 = d.n ? memcpy_moving_ms(8.0 * (double)d.n, opt->reps) : 0.0;
        snprintf(cells[2][0], 32, "%.2f", copy8 * 1e3);
        snprintf(cells[2][1], 32, "8.0");
        /* n = 0 moves nothing: no rate, no share of a copy's */
        snprintf(cells[2][2], 32, d.n ? "%.1f" : "-", gb_per_s(8.0 * (double)d.n, copy8));
        const char *memcpy_row[] = {nbuf, "memcpy", cells[2][0], cells[2][1], cells[2][2],
                                    d.n ? "100.0" : "-", "-", "-"};
        report_row(stdout, cols, ncols, opt->csv, memcpy_row);
        for (int v = 0; v < VARIANT_COUNT; ++v) {
            if (!cli_variant_selected(opt, v))
                continue;
            snprintf(cells[v][0], 32, "%.2f", ms[v] * 1e3);
            snprintf(cells[v][1], 32, "%.1f", d.n ? moved[v] / (double)d.n : 0.0);
            snprintf(cells[v][2], 32, d.n ? "%.1f" : "-", gb_per_s(moved[v], ms[v]));
            snprintf(cells[v][3], 32, d.n && ms[v] > 0 ? "%.1f" : "-",
                     ms[v] > 0 ? 100.0 * copy[v] / ms[v] : 0.0);
            if (v == VARIANT_LOOKBACK && ms[0] > 0 && ms[1] > 0)
                snprintf(cells[v][4], 32, "%.2f", ms[1] / ms[0]);
            else
                snprintf(cells[v][4], 32, "-");
            const char *row[] = {nbuf,        v == VARIANT_CUB ? m->cub_name : m->name,
                                 cells[v][0], cells[v][1], cells[v][2], cells[v][3],
                                 cells[v][4], ok[v] ? "ok" : "WRONG"};
            report_row(stdout, cols, ncols, opt->csv, row);
            if (!ok[v])
                status = EXIT_WRONG;
        }
        compact_free_host(&d);
        compact_free_device(&d);
    }
    report_summary(stdout, opt->csv);
    return status;
}

int compact_main(const compact_mode *m, const scan_options *opt, const int32_t *file,
                 size_t words)
{
    if (opt->self_test)
        return compact_self_test(m, opt);
    if (opt->stress)
        return compact_stress(m, opt);
    if (opt->input)
        return compact_file(m, opt, file, words);
    return compact_sweep(m, opt);
}
