/**
 * \file operator_modes.cu
 * \brief Chapter 09's host side for the operators' modes: inputs, references and checks of each
 *        operator, and the battery, stress test, files and sweep they share (operator_modes.h).
 */
#include "operator_modes.h"

#include "cuda_util.h"
#include "data.h"
#include "io.h"
#include "report.h"
#include "selftest.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/**
 * \brief Compare d->got with the reference: every element (the float sum: each within its
 *        bound). Prints the first difference.
 * \return the number of elements that differ
 */
static size_t check_output(const operator_mode *op, const op_data *d, int variant,
                           const char *what)
{
    size_t bad = 0, first = d->n;
    const size_t count = d->n;
    /* every element on its own, so on every core: the float checks cost a few logarithms
       each, and the n > 2^31 case has 2^31 elements */
#pragma omp parallel for schedule(static) reduction(+ : bad) reduction(min : first)
    for (size_t i = 0; i < count; ++i) {
        const int wrong = op->cub == CUB_FLOAT_SUM    ? !float_sum_ok(d, variant, i)
                          : op->cub == CUB_AFFINE_F32 ? !recurrence_bound_ok(d, variant, i)
                                                      : d->got[i] != d->ref[i];
        if (wrong) {
            ++bad;
            first = i < first ? i : first;
        }
    }
    if (bad) {
        const size_t i = first;
        if (op->cub == CUB_FLOAT_SUM || op->cub == CUB_AFFINE_F32) {
            float f;
            memcpy(&f, &d->got[i], sizeof f);
            printf("  %s: %zu of %zu elements wrong; first at %zu: got %.9g (bits 0x%08x), exact "
                   "%.9g%s\n", what, bad, count, i, (double)f, (unsigned)d->got[i], d->exact[i],
                   op->cub == CUB_FLOAT_SUM && d->bitwise[i] ? " (checked bit for bit)" : "");
        } else {
            printf("  %s: %zu of %zu elements wrong; first at %zu: got %d, expected %d\n", what,
                   bad, count, i, d->got[i], d->ref[i]);
        }
    }
    return bad;
}

/** Read n, write n floats. */
double float_bytes(int variant, const op_data *d)
{
    (void)variant;
    return 8.0 * (double)d->n;
}

/** `--input` of the float sum: the values. */
void float_from_file(op_data *d, const int32_t *file)
{
    memcpy(d->in, file, d->n * sizeof(int32_t));
}

/** Recurrence inputs: "random" (a odd, b any), "sums" (a = 1: a prefix sum of b). */
const char *const AFFINE_PATTERNS[] = {"random-odd-a", "a=1"};

/**
 * \brief Fill the pairs (a_t, b_t). Every a is odd: an even a halves what h_{t−1} contributes
 *        (modulo 2^32), and after 32 even ones nothing of the past is left, so a look-back that
 *        brought the wrong past would not show in h. Odd multipliers keep the whole past in h_t.
 */
void affine_generate(op_data *d, int pattern, uint64_t seed)
{
    int32_t *w = (int32_t *)d->in;
    generate_input(w, 2 * d->n, PATTERN_RANDOM, seed);
    for (size_t i = 0; i < d->n; ++i)
        w[2 * i] = pattern == 0 ? (int32_t)((uint32_t)w[2 * i] | 1u) : 1;
}

/** The serial recurrence h_t = a_t·h_{t−1} + b_t, h_{−1} = 0, in uint32 arithmetic. */
void affine_reference(op_data *d)
{
    const uint32_t *w = (const uint32_t *)d->in;
    uint32_t h = 0;
    for (size_t i = 0; i < d->n; ++i) {
        h = w[2 * i] * h + w[2 * i + 1];
        d->ref[i] = (int32_t)h;
    }
}

/** Read n pairs, write n values of h. */
double affine_bytes(int variant, const op_data *d)
{
    (void)variant;
    return 12.0 * (double)d->n;
}

/** `--input` of the recurrence: int32 pairs a_0, b_0, a_1, b_1, … */
void affine_from_file(op_data *d, const int32_t *file)
{
    memcpy(d->in, file, 2 * d->n * sizeof(int32_t));
}

/** `--input` of the float recurrence: the pairs. */
void affine_f32_from_file(op_data *d, const int32_t *file)
{
    memcpy(d->in, file, 2 * d->n * sizeof(int32_t));
}

/** Segment patterns: fixed length 1000 (the benchmark's), length 1, one segment over everything,
    heads at every tile edge and one element either side, random heads (mean length 30). */
const char *const SEGMENT_PATTERNS[] = {"length-1000", "length-1", "one-segment",
                                               "tile-edges+-1", "random-mean-30"};

/** Fill values, heads and CUB's keys (each element's segment number, mod 256: CUB compares
    neighbouring keys only, and neighbouring segments' numbers differ by 1). */
void segmented_generate(op_data *d, int pattern, uint64_t seed)
{
    const size_t t = d->tile;
    generate_input((int32_t *)d->in, d->n, PATTERN_RANDOM, seed);
    generate_input(d->ref, d->n, PATTERN_RANDOM, seed + 1); /* random bits for pattern 4 (the
                                                                reference is computed later) */
    for (size_t i = 0; i < d->n; ++i) {
        const size_t r = i % t;
        switch (pattern) {
        case 0: d->heads[i] = i % 1000 == 0; break;
        case 1: d->heads[i] = 1; break;
        case 2: d->heads[i] = 0; break;
        case 3: d->heads[i] = r == 0 || r == 1 || r == t - 1; break;
        default: d->heads[i] = (uint32_t)d->ref[i] % 30 == 0; break;
        }
    }
    uint8_t key = 0;
    for (size_t i = 0; i < d->n; ++i)
        d->keys[i] = key = (uint8_t)(key + (d->heads[i] != 0));
}

/** The serial segmented sum. */
void segmented_reference(op_data *d)
{
    const int32_t *v = (const int32_t *)d->in;
    uint32_t sum = 0;
    for (size_t i = 0; i < d->n; ++i) {
        sum = d->heads[i] ? (uint32_t)v[i] : sum + (uint32_t)v[i];
        d->ref[i] = (int32_t)sum;
    }
}

/** Both read 4 + 1 bytes (a value and a head flag or a key) and write 4. */
double segmented_bytes(int variant, const op_data *d)
{
    (void)variant;
    return 9.0 * (double)d->n;
}

/** `--input` of the segmented sum: int32 pairs head_0, value_0, head_1, value_1, … (a nonzero
    head starts a segment). */
void segmented_from_file(op_data *d, const int32_t *file)
{
    uint8_t key = 0;
    for (size_t i = 0; i < d->n; ++i) {
        d->heads[i] = file[2 * i] != 0;
        ((int32_t *)d->in)[i] = file[2 * i + 1];
        d->keys[i] = key = (uint8_t)(key + d->heads[i]);
    }
}


/* ------------------------------------------------------------------------------------------ */
/* The operators' modes: battery, stress test, files, sweep                                   */
/* ------------------------------------------------------------------------------------------ */

/** Host bytes op_alloc_host() takes for n elements. */
static size_t host_bytes(const operator_mode *op, size_t n)
{
    const size_t per = op->in_bytes + 4 + 4 + (op->cub == CUB_FLOAT_SUM ? 17 : 0) +
                       (op->cub == CUB_AFFINE_F32 ? 32 : 0) +
                       (op->cub == CUB_SUM_BY_KEY ? 2 : 0);
    return per * n;
}

/** Device bytes op_reserve_device() takes for n elements, scratch of `variant` included. */
static size_t device_bytes(const operator_mode *op, size_t n, int variant)
{
    size_t per = op->in_bytes + 4;
    if (op->cub == CUB_SUM_BY_KEY)
        per += 2;
    return per * n + op->temp_bytes(variant, n);
}

/** Allocate the host arrays of d for n elements; its device arrays, if any, are kept (they grow
    with d->n in op_reserve_device()). */
static void op_alloc_host(const operator_mode *op, op_data *d, size_t n)
{
    d->n = n;
    d->heads = d->keys = NULL;
    d->exact = d->magnitude = d->growth = d->slack = NULL;
    d->bitwise = NULL;
    d->tile = op->tile;
    d->in = xmalloc(n * op->in_bytes, "the input");
    d->ref = (int32_t *)xmalloc(n * sizeof(int32_t), "the reference");
    d->got = (int32_t *)xmalloc(n * sizeof(int32_t), "the output");
    if (op->cub == CUB_SUM_BY_KEY) {
        d->heads = (uint8_t *)xmalloc(n, "the head flags");
        d->keys = (uint8_t *)xmalloc(n, "the keys");
    }
    if (op->cub == CUB_FLOAT_SUM || op->cub == CUB_AFFINE_F32) {
        d->exact = (double *)xmalloc(n * sizeof(double), "the exact results");
        d->magnitude = (double *)xmalloc(n * sizeof(double), "the error bound's scale");
    }
    if (op->cub == CUB_FLOAT_SUM)
        d->bitwise = (uint8_t *)xmalloc(n, "the exact elements' flags");
    if (op->cub == CUB_AFFINE_F32) {
        d->growth = (double *)xmalloc(n * sizeof(double), "the error bound's growth");
        d->slack = (double *)xmalloc(n * sizeof(double), "the error bound's slack");
    }
}

/** Allocate (or keep, if large enough) the device arrays of d. */
static void op_reserve_device(const operator_mode *op, op_data *d)
{
    if (d->n > d->capacity) {
        CUDA_CHECK(cudaFree(d->d_in));
        CUDA_CHECK(cudaFree(d->d_out));
        CUDA_CHECK(cudaFree(d->d_heads));
        CUDA_CHECK(cudaFree(d->d_keys));
        d->d_heads = NULL, d->d_keys = NULL;
        CUDA_CHECK(cudaMalloc(&d->d_in, d->n * op->in_bytes));
        CUDA_CHECK(cudaMalloc((void **)&d->d_out, d->n * sizeof(int32_t)));
        if (op->cub == CUB_SUM_BY_KEY) {
            CUDA_CHECK(cudaMalloc((void **)&d->d_heads, d->n));
            CUDA_CHECK(cudaMalloc((void **)&d->d_keys, d->n));
        }
        d->capacity = d->n;
    }
}

/** Copy the host input to the device. */
static void op_upload(const operator_mode *op, op_data *d)
{
    op_reserve_device(op, d);
    CUDA_CHECK(cudaMemcpy(d->d_in, d->in, d->n * op->in_bytes, cudaMemcpyHostToDevice));
    if (d->d_heads) {
        CUDA_CHECK(cudaMemcpy(d->d_heads, d->heads, d->n, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d->d_keys, d->keys, d->n, cudaMemcpyHostToDevice));
    }
}

/** Free the host arrays. */
static void op_free_host(op_data *d)
{
    free(d->in);
    free(d->ref);
    free(d->got);
    free(d->heads);
    free(d->keys);
    free(d->exact);
    free(d->magnitude);
    free(d->growth);
    free(d->slack);
    free(d->bitwise);
    d->in = d->ref = d->got = NULL, d->heads = d->keys = NULL, d->exact = d->magnitude = NULL;
    d->growth = d->slack = NULL, d->bitwise = NULL;
}

/** Free the device arrays and the scratch. */
static void op_free_device(op_data *d)
{
    CUDA_CHECK(cudaFree(d->d_in));
    CUDA_CHECK(cudaFree(d->d_out));
    CUDA_CHECK(cudaFree(d->d_heads));
    CUDA_CHECK(cudaFree(d->d_keys));
    for (int v = 0; v < VARIANT_COUNT; ++v)
        CUDA_CHECK(cudaFree(d->d_temp[v]));
    d->d_in = NULL, d->d_out = NULL, d->d_heads = NULL, d->d_keys = NULL, d->capacity = 0;
    for (int v = 0; v < VARIANT_COUNT; ++v)
        d->d_temp[v] = NULL, d->temp_bytes[v] = 0;
}

/** Prepare one run of `variant`: grow its scratch (the pass's: zeroed once, then left to it;
    CUB's: poisoned), poison the output. */
static void op_prepare(const operator_mode *op, op_data *d, int variant)
{
    const size_t need = op->temp_bytes(variant, d->n);
    const int state = variant == VARIANT_LOOKBACK && op->state_scratch;
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
    /* floats are poisoned with NaN (0xFF bytes): an unwritten element fails any bound */
    const int is_float = op->cub == CUB_FLOAT_SUM || op->cub == CUB_AFFINE_F32;
    CUDA_CHECK(cudaMemset(d->d_out, is_float ? 0xFF : POISON_BYTE,
                          d->n * sizeof(int32_t)));
}

/** Copy a run's result back to d->got. */
static void op_fetch(op_data *d)
{
    CUDA_CHECK(cudaMemcpy(d->got, d->d_out, d->n * sizeof(int32_t), cudaMemcpyDeviceToHost));
}

/** One checked run: prepare, launch, fetch, compare. Returns the elements wrong. */
static size_t op_run_checked(const operator_mode *op, op_data *d, int variant, const char *what)
{
    op_prepare(op, d, variant);
    op->launch(variant, d);
    CUDA_CHECK_LAUNCH();
    op_fetch(d);
    return check_output(op, d, variant, what);
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
 * \brief The battery of one operator: every size of battery_size() (up to `-n`), every pattern,
 *        every selected variant, several runs each (single-pass bugs are races), every element
 *        checked; then one n > 2^31 with this chapter's pass, where host and GPU have the memory.
 */
static int op_self_test(const operator_mode *op, const scan_options *opt)
{
    long cases = 0, failed = 0;
    op_data d = {}; /* one set of device arrays, grown from size to size */
    report_note(stdout, opt->csv, "self-test of %s: %d sizes x %d patterns x variants, "
                "every element checked", op->name, BATTERY_SIZES, op->pattern_count);
    for (int k = 0; k < BATTERY_SIZES; ++k) {
        const size_t n = battery_size(op->tile, k);
        if (opt->n_given && n > opt->n)
            continue;
        op_alloc_host(op, &d, n);
        long size_failed = 0, size_cases = 0;
        const int repeats = n <= ((size_t)1 << 20) ? 3 : 1;
        for (int p = 0; p < op->pattern_count; ++p) {
            op->generate(&d, p, opt->seed + (uint64_t)p);
            op->reference(&d);
            op_upload(op, &d);
            for (int v = 0; v < VARIANT_COUNT; ++v) {
                if (!cli_variant_selected(opt, v))
                    continue;
                for (int r = 0; r < repeats; ++r) {
                    char what[160];
                    snprintf(what, sizeof what, "n = %zu, %s, %s, run %d", n, op->patterns[p],
                             v == VARIANT_CUB ? op->cub_name : op->name, r);
                    ++size_cases;
                    if (op_run_checked(op, &d, v, what))
                        ++size_failed;
                }
            }
        }
        printf("n = %-10zu %3ld cases, %s\n", n, size_cases,
               size_failed ? "FAILED" : "all right");
        cases += size_cases, failed += size_failed;
        op_free_host(&d); /* the device arrays stay for the next size */
    }
    op_free_device(&d);

    const size_t big = SELF_TEST_BIG_N;
    if (opt->n_given && opt->n < big) {
        printf("SKIP n = %zu: -n %zu limits the sizes\n", big, opt->n); /* make test lists it */
    } else {
        const size_t host_need = host_bytes(op, big), dev_need = device_bytes(op, big, 0);
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
            op_data b = {};
            op_alloc_host(op, &b, big);
            op->generate(&b, 0, opt->seed);
            op->reference(&b);
            op_upload(op, &b);
            char what[96];
            snprintf(what, sizeof what, "n = %zu, %s, %s", big, op->patterns[0], op->name);
            const size_t wrong = op_run_checked(op, &b, VARIANT_LOOKBACK, what);
            printf("n = %zu   1 case, %s\n", big, wrong ? "FAILED" : "all right");
            ++cases, failed += wrong != 0;
            op_free_host(&b);
            op_free_device(&b);
        }
        self_test_big_case_end();
    }
    printf("self-test of %s %s: %ld cases, %ld failed\n", op->name,
           failed ? "FAILED" : "passed", cases, failed);
    return failed ? EXIT_WRONG : EXIT_OK;
}

/** Largest grid of the stress test's small sizes, in tiles. */
#define STRESS_SMALL_TILES 300

/**
 * \brief `--stress R` with an operator: R runs of the first selected variant on each of a few
 *        grids and on 2^24 elements (or on `-n`), every element of every run checked. For the
 *        float sum it also counts the runs whose bits differ from the first run's: the spread.
 */
static int op_stress(const operator_mode *op, const scan_options *opt)
{
    const size_t t = op->tile;
    const size_t sizes[] = {1, t + 1, 33 * t + 5, STRESS_SMALL_TILES * t - 3, (size_t)1 << 24};
    const size_t *list = opt->n_given ? &opt->n : sizes;
    const int count = opt->n_given ? 1 : (int)(sizeof sizes / sizeof sizes[0]);
    const int variant = cli_variant_selected(opt, VARIANT_LOOKBACK) ? VARIANT_LOOKBACK
                                                                    : VARIANT_CUB;
    int status = EXIT_OK;
    report_note(stdout, opt->csv, "stress test of %s: %d runs per size, every element checked",
                variant == VARIANT_CUB ? op->cub_name : op->name, opt->stress);
    for (int s = 0; s < count; ++s) {
        op_data d = {};
        op_alloc_host(op, &d, list[s]);
        op->generate(&d, 0, opt->seed + (uint64_t)s);
        op->reference(&d);
        op_upload(op, &d);
        int32_t *first = (int32_t *)xmalloc(d.n * sizeof(int32_t), "the first run");
        long wrong = 0, differ = 0;
        size_t most_differ = 0;
        for (int r = 0; r < opt->stress; ++r) {
            char what[96];
            snprintf(what, sizeof what, "n = %zu, run %d", d.n, r);
            if (op_run_checked(op, &d, variant, wrong ? NULL : what) && wrong++ == 0)
                status = EXIT_WRONG;
            if (r == 0) {
                memcpy(first, d.got, d.n * sizeof(int32_t));
            } else if (memcmp(first, d.got, d.n * sizeof(int32_t)) != 0) {
                size_t bits = 0;
                for (size_t i = 0; i < d.n; ++i)
                    bits += first[i] != d.got[i];
                ++differ;
                most_differ = bits > most_differ ? bits : most_differ;
            }
        }
        if (op->cub == CUB_FLOAT_SUM)
            report_note(stdout, opt->csv, "n = %zu: %d runs, %ld wrong; %ld differ in their bits "
                        "from the first run (at most %zu of the %zu elements)", d.n, opt->stress,
                        wrong, differ, most_differ, d.n);
        else
            report_note(stdout, opt->csv, "n = %zu: %d runs, %ld wrong", d.n, opt->stress, wrong);
        free(first);
        op_free_host(&d);
        op_free_device(&d);
    }
    printf("stress test %s\n", status == EXIT_OK ? "passed: no run was wrong" : "FAILED");
    return status;
}

int op_check_file(const operator_mode *op, const int32_t *file, size_t words, char *err,
                  size_t len)
{
    if (words % op->file_words) {
        snprintf(err, len, "--input holds %zu int32 words, an odd number; --%s takes %s", words,
                 op->mode, op->file_format);
        return EXIT_USAGE;
    }
    return op->check_file ? op->check_file(file, words, err, len) : 0;
}

/** `--input F [--output G]` with an operator: read F in the operator's format, run every selected
    variant, check each, and write G only when all were right. */
static int op_file(const operator_mode *op, const scan_options *opt, const int32_t *file,
                   size_t words)
{
    char err[256];
    op_data d = {};
    op_alloc_host(op, &d, words / op->file_words); /* op_check_file() has checked the file */
    op->from_file(&d, file);
    op->reference(&d);
    op_upload(op, &d);
    int status = EXIT_OK;
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        if (!cli_variant_selected(opt, v))
            continue;
        const char *name = v == VARIANT_CUB ? op->cub_name : op->name;
        const size_t wrong = op_run_checked(op, &d, v, name);
        printf("%s of %s (n = %zu): %s\n", name, opt->input, d.n, wrong ? "WRONG" : "right");
        if (wrong)
            status = EXIT_WRONG;
    }
    if (status == EXIT_OK && opt->output) {
        /* the report's last line before the file is renamed into place (common/io.h) */
        if (io_output_write(d.got, d.n, err, sizeof err))
            cli_fail(EXIT_WRITE, "%s", err);
        printf("wrote %zu int32 words to %s\n", d.n, opt->output);
        if (io_output_publish(err, sizeof err))
            cli_fail(EXIT_WRITE, "%s", err);
    }
    op_free_host(&d);
    op_free_device(&d);
    return status;
}

/** Median time of `variant` in ms, each run bracketed by events. */
static double op_time(const operator_mode *op, op_data *d, int variant, int reps)
{
    const int warmup = 3;
    double *times = (double *)xmalloc((size_t)reps * sizeof(double), "the timings");
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int r = 0; r < warmup + reps; ++r) {
        float ms = 0.0f;
        CUDA_CHECK(cudaEventRecord(start, 0));
        op->launch(variant, d);
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

/** Default sizes of an operator's sweep. */
static const size_t OP_SIZES[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                  (size_t)1 << 24, (size_t)1 << 26, (size_t)1 << 28};

/**
 * \brief The sweep of one operator: per size, a memcpy row, then this chapter's pass and CUB's
 *        baseline, each checked, timed, checked again. GB/s counts the bytes each really moves;
 *        pct_memcpy compares with a cudaMemcpy that moves as many bytes, timed in this run.
 */
static int op_sweep(const operator_mode *op, const scan_options *opt)
{
    report_column cols[] = {{"n", 10},   {"variant", -22}, {"time_us", 11},   {"bytes", 7},
                            {"GB/s", 8}, {"pct_memcpy", 10}, {"x_cub", 6}, {"check", -5}};
    const int ncols = (int)(sizeof cols / sizeof cols[0]);
    const size_t *sizes = opt->n_given ? &opt->n : OP_SIZES;
    const int count = opt->n_given ? 1 : (int)(sizeof OP_SIZES / sizeof OP_SIZES[0]);
    int status = EXIT_OK;
    size_t largest = 0; /* sizes this machine cannot hold are refused before the table starts */
    for (int s = 0; s < count; ++s)
        largest = sizes[s] > largest ? sizes[s] : largest;
    char what[64];
    snprintf(what, sizeof what, "-n %zu", largest);
    io_require_host_memory((double)host_bytes(op, largest), what);
    const double device_need = (double)device_bytes(op, largest, VARIANT_LOOKBACK) +
                               (double)op->temp_bytes(VARIANT_CUB, largest) +
                               12.0 * (double)largest; /* the copy that moves as many bytes */
    if (device_need > (double)cuda_free_bytes())
        cli_fail(EXIT_USAGE, "%s needs %.2f GiB of GPU memory; %.2f GiB are free: try a smaller -n",
                 what, device_need / (1 << 30), (double)cuda_free_bytes() / (1 << 30));
    report_note(stdout, opt->csv, "%s, seed %llu, median of %d runs after 3 warm-up runs",
                op->name, (unsigned long long)opt->seed, opt->reps);
    report_note(stdout, opt->csv, "bytes: what each variant reads and writes per element; GB/s "
                "counts those bytes; pct_memcpy: a cudaMemcpy moving as many bytes, timed in this "
                "run; x_cub: CUB's time / this time");
    report_header(stdout, cols, ncols, opt->csv);
    for (int s = 0; s < count; ++s) {
        op_data d = {};
        op_alloc_host(op, &d, sizes[s]);
        op->generate(&d, 0, opt->seed);
        op->reference(&d);
        op_upload(op, &d);
        double ms[VARIANT_COUNT] = {0, 0}, copy[VARIANT_COUNT] = {0, 0};
        double moved[VARIANT_COUNT] = {0, 0};
        int ok[VARIANT_COUNT] = {1, 1};
        for (int v = 0; v < VARIANT_COUNT; ++v) {
            if (!cli_variant_selected(opt, v) || d.n == 0)
                continue;
            const char *name = v == VARIANT_CUB ? op->cub_name : op->name;
            ok[v] = op_run_checked(op, &d, v, name) == 0;
            ms[v] = op_time(op, &d, v, opt->reps);
            CUDA_CHECK_LAUNCH();
            op_fetch(&d);
            ok[v] = ok[v] && check_output(op, &d, v, name) == 0;
            moved[v] = op->bytes(v, &d);
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
            const char *row[] = {nbuf,        v == VARIANT_CUB ? op->cub_name : op->name,
                                 cells[v][0], cells[v][1], cells[v][2], cells[v][3],
                                 cells[v][4], ok[v] ? "ok" : "WRONG"};
            report_row(stdout, cols, ncols, opt->csv, row);
            if (!ok[v])
                status = EXIT_WRONG;
        }
        op_free_host(&d);
        op_free_device(&d);
    }
    report_summary(stdout, opt->csv);
    return status;
}

/** Run an operator's mode: the battery, the stress test, a file, or the sweep. */
int op_main(const operator_mode *op, const scan_options *opt, const int32_t *file,
                   size_t words)
{
    if (opt->self_test)
        return op_self_test(op, opt);
    if (opt->stress)
        return op_stress(op, opt);
    if (opt->input)
        return op_file(op, opt, file, words);
    return op_sweep(op, opt);
}
