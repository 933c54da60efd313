/**
 * \file cub_sort.cu
 * \brief The CUB baseline of the radix sort assignment (C++: CUB's API is templates).
 */
#include "cub_sort.h"

#include "cuda_util.h"

#include <cub/device/device_radix_sort.cuh>

#include <stdint.h>

/** Ask CUB for its scratch (d_temp NULL) or sort. */
static cudaError_t cub_call(void *d_temp, size_t *temp_bytes, const uint32_t *d_keys,
                            uint32_t *d_keys_out, const uint32_t *d_values,
                            uint32_t *d_values_out, size_t n)
{
    return cub::DeviceRadixSort::SortPairs(d_temp, *temp_bytes, d_keys, d_keys_out, d_values,
                                           d_values_out, (int64_t)n);
}

size_t cub_sort_temp_bytes(size_t n)
{
    static size_t known_n = SIZE_MAX, known_bytes;
    if (known_n != n) {
        known_bytes = 0;
        CUDA_CHECK(cub_call(NULL, &known_bytes, NULL, NULL, NULL, NULL, n));
        known_n = n;
    }
    return known_bytes;
}

void cub_sort_pairs(const uint32_t *d_keys, uint32_t *d_keys_out, const uint32_t *d_values,
                    uint32_t *d_values_out, size_t n, void *d_temp, size_t temp_bytes)
{
    CUDA_CHECK(cub_call(d_temp, &temp_bytes, d_keys, d_keys_out, d_values, d_values_out, n));
}
