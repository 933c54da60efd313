/**
 * \file 11_ceiling.cu
 * \brief Experiment for chapter 11, step 1 (issue 36): the ceiling of a persistent TMA ring
 *        before any scan. A producer warp copies tiles into a ring of shared-memory stages with
 *        `cp.async.bulk`, each stage guarded by two mbarriers (full, empty); consumer warps wait
 *        for a full stage, store it unchanged to global memory and release it. Whatever this
 *        pipeline reaches beside `cudaMemcpy` is the most a scan built on it can reach.
 *
 * Knobs swept: tile bytes T, stages S, blocks per SM B, consumer warps W, how tiles are drawn
 * (an atomic counter, as the scan must, or a static stride), and how a stage is stored (the
 * consumers' registers, as the scan will, or a bulk store `cp.async.bulk.global.shared::cta` by
 * one thread). A plain grid-stride copy kernel is timed beside it. Every configuration's output
 * is compared with its input, element by element, on the device (the output is poisoned first).
 *
 * Build and run (needs a GPU of compute capability 9.0; after `make SMS=90 all`):
 *     nvcc -std=c++20 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -I common \
 *          docs/experiments/11_ceiling.cu build/common/cuda_util.o build/common/report.o \
 *          build/common/cli.o -o build/11_ceiling && build/11_ceiling
 * (docs/experiments/11_steps.sh does that and more). Prints one CSV row per configuration and
 * size: median µs, spread, memcpy µs of the same size in the same run, % of memcpy.
 *
 * Memory order, what each hand-off rests on (PTX ISA 9.0, §9.7.13.15 mbarrier, §9.7.9.25
 * cp.async.bulk, §8 memory consistency model):
 *  - producer → consumers: the bulk copy's writes complete on `full[s]` (complete_tx); a thread
 *    whose `mbarrier.try_wait.parity.acquire.cta` sees the phase complete observes them, and the
 *    producer's plain store of `tile_of[s]` before its `mbarrier.arrive.expect_tx.release.cta`.
 *  - consumers → producer: every consumer thread arrives on `empty[s]` with `.release` after its
 *    last read of the stage; the producer's `try_wait.parity.acquire` on `empty[s]` orders the
 *    next bulk copy into that stage after all of those reads. Generic-proxy reads followed by an
 *    async-proxy write to the same bytes: CUTLASS's `PipelineTmaAsync::consumer_release` orders
 *    them with the arrive alone, no proxy fence; we follow it (an assumption this experiment
 *    tests only as far as its output check can).
 *  - `fence.mbarrier_init.release.cluster` and `fence.proxy.async.shared::cta` after the
 *    barriers' initialisation, so that the copy engine sees initialised barriers (CUDA's TMA
 *    example and CUTLASS do both).
 */
#include "cuda_util.h"
#include "11_ptx.cuh"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** Threads of a warp. */
#define WARP_THREADS 32
/** tile_of[s] when the producer has run out of tiles: consumers leave. */
#define NO_TILE 0xffffffffu

/** How a stage reaches global memory. */
enum { STORE_REGS, STORE_BULK };
/** How the producer draws tiles. */
enum { DRAW_ATOMIC, DRAW_STATIC };

/* ---------------------------------------------------------------------------------------- */
/* The bulk store's wrappers (the others, shared with 11_scan_proto.cu, are in 11_ptx.cuh)   */
/* ---------------------------------------------------------------------------------------- */

/** `cp.async.bulk` shared → global of `bytes` (a multiple of 16), then `commit_group`. */
__device__ static void bulk_store_to_global(void *dst, const void *src, unsigned bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                 : : "l"(dst), "r"(smem_addr(src)), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.commit_group;" : : : "memory");
}

/** Wait until every bulk store of this thread has finished reading shared memory. */
__device__ static void bulk_wait_read_all(void)
{
    asm volatile("cp.async.bulk.wait_group.read 0;" : : : "memory");
}

/** Wait until every bulk store of this thread is complete. */
__device__ static void bulk_wait_all(void)
{
    asm volatile("cp.async.bulk.wait_group 0;" : : : "memory");
}

/* ---------------------------------------------------------------------------------------- */
/* The ring                                                                                 */
/* ---------------------------------------------------------------------------------------- */

/** What one launch of ring_copy_kernel() is told. */
typedef struct ring_params {
    const int32_t *in;     /**< input */
    int32_t *out;          /**< output */
    size_t n;              /**< elements */
    unsigned tile_bytes;   /**< bytes per tile: a multiple of 16 */
    unsigned stages;       /**< stages in the ring */
    unsigned store;        /**< STORE_REGS or STORE_BULK */
    unsigned draw;         /**< DRAW_ATOMIC or DRAW_STATIC */
    unsigned *counter;     /**< the atomic draw's counter (zeroed before each launch) */
    unsigned *error;       /**< raised by the watchdog */
} ring_params;

/**
 * \brief Copy `in` to `out` through a ring of `stages` shared-memory stages: the last warp is the
 *        producer (lane 0 draws tiles and issues bulk copies), the warps before it consume.
 * \pre blockDim.x = (W + 1) · 32; dynamic shared memory = stages · (tile_bytes + 24) bytes;
 *      n · 4 ≥ 16 · tiles is not needed: a tail under 16 bytes is copied by the consumers.
 * \warning the stage's reuse (a bulk copy after generic reads) is ordered by the mbarrier alone.
 */
__global__ void ring_copy_kernel(ring_params p)
{
    extern __shared__ __align__(128) unsigned char smem[];
    const unsigned S = p.stages, T = p.tile_bytes;
    uint64_t *full = (uint64_t *)(smem + (size_t)S * T);
    uint64_t *empty = full + S;
    unsigned *tile_of = (unsigned *)(empty + S);
    const unsigned consumer_warps = blockDim.x / WARP_THREADS - 1;
    const unsigned consumer_threads = consumer_warps * WARP_THREADS;
    const unsigned warp = threadIdx.x / WARP_THREADS, lane = threadIdx.x % WARP_THREADS;
    const size_t tile_items = T / 4;
    const size_t tiles = (p.n + tile_items - 1) / tile_items;

    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < S; ++s) {
            mbarrier_init(&full[s], 1);
            mbarrier_init(&empty[s], p.store == STORE_BULK ? 1 : consumer_threads);
        }
        fence_mbarrier_init();
        fence_proxy_async_shared();
    }
    __syncthreads(); /* the barriers are initialised before anyone uses them */

    if (warp == consumer_warps) { /* the producer */
        if (lane != 0)
            return;
        for (unsigned k = 0;; ++k) {
            const unsigned s = k % S;
            if (k >= S && !wait_parity(&empty[s], (k / S - 1) & 1u, p.error))
                return;
            const size_t tile = p.draw == DRAW_ATOMIC ? (size_t)atomicAdd(p.counter, 1u)
                                                      : (size_t)blockIdx.x + (size_t)k * gridDim.x;
            if (tile >= tiles) {
                tile_of[s] = NO_TILE;
                mbarrier_arrive(&full[s]);
                return;
            }
            tile_of[s] = (unsigned)tile;
            const size_t first = tile * tile_items;
            const size_t count = p.n - first < tile_items ? p.n - first : tile_items;
            const unsigned bytes = (unsigned)(count * 4) & ~15u; /* bulk sizes are 16-byte multiples */
            if (bytes) {
                mbarrier_arrive_expect_tx(&full[s], bytes);
                bulk_copy_to_shared(smem + (size_t)s * T, p.in + first, bytes, &full[s]);
            } else {
                mbarrier_arrive(&full[s]);
            }
        }
    }

    /* the consumers */
    if (p.store == STORE_BULK && threadIdx.x != 0)
        return;
    for (unsigned k = 0;; ++k) {
        const unsigned s = k % S;
        if (!wait_parity(&full[s], (k / S) & 1u, p.error))
            return;
        const unsigned tile = tile_of[s];
        if (tile == NO_TILE)
            break;
        const size_t first = (size_t)tile * tile_items;
        const size_t count = p.n - first < tile_items ? p.n - first : tile_items;
        const size_t vectors = count / 4;
        const int4 *stage = (const int4 *)(smem + (size_t)s * T);
        if (p.store == STORE_BULK) {
            if (vectors) {
                fence_proxy_async_shared(); /* hypothesis: not needed between two async-proxy uses */
                bulk_store_to_global(p.out + first, stage, (unsigned)(vectors * 16));
                bulk_wait_read_all(); /* the stage is read before it is released */
            }
        } else {
            int4 *dst = (int4 *)(p.out + first);
#pragma unroll 4
            for (size_t v = threadIdx.x; v < vectors; v += consumer_threads)
                dst[v] = stage[v];
        }
        if (threadIdx.x == 0)
            for (size_t i = vectors * 4; i < count; ++i) /* the tail under 16 bytes */
                p.out[first + i] = p.in[first + i];
        mbarrier_arrive(&empty[s]);
    }
    if (p.store == STORE_BULK)
        bulk_wait_all();
}

/** \brief The reference: a grid-stride copy of 16-byte vectors (tail by thread 0 of block 0). */
__global__ void plain_copy_kernel(const int4 *in, int4 *out, size_t vectors, const int32_t *in32,
                                  int32_t *out32, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t v = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; v + 3 * stride < vectors; v += 4 * stride) {
        const int4 a = in[v], b = in[v + stride], c = in[v + 2 * stride], d = in[v + 3 * stride];
        out[v] = a;
        out[v + stride] = b;
        out[v + 2 * stride] = c;
        out[v + 3 * stride] = d;
    }
    for (; v < vectors; v += stride)
        out[v] = in[v];
    if (blockIdx.x == 0 && threadIdx.x == 0)
        for (size_t i = vectors * 4; i < n; ++i)
            out32[i] = in32[i];
}

/** \brief Random full-range values (a hash of the index and seed): never zeros. */
__global__ void fill_kernel(int32_t *a, size_t n, uint32_t seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull + seed;
        x ^= x >> 31;
        x *= 0xbf58476d1ce4e5b9ull;
        x ^= x >> 29;
        a[i] = (int32_t)(uint32_t)x;
    }
}

/** \brief Count the elements where `out` differs from `in`. */
__global__ void compare_kernel(const int32_t *in, const int32_t *out, size_t n,
                               unsigned long long *wrong)
{
    unsigned long long mine = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        mine += in[i] != out[i];
    if (mine)
        atomicAdd(wrong, mine);
}

/* ---------------------------------------------------------------------------------------- */
/* Host                                                                                     */
/* ---------------------------------------------------------------------------------------- */

/** One configuration of the sweep. */
typedef struct ring_config {
    unsigned tile_bytes;     /**< T */
    unsigned stages;         /**< S */
    unsigned blocks_per_sm;  /**< B */
    unsigned consumer_warps; /**< W */
    unsigned draw;           /**< DRAW_ATOMIC or DRAW_STATIC */
    unsigned store;          /**< STORE_REGS or STORE_BULK */
} ring_config;

/** What launch_ring() and launch_plain() need. */
typedef struct ring_job {
    ring_params p;   /**< the ring's parameters */
    ring_config c;   /**< its configuration */
    unsigned grid;   /**< blocks */
    size_t smem;     /**< dynamic shared memory per block */
} ring_job;

/** The ::gpu_work_fn of the ring: clear the counter (atomic draws), launch. */
static void launch_ring(void *ctx)
{
    ring_job *j = (ring_job *)ctx;
    if (j->p.draw == DRAW_ATOMIC)
        CUDA_CHECK(cudaMemsetAsync(j->p.counter, 0, sizeof(unsigned), 0));
    ring_copy_kernel<<<j->grid, (j->c.consumer_warps + 1) * WARP_THREADS, j->smem>>>(j->p);
}

/** The ::gpu_work_fn of the plain copy kernel. */
static void launch_plain(void *ctx)
{
    ring_job *j = (ring_job *)ctx;
    plain_copy_kernel<<<j->grid, 256>>>((const int4 *)j->p.in, (int4 *)j->p.out, j->p.n / 4,
                                        j->p.in, j->p.out, j->p.n);
}

/** Poison out, run once, compare; returns the count of wrong elements (or exits 3). */
static unsigned long long check_once(gpu_work_fn work, ring_job *j, unsigned long long *d_wrong,
                                     unsigned *d_error)
{
    unsigned long long wrong = 0;
    unsigned error = 0;
    CUDA_CHECK(cudaMemset(j->p.out, 0xab, j->p.n * 4));
    CUDA_CHECK(cudaMemset(d_wrong, 0, sizeof *d_wrong));
    work(j);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(&error, d_error, sizeof error, cudaMemcpyDeviceToHost));
    if (error) {
        fprintf(stderr, "11_ceiling: watchdog fired (T=%u S=%u B=%u W=%u)\n", j->c.tile_bytes,
                j->c.stages, j->c.blocks_per_sm, j->c.consumer_warps);
        exit(3);
    }
    compare_kernel<<<1024, 256>>>(j->p.in, j->p.out, j->p.n, d_wrong);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(&wrong, d_wrong, sizeof wrong, cudaMemcpyDeviceToHost));
    return wrong;
}

/** The size 2^K or a decimal from a string. */
static size_t parse_size(const char *s)
{
    if (s[0] == '2' && s[1] == '^')
        return (size_t)1 << atoi(s + 2);
    return (size_t)strtoull(s, NULL, 10);
}

/**
 * \brief Sweep the configurations at each size given (default 2^28), print CSV rows.
 *        `--quick` sweeps fewer; `--only T,S,B,W,draw,store` times one configuration.
 */
int main(int argc, char **argv)
{
    cudaDeviceProp props;
    char line[256];
    cuda_init_device(&props);
    printf("# %s\n", cuda_device_line(&props, line, sizeof line));
    if (props.major < 9) {
        printf("# needs compute capability 9.0 (cp.async.bulk, mbarrier expect_tx)\n");
        return 3;
    }
    size_t sizes[8];
    int size_count = 0, quick = 0, reps = 20;
    const char *only = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (size_count < 8)
            sizes[size_count++] = parse_size(argv[i]);
    }
    if (!size_count)
        sizes[size_count++] = (size_t)1 << 28;

    size_t max_n = 0;
    for (int i = 0; i < size_count; ++i)
        if (sizes[i] > max_n)
            max_n = sizes[i];
    int32_t *d_in, *d_out;
    unsigned *d_counter, *d_error;
    unsigned long long *d_wrong;
    CUDA_CHECK(cudaMalloc((void **)&d_in, max_n * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_out, max_n * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_counter, sizeof *d_counter));
    CUDA_CHECK(cudaMalloc((void **)&d_error, sizeof *d_error));
    CUDA_CHECK(cudaMalloc((void **)&d_wrong, sizeof *d_wrong));
    CUDA_CHECK(cudaMemset(d_error, 0, sizeof *d_error));
    fill_kernel<<<1024, 256>>>(d_in, max_n, 12345u);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaFuncSetAttribute(ring_copy_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)props.sharedMemPerBlockOptin));

    static const unsigned TILES_FULL[] = {8192, 16384, 32768};
    static const unsigned STAGES_FULL[] = {2, 3, 4, 6, 8, 12};
    static const unsigned BLOCKS_FULL[] = {1, 2, 3, 4};
    static const unsigned WARPS_FULL[] = {2, 4, 8};
    ring_config configs[1024];
    int count = 0;
    if (only) {
        ring_config c;
        if (sscanf(only, "%u,%u,%u,%u,%u,%u", &c.tile_bytes, &c.stages, &c.blocks_per_sm,
                   &c.consumer_warps, &c.draw, &c.store) != 6) {
            fprintf(stderr, "11_ceiling: --only wants T,S,B,W,draw(0 atomic,1 static),store(0 regs,1 bulk)\n");
            return 2;
        }
        configs[count++] = c;
    } else {
        for (unsigned a = 0; a < 3; ++a)
            for (unsigned b = 0; b < 6; ++b)
                for (unsigned c = 0; c < 4; ++c)
                    for (unsigned d = 0; d < 3; ++d)
                        for (unsigned draw = 0; draw < 2; ++draw)
                            for (unsigned store = 0; store < 2; ++store) {
                                ring_config x = {TILES_FULL[a], STAGES_FULL[b], BLOCKS_FULL[c],
                                            WARPS_FULL[d], draw, store};
                                if (store == STORE_BULK && x.consumer_warps != WARPS_FULL[0])
                                    continue; /* one thread stores: the warp count is moot */
                                if (quick && (draw == DRAW_STATIC || x.consumer_warps == 2))
                                    continue;
                                if (count < 1024)
                                    configs[count++] = x;
                            }
    }

    printf("kernel,tile_bytes,stages,blocks_per_sm,consumer_warps,draw,store,n,us,spread_pct,"
           "memcpy_us,memcpy_spread_pct,pct_memcpy,wrong\n");
    for (int si = 0; si < size_count; ++si) {
        const size_t n = sizes[si];
        ring_job j;
        memset(&j, 0, sizeof j);
        j.p.in = d_in;
        j.p.out = d_out;
        j.p.n = n;
        j.p.counter = d_counter;
        j.p.error = d_error;
        const timing m0 = cuda_memcpy_timing_ms(d_out, d_in, n * 4, reps);
        j.grid = props.multiProcessorCount * 4;
        const unsigned long long plain_wrong = check_once(launch_plain, &j, d_wrong, d_error);
        const timing tp = cuda_timing_ms(launch_plain, &j, 3, reps);
        printf("plain,0,0,0,0,0,0,%zu,%.2f,%.1f,%.2f,%.1f,%.1f,%llu\n", n, tp.median * 1e3,
               tp.spread * 100, m0.median * 1e3, m0.spread * 100, 100 * m0.median / tp.median,
               plain_wrong);
        for (int ci = 0; ci < count; ++ci) {
            const ring_config c = configs[ci];
            j.c = c;
            j.p.tile_bytes = c.tile_bytes;
            j.p.stages = c.stages;
            j.p.store = c.store;
            j.p.draw = c.draw;
            j.smem = (size_t)c.stages * (c.tile_bytes + 8 + 8 + 4);
            if (j.smem > props.sharedMemPerBlockOptin)
                continue;
            int resident = 0;
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &resident, ring_copy_kernel, (c.consumer_warps + 1) * WARP_THREADS, j.smem));
            if ((unsigned)resident < c.blocks_per_sm)
                continue; /* does not fit: not a persistent grid */
            j.grid = props.multiProcessorCount * c.blocks_per_sm;
            const unsigned long long wrong = check_once(launch_ring, &j, d_wrong, d_error);
            const timing t = cuda_timing_ms(launch_ring, &j, 3, reps);
            const timing m = cuda_memcpy_timing_ms(d_out, d_in, n * 4, reps);
            printf("ring,%u,%u,%u,%u,%s,%s,%zu,%.2f,%.1f,%.2f,%.1f,%.1f,%llu\n", c.tile_bytes,
                   c.stages, c.blocks_per_sm, c.consumer_warps,
                   c.draw == DRAW_ATOMIC ? "atomic" : "static",
                   c.store == STORE_REGS ? "regs" : "bulk", n, t.median * 1e3, t.spread * 100,
                   m.median * 1e3, m.spread * 100, 100 * m.median / t.median, wrong);
            fflush(stdout);
        }
    }
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_counter));
    CUDA_CHECK(cudaFree(d_error));
    CUDA_CHECK(cudaFree(d_wrong));
    return 0;
}
