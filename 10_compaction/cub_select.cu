/**
 * \file cub_select.cu
 * \brief Chapter 10's CUB baseline (C++: CUB's API is templates and function objects): the
 *        in-place overload of `cub::DeviceSelect::If`, as chapter 09's cub_operators.cu called it.
 */
#include "cub_select.h"

#include "cuda_util.h"

#include <cub/device/device_select.cuh>

#include <stdint.h>

/** The selection of the compaction: keep x > 0. */
struct is_positive {
    /** \brief x > 0. */
    __host__ __device__ bool operator()(const int &x) const { return x > 0; }
};

/** Ask CUB for its scratch (d_temp NULL) or run: the in-place overload, d_data is compacted. */
static cudaError_t cub_call(void *d_temp, size_t *bytes, int32_t *d_data, int *d_count, size_t n)
{
    return cub::DeviceSelect::If(d_temp, *bytes, (int *)d_data, d_count, (int)n, is_positive());
}

size_t cub_select_temp_bytes(size_t n)
{
    /* remembered per n: CUB's answer costs host time, asked before every timed call */
    static size_t known_n = SIZE_MAX, known_bytes;
    if (known_n != n) {
        known_bytes = 0;
        CUDA_CHECK(cub_call(NULL, &known_bytes, NULL, NULL, n));
        known_n = n;
    }
    return known_bytes;
}

void cub_select_run(int32_t *d_data, int *d_count, size_t n, void *d_temp, size_t temp_bytes)
{
    if (n > 0x7fffffff)
        cuda_fail(cudaErrorInvalidValue, "the CUB baseline here takes fewer than 2^31 elements",
                  __FILE__, __LINE__);
    CUDA_CHECK(cub_call(d_temp, &temp_bytes, d_data, d_count, n));
}
