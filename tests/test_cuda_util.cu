/**
 * \file test_cuda_util.cu
 * \brief GPU tests of common/cuda_util: device line, event timer, memcpy baseline, and that
 *        CUDA trouble ends with exit status 3 and a message.
 *
 * Usage: `test_cuda_util` runs the checks; `test_cuda_util --oom` and `--bad-launch` each provoke
 * one CUDA error on purpose, and the test runner expects exit status 3 from them.
 */
#include "cli.h"
#include "cuda_util.h"
#include "report.h"
#include "check.h"

#include <stdio.h>
#include <string.h>

/** \brief Busy-wait `ns` nanoseconds by the GPU's global timer. \pre one block of one thread. */
__global__ void spin_kernel(long long ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < (unsigned long long)ns);
}

/** \brief Does nothing; launched with an impossible shape to provoke a launch error. */
__global__ void empty_kernel(void)
{
}

/** Work for the timer: one spin_kernel() launch. */
static void spin_work(void *ctx)
{
    spin_kernel<<<1, 1>>>(*(long long *)ctx);
    CUDA_CHECK_LAUNCH();
}

/** \brief Run the checks, or provoke one CUDA error (`--oom`, `--bad-launch`). */
int main(int argc, char **argv)
{
    cudaDeviceProp props;
    char line[512];
    cuda_init_device(&props);
    if (argc > 1 && strcmp(argv[1], "--oom") == 0) {
        void *p = NULL;
        CUDA_CHECK(cudaMalloc(&p, (size_t)1 << 50)); /* 1 PiB: must fail, exit 3 */
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--bad-launch") == 0) {
        empty_kernel<<<1, 4096>>>(); /* more threads per block than any GPU allows: exit 3 */
        CUDA_CHECK_LAUNCH();
        return 0;
    }

    cuda_device_line(&props, line, sizeof line);
    printf("%s\n", line);
    CHECK(strstr(line, props.name) != NULL && strstr(line, "SMs") != NULL);

    /* the timer: a kernel that waits ~2 ms must time at about 2 ms */
    long long ns = 2000000;
    double ms = cuda_time_median_ms(spin_work, &ns, 1, 5);
    printf("spin of 2 ms timed at %.3f ms\n", ms);
    CHECK(ms > 1.5 && ms < 20.0);
    /* its spread: runs of a fixed wait agree (a spread of 0.5 would mean runs of 1.5 and 2.5 ms) */
    const timing spin = cuda_timing_ms(spin_work, &ns, 1, 9);
    printf("spin of 2 ms: median %.3f ms, spread %.1f %%\n", spin.median, 100.0 * spin.spread);
    CHECK(spin.median > 1.5 && spin.spread >= 0.0 && spin.spread < 0.5);

    /* the memcpy baseline on 2^26 int32 (512 MiB moved): plausible bandwidth */
    size_t n = (size_t)1 << 26;
    void *a = NULL, *b = NULL;
    CUDA_CHECK(cudaMalloc(&a, n * 4));
    CUDA_CHECK(cudaMalloc(&b, n * 4));
    CUDA_CHECK(cudaMemset(a, 1, n * 4));
    double copy_ms = cuda_memcpy_ms(b, a, n * 4, 10);
    double gbs = gb_per_s(scan_min_bytes(n), copy_ms);
    printf("cudaMemcpy D2D of 2^26 int32: %.3f ms, %.0f GB/s\n", copy_ms, gbs);
    CHECK(gbs > 50.0 && gbs < 20000.0);
    CHECK(cuda_memcpy_ms(b, a, 0, 3) == 0.0);
    const timing copy = cuda_memcpy_timing_ms(b, a, n * 4, 10);
    CHECK(copy.median > 0.0 && copy.spread >= 0.0 && cuda_memcpy_timing_ms(b, a, 0, 3).median == 0.0);
    CHECK(cuda_free_bytes() > 0);
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));

    printf("cuda helper tests: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
