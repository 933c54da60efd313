/**
 * \file cub_select.h
 * \brief Chapter 10's baseline, callable from C: CUB's in-place `cub::DeviceSelect::If`, keeping
 *        the int32 elements x > 0 at the front of the same array.
 *
 * The two functions follow CUB's own two-step use: ask the scratch size once for n, then run with
 * that scratch. The run is asynchronous on the default stream and exits with status 3 if CUB
 * reports an error. n must be below 2^31 (CUB is given an `int` count here).
 */
#ifndef SCAN_CUB_SELECT_H
#define SCAN_CUB_SELECT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Device scratch CUB asks for to compact n elements, in bytes (asked once per n). */
size_t cub_select_temp_bytes(size_t n);

/**
 * \brief Run CUB's in-place select.
 * \param d_data     n int32, compacted in place: the kept ones go to the front
 * \param d_count    receives how many were kept (one int)
 * \param n          element count, below 2^31
 * \param d_temp     cub_select_temp_bytes(n) bytes of scratch
 * \param temp_bytes its size
 */
void cub_select_run(int32_t *d_data, int *d_count, size_t n, void *d_temp, size_t temp_bytes);

#ifdef __cplusplus
}
#endif

#endif /* SCAN_CUB_SELECT_H */
