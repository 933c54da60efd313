/**
 * \file cuda_util.h
 * \brief Host-side CUDA plumbing for the GPU chapters: error checks, the device line, event timing
 *        and the same-size `cudaMemcpy` every scan is compared with (docs/CONVENTIONS.md §4, §6).
 *
 * No scan code lives here: a chapter shows all the device code it uses.
 */
#ifndef SCAN_CUDA_UTIL_H
#define SCAN_CUDA_UTIL_H

#include "report.h"

#include <cuda_runtime.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Check a CUDA runtime call; on failure print what failed, where and why, and exit with
 *        status 3. The one macro with control flow (docs/CONVENTIONS.md §2).
 */
#define CUDA_CHECK(call)                                                                          \
    do {                                                                                          \
        cudaError_t cuda_check_status_ = (call);                                                  \
        if (cuda_check_status_ != cudaSuccess)                                                    \
            cuda_fail(cuda_check_status_, #call, __FILE__, __LINE__);                             \
    } while (0)

/**
 * \brief Check the launch just made (bad configuration, no kernel image for this GPU, …). Errors
 *        inside the kernel surface at the next synchronising call, which CUDA_CHECK catches.
 */
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

/** \brief Print a CUDA failure (`what` at `file`:`line`) with the runtime's explanation; exit 3. */
void cuda_fail(cudaError_t status, const char *what, const char *file, int line)
#ifdef __GNUC__
    __attribute__((noreturn))
#endif
    ;

/**
 * \brief Why there is no CUDA device to use, in words a user can act on, from what
 *        cudaGetDeviceCount() returned (`status`, `count`): no driver at all (no libcuda.so.1),
 *        a driver older than this runtime, a driver that lists no GPU, or the runtime's own words.
 * \return `buf`
 */
const char *cuda_no_device_reason(cudaError_t status, int count, char *buf, size_t len);

/**
 * \brief Select device 0 and read its properties. Exits with status 3 and a message if there is
 *        no usable CUDA device or it is older than compute capability 7.5.
 */
void cuda_init_device(cudaDeviceProp *props);

/**
 * \brief The device line every GPU program prints first: name, compute capability, SMs, memory,
 *        L2, and the CUDA runtime and driver versions.
 */
const char *cuda_device_line(const cudaDeviceProp *props, char *buf, size_t len);

/** Work to be timed: enqueues GPU work on the default stream. */
typedef void (*gpu_work_fn)(void *ctx);

/**
 * \brief Median and spread (::timing, in milliseconds) of `work(ctx)`: `warmup` untimed calls,
 *        then `reps` calls each bracketed by CUDA events on the default stream.
 */
timing cuda_timing_ms(gpu_work_fn work, void *ctx, int warmup, int reps);

/** \brief The median of cuda_timing_ms(), alone. */
double cuda_time_median_ms(gpu_work_fn work, void *ctx, int warmup, int reps);

/**
 * \brief Median and spread (::timing, in milliseconds) of a device-to-device `cudaMemcpy` of
 *        `bytes` from `src` to `dst` (pass the chapter's own buffers: no extra memory is needed).
 */
timing cuda_memcpy_timing_ms(void *dst, const void *src, size_t bytes, int reps);

/** \brief The median of cuda_memcpy_timing_ms(), alone. */
double cuda_memcpy_ms(void *dst, const void *src, size_t bytes, int reps);

/** \brief Free device memory in bytes right now. */
size_t cuda_free_bytes(void);

#ifdef __cplusplus
}
#endif

#endif /* SCAN_CUDA_UTIL_H */
