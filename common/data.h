/**
 * \file data.h
 * \brief Seeded inputs, CPU reference scans and element-by-element verification (docs/CONVENTIONS.md §3, §5).
 *
 * Arithmetic is modulo 2^32: references add in `uint32_t`, where overflow is defined in C, and the
 * device's `int32_t` addition wraps the same way in two's complement, so results agree bit for bit.
 */
#ifndef SCAN_DATA_H
#define SCAN_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Every byte of a poisoned buffer: outputs are filled with it before each run, so an element the
 *  scan forgot to write shows up as 0xA5A5A5A5 (-1515870811) instead of a lucky zero. */
#define POISON_BYTE 0xA5

/** The input patterns of the correctness battery. */
typedef enum data_pattern {
    PATTERN_RANDOM,       /**< uniform over all int32: sums wrap around often */
    PATTERN_SMALL,        /**< uniform in [-100, 100]: signed, rarely wraps */
    PATTERN_ONES,         /**< all ones: the inclusive scan is index + 1, easy to read */
    PATTERN_ALTERNATING,  /**< +large, -large, +large, ...: magnitudes in [2^30, 2^31) */
    PATTERN_COUNT         /**< number of patterns */
} data_pattern;

/** \brief Short name of a pattern ("random", "small", "ones", "alternating"). */
const char *pattern_name(data_pattern pattern);

/**
 * \brief Fill `a[0..n)` with `pattern`. Element i depends only on (seed, pattern, i), so the
 *        same seed gives the same data whatever the thread count, and any slice can be rebuilt.
 */
void generate_input(int32_t *a, size_t n, data_pattern pattern, uint64_t seed);

/**
 * \brief The reference scan, serial, in uint32 arithmetic. `in` and `out` may be the same array.
 * \param in        input elements
 * \param out       receives the scan
 * \param n         element count
 * \param exclusive 0: out[i] = in[0] + … + in[i]; 1: out[i] = in[0] + … + in[i-1] (out[0] = 0)
 * \param segment   0 to scan the whole array; otherwise every `segment` elements start afresh
 *                  (the segmented scans of chapters 02 and 03)
 */
void scan_reference(const int32_t *in, int32_t *out, size_t n, int exclusive, size_t segment);

/** \brief Fill `a[0..n)` with ::POISON_BYTE. */
void poison(int32_t *a, size_t n);

/** What verify_scan() found. */
typedef struct verify_result {
    size_t checked;     /**< elements compared (always n: every one) */
    size_t mismatches;  /**< elements that differ */
    size_t first_bad;   /**< index of the first difference (valid when mismatches > 0) */
} verify_result;

/** \brief Compare all n elements of `got` with `expected`. */
verify_result verify_scan(const int32_t *expected, const int32_t *got, size_t n);

/**
 * \brief Describe a failed verification to `f`: how many elements are wrong, the first bad
 *        index with expected and got values, and its neighbours (two on each side).
 */
void verify_report(FILE *f, const verify_result *r, const int32_t *expected, const int32_t *got,
                   size_t n);

#ifdef __cplusplus
}
#endif

#endif /* SCAN_DATA_H */
