/**
 * \file cub_scan.h
 * \brief The CUB baseline, callable from C: `cub::DeviceScan` inclusive and exclusive sums of
 *        int32 (wrapping, like every chapter), for the chapters that run it beside their own scan
 *        and for `make bench` (bench/baselines.cu).
 */
#ifndef SCAN_CUB_SCAN_H
#define SCAN_CUB_SCAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Device scratch CUB asks for to scan n elements, in bytes: enough for both its inclusive
           and its exclusive scan (asked once per n, then remembered). */
size_t cub_scan_temp_bytes(size_t n);

/**
 * \brief `cub::DeviceScan::InclusiveSum` or `ExclusiveSum` of n int32 on the default stream,
 *        asynchronous. Exits with status 3 if CUB reports an error.
 * \param d_in       device input
 * \param d_out      device output (may equal `d_in`)
 * \param n          element count
 * \param exclusive  1 for ExclusiveSum, 0 for InclusiveSum
 * \param d_temp     cub_scan_temp_bytes(n) bytes of device scratch (contents do not matter: CUB
 *                   clears what it needs with a kernel of its own before the scan)
 * \param temp_bytes its size
 */
void cub_scan(const int32_t *d_in, int32_t *d_out, size_t n, int exclusive, void *d_temp,
              size_t temp_bytes);

/** \brief The CUB version this was built with, e.g. "CUB 3.0.0". */
const char *cub_version(void);

#ifdef __cplusplus
}
#endif

#endif /* SCAN_CUB_SCAN_H */
