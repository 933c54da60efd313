/**
 * \file thrust_scan.h
 * \brief The Thrust baseline, callable from C: `thrust::inclusive_scan` / `exclusive_scan` of
 *        int32 on device pointers (wrapping, like every chapter), for `make bench`.
 */
#ifndef SCAN_THRUST_SCAN_H
#define SCAN_THRUST_SCAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Thrust's scan of n int32 on the default stream. Thrust allocates its own scratch inside
 *        the call (that is part of what it costs) and synchronises before it returns.
 * \param d_in      device input
 * \param d_out     device output (may equal `d_in`)
 * \param n         element count
 * \param exclusive 1 for exclusive_scan, 0 for inclusive_scan
 */
void thrust_scan(const int32_t *d_in, int32_t *d_out, size_t n, int exclusive);

#ifdef __cplusplus
}
#endif

#endif /* SCAN_THRUST_SCAN_H */
