/**
 * \file thrust_scan.cu
 * \brief The Thrust baseline (C++: Thrust's API is templates). Sums run on `unsigned int`, so
 *        that overflow wraps exactly as in the chapters.
 */
#include "thrust_scan.h"

#include <thrust/execution_policy.h>
#include <thrust/scan.h>

void thrust_scan(const int32_t *d_in, int32_t *d_out, size_t n, int exclusive)
{
    const unsigned *in = reinterpret_cast<const unsigned *>(d_in);
    unsigned *out = reinterpret_cast<unsigned *>(d_out);
    if (exclusive)
        thrust::exclusive_scan(thrust::device, in, in + n, out, 0u);
    else
        thrust::inclusive_scan(thrust::device, in, in + n, out);
}
