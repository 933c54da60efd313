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
 */
#include "battery_sizes.h"
#include "data.h"
#include "io.h"
#include "selftest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    long passed = 0, failed = 0;
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
                    const int status = fn(ctx, v, buf, buf, n, exclusive);
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
