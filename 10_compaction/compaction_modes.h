/**
 * \file compaction_modes.h
 * \brief Chapter 10's host side for the compaction's mode: the data of one run, what the mode
 *        tells the harness (::compact_mode), the compaction's inputs and reference, and the
 *        harness itself (battery, stress test, files, sweep), in compaction_modes.cu.
 *
 * The device code and the launchers are in compaction.cu, which fills one ::compact_mode and
 * hands it to compact_main(). Nothing here knows how the pass works: like common/, this code only
 * makes inputs, moves data, restores the input of the in-place runs, poisons, checks, times and
 * prints. It is chapter 09's operator_modes.cu with one operator left, the compaction.
 */
#ifndef SCAN_COMPACTION_MODES_H
#define SCAN_COMPACTION_MODES_H

#include "cli.h"

#include <stddef.h>
#include <stdint.h>

/** The variants of the mode: this chapter's pass, and CUB beside it. */
enum { VARIANT_LOOKBACK, VARIANT_CUB, VARIANT_COUNT };

/** The data of one compaction run, on the host and on the device. */
typedef struct compact_data {
    size_t n;             /**< element count */
    size_t capacity;      /**< elements the device arrays hold */
    int32_t *in;          /**< host input: n int32 */
    int32_t *ref;         /**< the expected output: the kept elements, in order */
    size_t ref_count;     /**< elements kept */
    int32_t *got;         /**< the output copied back (n words: the kept ones first) */
    uint32_t got_count;   /**< the count copied back */
    int32_t *d_in;        /**< device array: the input, compacted in place */
    int32_t *d_pristine;  /**< a device copy of the input, to restore it before every run */
    uint32_t *d_count;    /**< device count */
    void *d_temp[VARIANT_COUNT];        /**< each variant's scratch */
    size_t temp_bytes[VARIANT_COUNT];   /**< its size */
} compact_data;

/** What the compaction's mode tells the shared harness. */
typedef struct compact_mode {
    const char *name;                      /**< the row name of this chapter's pass */
    const char *cub_name;                  /**< the row name of CUB's baseline */
    size_t tile;                           /**< elements of one tile of the pass */
    /** Launch `variant` on d->d_in, in place (asynchronous); the count goes to d->d_count. */
    void (*launch)(int variant, compact_data *d);
    /** Scratch `variant` needs for n. */
    size_t (*temp_bytes)(int variant, size_t n);
} compact_mode;

/** Input patterns of the compaction's battery (their names). */
extern const char *const COMPACT_PATTERNS[4];

/** \brief Fill d->in with d->n elements of pattern `pattern` (data.h's patterns). */
void compact_generate(compact_data *d, int pattern, uint64_t seed);
/** \brief The reference: the kept elements (x > 0), in order, and their count. */
void compact_reference(compact_data *d);
/** \brief Bytes `variant` must move: read n, write the kept ones and the count. */
double compact_bytes(int variant, const compact_data *d);

/**
 * \brief Run the compaction's mode: the battery (`--self-test`), the stress test (`--stress R`),
 *        a file (`--input F [--output G]`), or the sweep; returns the exit status.
 * \param m     the mode
 * \param opt   the parsed command line
 * \param file  the `--input` file as int32 words, or NULL
 * \param words its word count
 */
int compact_main(const compact_mode *m, const scan_options *opt, const int32_t *file,
                 size_t words);

#endif /* SCAN_COMPACTION_MODES_H */
