/**
 * \file selftest.c
 * \brief The correctness battery: sizes × patterns × modes × variants × repeats, every element
 *        checked; and the `--input/--output` mode, which checks the same way.
 */
#define _XOPEN_SOURCE 700 /* open(), kill(), nanosleep(), ftruncate(); sys/file.h declares flock() */

#include "selftest.h"

#include "data.h"
#include "io.h"
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

/** Failures described in full; later ones are only counted, so a broken kernel cannot flood the log. */
#define MAX_FAILURES_SHOWN 8

/** qsort comparison for sizes. */
static int compare_sizes(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/** Fill `sizes` with the battery's sizes below 2^31 for this tile, sorted, without repeats. */
static int battery_sizes(size_t tile, size_t *sizes)
{
    const size_t fixed[] = {0, 1, 2, 31, 32, 33, 1023, 1024, 1025, 1000003, ((size_t)1 << 24) + 1};
    int count = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; ++i)
        sizes[count++] = fixed[i];
    if (tile > 0) {
        sizes[count++] = tile - 1;
        sizes[count++] = tile;
        sizes[count++] = tile + 1;
        sizes[count++] = 3 * tile + 7;
    }
    qsort(sizes, (size_t)count, sizeof *sizes, compare_sizes);
    int unique = 0;
    for (int i = 0; i < count; ++i)
        if (unique == 0 || sizes[unique - 1] != sizes[i])
            sizes[unique++] = sizes[i];
    return unique;
}

size_t self_test_host_bytes(size_t n)
{
    return 3 * n * sizeof(int32_t);
}

/** Counters kept across the whole battery. */
typedef struct tally {
    long passed;  /**< cases that passed */
    long failed;  /**< cases that failed */
} tally;

/** Run every case of one size; print one line for it. */
static void run_size(const scan_program *prog, const scan_options *opt, scan_fn fn, void *ctx,
                     size_t n, int pattern_count, int repeats, int32_t *in, int32_t *out,
                     int32_t *ref, tally *t)
{
    char nbuf[32];
    long before_pass = t->passed, before_fail = t->failed;
    double start = host_seconds();
    for (int p = 0; p < pattern_count; ++p) {
        generate_input(in, n, (data_pattern)p, opt->seed);
        for (int exclusive = 0; exclusive <= 1; ++exclusive) {
            if (opt->exclusive && !exclusive) /* --exclusive: exclusive scans only */
                continue;
            scan_reference(in, ref, n, exclusive, prog->segment);
            for (int v = 0; v < prog->variant_count; ++v) {
                if (!cli_variant_selected(opt, v))
                    continue;
                for (int r = 0; r < repeats; ++r) {
                    poison(out, n);
                    int status = fn(ctx, v, in, out, n, exclusive);
                    verify_result res = verify_scan(ref, out, n);
                    if (status == 0 && res.mismatches == 0) {
                        ++t->passed;
                        continue;
                    }
                    if (++t->failed <= MAX_FAILURES_SHOWN) {
                        printf("  FAIL n=%zu pattern=%s variant=%s %s run %d of %d\n", n,
                               pattern_name((data_pattern)p), prog->variants[v],
                               exclusive ? "exclusive" : "inclusive", r + 1, repeats);
                        if (status != 0)
                            printf("    the scan reported an error (status %d)\n", status);
                        else
                            verify_report(stdout, &res, ref, out, n);
                    }
                }
            }
        }
    }
    long passed = t->passed - before_pass, failed = t->failed - before_fail;
    printf("  n = %-12s %4ld cases %-6s (%.2f s)\n", format_size(n, nbuf, sizeof nbuf),
           passed + failed, failed ? "FAILED" : "ok", host_seconds() - start);
    if (failed)
        printf("    %ld of %ld cases failed at this size\n", failed, passed + failed);
    fflush(stdout);
}

/** The file of reservations, open and locked: one line "pid bytes" per n > 2^31 case running. */
static FILE *ledger_open_locked(const char *path)
{
    int fd = open(path, O_CREAT | O_RDWR, 0600);
    if (fd < 0)
        return NULL;
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            close(fd);
            return NULL;
        }
    FILE *f = fdopen(fd, "r+");
    if (!f)
        close(fd);
    return f;
}

/**
 * Rewrite the ledger without the lines of processes that have ended (a case killed by a
 * timeout gives nothing back itself) and, when `drop` is set, without this process's line;
 * return the bytes the remaining lines hold.
 */
static size_t ledger_tidy(FILE *f, int drop)
{
    char lines[64][48];
    int count = 0;
    long pid;
    unsigned long long bytes;
    size_t held = 0;
    rewind(f);
    while (count < 64 && fscanf(f, "%ld %llu", &pid, &bytes) == 2) {
        if ((drop && pid == (long)getpid()) || (kill((pid_t)pid, 0) != 0 && errno == ESRCH))
            continue;
        snprintf(lines[count++], sizeof lines[0], "%ld %llu\n", pid, bytes);
        held += (size_t)bytes;
    }
    rewind(f);
    if (ftruncate(fileno(f), 0) != 0)
        return held;
    for (int i = 0; i < count; ++i)
        fputs(lines[i], f);
    fflush(f);
    return held;
}

/** The lock's descriptor while this process holds the case alone (no budget). */
static int alone_fd = -1;

void self_test_big_case_begin(size_t host_bytes)
{
    const char *path = getenv("SCAN_BIG_CASE_LOCK");
    const char *budget_text = getenv("SCAN_BIG_CASE_BUDGET");
    if (!path || !path[0] || alone_fd >= 0)
        return;
    char *end = NULL;
    unsigned long long budget = budget_text ? strtoull(budget_text, &end, 10) : 0;
    if (!budget_text || !budget_text[0] || *end != '\0' || budget == 0) {
        /* one at a time: an exclusive lock for the whole case */
        alone_fd = open(path, O_CREAT | O_RDWR, 0600);
        while (alone_fd >= 0 && flock(alone_fd, LOCK_EX) != 0 && errno == EINTR)
            continue;
        return;
    }
    for (;;) {
        FILE *f = ledger_open_locked(path);
        if (!f)
            return; /* no ledger: the case's own check of free memory still stands */
        size_t held = ledger_tidy(f, 1);
        /* a case larger than the whole budget runs when nothing else does */
        if (held == 0 || held + host_bytes <= budget) {
            fprintf(f, "%ld %llu\n", (long)getpid(), (unsigned long long)host_bytes);
            fclose(f); /* releases the lock */
            return;
        }
        fclose(f);
        struct timespec pause = {0, 200 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}

void self_test_big_case_end(void)
{
    const char *path = getenv("SCAN_BIG_CASE_LOCK");
    if (alone_fd >= 0) {
        close(alone_fd); /* releases the lock */
        alone_fd = -1;
    } else if (path && path[0]) {
        FILE *f = ledger_open_locked(path);
        if (f) {
            ledger_tidy(f, 1);
            fclose(f);
        }
    }
}

int self_test_run(const scan_program *prog, const scan_options *opt, const self_test_config *cfg,
                  scan_fn fn, void *ctx)
{
    size_t sizes[32];
    int count = battery_sizes(cfg->tile, sizes);
    size_t limit = opt->n_given ? opt->n : (size_t)-1;
    size_t largest = 0;
    tally t = {0, 0};

    printf("self-test of %s: %s, %s, seed %llu\n", prog->name,
           opt->exclusive ? "exclusive scan" : "inclusive and exclusive scans",
           opt->variant < 0 ? "every variant" : prog->variants[opt->variant],
           (unsigned long long)opt->seed);
    if (prog->segment)
        printf("segmented: every %zu elements are scanned on their own\n", prog->segment);
    printf("patterns: random, small, ones, alternating; %d run%s per case; tile %zu\n",
           cfg->repeats, cfg->repeats == 1 ? "" : "s", cfg->tile);

    for (int i = 0; i < count; ++i)
        if (sizes[i] <= limit && sizes[i] > largest)
            largest = sizes[i];
    int32_t *in = (int32_t *)xmalloc(largest * sizeof(int32_t), "the self-test input");
    int32_t *out = (int32_t *)xmalloc(largest * sizeof(int32_t), "the self-test output");
    int32_t *ref = (int32_t *)xmalloc(largest * sizeof(int32_t), "the self-test reference");
    for (int i = 0; i < count; ++i)
        if (sizes[i] <= limit)
            run_size(prog, opt, fn, ctx, sizes[i], PATTERN_COUNT, cfg->repeats, in, out, ref, &t);
    free(in);
    free(out);
    free(ref);

    /* "SKIP what: why": make test lists every such line in its summary (tests/run_tests.sh) */
    if (opt->n_given && limit < SELF_TEST_BIG_N) {
        printf("  SKIP n > 2^31: -n %zu limits the sizes\n", limit);
    } else if (cfg->big_n == 0) {
        printf("  SKIP n > 2^31: %s\n", cfg->big_skip_reason ? cfg->big_skip_reason : "not requested");
    } else {
        char reason[192];
        const size_t need = self_test_host_bytes(cfg->big_n);
        self_test_big_case_begin(need + need / 4);
        if (cfg->big_fits && !cfg->big_fits(ctx, reason, sizeof reason)) {
            printf("  SKIP n > 2^31: %s\n", reason);
        } else {
            /* One pattern and one run: at 8 GiB per array the others would add minutes and test
               no new index; the races the repeats hunt are hunted at the smaller sizes and by
               --stress. */
            in = (int32_t *)xmalloc(cfg->big_n * sizeof(int32_t), "the n > 2^31 input");
            out = (int32_t *)xmalloc(cfg->big_n * sizeof(int32_t), "the n > 2^31 output");
            ref = (int32_t *)xmalloc(cfg->big_n * sizeof(int32_t), "the n > 2^31 reference");
            run_size(prog, opt, fn, ctx, cfg->big_n, 1, 1, in, out, ref, &t);
            free(in);
            free(out);
            free(ref);
        }
        self_test_big_case_end();
    }
    if (t.failed > MAX_FAILURES_SHOWN)
        printf("  (%ld more failures not shown)\n", t.failed - MAX_FAILURES_SHOWN);
    printf("self-test %s: %ld passed, %ld failed\n", t.failed ? "FAILED" : "passed", t.passed,
           t.failed);
    return t.failed ? EXIT_WRONG : EXIT_OK;
}

int scan_file_run(const scan_program *prog, const scan_options *opt, const int32_t *in, size_t n,
                  scan_fn fn, void *ctx)
{
    char err[512];
    int32_t *ref = (int32_t *)xmalloc(n * sizeof(int32_t), "the reference");
    int32_t *out = (int32_t *)xmalloc(n * sizeof(int32_t), "the output");
    int status = EXIT_OK;
    scan_reference(in, ref, n, opt->exclusive, prog->segment);
    for (int v = 0; v < prog->variant_count && status == EXIT_OK; ++v) {
        if (!cli_variant_selected(opt, v))
            continue;
        poison(out, n);
        int failed = fn(ctx, v, in, out, n, opt->exclusive);
        verify_result res = verify_scan(ref, out, n);
        printf("%-14s %zu elements of %s, %s scan: %s\n", prog->variants[v], n, opt->input,
               opt->exclusive ? "exclusive" : "inclusive",
               failed ? "FAILED" : res.mismatches ? "WRONG" : "verified");
        if (failed || res.mismatches) {
            if (!failed)
                verify_report(stdout, &res, ref, out, n);
            status = EXIT_WRONG;
        }
    }
    if (status != EXIT_OK) {
        io_output_abandon();
    } else if (opt->output) {
        /* the report's last line before the file is renamed into place (common/io.h) */
        if (io_output_write(out, n, err, sizeof err))
            cli_fail(EXIT_WRITE, "%s", err);
        printf("wrote %zu elements to %s\n", n, opt->output);
        if (io_output_publish(err, sizeof err))
            cli_fail(EXIT_WRITE, "%s", err);
    }
    free(ref);
    free(out);
    return status;
}
