/**
 * \file selftest.h
 * \brief The correctness battery every chapter runs with `--self-test` (docs/CONVENTIONS.md §5).
 *
 * A chapter hands over its scan as a ::scan_fn working on host arrays (a GPU chapter copies in,
 * launches, copies out inside it) and the battery does the rest: sizes around every boundary a
 * scan has (warp, tile, many tiles, a ragged last tile, beyond 2^24 and beyond 2^31), four input
 * patterns, inclusive and exclusive, every selected variant, a poisoned output before every run,
 * and a check of every element against scan_reference().
 */
#ifndef SCAN_SELFTEST_H
#define SCAN_SELFTEST_H

#include "cli.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The battery's one size beyond 2^31 elements: 64-bit indexing is needed, 32-bit overflows. */
#define SELF_TEST_BIG_N (((size_t)1 << 31) + 4099)

/**
 * \brief A chapter's scan as the battery calls it.
 * \param ctx       the chapter's own state, passed through unchanged
 * \param variant   index into scan_program::variants
 * \param in        n input elements (host memory)
 * \param out       n output elements (host memory, poisoned by the battery)
 * \param n         element count (may be 0)
 * \param exclusive 1 for an exclusive scan
 * \return 0 on success; anything else counts as a failed case
 */
typedef int (*scan_fn)(void *ctx, int variant, const int32_t *in, int32_t *out, size_t n,
                       int exclusive);

/** How a chapter wants its battery run. */
typedef struct self_test_config {
    size_t tile;                  /**< elements one block scans: sizes tile±1 and 3·tile+7 are added */
    int repeats;                  /**< runs of every case (single-pass chapters: several, their bugs are races) */
    size_t big_n;                 /**< the n > 2^31 case (normally ::SELF_TEST_BIG_N), or 0 to skip it */
    const char *big_skip_reason;  /**< why big_n is 0, printed in the summary */
    /** NULL, or asked just before the n > 2^31 case, after self_test_big_case_begin(): 1 if the
        machine has the memory for it now, else 0 with why in `reason` (the case is skipped) */
    int (*big_fits)(void *ctx, char *reason, size_t len);
} self_test_config;

/**
 * \brief Before an n > 2^31 case: wait until the machine's memory has room for it beside the
 *        others running; self_test_big_case_end() after it.
 *
 * `make test` runs self-tests side by side, and each n > 2^31 case needs tens of GiB of host
 * memory (`host_bytes`, its arrays and the margin its own check asks for). Where the environment
 * variable SCAN_BIG_CASE_LOCK names a file and SCAN_BIG_CASE_BUDGET a number of bytes, the file
 * is a ledger of the cases running (one line "pid bytes" each, kept under flock()): a case waits
 * until the bytes held plus its own fit in the budget (one larger than the budget waits until it
 * is alone). With SCAN_BIG_CASE_LOCK alone the cases run one at a time under an exclusive
 * flock() of the file; with neither, this does nothing. The case's own check of free memory
 * comes after this returns.
 */
void self_test_big_case_begin(size_t host_bytes);

/** \brief After an n > 2^31 case: give back what self_test_big_case_begin() took. */
void self_test_big_case_end(void);

/**
 * \brief Run the battery and print one line per size, details of every failure, and a summary.
 *
 * With `-n N` only sizes up to N run (for the slow sanitizer runs); with `--exclusive` only
 * exclusive scans; with `--variant` only that variant. A case it leaves out (n > 2^31 without
 * the memory for it, or beyond `-n`) gets a line `  SKIP what: why`, which `make test` lists.
 * \return ::EXIT_OK if every case passed, else ::EXIT_WRONG
 */
int self_test_run(const scan_program *prog, const scan_options *opt, const self_test_config *cfg,
                  scan_fn fn, void *ctx);

/**
 * \brief The `--input/--output` mode: scan `in` with every selected variant through `fn`, verify
 *        each result against the CPU reference, and write the output file (opened beforehand with
 *        io_output_begin()) only when every variant was right.
 * \param prog the chapter (its segment length and variant names)
 * \param opt  parsed options (`--exclusive`, `--variant`, `--input`, `--output`)
 * \param in   the elements read from `--input`
 * \param n    their count
 * \param fn   the chapter's scan on host arrays
 * \param ctx  passed to `fn`
 * \return ::EXIT_OK, or ::EXIT_WRONG if a variant was wrong (nothing is written then)
 */
int scan_file_run(const scan_program *prog, const scan_options *opt, const int32_t *in, size_t n,
                  scan_fn fn, void *ctx);

/** \brief Host bytes the battery itself needs for size n (input, output and reference). */
size_t self_test_host_bytes(size_t n);

#ifdef __cplusplus
}
#endif

#endif /* SCAN_SELFTEST_H */
