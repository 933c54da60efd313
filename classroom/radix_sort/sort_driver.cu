/**
 * \file sort_driver.cu
 * \brief The radix sort assignment's host side: the checks of a sort, the file mode and the
 *        sweep beside CUB (see sort_driver.h).
 */
#include "sort_driver.h"

#include "cub_sort.h"
#include "cuda_util.h"
#include "data.h"
#include "io.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** Untimed runs before the timed ones. */
#define WARMUP_RUNS 2
/** Rounds of the sweep: in each, the variant and CUB are timed one after the other. */
#define SWEEP_ROUNDS 5
/** Key patterns of the self-test. */
enum { KEYS_RANDOM, KEYS_FEW, KEYS_EQUAL, KEYS_SORTED, KEYS_REVERSED, KEYS_TOP_BYTE, KEYS_COUNT };
/** Their names. */
static const char *const KEY_NAMES[KEYS_COUNT] = {"random", "16 distinct", "all equal", "sorted",
                                                  "reversed", "top byte only"};

/** Fill keys[0..n) with a pattern (from the course's seeded generator, so runs repeat). */
static void make_keys(uint32_t *keys, size_t n, int pattern, uint64_t seed)
{
    generate_input((int32_t *)keys, n, PATTERN_RANDOM, seed);
    for (size_t i = 0; i < n; ++i) {
        switch (pattern) {
        case KEYS_FEW: keys[i] = keys[i] % 16u * 0x01010101u; break;
        case KEYS_EQUAL: keys[i] = 0xdeadbeefu; break;
        case KEYS_SORTED: keys[i] = (uint32_t)i; break;
        case KEYS_REVERSED: keys[i] = (uint32_t)(n - i); break;
        case KEYS_TOP_BYTE: keys[i] &= 0xff000000u; break;
        default: break;
        }
    }
}

/** What sort_element_fault() finds: nothing, or the first rule an element breaks. */
enum { SORT_RIGHT, SORT_VALUE_OUT_OF_RANGE, SORT_KEY_NOT_ITS_INPUTS, SORT_KEYS_DECREASE,
       SORT_EQUAL_KEYS_OUT_OF_ORDER };

/**
 * What is wrong with element i of a sort's output, from the input alone (host and device:
 * check_sort() and count_unsorted() accept the same outputs). Its value must be an index of the
 * input whose key is its key, and the (key, value) pairs must strictly increase: the keys never
 * decrease, equal keys keep their input order, and, no pair being there twice, the n values
 * below n are a permutation of 0 … n − 1.
 */
__host__ __device__ static inline int sort_element_fault(const uint32_t *keys,
                                                         const uint32_t *out_keys,
                                                         const uint32_t *out_values, size_t n,
                                                         size_t i)
{
    const uint32_t k = out_keys[i], v = out_values[i];
    if (v >= n)
        return SORT_VALUE_OUT_OF_RANGE;
    if (keys[v] != k)
        return SORT_KEY_NOT_ITS_INPUTS;
    if (i > 0 && out_keys[i - 1] > k)
        return SORT_KEYS_DECREASE;
    if (i > 0 && out_keys[i - 1] == k && out_values[i - 1] >= v)
        return SORT_EQUAL_KEYS_OUT_OF_ORDER;
    return SORT_RIGHT;
}

/**
 * \brief Check a sort's output (sort_element_fault()); 0 if right, else print the first problem
 *        and return 1.
 */
static int check_sort(const uint32_t *keys, const uint32_t *out_keys, const uint32_t *out_values,
                      size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        const int fault = sort_element_fault(keys, out_keys, out_values, n, i);
        const uint32_t k = out_keys[i], v = out_values[i];
        switch (fault) {
        case SORT_RIGHT:
            continue;
        case SORT_VALUE_OUT_OF_RANGE:
            printf("    values are not a permutation: value[%zu] = %u is out of range\n", i, v);
            break;
        case SORT_KEY_NOT_ITS_INPUTS:
            printf("    key[%zu] = %u but the input's key %u (its value) is %u\n", i, k, v,
                   keys[v]);
            break;
        case SORT_KEYS_DECREASE:
            printf("    keys out of order: key[%zu] = %u > key[%zu] = %u\n", i - 1,
                   out_keys[i - 1], i, k);
            break;
        default:
            printf("    %s: equal keys %u at %zu and %zu came from %u and %u\n",
                   out_values[i - 1] == v ? "values are not a permutation" : "not stable", k,
                   i - 1, i, out_values[i - 1], v);
            break;
        }
        return 1;
    }
    return 0;
}

/** Device arrays of one size, and each variant's scratch. */
typedef struct sort_arrays {
    uint32_t *keys, *keys_out, *values, *values_out; /**< device arrays of `capacity` */
    size_t capacity;                                 /**< elements each holds */
    void *temp[CLI_MAX_VARIANTS];                    /**< each variant's scratch */
    size_t temp_bytes[CLI_MAX_VARIANTS];             /**< and its size */
} sort_arrays;

/** The values 0, 1, …, n − 1. */
__global__ void iota_kernel(uint32_t *values, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        values[i] = (uint32_t)i;
}

/** Make the arrays hold n pairs and `variant`'s scratch for n; the values are 0 … n − 1. */
static void reserve(const sort_program *p, sort_arrays *a, size_t n, int variant)
{
    if (n > a->capacity) {
        CUDA_CHECK(cudaFree(a->keys));
        CUDA_CHECK(cudaFree(a->keys_out));
        CUDA_CHECK(cudaFree(a->values));
        CUDA_CHECK(cudaFree(a->values_out));
        CUDA_CHECK(cudaMalloc((void **)&a->keys, n * sizeof(uint32_t)));
        CUDA_CHECK(cudaMalloc((void **)&a->keys_out, n * sizeof(uint32_t)));
        CUDA_CHECK(cudaMalloc((void **)&a->values, n * sizeof(uint32_t)));
        CUDA_CHECK(cudaMalloc((void **)&a->values_out, n * sizeof(uint32_t)));
        a->capacity = n;
        iota_kernel<<<1024, 256>>>(a->values, n);
        CUDA_CHECK_LAUNCH();
    }
    const size_t bytes = p->temp_bytes(variant, n);
    if (bytes > a->temp_bytes[variant]) {
        CUDA_CHECK(cudaFree(a->temp[variant]));
        CUDA_CHECK(cudaMalloc(&a->temp[variant], bytes));
        a->temp_bytes[variant] = bytes;
    }
}

static void release(sort_arrays *a)
{
    CUDA_CHECK(cudaFree(a->keys));
    CUDA_CHECK(cudaFree(a->keys_out));
    CUDA_CHECK(cudaFree(a->values));
    CUDA_CHECK(cudaFree(a->values_out));
    for (int v = 0; v < CLI_MAX_VARIANTS; ++v)
        CUDA_CHECK(cudaFree(a->temp[v]));
    memset(a, 0, sizeof *a);
}

/** Copy keys in, poison the outputs and the scratch, sort, copy both outputs back. */
static void sort_once(const sort_program *p, sort_arrays *a, int variant, const uint32_t *keys,
                      uint32_t *out_keys, uint32_t *out_values, size_t n)
{
    reserve(p, a, n, variant);
    CUDA_CHECK(cudaMemcpy(a->keys, keys, n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(a->keys_out, POISON_BYTE, n * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemset(a->values_out, POISON_BYTE, n * sizeof(uint32_t)));
    if (a->temp_bytes[variant])
        CUDA_CHECK(cudaMemset(a->temp[variant], POISON_BYTE, a->temp_bytes[variant]));
    p->sort(variant, a->keys, a->keys_out, a->values, a->values_out, n, a->temp[variant],
            a->temp_bytes[variant]);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(out_keys, a->keys_out, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(out_values, a->values_out, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
}

/** `--self-test`: sizes × patterns × variants, each output checked three ways. */
static int self_test(const sort_program *p, const scan_options *opt)
{
    const size_t t = p->tile;
    const size_t sizes[] = {0, 1, 2, 31, 32, 33, 255, 256, 257, t - 1, t, t + 1, 3 * t + 7,
                            1000003, ((size_t)1 << 24) + 1};
    const size_t limit = opt->n_given ? opt->n : (size_t)-1;
    size_t largest = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
        if (sizes[i] <= limit && sizes[i] > largest)
            largest = sizes[i];
    uint32_t *keys = (uint32_t *)xmalloc(largest * sizeof(uint32_t), "the keys");
    uint32_t *out_keys = (uint32_t *)xmalloc(largest * sizeof(uint32_t), "the sorted keys");
    uint32_t *out_values = (uint32_t *)xmalloc(largest * sizeof(uint32_t), "the values");
    sort_arrays a;
    memset(&a, 0, sizeof a);
    long passed = 0, failed = 0;
    printf("self-test of %s: %s, seed %llu; tile %zu\n", p->prog.name,
           opt->variant < 0 ? "every variant" : p->prog.variants[opt->variant],
           (unsigned long long)opt->seed, t);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        const size_t n = sizes[i];
        if (n > limit || (i > 0 && n == sizes[i - 1]))
            continue;
        long before = failed;
        for (int pattern = 0; pattern < KEYS_COUNT; ++pattern) {
            make_keys(keys, n, pattern, opt->seed);
            for (int v = 0; v < p->prog.variant_count; ++v) {
                if (!cli_variant_selected(opt, v))
                    continue;
                sort_once(p, &a, v, keys, out_keys, out_values, n);
                if (check_sort(keys, out_keys, out_values, n) == 0) {
                    ++passed;
                } else {
                    ++failed;
                    printf("  FAIL n=%zu keys=%s variant=%s\n", n, KEY_NAMES[pattern],
                           p->prog.variants[v]);
                }
            }
        }
        printf("  n = %-12zu %s\n", n, failed > before ? "FAILED" : "ok");
        fflush(stdout);
    }
    release(&a);
    free(keys);
    free(out_keys);
    free(out_values);
    printf("self-test %s: %ld passed, %ld failed\n", failed ? "FAILED" : "passed", passed, failed);
    return failed ? EXIT_WRONG : EXIT_OK;
}

/** `--input F --output G`: sort F's words; write keys then values, only when checked. */
static int sort_file(const sort_program *p, const scan_options *opt, const uint32_t *keys,
                     size_t n)
{
    char err[512];
    uint32_t *out = (uint32_t *)xmalloc(2 * n * sizeof(uint32_t), "the output");
    sort_arrays a;
    memset(&a, 0, sizeof a);
    int status = EXIT_OK;
    for (int v = 0; v < p->prog.variant_count && status == EXIT_OK; ++v) {
        if (!cli_variant_selected(opt, v))
            continue;
        sort_once(p, &a, v, keys, out, out + n, n);
        const int wrong = check_sort(keys, out, out + n, n);
        printf("%-12s %zu keys of %s: %s\n", p->prog.variants[v], n, opt->input,
               wrong ? "WRONG" : "verified (sorted, a permutation, stable)");
        status = wrong ? EXIT_WRONG : EXIT_OK;
    }
    release(&a);
    if (status != EXIT_OK) {
        io_output_abandon();
    } else if (opt->output) {
        if (io_output_commit((const int32_t *)out, 2 * n, err, sizeof err))
            cli_fail(EXIT_USAGE, "%s", err);
        printf("wrote %zu keys and %zu values to %s\n", n, n, opt->output);
    }
    free(out);
    return status;
}

/**
 * Check a sort's output on the GPU, every element (sort_element_fault(): from the input alone,
 * no sorted copy in the process, which a student's kernel could read). Each block that finds a
 * wrong element adds 1 to `*wrong`.
 */
__global__ void count_unsorted(const uint32_t *keys, const uint32_t *keys_out,
                               const uint32_t *values_out, size_t n, unsigned long long *wrong)
{
    int bad = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        bad |= sort_element_fault(keys, keys_out, values_out, n, i) != SORT_RIGHT;
    if (__syncthreads_or(bad) && threadIdx.x == 0)
        atomicAdd(wrong, 1ull);
}

/**
 * Median ms of `reps` sorts of n pairs already on the device. The outputs are poisoned before
 * every sort and checked after it (count_unsorted(), outside the timing, the untimed sorts
 * too): `*d_wrong` counts the blocks that saw a wrong element, so that a sort that skipped its
 * work on some calls is caught, not timed.
 */
static double time_sort(const sort_program *p, sort_arrays *a, int variant, size_t n, int reps,
                        unsigned long long *d_wrong)
{
    cudaEvent_t start, stop;
    double *ms = (double *)xmalloc((size_t)reps * sizeof(double), "the timings");
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int r = -WARMUP_RUNS; r < reps; ++r) {
        CUDA_CHECK(cudaMemsetAsync(a->keys_out, POISON_BYTE, n * sizeof(uint32_t), 0));
        CUDA_CHECK(cudaMemsetAsync(a->values_out, POISON_BYTE, n * sizeof(uint32_t), 0));
        CUDA_CHECK(cudaEventRecord(start, 0));
        p->sort(variant, a->keys, a->keys_out, a->values, a->values_out, n, a->temp[variant],
                a->temp_bytes[variant]);
        CUDA_CHECK(cudaEventRecord(stop, 0));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK_LAUNCH();
        count_unsorted<<<1024, 256>>>(a->keys, a->keys_out, a->values_out, n, d_wrong);
        CUDA_CHECK_LAUNCH();
        float f;
        CUDA_CHECK(cudaEventElapsedTime(&f, start, stop));
        if (r >= 0)
            ms[r] = f;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    const double m = median(ms, reps);
    free(ms);
    return m;
}

/** The sweep: per size, SWEEP_ROUNDS rounds of every selected variant and CUB, in turn. */
static int sweep(const sort_program *p, const scan_options *opt, int cub)
{
    static const report_column COLS[] = {{"n", 10},       {"variant", -12},       {"time_us", 11},
                                         {"Mkeys/s", 9},  {"pct_cub", 8},         {"cub_spread_pct", 14},
                                         {"check", -5}};
    const int NCOLS = (int)(sizeof COLS / sizeof COLS[0]);
    const size_t *sizes = opt->n_given ? &opt->n : p->prog.default_sizes;
    const int count = opt->n_given ? 1 : p->prog.default_size_count;
    int status = EXIT_OK;
    sort_arrays a;
    memset(&a, 0, sizeof a);
    unsigned long long *d_wrong = NULL; /* per variant: blocks that saw a wrong timed sort */
    CUDA_CHECK(cudaMalloc((void **)&d_wrong, CLI_MAX_VARIANTS * sizeof(unsigned long long)));
    report_note(stdout, opt->csv, "%d rounds per size, each the median of %d sorts of every "
                "variant in turn; pct_cub = CUB's time / the variant's, from the same rounds",
                SWEEP_ROUNDS, opt->reps);
    report_header(stdout, COLS, NCOLS, opt->csv);
    for (int s = 0; s < count; ++s) {
        const size_t n = sizes[s];
        uint32_t *keys = (uint32_t *)xmalloc(n * sizeof(uint32_t), "the keys");
        uint32_t *out = (uint32_t *)xmalloc(2 * n * sizeof(uint32_t), "the output");
        make_keys(keys, n, KEYS_RANDOM, opt->seed);
        double ms[CLI_MAX_VARIANTS][SWEEP_ROUNDS];
        int ok[CLI_MAX_VARIANTS];
        for (int v = 0; v < p->prog.variant_count; ++v) {
            ok[v] = 1;
            if (!cli_variant_selected(opt, v) && v != cub)
                continue;
            sort_once(p, &a, v, keys, out, out + n, n);
            ok[v] = check_sort(keys, out, out + n, n) == 0;
        }
        CUDA_CHECK(cudaMemset(d_wrong, 0, CLI_MAX_VARIANTS * sizeof(unsigned long long)));
        for (int r = 0; r < SWEEP_ROUNDS; ++r)
            for (int v = 0; v < p->prog.variant_count; ++v)
                if (cli_variant_selected(opt, v) || v == cub)
                    ms[v][r] = n ? time_sort(p, &a, v, n, opt->reps, d_wrong + v) : 0.0;
        unsigned long long wrong[CLI_MAX_VARIANTS];
        CUDA_CHECK(cudaMemcpy(wrong, d_wrong, sizeof wrong, cudaMemcpyDeviceToHost));
        for (int v = 0; v < p->prog.variant_count; ++v)
            if (wrong[v] && ok[v]) {
                ok[v] = 0;
                report_note(stdout, opt->csv, "%s: a timed sort of n = %zu was wrong (%llu "
                            "blocks of the check saw a wrong element)", p->prog.variants[v], n,
                            wrong[v]);
            }
        double cub_lo = ms[cub][0], cub_hi = ms[cub][0];
        for (int r = 1; r < SWEEP_ROUNDS; ++r) {
            cub_lo = ms[cub][r] < cub_lo ? ms[cub][r] : cub_lo;
            cub_hi = ms[cub][r] > cub_hi ? ms[cub][r] : cub_hi;
        }
        double cub_ms[SWEEP_ROUNDS];
        memcpy(cub_ms, ms[cub], sizeof cub_ms);
        const double cub_median = median(cub_ms, SWEEP_ROUNDS);
        for (int v = 0; v < p->prog.variant_count; ++v) {
            if (!cli_variant_selected(opt, v) && v != cub)
                continue;
            /* the share of CUB per round, then the median: both timed in the same round */
            double share[SWEEP_ROUNDS];
            for (int r = 0; r < SWEEP_ROUNDS; ++r)
                share[r] = ms[v][r] > 0 ? 100.0 * ms[cub][r] / ms[v][r] : 0.0;
            double mine[SWEEP_ROUNDS];
            memcpy(mine, ms[v], sizeof mine);
            const double t = median(mine, SWEEP_ROUNDS);
            char nb[32], tb[32], kb[32], pb[32], sb[32];
            snprintf(nb, sizeof nb, "%zu", n);
            snprintf(tb, sizeof tb, "%.2f", t * 1e3);
            snprintf(kb, sizeof kb, n ? "%.1f" : "-", t > 0 ? (double)n / (t * 1e3) : 0.0);
            snprintf(pb, sizeof pb, n ? "%.1f" : "-", median(share, SWEEP_ROUNDS));
            snprintf(sb, sizeof sb, n ? "%.1f" : "-",
                     cub_median > 0 ? 100.0 * (cub_hi - cub_lo) / cub_median : 0.0);
            const char *row[] = {nb, p->prog.variants[v], tb, kb, pb, sb, ok[v] ? "ok" : "WRONG"};
            report_row(stdout, COLS, NCOLS, opt->csv, row);
            if (!ok[v])
                status = EXIT_WRONG;
        }
        free(keys);
        free(out);
    }
    release(&a);
    CUDA_CHECK(cudaFree(d_wrong));
    return status;
}

int sort_program_main(int argc, char **argv, const sort_program *p)
{
    scan_options opt;
    char err[512], line[256];
    int32_t *file = NULL;
    size_t n = 0;
    cli_parse_or_exit(argc, argv, &p->prog, &opt);
    if (opt.exclusive)
        cli_fail(EXIT_USAGE, "--exclusive is for scans; a sort has no exclusive form: drop it");
    if (opt.input) {
        if (io_read_int32(opt.input, &file, &n, err, sizeof err))
            cli_fail(EXIT_USAGE, "%s", err);
        if (opt.output && io_output_begin(opt.output, err, sizeof err))
            cli_fail(EXIT_USAGE, "%s", err);
    }
    cudaDeviceProp props;
    cuda_init_device(&props);
    report_note(stdout, opt.csv, "%s", cuda_device_line(&props, line, sizeof line));
    int cub = -1;
    for (int v = 0; v < p->prog.variant_count; ++v)
        if (strcmp(p->prog.variants[v], "cub") == 0)
            cub = v;
    int status;
    if (opt.self_test)
        status = self_test(p, &opt);
    else if (opt.input)
        status = sort_file(p, &opt, (const uint32_t *)file, n);
    else if (cub < 0)
        cli_fail(EXIT_USAGE, "%s has no variant named cub to time against", p->prog.name);
    else
        status = sweep(p, &opt, cub);
    free(file);
    return status;
}
