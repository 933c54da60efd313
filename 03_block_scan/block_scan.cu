/**
 * \file block_scan.cu
 * \brief Chapter 03: six ways for a block of threads to scan a 1024-element tile, side by side.
 *
 * What is new since chapter 02: many warps must cooperate, so shared memory and
 * `__syncthreads()` come in, and the question becomes how few barriers a block scan can get
 * away with. Every 1024-element tile is scanned on its own (a segmented scan), so each variant
 * reads n and writes n elements, like a copy, and nothing is carried between tiles: what separates
 * the variants is the block scan alone.
 *  - `kogge-stone`  Kogge-Stone over the whole tile in shared memory, double-buffered
 *  - `blelloch`     the work-efficient up-sweep/down-sweep, with bank-conflict padding done right
 *  - `brent-kung`   Brent-Kung up-sweep to 32 partial sums, a warp scan, Brent-Kung down-sweep
 *  - `raking`       one warp reduces 32 elements per lane serially, scans, rescans (reduce-then-scan)
 *  - `sklansky`     every warp scans its 32 elements, warp 0 scans the 32 warp totals, all add
 *  - `coarsened`    `sklansky` with 8 elements per thread in registers and 128-bit loads/stores
 *
 * Build and run: `make chapter-3 && ./run` from the top folder, or `make && ./run` here.
 * Follows Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back" (2016),
 * Fig 1 (scan networks) and Fig 2: (a) Brent-Kung hybrid, (b) reduce-then-scan (raking)
 * hybrid, (c) Sklansky hybrid. Sums are kept in `uint32_t`, so that overflow wraps (chapter 02).
 */
#include "cuda_util.h"
#include "gpu_driver.h"

#include <stdint.h>
#include <stdio.h>

/** Elements one block scans: the segment length of this chapter. */
#define TILE_ITEMS 1024
/** Threads of one warp. */
#define WARP_THREADS 32
/** Every lane of the warp: the mask of a shuffle that all 32 lanes must execute. */
#define FULL_MASK 0xffffffffu
/** Shared memory has 32 banks of 4 bytes: word i lives in bank i % 32. */
#define LOG_NUM_BANKS 5
/** `blelloch`: two elements per thread. */
#define BLELLOCH_THREADS (TILE_ITEMS / 2)
/** `coarsened`: 128 threads, 8 elements each (two 128-bit loads). */
#define COARSE_THREADS 128
/** `coarsened`: elements per thread. */
#define ITEMS_PER_THREAD (TILE_ITEMS / COARSE_THREADS)
/** `coarsened`: warps per block. */
#define COARSE_WARPS (COARSE_THREADS / WARP_THREADS)

/**
 * Where logical element i of a tile is kept in a padded shared array: one spare word after every
 * 32, so that elements 32 apart (or any power of two ≥ 32 apart) fall in different banks.
 * The array needs TILE_ITEMS + TILE_ITEMS / 32 words.
 *
 * The macro most tutorials copy, from the 2007 scan chapter of GPU Gems 3, is
 * `((n) >> NUM_BANKS + (n) >> (2 * LOG_NUM_BANKS))`. In C, `+` binds tighter than `>>`, so it
 * means `n >> (NUM_BANKS + n) >> (2 * LOG_NUM_BANKS)`. With the 16 banks it was written for, the
 * first shift is by 16 + n: 0 for n < 16, undefined in C from n = 16 on (a shift count of 32 or
 * more); with 32 banks it is undefined for every index. It pads nothing that could be relied on,
 * so the conflicts stay. What it meant was `(n >> LOG_NUM_BANKS) + (n >> (2 * LOG_NUM_BANKS))`;
 * the first term alone is all a 1024-element tile needs (see the notes for the bank arithmetic).
 */
#define CONFLICT_FREE_INDEX(i) ((i) + ((i) >> LOG_NUM_BANKS))
/** Words of a padded shared array for one tile. */
#define PADDED_WORDS (TILE_ITEMS + (TILE_ITEMS >> LOG_NUM_BANKS))

/** The variants, in table order. */
enum {
    VARIANT_KOGGE_STONE,
    VARIANT_BLELLOCH,
    VARIANT_BRENT_KUNG,
    VARIANT_RAKING,
    VARIANT_SKLANSKY,
    VARIANT_COARSENED,
    VARIANT_COUNT
};

/** Names for `--variant`. */
static const char *const VARIANT_NAMES[VARIANT_COUNT] = {"kogge-stone", "blelloch", "brent-kung",
                                                         "raking",      "sklansky", "coarsened"};

/** `__syncthreads()` per tile, counted in each block scan below. */
static const char *const VARIANT_BARRIERS[VARIANT_COUNT] = {"11", "21", "12", "2", "2", "1"};

/* ------------------------------------------------------------------------------------------ */
/* Carried over unchanged from chapter 02 (02_warp_shfl/warp_shfl.cu)                          */
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

/**
 * \brief Exclusive scan from the inclusive one: each lane takes the inclusive value of the lane
 *        below it, lane 0 takes 0 (the identity of +). Works for any associative operator
 *        once 0 is replaced by that operator's identity.
 * \param inclusive this lane's inclusive scan value
 * \return the sum of the values of lanes 0 … this lane − 1
 * \pre All 32 lanes of the warp call it together.
 */
__device__ uint32_t warp_exclusive_from_inclusive(uint32_t inclusive)
{
    uint32_t below = __shfl_up_sync(FULL_MASK, inclusive, 1);
    return threadIdx.x % WARP_THREADS == 0 ? 0 : below;
}

/* ------------------------------------------------------------------------------------------ */
/* The lesson: block scans of one tile                                                          */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Thread t's element of this block's tile, or 0 (the identity) past the end of the array.
 * \param in input array
 * \param n  element count
 * \pre blockDim.x == TILE_ITEMS (one element per thread).
 */
__device__ uint32_t load_item(const int32_t *in, size_t n)
{
    const size_t i = (size_t)blockIdx.x * TILE_ITEMS + threadIdx.x;
    return i < n ? (uint32_t)in[i] : 0;
}

/**
 * \brief Store thread t's result. For + the exclusive scan is the inclusive one minus the
 *        element (exact, since the arithmetic wraps); an operator without an inverse, such as
 *        max, would shift instead, as warp_exclusive_from_inclusive() does.
 * \param out       output array
 * \param n         element count (nothing is stored past it)
 * \param inclusive the thread's inclusive scan value
 * \param x         the thread's element
 * \param exclusive 1 to store the exclusive value
 * \pre blockDim.x == TILE_ITEMS.
 */
__device__ void store_item(int32_t *out, size_t n, uint32_t inclusive, uint32_t x, int exclusive)
{
    const size_t i = (size_t)blockIdx.x * TILE_ITEMS + threadIdx.x;
    if (i < n)
        out[i] = (int32_t)(exclusive ? inclusive - x : inclusive);
}

/**
 * \brief (a) Kogge-Stone across the whole tile in shared memory: 10 steps, each a barrier.
 *
 * Step k: every thread adds the element 2^k below it. In place, a thread could overwrite a
 * value its neighbour has yet to read, so each step reads one buffer and writes the other
 * (double buffering): one barrier per step instead of two. 1 + 10 = 11 barriers and
 * 10·1024 − 1023 = 9217 additions for 1024 elements: the most of any variant.
 * \param x this thread's element
 * \return the inclusive scan value of this thread's element
 * \pre blockDim.x == TILE_ITEMS; every thread of the block calls it.
 */
__device__ uint32_t block_inclusive_scan_kogge_stone(uint32_t x)
{
    __shared__ uint32_t buffer[2][TILE_ITEMS];
    const int t = threadIdx.x;
    int from = 0;
    buffer[from][t] = x;
    __syncthreads();
    for (int offset = 1; offset < TILE_ITEMS; offset *= 2) {
        if (t >= offset)
            x += buffer[from][t - offset];
        buffer[1 - from][t] = x; /* the other buffer: nobody reads it during this step */
        from = 1 - from;
        __syncthreads(); /* the step is complete before anyone reads it */
    }
    return x;
}

/**
 * \brief (c) Brent-Kung hybrid (Merrill & Garland Fig 2a): Brent-Kung's work-efficient tree in
 *        shared memory, with its top levels replaced by one warp scan.
 *
 * Up-sweep 5 levels (strides 1 … 16): slot 32k+31 then holds the sum of elements 32k … 32k+31.
 * Warp 0 scans those 32 sums with shuffles, no barriers. Down-sweep 5 levels (strides 16 … 1)
 * pushes the prefixes back down. 5 + 1 + 5 + 1 = 12 barriers; about 2·1024 additions.
 * Slots are padded (CONFLICT_FREE_INDEX): without it warp 0 would read 32 slots 32 words apart,
 * all in one bank, a 32-way conflict.
 * \param x this thread's element
 * \return the inclusive scan value of this thread's element
 * \pre blockDim.x == TILE_ITEMS; every thread of the block calls it.
 */
__device__ uint32_t block_inclusive_scan_brent_kung(uint32_t x)
{
    __shared__ uint32_t tree[PADDED_WORDS];
    const int t = threadIdx.x;
    tree[CONFLICT_FREE_INDEX(t)] = x;
    for (int stride = 1; stride < WARP_THREADS; stride *= 2) {
        __syncthreads(); /* the level below is complete */
        const int i = (t + 1) * 2 * stride - 1;
        if (i < TILE_ITEMS)
            tree[CONFLICT_FREE_INDEX(i)] += tree[CONFLICT_FREE_INDEX(i - stride)];
    }
    __syncthreads();
    if (t < WARP_THREADS) {
        const int i = (t + 1) * WARP_THREADS - 1;
        tree[CONFLICT_FREE_INDEX(i)] = warp_inclusive_scan(tree[CONFLICT_FREE_INDEX(i)]);
    }
    for (int stride = WARP_THREADS / 2; stride >= 1; stride /= 2) {
        __syncthreads(); /* the level above is complete */
        const int i = (t + 1) * 2 * stride + stride - 1;
        if (i < TILE_ITEMS)
            tree[CONFLICT_FREE_INDEX(i)] += tree[CONFLICT_FREE_INDEX(i - stride)];
    }
    __syncthreads();
    return tree[CONFLICT_FREE_INDEX(t)];
}

/**
 * \brief (d) Raking reduce-then-scan (Merrill & Garland Fig 2b): one warp does all the work.
 *
 * Every thread puts its element in shared memory; lane r of warp 0 then reduces elements
 * 32r … 32r+31 serially in registers, the warp scans the 32 partial sums with shuffles, and
 * lane r rescans its 32 elements seeded with its exclusive prefix. Two barriers per tile; 31
 * threads of every 32 wait meanwhile. The padding puts lane r's j-th element in bank (r + j) % 32,
 * so the 32 lanes never collide; unpadded, all 32 would hit bank j at once.
 * \param x this thread's element
 * \return the inclusive scan value of this thread's element
 * \pre blockDim.x == TILE_ITEMS; every thread of the block calls it.
 */
__device__ uint32_t block_inclusive_scan_raking(uint32_t x)
{
    __shared__ uint32_t grid[PADDED_WORDS];
    const int t = threadIdx.x;
    grid[CONFLICT_FREE_INDEX(t)] = x;
    __syncthreads(); /* the whole tile is in shared memory */
    if (t < WARP_THREADS) {
        const int first = t * WARP_THREADS;
        uint32_t sum = 0;
        for (int j = 0; j < WARP_THREADS; ++j)
            sum += grid[CONFLICT_FREE_INDEX(first + j)];
        uint32_t prefix = warp_exclusive_from_inclusive(warp_inclusive_scan(sum));
        for (int j = 0; j < WARP_THREADS; ++j) {
            prefix += grid[CONFLICT_FREE_INDEX(first + j)];
            grid[CONFLICT_FREE_INDEX(first + j)] = prefix;
        }
    }
    __syncthreads(); /* the rescan is complete */
    return grid[CONFLICT_FREE_INDEX(t)];
}

/**
 * \brief (e) Sklansky hybrid (Merrill & Garland Fig 2c): every warp scans its 32 elements with
 *        shuffles, warp 0 scans the 32 warp totals, every thread adds its warp's prefix.
 *
 * Two barriers per tile, and every warp works during the first scan. The adds at the end fan one
 * warp prefix out to 32 elements, as Sklansky's network fans one partial sum out to a whole
 * half-segment.
 * \param x this thread's element
 * \return the inclusive scan value of this thread's element
 * \pre blockDim.x == TILE_ITEMS; every thread of the block calls it.
 */
__device__ uint32_t block_inclusive_scan_sklansky(uint32_t x)
{
    /* [student part: sklansky; explained in 03_block_scan/README.md, "The idea"] */
    __shared__ uint32_t warp_prefix[TILE_ITEMS / WARP_THREADS];
    const int lane = threadIdx.x % WARP_THREADS, warp = threadIdx.x / WARP_THREADS;
    x = warp_inclusive_scan(x);
    if (lane == WARP_THREADS - 1)
        warp_prefix[warp] = x;
    __syncthreads(); /* every warp total is written */
    if (warp == 0)
        warp_prefix[lane] = warp_exclusive_from_inclusive(warp_inclusive_scan(warp_prefix[lane]));
    __syncthreads(); /* every warp prefix is written */
    return x + warp_prefix[warp];
    /* [end of student part: sklansky] */
}

/**
 * \brief (a) Scan each tile with block_inclusive_scan_kogge_stone().
 * \param in input, n elements \param out output, n elements \param n element count
 * \param exclusive 1 for exclusive, 0 for inclusive
 * \pre blockDim.x == TILE_ITEMS; gridDim.x * TILE_ITEMS >= n.
 */
__global__ void block_scan_kogge_stone_kernel(const int32_t *in, int32_t *out, size_t n,
                                              int exclusive)
{
    const uint32_t x = load_item(in, n);
    store_item(out, n, block_inclusive_scan_kogge_stone(x), x, exclusive);
}

/**
 * \brief (c) Scan each tile with block_inclusive_scan_brent_kung().
 * \param in input, n elements \param out output, n elements \param n element count
 * \param exclusive 1 for exclusive, 0 for inclusive
 * \pre blockDim.x == TILE_ITEMS; gridDim.x * TILE_ITEMS >= n.
 */
__global__ void block_scan_brent_kung_kernel(const int32_t *in, int32_t *out, size_t n,
                                             int exclusive)
{
    const uint32_t x = load_item(in, n);
    store_item(out, n, block_inclusive_scan_brent_kung(x), x, exclusive);
}

/**
 * \brief (d) Scan each tile with block_inclusive_scan_raking().
 * \param in input, n elements \param out output, n elements \param n element count
 * \param exclusive 1 for exclusive, 0 for inclusive
 * \pre blockDim.x == TILE_ITEMS; gridDim.x * TILE_ITEMS >= n.
 */
__global__ void block_scan_raking_kernel(const int32_t *in, int32_t *out, size_t n, int exclusive)
{
    const uint32_t x = load_item(in, n);
    store_item(out, n, block_inclusive_scan_raking(x), x, exclusive);
}

/**
 * \brief (e) Scan each tile with block_inclusive_scan_sklansky().
 * \param in input, n elements \param out output, n elements \param n element count
 * \param exclusive 1 for exclusive, 0 for inclusive
 * \pre blockDim.x == TILE_ITEMS; gridDim.x * TILE_ITEMS >= n.
 */
__global__ void block_scan_sklansky_kernel(const int32_t *in, int32_t *out, size_t n,
                                           int exclusive)
{
    const uint32_t x = load_item(in, n);
    store_item(out, n, block_inclusive_scan_sklansky(x), x, exclusive);
}

/**
 * \brief (b) Blelloch's work-efficient scan of each tile, 512 threads, two elements each.
 *
 * Up-sweep: 10 levels build a reduction tree in place (1023 additions). The root is set to 0
 * (the identity), and 10 down-sweep levels hand each left child its parent's prefix and each
 * right child the parent's prefix plus the left child's sum (1023 additions): an exclusive scan
 * in 2046 additions, the fewest of any variant, but 10 + 10 + 1 = 21 barriers, the most
 * (the first up-sweep barrier also waits for the loads).
 * At stride 2^k, thread t touches slots 2^k·(2t+1) − 1 and 2^k·(2t+2) − 1: unpadded, a warp's
 * 32 threads share 16 banks at stride 1 (2-way conflicts), 8 at stride 2, and one bank at stride
 * 16 (32-way). CONFLICT_FREE_INDEX spreads them over distinct banks at every level.
 * \param in        input, n elements
 * \param out       output, n elements
 * \param n         element count
 * \param exclusive 1 for exclusive (what the tree gives), 0 for inclusive (add the element back)
 * \pre blockDim.x == BLELLOCH_THREADS; gridDim.x * TILE_ITEMS >= n.
 */
__global__ void block_scan_blelloch_kernel(const int32_t *in, int32_t *out, size_t n,
                                           int exclusive)
{
    __shared__ uint32_t tree[PADDED_WORDS];
    const int t = threadIdx.x;
    const size_t first = (size_t)blockIdx.x * TILE_ITEMS + t, second = first + BLELLOCH_THREADS;
    const uint32_t x0 = first < n ? (uint32_t)in[first] : 0;
    const uint32_t x1 = second < n ? (uint32_t)in[second] : 0;
    tree[CONFLICT_FREE_INDEX(t)] = x0;
    tree[CONFLICT_FREE_INDEX(t + BLELLOCH_THREADS)] = x1;

    int stride = 1;
    for (int active = TILE_ITEMS / 2; active > 0; active /= 2) {
        __syncthreads(); /* the level below is complete */
        if (t < active)
            tree[CONFLICT_FREE_INDEX(stride * (2 * t + 2) - 1)] +=
                tree[CONFLICT_FREE_INDEX(stride * (2 * t + 1) - 1)];
        stride *= 2;
    }
    if (t == 0)
        tree[CONFLICT_FREE_INDEX(TILE_ITEMS - 1)] = 0;
    for (int active = 1; active < TILE_ITEMS; active *= 2) {
        stride /= 2;
        __syncthreads(); /* the level above is complete (and the root cleared) */
        if (t < active) {
            const int left = CONFLICT_FREE_INDEX(stride * (2 * t + 1) - 1);
            const int right = CONFLICT_FREE_INDEX(stride * (2 * t + 2) - 1);
            const uint32_t left_sum = tree[left];
            tree[left] = tree[right];
            tree[right] += left_sum;
        }
    }
    __syncthreads(); /* every slot holds its exclusive prefix */
    const uint32_t p0 = tree[CONFLICT_FREE_INDEX(t)];
    const uint32_t p1 = tree[CONFLICT_FREE_INDEX(t + BLELLOCH_THREADS)];
    if (first < n)
        out[first] = (int32_t)(exclusive ? p0 : p0 + x0);
    if (second < n)
        out[second] = (int32_t)(exclusive ? p1 : p1 + x1);
}

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

/**
 * \brief (f) `sklansky`, coarsened: 128 threads, 8 consecutive elements each, in registers:
 *        load_tile(), block_scan_tile(), store_tile().
 * \param in        input, n elements, 16-byte aligned
 * \param out       output, n elements, 16-byte aligned
 * \param n         element count
 * \param exclusive 1 for exclusive, 0 for inclusive
 * \pre blockDim.x == COARSE_THREADS; gridDim.x * TILE_ITEMS >= n.
 */
__global__ void block_scan_coarsened_kernel(const int32_t *in, int32_t *out, size_t n,
                                            int exclusive)
{
    const size_t tile_first = (size_t)blockIdx.x * TILE_ITEMS;
    uint32_t item[ITEMS_PER_THREAD], aggregate;
    load_tile(in, n, tile_first, item);
    const uint32_t prefix = block_scan_tile(item, &aggregate);
    store_tile(out, n, tile_first, item, prefix, exclusive);
}

/* ------------------------------------------------------------------------------------------ */
/* Host launcher                                                                                */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Scan every 1024-element tile of `d_in` into `d_out` with `variant` (a ::gpu_scan_fn).
 *        Asynchronous, on the default stream.
 * \param variant   one of the VARIANT_ constants
 * \param d_in      device input, n elements, 16-byte aligned (as cudaMalloc gives)
 * \param d_out     device output, n elements, 16-byte aligned
 * \param n         element count (0 launches nothing)
 * \param exclusive 1 for exclusive, 0 for inclusive
 * \param d_temp     unused: this chapter needs no scratch (NULL)
 * \param temp_bytes unused (0)
 */
static void scan_tiles(int variant, const int32_t *d_in, int32_t *d_out, size_t n, int exclusive,
                       void *d_temp, size_t temp_bytes)
{
    (void)d_temp;
    (void)temp_bytes;
    if (n == 0)
        return;
    const unsigned tiles = (unsigned)((n + TILE_ITEMS - 1) / TILE_ITEMS);
    switch (variant) {
    case VARIANT_KOGGE_STONE:
        block_scan_kogge_stone_kernel<<<tiles, TILE_ITEMS>>>(d_in, d_out, n, exclusive);
        break;
    case VARIANT_BLELLOCH:
        block_scan_blelloch_kernel<<<tiles, BLELLOCH_THREADS>>>(d_in, d_out, n, exclusive);
        break;
    case VARIANT_BRENT_KUNG:
        block_scan_brent_kung_kernel<<<tiles, TILE_ITEMS>>>(d_in, d_out, n, exclusive);
        break;
    case VARIANT_RAKING:
        block_scan_raking_kernel<<<tiles, TILE_ITEMS>>>(d_in, d_out, n, exclusive);
        break;
    case VARIANT_SKLANSKY:
        block_scan_sklansky_kernel<<<tiles, TILE_ITEMS>>>(d_in, d_out, n, exclusive);
        break;
    default:
        block_scan_coarsened_kernel<<<tiles, COARSE_THREADS>>>(d_in, d_out, n, exclusive);
        break;
    }
    CUDA_CHECK_LAUNCH();
}

/** The default sweep: one tile, in L2, and beyond the 60 MB L2 of an H200. */
static const size_t DEFAULT_SIZES[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                       (size_t)1 << 24, (size_t)1 << 26, (size_t)1 << 28};

/** Lines printed above the table. */
static const char *const NOTES[] = {
    "barriers: __syncthreads() per 1024-element tile; every tile is scanned on its own (2n traffic)",
    NULL};

/** \brief Describe the chapter to the shared driver and run it. */
int main(int argc, char **argv)
{
    const gpu_chapter chapter = {
        .prog = {
            .name = "03_block_scan",
            .title = "one block scans each 1024-element tile: six block scans side by side",
            .variants = VARIANT_NAMES,
            .variant_count = VARIANT_COUNT,
            .segment = TILE_ITEMS,
            .default_sizes = DEFAULT_SIZES,
            .default_size_count = (int)(sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]),
            .default_reps = 20,
        },
        .scan = scan_tiles,
        .tile = TILE_ITEMS,
        .repeats = 1,
        .extra_title = "barriers",
        .extra = VARIANT_BARRIERS,
        .notes = NOTES,
    };
    return gpu_chapter_main(argc, argv, &chapter);
}
