/**
 * \file operator_modes.h
 * \brief Chapter 09's host side for the operators' modes: the data of one run, what a mode tells
 *        the harness (::operator_mode), each operator's inputs, references and checks, and the
 *        harness itself (battery, stress test, files, sweep), in operator_modes.cu.
 *
 * The device code and the launchers are in operators.cu, which fills one ::operator_mode per
 * operator and hands it to op_main(). Nothing here knows how the pass works: like common/, this
 * code only makes inputs, moves data, poisons, checks, times and prints.
 */
#ifndef SCAN_OPERATOR_MODES_H
#define SCAN_OPERATOR_MODES_H

#include "cli.h"
#include "cub_operators.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* float_checks.c is C */
#endif

/** The variants of every mode: this chapter's pass, and CUB beside it. */
enum { VARIANT_LOOKBACK, VARIANT_CUB, VARIANT_COUNT };

/** The data of one operator run, on the host and on the device. */
typedef struct op_data {
    size_t n;             /**< element count */
    size_t tile;          /**< elements of one tile of the pass (the bound and the patterns use it) */
    size_t capacity;      /**< elements the device arrays hold */
    void *in;             /**< host input: n elements of the operator's input */
    uint8_t *heads;       /**< segmented: n head flags */
    uint8_t *keys;        /**< segmented, for CUB: each element's segment number, mod 256 */
    int32_t *ref;         /**< the expected output (32-bit words) */
    double *exact;        /**< float sum: the exact sums */
    double *magnitude;    /**< float sum: the sums of |x|; float recurrence: S_t (the notes) */
    double *growth;       /**< float recurrence: P_t, S_t with rounding's growth (the notes) */
    double *slack;        /**< float recurrence: the absolute slack of products that underflow */
    uint8_t *bitwise;     /**< float sum: 1 where every order of additions gives the same float,
                               whose bits are then in ref (the notes) */
    int32_t *got;         /**< the output copied back */
    void *d_in;           /**< device input */
    uint8_t *d_heads;     /**< device head flags */
    uint8_t *d_keys;      /**< device keys (CUB) */
    int32_t *d_out;       /**< device output */
    void *d_temp[VARIANT_COUNT];        /**< each variant's scratch */
    size_t temp_bytes[VARIANT_COUNT];   /**< its size */
} op_data;

/** What a mode tells the shared harness about its operator. */
typedef struct operator_mode {
    const char *name;                      /**< the row name of this chapter's pass */
    const char *mode;                      /**< the mode's option, without "--" */
    const char *cub_name;                  /**< the row name of CUB's baseline */
    cub_operator cub;                      /**< which baseline */
    size_t in_bytes;                       /**< bytes of one input element (the heads not counted) */
    size_t tile;                           /**< elements of one tile of the pass */
    int state_scratch;                     /**< 1: the pass keeps state in its scratch */
    int pattern_count;                     /**< input patterns of the battery */
    const char *const *patterns;           /**< their names */
    const char *file_format;               /**< the `--input` format, for messages */
    size_t file_words;                     /**< int32 words of the file per element */
    /** Fill d->in (and d->heads) for d->n elements. */
    void (*generate)(op_data *d, int pattern, uint64_t seed);
    /** Compute the expected output from the host input. */
    void (*reference)(op_data *d);
    /** Launch `variant` on the device arrays (asynchronous). */
    void (*launch)(int variant, op_data *d);
    /** Bytes `variant` must move for this data (reads and writes). */
    double (*bytes)(int variant, const op_data *d);
    /** Scratch `variant` needs for n. */
    size_t (*temp_bytes)(int variant, size_t n);
    /** Check the values of an `--input` file (its length is checked already): 0, or
        ::EXIT_USAGE with a message in `err`; NULL: any values will do. */
    int (*check_file)(const int32_t *file, size_t words, char *err, size_t len);
    /** Set up d (allocated for the file's element count) from a checked `--input` file. */
    void (*from_file)(op_data *d, const int32_t *file);
} operator_mode;

/** Elements of one tile of the float recurrence (2048 pairs: operators.cu's tile_items<affine_f32>(),
    checked there), for the bound of a file checked before the pass is launched. */
#define AFFINE_TILE 2048

/* The float checks (float_checks.c, host code only; tests/test_float_checks.c tries them). */
/** \brief Combines that round, at most, on the way of element i of the float sum: this
           chapter's pass 7·⌊i / tile⌋ + 29, CUB's i + 1 (derived in the notes' appendix). */
double float_depth(int variant, size_t i, size_t tile);
/** \brief Combines that round, at most, on the way of element t of the float recurrence: this
           chapter's pass 7·⌊t / tile⌋ + 21, CUB's t + 1 (the notes' appendix). */
double recurrence_depth(int variant, size_t t, size_t tile);
/** \brief The float sum's check of element i: bit for bit where d->bitwise says every order of
           additions gives the same float (CUB: the value, ±0 not told apart), else within the
           bound of the notes. 1 if right. */
int float_sum_ok(const op_data *d, int variant, size_t i);
/** \brief The float recurrence's check of element t: within the bound of the notes. 1 if right. */
int recurrence_bound_ok(const op_data *d, int variant, size_t t);

/** Input patterns of the float sum's battery (their names). */
extern const char *const FLOAT_PATTERNS[4];
/** Input patterns of the recurrence's battery. */
extern const char *const AFFINE_PATTERNS[2];
/** Input patterns of the float recurrence's battery. */
extern const char *const AFFINE_F32_PATTERNS[2];
/** Input patterns of the segmented sum's battery. */
extern const char *const SEGMENT_PATTERNS[5];

/* Each operator's inputs (generate: d->n elements of pattern `pattern`), reference (the expected
   output, from the host input), bytes moved by `variant`, and `--input` reader (see
   ::operator_mode). */
void float_generate(op_data *d, int pattern, uint64_t seed);        /**< float sum: inputs */
void float_reference(op_data *d);                                   /**< float sum: reference */
double float_bytes(int variant, const op_data *d);                  /**< float sum: bytes */
/** float sum: file check */
int float_check_file(const int32_t *file, size_t words, char *err, size_t len);
void float_from_file(op_data *d, const int32_t *file);              /**< float sum: file */
void affine_generate(op_data *d, int pattern, uint64_t seed);       /**< recurrence: inputs */
void affine_reference(op_data *d);                                  /**< recurrence: reference */
double affine_bytes(int variant, const op_data *d);                 /**< recurrence: bytes */
void affine_from_file(op_data *d, const int32_t *file);             /**< recurrence: file */
void affine_f32_generate(op_data *d, int pattern, uint64_t seed);   /**< float recurrence: inputs */
void affine_f32_reference(op_data *d);                              /**< float recurrence: ref. */
/** float recurrence: file check */
int affine_f32_check_file(const int32_t *file, size_t words, char *err, size_t len);
void affine_f32_from_file(op_data *d, const int32_t *file);         /**< float recurrence: file */
void segmented_generate(op_data *d, int pattern, uint64_t seed);    /**< segmented: inputs */
void segmented_reference(op_data *d);                               /**< segmented: reference */
double segmented_bytes(int variant, const op_data *d);              /**< segmented: bytes */
void segmented_from_file(op_data *d, const int32_t *file);          /**< segmented: file */

/**
 * \brief Check an `--input` file for an operator, before the GPU is touched: a whole number of
 *        elements, and values the check can use. 0, or ::EXIT_USAGE with a message in `err`.
 */
int op_check_file(const operator_mode *op, const int32_t *file, size_t words, char *err,
                  size_t len);

/**
 * \brief Run an operator's mode: the battery (`--self-test`), the stress test (`--stress R`), a file
 *        (`--input F [--output G]`), or the sweep; returns the exit status.
 * \param op    the operator
 * \param opt   the parsed command line
 * \param file  the `--input` file as int32 words, or NULL
 * \param words its word count
 */
int op_main(const operator_mode *op, const scan_options *opt, const int32_t *file, size_t words);

#ifdef __cplusplus
}
#endif

#endif /* SCAN_OPERATOR_MODES_H */
