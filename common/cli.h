/**
 * \file cli.h
 * \brief The command line every chapter's `run` shares (docs/CONVENTIONS.md §4).
 *
 * A chapter describes itself once in a ::scan_program (name, variants, segment length, default
 * sizes, and any modes of its own) and calls cli_parse_or_exit(). Every check of the command line
 * lives here, so every chapter refuses bad input with the same one-line message and exit status 2,
 * before anything is computed or written. This file names no chapter: a chapter that has a mode of
 * its own (an option that runs something other than the scan) describes it in a ::scan_mode.
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
/** Exit status: a write failed (disk full, I/O error, file too large) to `--output`, which then
    keeps the file it would have replaced, or to standard output. */
#define EXIT_WRITE 4

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
/** Largest count `--stress R` (or a chapter's mode that takes a count) accepts. */
#define CLI_MAX_STRESS 1000000
/** Most runs per size of a stress test in `make test` (`make test-all` runs the count listed). */
#define CLI_TEST_STRESS 100

struct scan_options;

/**
 * A mode of a chapter's own: an option that runs something other than the scan (a demonstration,
 * a check of one property). The chapter lists its modes in scan_program::modes; the command line
 * accepts the option only there, shows `help` in `--help`, and hands the parsed options to `run`.
 */
typedef struct scan_mode {
    const char *option; /**< the option, e.g. "--two-streams" */
    const char *count;  /**< NULL: a flag; else the name of the whole number it takes, e.g. "R" */
    const char *help;   /**< its line in `--help` */
    const char *test;   /**< arguments `make test-all` runs it with ("--two-streams 200";
                             several runs separated by " | "), or NULL; `make test` runs them
                             with a stress count of at most ::CLI_TEST_STRESS and a self-test
                             with -n 2^30 (scan_program::test_big_case) */
    int combines;       /**< 0: a mode of its own, given alone; 1: it chooses *what* is scanned
                             (an operator, a type) and combines with `--self-test`, `--stress R`,
                             `--input/--output` and `-n`, which `run` then carries out itself;
                             such a mode scans inclusively only */
    const void *ctx;    /**< the chapter's own data for this mode (which operator, say), handed
                             to `check_file` and `run`; or NULL */
    /** Checks the `--input` file (read as int32 words) before the GPU is touched and before
        `--output` is begun: 0, or ::EXIT_USAGE with a message in `err`; NULL: any file will do. */
    int (*check_file)(const void *ctx, const int32_t *file, size_t words, char *err, size_t len);
    /** Runs it; returns the exit status. `file`/`file_words`: the `--input` file read as int32
        words (NULL and 0 without `--input`); its format is the mode's to check. */
    int (*run)(const void *ctx, const struct scan_options *opt, const int32_t *file,
               size_t file_words);
} scan_mode;

/** What a chapter tells the shared command line about itself. */
typedef struct scan_program {
    const char *name;                /**< folder name, e.g. "01_cpu_serial" */
    const char *title;               /**< one line: what this chapter scans and how */
    const char *const *variants;     /**< names accepted by `--variant` */
    int variant_count;               /**< entries in `variants` (1 … ::CLI_MAX_VARIANTS) */
    size_t segment;                  /**< 0: scan the whole array; else the segment length of a segmented scan */
    const size_t *default_sizes;     /**< sizes of the default sweep */
    int default_size_count;          /**< entries in `default_sizes` */
    int default_reps;                /**< timed repetitions when `--reps` is not given */
    int stress;                      /**< 1: accepts `--stress R` (a scan with races between blocks) */
    const scan_mode *modes;          /**< the chapter's own modes, or NULL */
    int mode_count;                  /**< entries in `modes` (at most 16) */
    int host_only;                   /**< 1: no GPU code (chapter 01): `--help` lists no exit
                                          status 3, which only CUDA trouble gives */
    int test_big_case;               /**< 1: `make test` runs this chapter's n > 2^31 case (one
                                          chapter of each single-pass family); 0: its self-tests
                                          run `-n 2^30` there, and only `make test-all` runs it */
    int device_budget;               /**< 1: accepts `--device-memory B`, the most device memory
                                          the program may use (an array larger than it is
                                          streamed through the GPU in pieces) */
} scan_program;

/** The parsed command line. */
typedef struct scan_options {
    size_t n;             /**< `-n`: one size (valid when `n_given`) */
    int n_given;          /**< 1 if `-n` was given */
    int reps;             /**< `--reps`: timed repetitions, median reported */
    uint64_t seed;        /**< `--seed`: input seed */
    int self_test;        /**< `--self-test`: run the correctness battery */
    const char *input;    /**< `--input`: raw int32 file to scan, or NULL */
    const char *output;   /**< `--output`: where to write the scan of `input`, or NULL */
    int exclusive;        /**< `--exclusive`: exclusive instead of inclusive scan (every chapter has both) */
    int variant;          /**< `--variant`: index into scan_program::variants, or -1 for all */
    int csv;              /**< `--csv`: machine-readable rows */
    int help;             /**< `--help` was given */
    int stress;           /**< `--stress R`: runs per stress size, 0 when not given */
    const scan_mode *mode; /**< the chapter's own mode that was given, or NULL */
    int mode_count;       /**< the whole number that mode took (0 for a flag) */
    size_t device_memory; /**< `--device-memory B` in bytes, 0 when not given
                               (scan_program::device_budget) */
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

/** Largest `--device-memory`: 2^50 bytes (1 PiB), more than any GPU has. */
#define CLI_MAX_BYTES ((size_t)1 << 50)

/**
 * \brief Parse a byte count: decimal digits, optionally followed by KiB, MiB, GiB or TiB (powers
 *        of 1024), or `2^K`; from 1 to ::CLI_MAX_BYTES.
 * \param option the option it belongs to, for the message (e.g. "--device-memory")
 * \param text   the text to parse
 * \param value  receives the bytes on success
 * \param err    receives a one-line message naming the problem and the fix on failure
 * \param errlen size of `err`
 * \return 0 on success, ::EXIT_USAGE on failure
 */
int cli_parse_bytes(const char *option, const char *text, size_t *value, char *err,
                    size_t errlen);

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
 *
 * It also makes sure that a report which did not reach standard output (a full disk, a closed
 * descriptor) does not pass for success: at exit, if writing standard output failed, one line
 * says so on stderr and the exit status is ::EXIT_WRITE, as coreutils' tools do.
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
