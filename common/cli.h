/**
 * \file cli.h
 * \brief The command line every chapter's `run` shares (CONVENTIONS §4).
 *
 * A chapter describes itself once in a ::scan_program (name, variants, whether it has an exclusive
 * scan, segment length, default sizes) and calls cli_parse_or_exit(). Every check of the command
 * line lives here, so every chapter refuses bad input with the same one-line message and exit
 * status 2, before anything is computed or written.
 */
#ifndef SCAN_CLI_H
#define SCAN_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Exit status: success. */
#define EXIT_OK 0
/** Exit status: a result was wrong. */
#define EXIT_WRONG 1
/** Exit status: bad usage or bad input; nothing was written. */
#define EXIT_USAGE 2
/** Exit status: CUDA trouble (no device, out of memory, launch failure, watchdog). */
#define EXIT_CUDA 3

/** Largest power of two accepted by `-n 2^K`. */
#define CLI_MAX_LOG2_N 40
/** Largest element count accepted by `-n` (2^40 elements: 4 TiB, more than any GPU holds). */
#define CLI_MAX_N ((size_t)1 << CLI_MAX_LOG2_N)
/** Largest `--reps`. */
#define CLI_MAX_REPS 100000
/** Default `--seed`: fixed, so that runs repeat. */
#define CLI_DEFAULT_SEED 20161101u
/** Longest variant list a chapter may declare. */
#define CLI_MAX_VARIANTS 16

/** What a chapter tells the shared command line about itself. */
typedef struct scan_program {
    const char *name;                /**< folder name, e.g. "01_cpu_serial" */
    const char *title;               /**< one line: what this chapter scans and how */
    const char *const *variants;     /**< names accepted by `--variant` */
    int variant_count;               /**< entries in `variants` (1 … ::CLI_MAX_VARIANTS) */
    int supports_exclusive;          /**< 1 if `--exclusive` is implemented */
    size_t segment;                  /**< 0: scan the whole array; else the segment length of a segmented scan */
    const size_t *default_sizes;     /**< sizes of the default sweep */
    int default_size_count;          /**< entries in `default_sizes` */
    int default_reps;                /**< timed repetitions when `--reps` is not given */
    unsigned extras;                 /**< the options of the single-pass chapters it accepts: SCAN_EXTRA_… */
} scan_program;

/** scan_program::extras: `--stress R` (repeat the battery's small grids and 2^24 R times). */
#define SCAN_EXTRA_STRESS 1u
/** scan_program::extras: `--type f32` (float sums, run to run). */
#define SCAN_EXTRA_TYPE 2u
/** scan_program::extras: `--select` (stream compaction on the same single pass). */
#define SCAN_EXTRA_SELECT 4u
/** Largest `--stress`. */
#define CLI_MAX_STRESS 1000000

/** The parsed command line. */
typedef struct scan_options {
    size_t n;             /**< `-n`: one size (valid when `n_given`) */
    int n_given;          /**< 1 if `-n` was given */
    int reps;             /**< `--reps`: timed repetitions, median reported */
    uint64_t seed;        /**< `--seed`: input seed */
    int self_test;        /**< `--self-test`: run the correctness battery */
    const char *input;    /**< `--input`: raw int32 file to scan, or NULL */
    const char *output;   /**< `--output`: where to write the scan of `input`, or NULL */
    int exclusive;        /**< `--exclusive`: exclusive instead of inclusive scan */
    int variant;          /**< `--variant`: index into scan_program::variants, or -1 for all */
    int csv;              /**< `--csv`: machine-readable rows */
    int help;             /**< `--help` was given */
    int stress;           /**< `--stress R`: runs per stress size, 0 when not given */
    int type_f32;         /**< `--type f32`: float scan instead of int32 */
    int select;           /**< `--select`: stream compaction instead of scan */
} scan_options;

/**
 * \brief Parse a size: decimal digits, or `2^K` with 0 ≤ K ≤ ::CLI_MAX_LOG2_N.
 * \param text  the text to parse
 * \param value receives the size on success
 * \param err   receives a one-line message naming the problem and the fix on failure
 * \param errlen size of `err`
 * \return 0 on success, ::EXIT_USAGE on failure
 */
int cli_parse_size(const char *text, size_t *value, char *err, size_t errlen);

/**
 * \brief Parse `argv` into `opt`, checking everything that can be checked without opening files.
 *
 * Files are checked later (io.h), still before any work. On failure `err` holds one line
 * that names the problem and the fix, and nothing has been printed.
 * \return 0 on success, ::EXIT_USAGE on failure
 */
int cli_parse(int argc, char **argv, const scan_program *prog, scan_options *opt, char *err,
              size_t errlen);

/** \brief Print `--help` for `prog` to `f`. */
void cli_print_help(FILE *f, const scan_program *prog);

/**
 * \brief cli_parse(), then: on error print `run: <message>` to stderr and exit ::EXIT_USAGE;
 *        on `--help` print the help and exit ::EXIT_OK.
 */
void cli_parse_or_exit(int argc, char **argv, const scan_program *prog, scan_options *opt);

/** \brief 1 if variant `v` was selected (`--variant` names it, or no `--variant` was given). */
int cli_variant_selected(const scan_options *opt, int v);

/** \brief Print a one-line error `run: <message>` to stderr and exit with `status`. */
void cli_fail(int status, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif /* SCAN_CLI_H */
