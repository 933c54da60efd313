/**
 * \file gpu_driver.cu
 * \brief The host side every GPU chapter shares: self-test, file scan and timed sweep.
 *
 * Every run of a chapter's kernel goes through the same steps: copy the input to the device,
 * poison the device output (so an element the kernel forgot to write cannot pass as the right
 * answer left over from an earlier run), launch, check the launch, copy back, compare every
 * element with the CPU reference.
 */
#include "gpu_driver.h"

#include "cuda_util.h"
#include "data.h"
#include "io.h"
#include "report.h"
#include "selftest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** Untimed launches before the timed ones (first-launch costs, clocks, caches). */
#define WARMUP_RUNS 3

/** Device input and output, grown to the largest size asked for so far, and each variant's own
    scratch (a launcher that keeps state there must not find another variant's data in it). */
typedef struct device_arrays {
    int32_t *in;                           /**< device input */
    int32_t *out;                          /**< device output */
    size_t capacity;                       /**< elements each array holds */
    void *temp[CLI_MAX_VARIANTS];          /**< each variant's scratch (gpu_chapter::temp_bytes) */
    size_t temp_bytes[CLI_MAX_VARIANTS];   /**< bytes each `temp` holds */
} device_arrays;

/** No arrays yet: what every ::device_arrays starts as. */
static const device_arrays NO_ARRAYS = {NULL, NULL, 0, {NULL}, {0}};

/** Scratch the chapter needs for `variant` and n elements (0 when it needs none). */
static size_t temp_need(const gpu_chapter *ch, int variant, size_t n)
{
    return ch->temp_bytes ? ch->temp_bytes(variant, n) : 0;
}

/** Make both device arrays hold at least n elements, and the scratch of `variant` (if it is not
    -1) what that variant needs for n. A new scratch that holds a variant's state starts as zeros
    (gpu_chapter::temp_is_state). */
static void device_arrays_reserve(const gpu_chapter *ch, device_arrays *d, size_t n, int variant)
{
    if (n > d->capacity) {
        CUDA_CHECK(cudaFree(d->in));
        CUDA_CHECK(cudaFree(d->out));
        d->in = d->out = NULL;
        CUDA_CHECK(cudaMalloc((void **)&d->in, n * sizeof(int32_t)));
        CUDA_CHECK(cudaMalloc((void **)&d->out, n * sizeof(int32_t)));
        d->capacity = n;
    }
    const size_t temp_bytes = variant < 0 ? 0 : temp_need(ch, variant, n);
    if (temp_bytes > 0 && temp_bytes > d->temp_bytes[variant]) {
        CUDA_CHECK(cudaFree(d->temp[variant]));
        d->temp[variant] = NULL;
        CUDA_CHECK(cudaMalloc(&d->temp[variant], temp_bytes));
        d->temp_bytes[variant] = temp_bytes;
        if (ch->temp_is_state >> variant & 1u)
            CUDA_CHECK(cudaMemset(d->temp[variant], 0, temp_bytes));
    }
}

/** Free the device arrays and the scratch. */
static void device_arrays_free(device_arrays *d)
{
    CUDA_CHECK(cudaFree(d->in));
    CUDA_CHECK(cudaFree(d->out));
    for (int v = 0; v < CLI_MAX_VARIANTS; ++v)
        CUDA_CHECK(cudaFree(d->temp[v]));
    *d = NO_ARRAYS;
}

/** Poison the scratch of `variant`, unless it holds that variant's state
    (gpu_chapter::temp_is_state): a value the kernel reads before it wrote it is then garbage, not
    a leftover. */
static void poison_temp(const gpu_chapter *ch, const device_arrays *d, int variant)
{
    if (d->temp_bytes[variant] && !(ch->temp_is_state >> variant & 1u))
        CUDA_CHECK(cudaMemset(d->temp[variant], POISON_BYTE, d->temp_bytes[variant]));
}

/** Launch one variant on the arrays of `d` (`src` is d->in, or d->out for a scan in place). */
static void launch(const gpu_chapter *ch, int variant, const device_arrays *d, const int32_t *src,
                   size_t n, int exclusive)
{
    ch->scan(variant, src, d->out, n, exclusive, d->temp[variant], d->temp_bytes[variant]);
}

/** Poison the device output (and the scratch: poison_temp()), run one variant, check the launch,
    copy the result to `out`. */
static void run_checked(const gpu_chapter *ch, int variant, device_arrays *d, int32_t *out,
                        size_t n, int exclusive)
{
    device_arrays_reserve(ch, d, n, variant);
    CUDA_CHECK(cudaMemset(d->out, POISON_BYTE, n * sizeof(int32_t)));
    poison_temp(ch, d, variant);
    launch(ch, variant, d, d->in, n, exclusive);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(out, d->out, n * sizeof(int32_t), cudaMemcpyDeviceToHost));
}

/** What scan_through_device() needs (self-test and `--input`). */
typedef struct device_ctx {
    const gpu_chapter *ch;  /**< the chapter */
    device_arrays *d;       /**< device buffers, reused across cases */
} device_ctx;

/** The ::scan_fn of the battery and of `--input`: host arrays in, host arrays out, through the
    device. */
static int scan_through_device(void *ctx, int variant, const int32_t *in, int32_t *out, size_t n,
                               int exclusive)
{
    device_ctx *c = (device_ctx *)ctx;
    device_arrays_reserve(c->ch, c->d, n, -1);
    CUDA_CHECK(cudaMemcpy(c->d->in, in, n * sizeof(int32_t), cudaMemcpyHostToDevice));
    run_checked(c->ch, variant, c->d, out, n, exclusive);
    return 0;
}

/** The ::self_test_config::big_fits of the battery: do host and device have the memory for the
    n > 2^31 case now? (`ctx` is the battery's ::device_ctx; its arrays are freed first.) */
static int big_case_fits(void *ctx, char *reason, size_t len)
{
    device_ctx *c = (device_ctx *)ctx;
    device_arrays_free(c->d); /* the small cases' arrays: the big case allocates its own */
    size_t host_need = self_test_host_bytes(SELF_TEST_BIG_N);
    size_t device_need = 2 * SELF_TEST_BIG_N * sizeof(int32_t);
    for (int v = 0; v < c->ch->prog.variant_count; ++v)
        device_need += temp_need(c->ch, v, SELF_TEST_BIG_N);
    size_t host_have = host_memory_available(), device_have = cuda_free_bytes();
    if (host_have >= host_need + host_need / 4 && device_have >= device_need + device_need / 16)
        return 1;
    snprintf(reason, len, "needs %.1f GiB of host and %.1f GiB of GPU memory; %.1f and %.1f GiB free",
             (double)(host_need + host_need / 4) / (1 << 30),
             (double)(device_need + device_need / 16) / (1 << 30),
             (double)host_have / (1 << 30), (double)device_have / (1 << 30));
    return 0;
}

/** The battery, with the n > 2^31 case when host and device both have the memory for it. */
static int self_test(const gpu_chapter *ch, const scan_options *opt)
{
    device_arrays d = NO_ARRAYS;
    device_ctx ctx = {ch, &d};
    self_test_config cfg = {ch->tile, ch->repeats, SELF_TEST_BIG_N, NULL, big_case_fits};
    int status = self_test_run(&ch->prog, opt, &cfg, scan_through_device, &ctx);
    device_arrays_free(&d);
    return status;
}

/** Largest small grid of the stress test, in tiles: beyond it, only the 2^24 case. */
#define STRESS_SMALL_TILES 300

/**
 * \brief `--stress R`: the races of a single-pass scan show up rarely, so run the first selected
 *        variant R times on each of a few small grids and on 2^24 elements (or on `-n` alone),
 *        alternating inclusive and exclusive, every other pair of runs in place (out = in), and
 *        compare every element of every run.
 */
static int stress(const gpu_chapter *ch, const scan_options *opt)
{
    const size_t t = ch->tile;
    const size_t sizes[] = {1, t + 1, 33 * t + 5, STRESS_SMALL_TILES * t - 3, (size_t)1 << 24};
    const size_t *list = opt->n_given ? &opt->n : sizes;
    const int count = opt->n_given ? 1 : (int)(sizeof sizes / sizeof sizes[0]);
    int variant = 0, status = EXIT_OK;
    while (!cli_variant_selected(opt, variant))
        ++variant;
    device_arrays d = NO_ARRAYS;
    report_note(stdout, opt->csv, "stress test of %s: %d runs per size, every element compared",
                ch->prog.variants[variant], opt->stress);
    for (int s = 0; s < count; ++s) {
        const size_t n = list[s];
        int32_t *in = (int32_t *)xmalloc(n * sizeof(int32_t), "the input");
        int32_t *out = (int32_t *)xmalloc(n * sizeof(int32_t), "the output");
        int32_t *ref[2];
        ref[0] = (int32_t *)xmalloc(n * sizeof(int32_t), "the inclusive reference");
        ref[1] = (int32_t *)xmalloc(n * sizeof(int32_t), "the exclusive reference");
        generate_input(in, n, PATTERN_RANDOM, opt->seed + s);
        scan_reference(in, ref[0], n, 0, ch->prog.segment);
        scan_reference(in, ref[1], n, 1, ch->prog.segment);
        device_arrays_reserve(ch, &d, n, variant);
        CUDA_CHECK(cudaMemcpy(d.in, in, n * sizeof(int32_t), cudaMemcpyHostToDevice));
        long failed = 0;
        for (int r = 0; r < opt->stress; ++r) {
            const int exclusive = r % 2, in_place = r % 4 >= 2;
            const int32_t *src = d.in;
            if (in_place) {
                CUDA_CHECK(cudaMemcpy(d.out, d.in, n * sizeof(int32_t), cudaMemcpyDeviceToDevice));
                src = d.out;
            } else {
                CUDA_CHECK(cudaMemset(d.out, POISON_BYTE, n * sizeof(int32_t)));
            }
            poison_temp(ch, &d, variant);
            launch(ch, variant, &d, src, n, exclusive);
            CUDA_CHECK_LAUNCH();
            CUDA_CHECK(cudaMemcpy(out, d.out, n * sizeof(int32_t), cudaMemcpyDeviceToHost));
            if (memcmp(out, ref[exclusive], n * sizeof(int32_t)) != 0) {
                verify_result v = verify_scan(ref[exclusive], out, n);
                if (failed++ == 0) {
                    printf("run %d (%s%s) of n = %zu is wrong:\n", r,
                           exclusive ? "exclusive" : "inclusive", in_place ? ", in place" : "", n);
                    verify_report(stdout, &v, ref[exclusive], out, n);
                }
            }
        }
        report_note(stdout, opt->csv, "n = %zu: %d runs, %ld wrong", n, opt->stress, failed);
        if (failed)
            status = EXIT_WRONG;
        free(in);
        free(out);
        free(ref[0]);
        free(ref[1]);
    }
    device_arrays_free(&d);
    printf("stress test %s\n", status == EXIT_OK ? "passed: no run was wrong" : "FAILED");
    return status;
}

/** One timed launch: what cuda_time_median_ms() repeats. */
typedef struct timed_launch {
    const gpu_chapter *ch;  /**< the chapter */
    int variant;            /**< variant to launch */
    const device_arrays *d; /**< input, output and scratch */
    size_t n;               /**< element count */
    int exclusive;          /**< exclusive scan */
} timed_launch;

/** The ::gpu_work_fn that times one launch (`ctx` is a ::timed_launch). */
static void launch_work(void *ctx)
{
    timed_launch *t = (timed_launch *)ctx;
    launch(t->ch, t->variant, t->d, t->d->in, t->n, t->exclusive);
}

/** Most columns a sweep table has. */
#define MAX_COLUMNS 12

/** The sweep's columns: which exist depends on the chapter. */
typedef struct sweep_table {
    report_column cols[MAX_COLUMNS]; /**< the columns */
    int ncols;                       /**< how many */
} sweep_table;

/** Add a column. */
static void add_column(sweep_table *t, const char *title, int width)
{
    t->cols[t->ncols].title = title;
    t->cols[t->ncols++].width = width;
}

/** One row of the sweep: `t` its timing, `copy` the memcpy's of the same n (in ms); `traffic`
    (elements moved) and `extra` are used only when the chapter has those columns. */
static void print_row(const gpu_chapter *ch, const scan_options *opt, const sweep_table *t,
                      size_t n, const char *variant, timing time, timing copy, double traffic,
                      const char *extra, const char *check)
{
    char nbuf[32], tbuf[32], gbuf[32], mbuf[32], trbuf[32], pbuf[32], sbuf[32], cbuf[32];
    const char *row[MAX_COLUMNS];
    const double ms = time.median, pct = ms > 0 ? 100.0 * copy.median / ms : 0.0;
    int c = 0;
    format_size(n, nbuf, sizeof nbuf);
    snprintf(tbuf, sizeof tbuf, "%.2f", ms * 1e3);
    /* n = 0 moves nothing: no rate, no share of a copy's */
    snprintf(gbuf, sizeof gbuf, n ? "%.1f" : "-", gb_per_s(scan_min_bytes(n), ms));
    snprintf(pbuf, sizeof pbuf, n && ms > 0 ? "%.1f" : "-", pct);
    row[c++] = nbuf;
    row[c++] = variant;
    row[c++] = tbuf;
    row[c++] = gbuf;
    if (ch->traffic) {
        snprintf(trbuf, sizeof trbuf, "%.2fn", n ? traffic / (double)n : 0.0);
        snprintf(mbuf, sizeof mbuf, n ? "%.1f" : "-", gb_per_s(traffic * sizeof(int32_t), ms));
        row[c++] = trbuf;
        row[c++] = mbuf;
    }
    row[c++] = pbuf;
    if (ch->extra_title)
        row[c++] = extra;
    row[c++] = format_spread(time, n > 0, sbuf, sizeof sbuf);
    row[c++] = format_spread(copy, n > 0, cbuf, sizeof cbuf);
    row[c++] = noise_flag(time, copy, pct, n > 0);
    row[c++] = check;
    report_row(stdout, t->cols, t->ncols, opt->csv, row);
}

/** The sweep: per size, a memcpy row, then per variant verify, time, verify again. */
static int sweep(const gpu_chapter *ch, const scan_options *opt)
{
    sweep_table table;
    table.ncols = 0;
    add_column(&table, "n", 10);
    add_column(&table, "variant", -16);
    add_column(&table, "time_us", 11);
    add_column(&table, "GB/s", 8);
    if (ch->traffic) {
        add_column(&table, "traffic", 8);
        add_column(&table, "moved_GB/s", 10);
    }
    add_column(&table, "pct_memcpy", 10);
    if (ch->extra_title)
        add_column(&table, ch->extra_title,
                   (int)strlen(ch->extra_title) > 8 ? (int)strlen(ch->extra_title) : 8);
    add_column(&table, "spread_pct", 10);
    add_column(&table, "memcpy_spread_pct", 17);
    add_column(&table, "noise", -17);
    add_column(&table, "check", -5);

    const size_t *sizes = opt->n_given ? &opt->n : ch->prog.default_sizes;
    int count = opt->n_given ? 1 : ch->prog.default_size_count;
    int status = EXIT_OK;
    device_arrays d = NO_ARRAYS;

    /* Sizes this machine cannot hold are refused before anything is printed. */
    size_t largest = 0;
    for (int s = 0; s < count; ++s)
        largest = sizes[s] > largest ? sizes[s] : largest;
    char what[64];
    snprintf(what, sizeof what, "-n %zu", largest);
    io_require_host_memory(3.0 * sizeof(int32_t) * (double)largest, what);
    double device_need = 2.0 * sizeof(int32_t) * (double)largest;
    for (int v = 0; v < ch->prog.variant_count; ++v)
        if (cli_variant_selected(opt, v))
            device_need += (double)temp_need(ch, v, largest);
    if (device_need > (double)cuda_free_bytes())
        cli_fail(EXIT_USAGE, "%s needs %.2f GiB of GPU memory; %.2f GiB are free: try a smaller -n",
                 what, device_need / (1 << 30), (double)cuda_free_bytes() / (1 << 30));

    report_note(stdout, opt->csv, "%s scan, seed %llu, median of %d runs after %d warm-up runs",
                opt->exclusive ? "exclusive" : "inclusive", (unsigned long long)opt->seed,
                opt->reps, WARMUP_RUNS);
    report_note(stdout, opt->csv, "GB/s counts 2*n*4 bytes (read n, write n); pct_memcpy compares "
                "with a cudaMemcpy device-to-device of the same n, timed in this run");
    if (ch->traffic)
        report_note(stdout, opt->csv, "traffic: elements the variant reads and writes in global "
                    "memory by its model; moved_GB/s = traffic*4 bytes / time; a copy moves 2.00n");
    report_noise_note(stdout, opt->csv);
    for (int i = 0; ch->notes && ch->notes[i]; ++i)
        report_note(stdout, opt->csv, "%s", ch->notes[i]);
    report_header(stdout, table.cols, table.ncols, opt->csv);

    for (int s = 0; s < count; ++s) {
        size_t n = sizes[s];
        int32_t *in = (int32_t *)xmalloc(n * sizeof(int32_t), "the input");
        int32_t *out = (int32_t *)xmalloc(n * sizeof(int32_t), "the output");
        int32_t *ref = (int32_t *)xmalloc(n * sizeof(int32_t), "the reference");
        generate_input(in, n, PATTERN_RANDOM, opt->seed);
        scan_reference(in, ref, n, opt->exclusive, ch->prog.segment);
        device_arrays_reserve(ch, &d, n, -1);
        CUDA_CHECK(cudaMemcpy(d.in, in, n * sizeof(int32_t), cudaMemcpyHostToDevice));
        if (ch->describe) {
            char line[256];
            ch->describe(n, line, sizeof line);
            report_note(stdout, opt->csv, "%s", line);
        }

        /* The ceiling: a copy moves the same 2n elements a scan must. */
        const timing copy = cuda_memcpy_timing_ms(d.out, d.in, n * sizeof(int32_t), opt->reps);
        print_row(ch, opt, &table, n, "memcpy", copy, copy, 2.0 * (double)n, "-", "-");

        for (int v = 0; v < ch->prog.variant_count; ++v) {
            if (!cli_variant_selected(opt, v))
                continue;
            run_checked(ch, v, &d, out, n, opt->exclusive);
            verify_result before = verify_scan(ref, out, n);
            timed_launch job = {ch, v, &d, n, opt->exclusive};
            const timing none = {0.0, 0.0};
            const timing time = n ? cuda_timing_ms(launch_work, &job, WARMUP_RUNS, opt->reps) : none;
            CUDA_CHECK_LAUNCH();
            CUDA_CHECK(cudaMemcpy(out, d.out, n * sizeof(int32_t), cudaMemcpyDeviceToHost));
            verify_result after = verify_scan(ref, out, n);
            int ok = before.mismatches == 0 && after.mismatches == 0;
            print_row(ch, opt, &table, n, ch->prog.variants[v], time, copy,
                      ch->traffic ? ch->traffic(v, n) : 2.0 * (double)n,
                      ch->extra_title ? ch->extra[v] : "-", ok ? "ok" : "WRONG");
            if (!ok) {
                verify_report(stdout, before.mismatches ? &before : &after, ref, out, n);
                status = EXIT_WRONG;
            }
        }
        free(in);
        free(out);
        free(ref);
    }
    device_arrays_free(&d);
    report_summary(stdout, opt->csv);
    return status;
}

int gpu_chapter_main(int argc, char **argv, const gpu_chapter *ch)
{
    scan_options opt;
    char err[512], line[256];
    int32_t *file_in = NULL;
    size_t file_n = 0;
    cli_parse_or_exit(argc, argv, &ch->prog, &opt);

    /* Bad files are usage errors: found before the GPU is touched, so they need no GPU. */
    if (opt.input) {
        if (io_read_int32(opt.input, &file_in, &file_n, err, sizeof err))
            cli_fail(EXIT_USAGE, "%s", err);
        const scan_mode *mode = opt.mode;
        if (mode && mode->check_file &&
            mode->check_file(mode->ctx, file_in, file_n, err, sizeof err))
            cli_fail(EXIT_USAGE, "%s (%s)", err, opt.input);
        if (opt.output && io_output_begin(opt.output, err, sizeof err))
            cli_fail(EXIT_USAGE, "%s", err);
    }

    cudaDeviceProp props;
    cuda_init_device(&props);
    report_note(stdout, opt.csv, "%s", cuda_device_line(&props, line, sizeof line));
    if (ch->prog.segment && !opt.self_test) /* the self-test says it in its own header */
        report_note(stdout, opt.csv, "segmented scan: every %zu elements are scanned on their own",
                    ch->prog.segment);

    int status;
    if (opt.mode) { /* its own mode, or an operator that carries out the options itself */
        status = opt.mode->run(opt.mode->ctx, &opt, file_in, file_n);
    } else if (opt.self_test) {
        status = self_test(ch, &opt);
    } else if (opt.stress) {
        status = stress(ch, &opt);
    } else if (opt.input) {
        device_arrays d = NO_ARRAYS;
        device_ctx ctx = {ch, &d};
        status = scan_file_run(&ch->prog, &opt, file_in, file_n, scan_through_device, &ctx);
        device_arrays_free(&d);
    } else {
        status = sweep(ch, &opt);
    }
    free(file_in);
    return status;
}
