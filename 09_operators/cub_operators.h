/**
 * \file cub_operators.h
 * \brief Chapter 09's baselines, callable from C: CUB's own algorithm for each operator of the
 *        chapter, on the same device buffers (`cub::DeviceScan::InclusiveSum` on floats,
 *        `InclusiveScan` with the affine operator, `InclusiveSumByKey`).
 *
 * Each pair of functions follows CUB's own two-step use: ask the scratch size once for n, then
 * run with that scratch. Every run is asynchronous on the default stream and exits with status 3
 * if CUB reports an error. n must be below 2^31 (CUB is given an `int` count here).
 */
#ifndef SCAN_CUB_OPERATORS_H
#define SCAN_CUB_OPERATORS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The baselines: one per operator of the chapter. */
typedef enum cub_operator {
    CUB_FLOAT_SUM,    /**< InclusiveSum of floats */
    CUB_AFFINE,       /**< InclusiveScan of int32 (a, b) pairs, each packed in a 64-bit word, with
                           map composition; writes b */
    CUB_AFFINE_F32,   /**< the same with float pairs */
    CUB_SUM_BY_KEY    /**< InclusiveSumByKey of int32 values, 1-byte keys (segment number mod 256:
                           CUB compares neighbouring keys only) */
} cub_operator;

/** \brief Device scratch CUB asks for to run `op` on n elements, in bytes (asked once per n). */
size_t cub_operator_temp_bytes(cub_operator op, size_t n);

/**
 * \brief Run CUB's algorithm for `op`.
 * \param op         which one
 * \param d_in       input: floats (CUB_FLOAT_SUM), n interleaved (a, b) pairs (CUB_AFFINE, _F32), the
 *                   values (CUB_SUM_BY_KEY)
 * \param d_keys     CUB_SUM_BY_KEY: n one-byte keys, equal within a segment and different in
 *                   neighbouring segments; else unused
 * \param d_out      output: n elements
 * \param n          element count, below 2^31
 * \param d_temp     cub_operator_temp_bytes(op, n) bytes of scratch
 * \param temp_bytes its size
 */
void cub_operator_run(cub_operator op, const void *d_in, const uint8_t *d_keys, void *d_out,
                      size_t n, void *d_temp, size_t temp_bytes);

#ifdef __cplusplus
}
#endif

#endif /* SCAN_CUB_OPERATORS_H */
