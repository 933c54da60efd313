/**
 * \file cub_operators.cu
 * \brief Chapter 09's CUB baselines (C++: CUB's API is templates and function objects). Integer
 *        sums and products run on `unsigned int`, so that overflow wraps as in the chapter.
 */
#include "cub_operators.h"

#include "cuda_util.h"

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_output_iterator.h>

#include <stdint.h>
#include <string.h>

/** The bits of a 32-bit word as T (unsigned or float). */
template <typename T> __host__ __device__ T from_word(unsigned w)
{
    T x;
    memcpy(&x, &w, sizeof x);
    return x;
}

/** The 32 bits of a T. */
template <typename T> __host__ __device__ unsigned to_word(T x)
{
    unsigned w;
    memcpy(&w, &x, sizeof w);
    return w;
}

/**
 * Composition of two affine maps h ↦ a·h + b, the earlier one first: x ↦ later(earlier(x)). Each
 * map is packed in one 64-bit word, a in the low 32 bits and b in the high 32 (the layout of the
 * pairs (a, b) in memory), so that CUB handles it as a primitive 8-byte type: one status-and-
 * value descriptor per tile. (As a struct of two T, CUB keeps status and value apart, with a
 * release and a fence per descriptor: we measured 2865.6 µs at 2^28 that way, see
 * docs/experiments/09_operators.md.)
 */
template <typename T> struct compose_affine {
    /** \brief (a2, b2) after (a1, b1): x ↦ a2·(a1·x + b1) + b2. */
    __host__ __device__ unsigned long long operator()(unsigned long long earlier,
                                                      unsigned long long later) const
    {
        const T a1 = from_word<T>((unsigned)earlier), b1 = from_word<T>((unsigned)(earlier >> 32));
        const T a2 = from_word<T>((unsigned)later), b2 = from_word<T>((unsigned)(later >> 32));
        return (unsigned long long)to_word<T>(a2 * b1 + b2) << 32 | to_word<T>(a2 * a1);
    }
};

/** What the recurrence's output keeps of a scanned map: h = b (the map applied to h = 0). */
template <typename T> struct take_addend {
    /** \brief b of the packed map. */
    __host__ __device__ T operator()(unsigned long long m) const
    {
        return from_word<T>((unsigned)(m >> 32));
    }
};

/** CUB's InclusiveScan of n packed affine maps in T, writing b. */
template <typename T>
static cudaError_t cub_affine(void *d_temp, size_t *bytes, const void *d_in, void *d_out,
                              int count)
{
    return cub::DeviceScan::InclusiveScan(
        d_temp, *bytes, (const unsigned long long *)d_in,
        thrust::make_transform_output_iterator((T *)d_out, take_addend<T>()),
        compose_affine<T>(), count);
}

/** Ask CUB for its scratch (d_temp NULL) or run. */
static cudaError_t cub_call(cub_operator op, void *d_temp, size_t *bytes, const void *d_in,
                            const uint8_t *d_keys, void *d_out, size_t n)
{
    const int count = (int)n;
    switch (op) {
    case CUB_FLOAT_SUM:
        return cub::DeviceScan::InclusiveSum(d_temp, *bytes, (const float *)d_in, (float *)d_out,
                                             count);
    case CUB_AFFINE:
        return cub_affine<unsigned>(d_temp, bytes, d_in, d_out, count);
    case CUB_AFFINE_F32:
        return cub_affine<float>(d_temp, bytes, d_in, d_out, count);
    default: /* CUB_SUM_BY_KEY */
        return cub::DeviceScan::InclusiveSumByKey(d_temp, *bytes, d_keys,
                                                  (const unsigned *)d_in, (unsigned *)d_out,
                                                  count);
    }
}

size_t cub_operator_temp_bytes(cub_operator op, size_t n)
{
    /* remembered per (op, n): CUB's answer costs host time, asked before every timed call */
    static size_t known_n[4] = {SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX}, known_bytes[4];
    if (known_n[op] != n) {
        known_bytes[op] = 0;
        CUDA_CHECK(cub_call(op, NULL, &known_bytes[op], NULL, NULL, NULL, n));
        known_n[op] = n;
    }
    return known_bytes[op];
}

void cub_operator_run(cub_operator op, const void *d_in, const uint8_t *d_keys, void *d_out,
                      size_t n, void *d_temp, size_t temp_bytes)
{
    if (n > 0x7fffffff)
        cuda_fail(cudaErrorInvalidValue, "the CUB baselines here take fewer than 2^31 elements",
                  __FILE__, __LINE__);
    CUDA_CHECK(cub_call(op, d_temp, &temp_bytes, d_in, d_keys, d_out, n));
}
