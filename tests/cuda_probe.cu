/**
 * \file cuda_probe.cu
 * \brief Is there a CUDA device here that runs our code? Asked, not guessed.
 *
 * `make test` runs this before any GPU suite. It asks the runtime for devices and then runs one
 * tiny kernel and reads its result back, so that "a device is listed" and "our binaries run on
 * it" are both checked. Exit status: 0 a device ran the kernel (its line is printed); 1 no usable
 * device (the reason is printed: the GPU suites are skipped); 2 a device is there but the kernel
 * did not run correctly (a real failure, e.g. the binary lacks this GPU's architecture).
 */
#include "cuda_util.h"

#include <cuda_runtime.h>
#include <stdio.h>

/** \brief Write a known value. \pre one block of one thread. */
__global__ void probe_kernel(int *out)
{
    *out = 0x5CA2;
}

/** \brief Probe for a device and run probe_kernel() on it. */
int main(void)
{
    int count = 0, host = 0, *d_out = NULL;
    cudaDeviceProp props;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        char reason[256];
        printf("%s\n", cuda_no_device_reason(status, count, reason, sizeof reason));
        return 1;
    }
    if ((status = cudaGetDeviceProperties(&props, 0)) != cudaSuccess ||
        (status = cudaMalloc(&d_out, sizeof(int))) != cudaSuccess) {
        printf("CUDA device listed but not usable (%s)\n", cudaGetErrorString(status));
        return 1;
    }
    probe_kernel<<<1, 1>>>(d_out);
    if ((status = cudaGetLastError()) != cudaSuccess ||
        (status = cudaMemcpy(&host, d_out, sizeof(int), cudaMemcpyDeviceToHost)) != cudaSuccess ||
        host != 0x5CA2) {
        printf("%s (compute capability %d.%d) did not run the probe kernel: %s\n", props.name,
               props.major, props.minor,
               status != cudaSuccess ? cudaGetErrorString(status) : "wrong value read back");
        return 2;
    }
    cudaFree(d_out);
    printf("%s, compute capability %d.%d, %d SMs: probe kernel ran\n", props.name, props.major,
           props.minor, props.multiProcessorCount);
    return 0;
}
