/**
 * \file atomic_draws.cu
 * \brief Experiment: how fast can blocks draw tile ids from one atomic counter? Times a kernel
 *        whose blocks only draw an id (one `atomicAdd` on one address per block) against the
 *        same kernel without the draw, for the tile counts of n = 2^28 with tiles of 1024 and
 *        4096 elements. Chapters 07 and 08 draw their tile ids this way.
 *
 * Build and run (needs a GPU; after `make SMS=90 all`):
 *     nvcc -O3 -arch=sm_90 -I common docs/experiments/atomic_draws.cu build/common/cuda_util.o \
 *          build/common/report.o build/common/cli.o -o build/atomic_draws && build/atomic_draws
 * Prints, per grid, the median of 20 timed launches of each kernel and the draws per second they
 * imply.
 */
#include "cuda_util.h"

#include <stdio.h>

/** Threads per block, as in chapters 07 and 08. */
#define DRAW_THREADS 128

/** Each block's thread 0 draws an id; the id is kept only if it is impossible, so the draw
    cannot be optimised away. */
__global__ void draw_kernel(unsigned *counter, unsigned *sink)
{
    if (threadIdx.x == 0) {
        const unsigned id = atomicAdd(counter, 1u);
        if (id == 0xffffffffu)
            *sink = id;
    }
}

/** The same blocks without the draw. */
__global__ void empty_kernel(unsigned *counter, unsigned *sink)
{
    if (threadIdx.x == 0 && blockIdx.x == 0xffffffffu)
        *sink = *counter;
}

/** What time_launch() launches. */
typedef struct launch_job {
    int draw;          /**< 1: draw_kernel, 0: empty_kernel */
    unsigned blocks;   /**< grid size */
    unsigned *counter; /**< the counter */
    unsigned *sink;    /**< never written */
} launch_job;

/** The ::gpu_work_fn: one launch. */
static void launch(void *ctx)
{
    const launch_job *j = (const launch_job *)ctx;
    if (j->draw)
        draw_kernel<<<j->blocks, DRAW_THREADS>>>(j->counter, j->sink);
    else
        empty_kernel<<<j->blocks, DRAW_THREADS>>>(j->counter, j->sink);
}

/** \brief Time both kernels for each grid and print the draws per second. */
int main(void)
{
    cudaDeviceProp props;
    char line[256];
    cuda_init_device(&props);
    printf("%s\n", cuda_device_line(&props, line, sizeof line));
    unsigned *d_counter, *d_sink;
    CUDA_CHECK(cudaMalloc((void **)&d_counter, sizeof *d_counter));
    CUDA_CHECK(cudaMalloc((void **)&d_sink, sizeof *d_sink));
    CUDA_CHECK(cudaMemset(d_counter, 0, sizeof *d_counter));
    const unsigned grids[] = {1u << 16, 1u << 18};
    for (int g = 0; g < 2; ++g) {
        launch_job draw = {1, grids[g], d_counter, d_sink}, empty = {0, grids[g], d_counter, d_sink};
        const double empty_ms = cuda_time_median_ms(launch, &empty, 3, 20);
        const double draw_ms = cuda_time_median_ms(launch, &draw, 3, 20);
        CUDA_CHECK_LAUNCH();
        printf("blocks %u: empty %.2f us, drawing %.2f us: %.0f million draws per second "
               "(%.0f million counting only the time the draws add)\n",
               grids[g], empty_ms * 1e3, draw_ms * 1e3, grids[g] / (draw_ms * 1e3),
               draw_ms > empty_ms ? grids[g] / ((draw_ms - empty_ms) * 1e3) : 0.0);
    }
    CUDA_CHECK(cudaFree(d_counter));
    CUDA_CHECK(cudaFree(d_sink));
    return 0;
}
