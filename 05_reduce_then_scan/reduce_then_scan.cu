/**
 * \file reduce_then_scan.cu
 * \brief Chapter 05: reduce-then-scan over G resident blocks: each block reduces its chunk, one
 *        block scans the G aggregates, each block scans its chunk again seeded with its prefix.
 *
 * What is new since chapter 04: chapter 04 wrote every scanned element once and then read and
 * wrote it again to add its carry: 4n element moves. A carry only needs the *sum* of what came
 * before, and a sum needs no output. So the first pass here only reads (n moves), and the scan
 * is done once, in the last pass, already knowing its prefix (2n moves): 3n in all, a bound of
 * 2/3 of `cudaMemcpy`. And instead of one block per tile, which made the aggregates a second
 * large array and needed recursion, there are only as many blocks as the GPU keeps resident at
 * once (G, from the occupancy API), each owning one long contiguous chunk of tiles: G aggregates
 * fit one block, so there are always exactly three kernels:
 *  1. `reduce_chunks_kernel`  every block sums its chunk and writes one aggregate;
 *  2. `scan_chunks_kernel` with one block: the exclusive scan of the G aggregates, in place;
 *     entry b is now the sum of every chunk before chunk b, block b's *prefix*;
 *  3. `scan_chunks_kernel` with G blocks: every block scans its chunk tile by tile, seeded with
 *     its prefix and carrying the running total from tile to tile.
 *
 * Build and run: `make chapter-5 && ./run` from the top folder, or `make && ./run` here.
 * Follows Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back" (2016),
 * Fig 3 (reduce-then-scan with G blocks), itself after Merrill & Grimshaw (2009). Every index is
 * a `size_t`; sums are kept in `uint32_t`, so overflow wraps.
 */
#include "cuda_util.h"
#include "gpu_driver.h"

#include <stdint.h>
#include <stdio.h>

/** Elements one block scans at a time: chapter 03's coarsened tile. */
#define TILE_ITEMS 1024
/** Threads of one warp. */
#define WARP_THREADS 32
/** Every lane of the warp: the mask of a shuffle that all 32 lanes must execute. */
#define FULL_MASK 0xffffffffu
/** Threads of a block: 128, 8 elements each (two 128-bit loads), as in chapter 03. */
#define COARSE_THREADS 128
/** Elements per thread. */
#define ITEMS_PER_THREAD (TILE_ITEMS / COARSE_THREADS)
/** Warps per block. */
#define COARSE_WARPS (COARSE_THREADS / WARP_THREADS)

/** The variants (one: reduce-then-scan). */
enum { VARIANT_REDUCE_THEN_SCAN, VARIANT_COUNT };

/** Names for `--variant`. */
static const char *const VARIANT_NAMES[VARIANT_COUNT] = {"reduce-then-scan"};

/* ------------------------------------------------------------------------------------------ */
/* Carried over unchanged from chapter 02 (02_warp_shfl/warp_shfl.cu, via chapter 03)           */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Inclusive scan of one value per lane across the warp: Kogge-Stone with shuffles.
 *
 * Step k adds the value of the lane 2^k below: after 5 steps lane i holds x0 + … + xi.
 * Depth 5, size 31+30+28+24+16 = 129 additions (more than the 31 of a serial loop, but every lane
 * is busy anyway). No shared memory and no barrier: `__shfl_up_sync` both moves the data and
 * synchronises the lanes named in its mask.
 * \param x this lane's value
 * \return  the sum of the values of lanes 0 … this lane
 * \pre All 32 lanes of the warp call it together (the mask is FULL_MASK).
 */
__device__ uint32_t warp_inclusive_scan(uint32_t x)
{
    /* [student part: warp-scan; explained in 02_warp_shfl/README.md, "The idea"] */
    const int lane = threadIdx.x % WARP_THREADS;
    for (int offset = 1; offset < WARP_THREADS; offset *= 2) {
        /* Every lane executes the shuffle, even those that do not use the result: a lane named
           in the mask that has not exited but does not arrive is undefined behaviour (an
           exited lane is allowed, but a value read from it is undefined). */
        uint32_t below = __shfl_up_sync(FULL_MASK, x, offset);
        if (lane >= offset)
            x += below;
    }
    return x;
    /* [end of student part: warp-scan] */
}

/* ------------------------------------------------------------------------------------------ */
/* Carried over unchanged from chapter 03 (03_block_scan/block_scan.cu)                         */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Load this thread's ITEMS_PER_THREAD consecutive elements of a tile into registers.
 *
 * When the whole tile lies inside the array, ITEMS_PER_THREAD / 4 loads of 128 bits (uint4) each:
 * every thread has 32 bytes in flight instead of 4, and the memory system sees fewer, larger
 * requests. A tile cut short by the end of the array is loaded one element at a time, with 0 (the
 * identity) past the end, so that the scan needs no special case.
 * \param in         input array, 16-byte aligned
 * \param n          element count
 * \param tile_first index of the tile's first element
 * \param item       receives the thread's elements
 * \pre blockDim.x == COARSE_THREADS.
 */
__device__ void load_tile(const int32_t *in, size_t n, size_t tile_first,
                          uint32_t item[ITEMS_PER_THREAD])
{
    const size_t first = tile_first + (size_t)threadIdx.x * ITEMS_PER_THREAD;
    if (tile_first + TILE_ITEMS <= n) {
        const uint4 *vector = (const uint4 *)(in + first);
        for (int v = 0; v < ITEMS_PER_THREAD / 4; ++v) {
            const uint4 q = vector[v];
            item[4 * v] = q.x;
            item[4 * v + 1] = q.y;
            item[4 * v + 2] = q.z;
            item[4 * v + 3] = q.w;
        }
    } else {
        /* [student part: ragged-load; explained in 03_block_scan/README.md, "The code"] */
        for (int k = 0; k < ITEMS_PER_THREAD; ++k)
            item[k] = first + k < n ? (uint32_t)in[first + k] : 0;
        /* [end of student part: ragged-load] */
    }
}

/**
 * \brief The coarsened Sklansky block scan: scan a tile held in registers, ITEMS_PER_THREAD
 *        elements per thread, with one barrier.
 *
 * Each thread scans its own elements serially (no communication), and only its total takes part
 * in the warp scan: eight times fewer shuffles per element than one element per thread. The
 * warp totals meet in shared memory behind the one barrier; each thread then adds the totals of
 * the warps before its own (a fan-out of at most COARSE_WARPS − 1 additions instead of warp 0
 * scanning them: no second barrier).
 * \param item      in: this thread's elements; out: their inclusive scan within the thread
 * \param aggregate receives the sum of the whole tile (in every thread)
 * \return the sum of the tile's elements before this thread's first: its exclusive prefix
 * \pre blockDim.x == COARSE_THREADS; every thread of the block calls it.
 * \warning The shared totals are reused by the next call: a block that calls it again (a loop
 *          over tiles) must pass a `__syncthreads()` in between, or a fast warp overwrites totals
 *          that a slow warp is still reading.
 */
__device__ uint32_t block_scan_tile(uint32_t item[ITEMS_PER_THREAD], uint32_t *aggregate)
{
    __shared__ uint32_t warp_total[COARSE_WARPS];
    const int lane = threadIdx.x % WARP_THREADS, warp = threadIdx.x / WARP_THREADS;
    /* 1. serial scan of the thread's own elements */
    for (int k = 1; k < ITEMS_PER_THREAD; ++k)
        item[k] += item[k - 1];
    /* 2. warp scan of the thread totals */
    const uint32_t thread_total = item[ITEMS_PER_THREAD - 1];
    const uint32_t warp_inclusive = warp_inclusive_scan(thread_total);
    if (lane == WARP_THREADS - 1)
        warp_total[warp] = warp_inclusive;
    __syncthreads(); /* every warp total is written */
    /* 3. fan-out: the totals of the warps before this one, plus this thread's prefix in its warp */
    uint32_t before = 0, total = 0;
    for (int w = 0; w < warp; ++w)
        before += warp_total[w];
    for (int w = 0; w < COARSE_WARPS; ++w)
        total += warp_total[w];
    *aggregate = total;
    return before + warp_inclusive - thread_total;
}

/**
 * \brief Store this thread's ITEMS_PER_THREAD results: `prefix` plus its inclusive scan value
 *        (inclusive scan) or plus the value before it (exclusive scan).
 *
 * Vector stores for a whole tile, element by element (nothing past n) for a tile cut short.
 * \param out        output array, 16-byte aligned
 * \param n          element count
 * \param tile_first index of the tile's first element
 * \param item       the thread's inclusive scan values from block_scan_tile()
 * \param prefix     what precedes the thread's first element
 * \param exclusive  1 for exclusive, 0 for inclusive
 * \pre blockDim.x == COARSE_THREADS.
 */
__device__ void store_tile(int32_t *out, size_t n, size_t tile_first,
                           const uint32_t item[ITEMS_PER_THREAD], uint32_t prefix, int exclusive)
{
    const size_t first = tile_first + (size_t)threadIdx.x * ITEMS_PER_THREAD;
    uint32_t result[ITEMS_PER_THREAD];
    for (int k = 0; k < ITEMS_PER_THREAD; ++k)
        result[k] = prefix + (exclusive ? (k ? item[k - 1] : 0) : item[k]);
    if (tile_first + TILE_ITEMS <= n) {
        uint4 *vector = (uint4 *)(out + first);
        for (int v = 0; v < ITEMS_PER_THREAD / 4; ++v)
            vector[v] = make_uint4(result[4 * v], result[4 * v + 1], result[4 * v + 2],
                                   result[4 * v + 3]);
    } else {
        /* [student part: ragged-store; explained in 03_block_scan/README.md, "The code"] */
        for (int k = 0; k < ITEMS_PER_THREAD; ++k)
            if (first + k < n)
                out[first + k] = (int32_t)result[k];
        /* [end of student part: ragged-store] */
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The lesson: reduce, scan the aggregates, scan again seeded                                   */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief The sum of one value per thread over the whole block, returned to every thread.
 *
 * Each warp reduces its 32 values with chapter 02's shuffle scan (lane 31 ends with the warp's
 * total; a butterfly of `__shfl_xor_sync` would do the same in as many steps), the COARSE_WARPS
 * totals meet in shared memory behind one barrier, and every thread adds them up.
 * \param x this thread's value
 * \return the sum over the block
 * \pre blockDim.x == COARSE_THREADS; every thread of the block calls it, once per kernel.
 */
__device__ uint32_t block_reduce(uint32_t x)
{
    __shared__ uint32_t warp_total[COARSE_WARPS];
    const int lane = threadIdx.x % WARP_THREADS, warp = threadIdx.x / WARP_THREADS;
    x = warp_inclusive_scan(x);
    if (lane == WARP_THREADS - 1)
        warp_total[warp] = x;
    __syncthreads(); /* every warp total is written */
    uint32_t total = 0;
    for (int w = 0; w < COARSE_WARPS; ++w)
        total += warp_total[w];
    return total;
}

/**
 * \brief Pass 1: block b sums the elements of its chunk (tiles b·tiles_per_block …
 *        (b+1)·tiles_per_block − 1) and writes the sum to `block_aggregate[b]`. Reads n, writes G.
 *
 * The loop has no barrier: each thread keeps a running sum of its own elements in a register, and
 * the block combines them once, at the end.
 * \param in              input, n elements, 16-byte aligned
 * \param n               element count
 * \param tiles_per_block tiles in every chunk (the last chunk may be shorter)
 * \param block_aggregate one word per block
 * \pre blockDim.x == COARSE_THREADS; gridDim.x == ceil(tiles / tiles_per_block).
 */
__global__ void reduce_chunks_kernel(const int32_t *in, size_t n, size_t tiles_per_block,
                                     int32_t *block_aggregate)
{
    const size_t chunk_first = (size_t)blockIdx.x * tiles_per_block * TILE_ITEMS;
    const size_t chunk_end = chunk_first + tiles_per_block * TILE_ITEMS;
    uint32_t sum = 0;
    for (size_t tile_first = chunk_first; tile_first < chunk_end && tile_first < n;
         tile_first += TILE_ITEMS) {
        uint32_t item[ITEMS_PER_THREAD];
        load_tile(in, n, tile_first, item);
        for (int k = 0; k < ITEMS_PER_THREAD; ++k)
            sum += item[k];
    }
    const uint32_t aggregate = block_reduce(sum);
    if (threadIdx.x == 0)
        block_aggregate[blockIdx.x] = (int32_t)aggregate;
}

/**
 * \brief Passes 2 and 3: block b scans its chunk tile by tile, starting from its prefix
 *        (`block_prefix[b]`, or 0) and carrying each tile's aggregate into the next tile.
 *
 * Pass 2 launches it with one block over the G aggregates, in place and exclusive, with no
 * prefix: that turns aggregates into prefixes. Pass 3 launches it with G blocks over the data.
 * \param in              input, n elements, 16-byte aligned
 * \param out             output, n elements, 16-byte aligned (may be `in`: each thread reads its
 *                        elements of a tile before it writes them, and no other thread touches them)
 * \param n               element count
 * \param tiles_per_block tiles in every chunk (the last chunk may be shorter)
 * \param block_prefix    one word per block: the sum of every chunk before it; NULL for all 0
 * \param exclusive       1 for exclusive, 0 for inclusive
 * \pre blockDim.x == COARSE_THREADS; gridDim.x == ceil(tiles / tiles_per_block).
 */
__global__ void scan_chunks_kernel(const int32_t *in, int32_t *out, size_t n,
                                   size_t tiles_per_block, const int32_t *block_prefix,
                                   int exclusive)
{
    /* [student part: seeded-scan; explained in 05_reduce_then_scan/README.md, "The idea"] */
    const size_t chunk_first = (size_t)blockIdx.x * tiles_per_block * TILE_ITEMS;
    const size_t chunk_end = chunk_first + tiles_per_block * TILE_ITEMS;
    uint32_t carry = block_prefix ? (uint32_t)block_prefix[blockIdx.x] : 0;
    for (size_t tile_first = chunk_first; tile_first < chunk_end && tile_first < n;
         tile_first += TILE_ITEMS) {
        uint32_t item[ITEMS_PER_THREAD], aggregate;
        load_tile(in, n, tile_first, item);
        const uint32_t prefix = block_scan_tile(item, &aggregate);
        store_tile(out, n, tile_first, item, carry + prefix, exclusive);
        carry += aggregate;
        __syncthreads(); /* block_scan_tile()'s shared totals are rewritten by the next tile */
    }
    /* [end of student part: seeded-scan] */
}

/* ------------------------------------------------------------------------------------------ */
/* Host launcher                                                                                */
/* ------------------------------------------------------------------------------------------ */

/** Tiles of n elements. */
static size_t tile_count(size_t n)
{
    return (n + TILE_ITEMS - 1) / TILE_ITEMS;
}

/** Blocks of our kernels that fit on one SM, found once by resident_blocks(). */
static int g_blocks_per_sm;
/** SMs of this GPU (0 until resident_blocks() has asked). */
static int g_sm_count;

/**
 * \brief G: how many blocks of our kernels the GPU keeps resident at once, from the occupancy
 *        API (registers, shared memory and the per-SM limits of this GPU), times the SM count.
 *        Asked once; the answer does not change while the program runs.
 */
static size_t resident_blocks(void)
{
    if (g_sm_count == 0) {
        int device, reduce_per_sm, scan_per_sm;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&g_sm_count, cudaDevAttrMultiProcessorCount, device));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &reduce_per_sm, reduce_chunks_kernel, COARSE_THREADS, 0));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&scan_per_sm, scan_chunks_kernel,
                                                                 COARSE_THREADS, 0));
        g_blocks_per_sm = reduce_per_sm < scan_per_sm ? reduce_per_sm : scan_per_sm;
    }
    return (size_t)g_blocks_per_sm * (size_t)g_sm_count;
}

/** How n elements are split: tiles per chunk, and blocks (chunks) in use, at most G. */
typedef struct chunking {
    size_t tiles_per_block; /**< tiles in every chunk but perhaps the last */
    size_t blocks;          /**< chunks, one block each: ceil(tiles / tiles_per_block) ≤ G */
} chunking;

/** Split n elements into at most G contiguous chunks of whole tiles (none empty). */
static chunking split_into_chunks(size_t n, size_t g)
{
    chunking c = {0, 0};
    const size_t tiles = tile_count(n);
    if (tiles == 0)
        return c;
    c.tiles_per_block = (tiles + g - 1) / g;
    c.blocks = (tiles + c.tiles_per_block - 1) / c.tiles_per_block;
    return c;
}

/** The ::gpu_temp_fn: G words for the aggregates (prefixes after pass 2). */
static size_t reduce_then_scan_temp_bytes(int variant, size_t n)
{
    (void)variant;
    return n ? resident_blocks() * sizeof(int32_t) : 0;
}

/**
 * \brief The ::gpu_traffic_fn: pass 1 reads n and writes G; pass 2 reads and writes G; pass 3
 *        reads n and G, writes n. About 3n.
 */
static double reduce_then_scan_traffic(int variant, size_t n)
{
    (void)variant;
    const chunking c = split_into_chunks(n, resident_blocks());
    return 3.0 * (double)n + 4.0 * (double)c.blocks;
}

/**
 * \brief The chapter's ::gpu_scan_fn: passes 1–3 above. Asynchronous, on the default stream.
 * \param variant   VARIANT_REDUCE_THEN_SCAN
 * \param d_in      device input, n elements, 16-byte aligned (as cudaMalloc gives)
 * \param d_out     device output, n elements, 16-byte aligned (may equal `d_in`)
 * \param n         element count (0 launches nothing)
 * \param exclusive 1 for exclusive, 0 for inclusive
 * \param d_temp    reduce_then_scan_temp_bytes(variant, n) bytes: G words (contents do not
 *                  matter: pass 1 writes them all)
 * \param temp_bytes its size (not needed here)
 */
static void reduce_then_scan(int variant, const int32_t *d_in, int32_t *d_out, size_t n,
                             int exclusive, void *d_temp, size_t temp_bytes)
{
    (void)variant;
    (void)temp_bytes;
    const chunking c = split_into_chunks(n, resident_blocks());
    if (c.blocks == 0)
        return;
    int32_t *d_block_sums = (int32_t *)d_temp;
    reduce_chunks_kernel<<<(unsigned)c.blocks, COARSE_THREADS>>>(d_in, n, c.tiles_per_block,
                                                                 d_block_sums);
    CUDA_CHECK_LAUNCH();
    /* One block turns the aggregates into prefixes: all its tiles form one chunk. */
    scan_chunks_kernel<<<1, COARSE_THREADS>>>(d_block_sums, d_block_sums, c.blocks,
                                              tile_count(c.blocks), NULL, 1);
    CUDA_CHECK_LAUNCH();
    scan_chunks_kernel<<<(unsigned)c.blocks, COARSE_THREADS>>>(d_in, d_out, n, c.tiles_per_block,
                                                               d_block_sums, exclusive);
    CUDA_CHECK_LAUNCH();
}

/** The ::gpu_describe_fn: G, and how n is split among the blocks. */
static void describe_chunks(size_t n, char *line, size_t len)
{
    const size_t g = resident_blocks();
    const chunking c = split_into_chunks(n, g);
    snprintf(line, len,
             "n = %zu: tiles %zu; blocks %zu of G = %zu (%d resident per SM x %d SMs); "
             "tiles per block %zu; kernel launches %d",
             n, tile_count(n), c.blocks, g, g_blocks_per_sm, g_sm_count, c.tiles_per_block,
             n ? 3 : 0);
}

/** The default sweep: one tile, in L2, and beyond the 60 MB L2 of an H200. */
static const size_t DEFAULT_SIZES[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                       (size_t)1 << 24, (size_t)1 << 26, (size_t)1 << 28};

/** Lines printed above the table. */
static const char *const NOTES[] = {
    "3n traffic: a scan can move 2n elements, so this design reaches at most 2/3 = 67 % of memcpy",
    NULL};

/** \brief Describe the chapter to the shared driver and run it. */
int main(int argc, char **argv)
{
    const gpu_chapter chapter = {
        .prog = {
            .name = "05_reduce_then_scan",
            .title = "reduce-then-scan over G resident blocks: reduce, scan the G aggregates, "
                     "scan seeded",
            .variants = VARIANT_NAMES,
            .variant_count = VARIANT_COUNT,
            .default_sizes = DEFAULT_SIZES,
            .default_size_count = (int)(sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]),
            .default_reps = 20,
        },
        .scan = reduce_then_scan,
        .tile = TILE_ITEMS,
        .repeats = 1,
        .notes = NOTES,
        .temp_bytes = reduce_then_scan_temp_bytes,
        .traffic = reduce_then_scan_traffic,
        .describe = describe_chunks,
    };
    return gpu_chapter_main(argc, argv, &chapter);
}
