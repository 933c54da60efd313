/**
 * \file scan_check.h
 * \brief Whether one element of an inclusive scan is right, from the input alone: the speed
 *        harness checks every timed launch with it, so that no reference array exists in the
 *        process whose kernels it times (a student's kernel could read one).
 *
 * out[i] must be in[i] where the scan (or, with `segment`, a segment) starts, and
 * out[i - 1] + in[i] everywhere else, in 32-bit wrap-around. Every element right is the same
 * as `out` being the inclusive scan of `in` (by induction on i): nothing less is accepted.
 * Host and device alike (the kit's test runs it on the host, harness_gpu.cu on the GPU).
 */
#ifndef SCAN_CHECK_H
#define SCAN_CHECK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define SCAN_CHECK_FN __host__ __device__ static inline
#else
#define SCAN_CHECK_FN static inline
#endif

/** 1 when out[i] follows from out[i - 1] and in[i] (see the file's comment), else 0. */
SCAN_CHECK_FN int scan_element_right(const int32_t *in, const int32_t *out, size_t i,
                                     size_t segment)
{
    const int starts = i == 0 || (segment != 0 && i % segment == 0);
    const uint32_t before = starts ? 0u : (uint32_t)out[i - 1];
    return (uint32_t)out[i] == before + (uint32_t)in[i];
}

#endif
