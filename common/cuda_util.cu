/**
 * \file cuda_util.cu
 * \brief Host-side CUDA helpers: checked errors, device line, event timing, memcpy baseline.
 */
#include "cuda_util.h"

#include "cli.h"
#include "report.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cuda_fail(cudaError_t status, const char *what, const char *file, int line)
{
    fflush(stdout);
    fprintf(stderr, "run: CUDA error %s (%s)\n  in %s\n  at %s:%d\n", cudaGetErrorName(status),
            cudaGetErrorString(status), what, file, line);
    if (status == cudaErrorMemoryAllocation)
        fprintf(stderr, "  the GPU has too little free memory for this size; try a smaller -n\n");
    exit(EXIT_CUDA);
}

const char *cuda_no_device_reason(cudaError_t status, int count, char *buf, size_t len)
{
    /* Where no driver is installed at all, the runtime finds no libcuda.so.1 and says "CUDA
       driver version is insufficient": look for the library to tell the two apart. */
    void *libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    const int kernel_module = access("/proc/driver/nvidia/version", F_OK) == 0;
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    int driver = 0, runtime = 0;
    if (libcuda)
        dlclose(libcuda);
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    if (!libcuda)
        snprintf(buf, len, "no NVIDIA driver found (libcuda.so.1 is not installed%s)",
                 kernel_module ? ", though the kernel module is loaded" : "");
    else if (status == cudaErrorInsufficientDriver)
        snprintf(buf, len, "the NVIDIA driver is too old for this program: it supports CUDA "
                 "%d.%d, the program was built with CUDA %d.%d; update the driver",
                 driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
    else if (status == cudaErrorNoDevice || (status == cudaSuccess && count == 0))
        snprintf(buf, len, "no NVIDIA GPU found: the driver is installed but lists no device%s%s%s",
                 !kernel_module ? " (its kernel module is not loaded: no /proc/driver/nvidia)" : "",
                 visible ? "; CUDA_VISIBLE_DEVICES hides all but: " : "", visible ? visible : "");
    else
        snprintf(buf, len, "no usable CUDA device (CUDA: %s: %s)", cudaGetErrorName(status),
                 cudaGetErrorString(status));
    return buf;
}

void cuda_init_device(cudaDeviceProp *props)
{
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        char reason[256];
        fprintf(stderr, "run: %s; this program needs an NVIDIA GPU of compute capability 7.5 or "
                        "newer and its driver\n",
                cuda_no_device_reason(status, count, reason, sizeof reason));
        exit(EXIT_CUDA);
    }
    /* SCAN_CUDA_BLOCKING_SYNC=1 (the classroom grader sets it for every run of a GPU chapter,
       so that several grades share one machine's CPUs): device 0's synchronizations and
       synchronous copies sleep instead of spinning (cudaDeviceScheduleBlockingSync, CUDA Runtime
       API, cudaSetDeviceFlags; waits on events made without cudaEventBlockingSync still spin).
       By default a process with no more CUDA contexts than the machine has logical processors
       spins while it waits, and a dozen programs waiting for one GPU then keep a dozen CPUs
       busy. Set here, before any other call makes the device's context, so that the context is
       made with it. */
    const char *blocking = getenv("SCAN_CUDA_BLOCKING_SYNC");
    if (blocking && strcmp(blocking, "1") == 0)
        CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaGetDeviceProperties(props, 0));
    if (props->major * 10 + props->minor < 75) {
        fprintf(stderr, "run: %s has compute capability %d.%d; this course needs 7.5 or newer\n",
                props->name, props->major, props->minor);
        exit(EXIT_CUDA);
    }
}

const char *cuda_device_line(const cudaDeviceProp *props, char *buf, size_t len)
{
    int runtime = 0, driver = 0;
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    snprintf(buf, len, "GPU: %s, compute capability %d.%d, %d SMs, %.1f GiB, L2 %d MiB; CUDA runtime %d.%d, driver %d.%d",
             props->name, props->major, props->minor, props->multiProcessorCount,
             (double)props->totalGlobalMem / (1024.0 * 1024.0 * 1024.0),
             props->l2CacheSize / (1024 * 1024), runtime / 1000, (runtime % 1000) / 10,
             driver / 1000, (driver % 1000) / 10);
    return buf;
}

timing cuda_timing_ms(gpu_work_fn work, void *ctx, int warmup, int reps)
{
    cudaEvent_t start, stop;
    double *times = (double *)malloc((size_t)reps * sizeof(double));
    if (!times)
        cli_fail(EXIT_USAGE, "out of host memory for %d timings; use a smaller --reps", reps);
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < warmup; ++i)
        work(ctx);
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < reps; ++i) {
        float ms = 0.0f;
        CUDA_CHECK(cudaEventRecord(start, 0));
        work(ctx);
        CUDA_CHECK(cudaEventRecord(stop, 0));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        times[i] = ms;
    }
    const timing result = timing_of(times, reps);
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    free(times);
    return result;
}

double cuda_time_median_ms(gpu_work_fn work, void *ctx, int warmup, int reps)
{
    return cuda_timing_ms(work, ctx, warmup, reps).median;
}

/** What memcpy_work() copies. */
typedef struct memcpy_job {
    void *dst;        /**< destination (device) */
    const void *src;  /**< source (device) */
    size_t bytes;     /**< bytes to copy */
} memcpy_job;

/** The baseline: one device-to-device copy on the default stream. */
static void memcpy_work(void *ctx)
{
    memcpy_job *job = (memcpy_job *)ctx;
    CUDA_CHECK(cudaMemcpyAsync(job->dst, job->src, job->bytes, cudaMemcpyDeviceToDevice, 0));
}

timing cuda_memcpy_timing_ms(void *dst, const void *src, size_t bytes, int reps)
{
    memcpy_job job = {dst, src, bytes};
    const timing nothing = {0.0, 0.0};
    if (bytes == 0)
        return nothing;
    return cuda_timing_ms(memcpy_work, &job, 2, reps);
}

double cuda_memcpy_ms(void *dst, const void *src, size_t bytes, int reps)
{
    return cuda_memcpy_timing_ms(dst, src, bytes, reps).median;
}

size_t cuda_free_bytes(void)
{
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return free_bytes;
}
