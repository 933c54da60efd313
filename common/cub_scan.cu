/**
 * \file cub_scan.cu
 * \brief The CUB baseline (C++: CUB's API is templates). Sums run on `unsigned int`, so that
 *        overflow wraps exactly as in the chapters (signed overflow is undefined in C++).
 */
#include "cub_scan.h"

#include "cuda_util.h"

#include <cub/device/device_scan.cuh>
#include <cub/version.cuh>

#include <stdint.h>
#include <stdio.h>

/** Ask CUB for its scratch (d_temp NULL) or run the scan. */
static cudaError_t cub_call(void *d_temp, size_t *temp_bytes, const int32_t *d_in,
                            int32_t *d_out, size_t n, int exclusive)
{
    const unsigned *in = reinterpret_cast<const unsigned *>(d_in);
    unsigned *out = reinterpret_cast<unsigned *>(d_out);
    if (exclusive)
        return cub::DeviceScan::ExclusiveSum(d_temp, *temp_bytes, in, out, n);
    return cub::DeviceScan::InclusiveSum(d_temp, *temp_bytes, in, out, n);
}

size_t cub_scan_temp_bytes(size_t n)
{
    /* Remembered per n: callers ask before every timed call, and CUB's answer costs host time
       that would otherwise be counted as CUB's. */
    static size_t known_n = SIZE_MAX, known_bytes;
    if (known_n != n) {
        size_t inclusive = 0, exclusive = 0;
        CUDA_CHECK(cub_call(NULL, &inclusive, NULL, NULL, n, 0));
        CUDA_CHECK(cub_call(NULL, &exclusive, NULL, NULL, n, 1));
        known_bytes = inclusive > exclusive ? inclusive : exclusive;
        known_n = n;
    }
    return known_bytes;
}

void cub_scan(const int32_t *d_in, int32_t *d_out, size_t n, int exclusive, void *d_temp,
              size_t temp_bytes)
{
    CUDA_CHECK(cub_call(d_temp, &temp_bytes, d_in, d_out, n, exclusive));
}

const char *cub_version(void)
{
    static char text[32];
    snprintf(text, sizeof text, "CUB %d.%d.%d", CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
             CUB_SUBMINOR_VERSION);
    return text;
}
