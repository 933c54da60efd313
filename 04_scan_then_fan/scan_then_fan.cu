/**
 * \file scan_then_fan.cu
 * \brief Chapter 04: a device-wide scan of any size, by recursion: scan every tile and keep its
 *        aggregate, scan the aggregates, add each tile's carry to its elements (scan-then-fan).
 *
 * What is new since chapter 03: the tiles are no longer scanned on their own. Element i of the
 * output needs every element before it, in every earlier tile, so the tiles must talk. Here
 * they talk through global memory and kernel boundaries, the simplest correct way:
 *  1. `scan_tiles_kernel`   scans every tile (chapter 03's coarsened block scan) and writes the
 *                           tile's aggregate (its total) to a scratch array, one word per tile;
 *  2. the same algorithm, recursively, turns the aggregates into an exclusive scan: entry t is
 *     now the sum of every tile before tile t, the tile's *carry*;
 *  3. `add_carries_kernel`  adds its carry to every element of every tile but the first (the fan).
 * Steps 1 and 3 each read and write all n elements: about 4n element moves, twice the 2n of a
 * copy, so this design can reach at most half of `cudaMemcpy`. Chapter 05 cuts the traffic to 3n
 * in three kernels; the single-pass chapters (06-08) reach 2n in one.
 *
 * Build and run: `make chapter-4 && ./run` from the top folder, or `make && ./run` here.
 * The scan-then-fan structure is the classic recursive GPU scan (Sengupta et al. 2007; the scan
 * chapter of GPU Gems 3); Merrill & Garland (2016) use it as the baseline that reduce-then-scan
 * (our chapter 05) and their single-pass scans (06–07) improve on. Every index is a
 * `size_t`: n may exceed 2^31 (the add kernel of the source this chapter started from kept its
 * element index in an `int`, see the notes). Sums are kept in `uint32_t`, so overflow wraps.
 */
#include "cuda_util.h"
#include "gpu_driver.h"

#include <stdint.h>
#include <stdio.h>

/** Elements one block scans: chapter 03's coarsened tile. */
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
/** Threads of the fan kernel: one 16-byte vector (4 elements) of the tile each. */
#define FAN_THREADS (TILE_ITEMS / 4)
/**
 * Each level's slice of the scratch array starts on a multiple of this many elements (128
 * bytes). The tile loads are 128-bit vectors, which need 16-byte alignment: a slice that started
 * right after a count of aggregates that is not a multiple of 4 would make them fault
 * (cudaErrorMisalignedAddress). 4 would be enough for that; 32 also starts each slice on a
 * 128-byte line, as cudaMalloc's arrays start (whether that is faster was not measured).
 */
#define SCRATCH_ALIGN_ITEMS 32

/** The variants (one: the recursive scan-then-fan). */
enum { VARIANT_SCAN_THEN_FAN, VARIANT_COUNT };

/** Names for `--variant`. */
static const char *const VARIANT_NAMES[VARIANT_COUNT] = {"scan-then-fan"};

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
/* The lesson: tiles that pass their totals on                                                  */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Step 1 (and the base case): scan every tile on its own, as chapter 03 did, and write
 *        each tile's aggregate to `tile_aggregate[tile]`.
 * \param in             input, n elements, 16-byte aligned
 * \param out            output, n elements, 16-byte aligned (may be `in`: every thread reads its
 *                       elements before it writes them, and no other thread touches them)
 * \param n              element count
 * \param exclusive      1 for exclusive, 0 for inclusive (the aggregate is the same for both)
 * \param tile_aggregate one word per tile, or NULL when there is a single tile (nothing to pass on)
 * \pre blockDim.x == COARSE_THREADS; gridDim.x == the number of tiles, ceil(n / TILE_ITEMS).
 */
__global__ void scan_tiles_kernel(const int32_t *in, int32_t *out, size_t n, int exclusive,
                                  int32_t *tile_aggregate)
{
    const size_t tile_first = (size_t)blockIdx.x * TILE_ITEMS;
    uint32_t item[ITEMS_PER_THREAD], aggregate;
    load_tile(in, n, tile_first, item);
    const uint32_t prefix = block_scan_tile(item, &aggregate);
    store_tile(out, n, tile_first, item, prefix, exclusive);
    if (tile_aggregate && threadIdx.x == 0)
        tile_aggregate[blockIdx.x] = (int32_t)aggregate;
}

/**
 * \brief Step 3, the fan: add tile t's carry (the sum of every element of tiles 0 … t−1) to each
 *        of its elements, in place. Block b handles tile b + 1: tile 0's carry is 0.
 *
 * No thread needs its elements in any order here, so the kernel does not use load_tile() and
 * store_tile(), whose thread owns 8 consecutive elements (two 16-byte vectors 16 bytes apart,
 * so that one warp instruction touches every other 16 bytes of 1 KiB). Each of FAN_THREADS
 * threads takes one 16-byte vector, and each warp instruction covers 512 contiguous bytes:
 * every 32-byte sector is read and written whole by one instruction (the notes' exercise 2
 * measures what that buys against chapter 03's layout).
 *
 * The element index is a `size_t`. The version this chapter started from computed it as
 * `int32_t index = part_i * blockDim.x + threadIdx.x` with a `size_t part_i`: the product is
 * 64-bit, but stored in an `int32_t`, so past 2^31 elements the index goes negative: the kernel
 * adds carries to the wrong elements, or faults. (The planted bug `fan_int_index` computes the
 * index in 32-bit arithmetic instead, with the same effect past 2^31.)
 * \param out        the tile-scanned array, n elements, 16-byte aligned; updated in place
 * \param n          element count
 * \param tile_carry one word per tile: the exclusive scan of the tile aggregates
 * \pre blockDim.x == FAN_THREADS; gridDim.x == tiles − 1 ≥ 1.
 */
__global__ void add_carries_kernel(int32_t *out, size_t n, const int32_t *tile_carry)
{
    /* [student part: carry-kernel; explained in 04_scan_then_fan/README.md, "The code"] */
    const size_t tile = (size_t)blockIdx.x + 1;
    const size_t first = tile * TILE_ITEMS + (size_t)threadIdx.x * 4;
    const uint32_t carry = (uint32_t)tile_carry[tile]; /* one word, broadcast to the block */
    if (first + 4 <= n) {
        uint4 *vector = (uint4 *)(out + first);
        uint4 v = *vector;
        v.x += carry;
        v.y += carry;
        v.z += carry;
        v.w += carry;
        *vector = v;
    } else { /* the end of the array: one element at a time */
        for (size_t i = first; i < first + 4 && i < n; ++i)
            out[i] = (int32_t)((uint32_t)out[i] + carry);
    }
    /* [end of student part: carry-kernel] */
}

/* ------------------------------------------------------------------------------------------ */
/* Host launcher                                                                                */
/* ------------------------------------------------------------------------------------------ */

/** Tiles of n elements: blocks of step 1, and the length of the next level. */
static size_t tile_count(size_t n)
{
    return (n + TILE_ITEMS - 1) / TILE_ITEMS;
}

/** A level's slice of scratch: its tile count, rounded up to ::SCRATCH_ALIGN_ITEMS. */
static size_t scratch_slice(size_t tiles)
{
    return (tiles + SCRATCH_ALIGN_ITEMS - 1) / SCRATCH_ALIGN_ITEMS * SCRATCH_ALIGN_ITEMS;
}

/**
 * \brief Scratch elements the recursion needs for n elements: one aggregate per tile at every
 *        level that has more than one tile, each level's slice aligned.
 *
 * For n = 2^28: 262144 + 256 = 262400 elements (1 MiB, 0.1 % of the data). The levels shrink
 * by TILE_ITEMS each, so there are about log_1024(n) of them: 3 for anything up to 2^30.
 */
static size_t scratch_elements(size_t n)
{
    size_t total = 0;
    for (size_t tiles = tile_count(n); tiles > 1; tiles = tile_count(tiles))
        total += scratch_slice(tiles);
    return total;
}

/** The ::gpu_temp_fn: scratch bytes for n elements. */
static size_t scan_then_fan_temp_bytes(int variant, size_t n)
{
    (void)variant;
    return scratch_elements(n) * sizeof(int32_t);
}

/**
 * \brief The ::gpu_traffic_fn: elements read and written in global memory. Step 1 reads n,
 *        writes n and one aggregate per tile; the recursion does the same on the aggregates; step
 *        3 reads and writes every element but the first tile's, and one carry per tile.
 */
static double scan_then_fan_traffic(int variant, size_t n)
{
    (void)variant;
    const size_t tiles = tile_count(n);
    if (tiles <= 1)
        return 2.0 * (double)n;
    return 2.0 * (double)n + (double)tiles + scan_then_fan_traffic(variant, tiles) +
           2.0 * (double)(n - TILE_ITEMS) + (double)(tiles - 1);
}

/**
 * \brief Scan n elements of `d_in` into `d_out`: steps 1–3 above, recursing on the aggregates.
 * \param d_in      device input, n elements, 16-byte aligned
 * \param d_out     device output, n elements, 16-byte aligned (may equal `d_in`)
 * \param n         element count (0 launches nothing)
 * \param exclusive 1 for exclusive, 0 for inclusive
 * \param d_scratch scratch_elements(n) elements, 16-byte aligned
 */
static void scan_then_fan(const int32_t *d_in, int32_t *d_out, size_t n, int exclusive,
                          int32_t *d_scratch)
{
    /* [student part: recursion; explained in 04_scan_then_fan/README.md, "The idea"] */
    const size_t tiles = tile_count(n);
    if (tiles == 0)
        return;
    if (tiles == 1) { /* the base case: one block scans everything */
        scan_tiles_kernel<<<1, COARSE_THREADS>>>(d_in, d_out, n, exclusive, NULL);
        CUDA_CHECK_LAUNCH();
        return;
    }
    int32_t *d_carry = d_scratch; /* this level's slice: aggregates, then carries */
    scan_tiles_kernel<<<(unsigned)tiles, COARSE_THREADS>>>(d_in, d_out, n, exclusive, d_carry);
    CUDA_CHECK_LAUNCH();
    /* The aggregates become carries in place: an exclusive scan, with the next slice as scratch.
       Kernels on one stream run in order, so each step sees the previous one's writes. */
    scan_then_fan(d_carry, d_carry, tiles, 1, d_scratch + scratch_slice(tiles));
    add_carries_kernel<<<(unsigned)(tiles - 1), FAN_THREADS>>>(d_out, n, d_carry);
    CUDA_CHECK_LAUNCH();
    /* [end of student part: recursion] */
}

/**
 * \brief The chapter's ::gpu_scan_fn. Asynchronous, on the default stream.
 * \param variant   VARIANT_SCAN_THEN_FAN
 * \param d_in      device input, n elements, 16-byte aligned (as cudaMalloc gives)
 * \param d_out     device output, n elements, 16-byte aligned
 * \param n         element count (0 launches nothing)
 * \param exclusive 1 for exclusive, 0 for inclusive
 * \param d_temp    scan_then_fan_temp_bytes(variant, n) bytes of scratch (contents do not
 *                  matter: every word is written before it is read)
 * \param temp_bytes its size (not needed here)
 */
static void scan_device(int variant, const int32_t *d_in, int32_t *d_out, size_t n, int exclusive,
                        void *d_temp, size_t temp_bytes)
{
    (void)variant;
    (void)temp_bytes;
    scan_then_fan(d_in, d_out, n, exclusive, (int32_t *)d_temp);
}

/** The ::gpu_describe_fn: the recursion for n, level by level, with its launches and scratch. */
static void describe_levels(size_t n, char *line, size_t len)
{
    if (n == 0) {
        snprintf(line, len, "n = 0: kernel launches 0");
        return;
    }
    int used = snprintf(line, len, "n = %zu: elements per level %zu", n, n);
    int launches = 1;
    for (size_t tiles = tile_count(n); tiles > 1; tiles = tile_count(tiles)) {
        used += snprintf(line + used, used < (int)len ? len - used : 0, " -> %zu", tiles);
        launches += 2;
    }
    snprintf(line + used, used < (int)len ? len - used : 0,
             " (the last level fits one block); kernel launches %d; scratch %zu elements",
             launches, scratch_elements(n));
}

/** The default sweep: one tile, in L2, and beyond the 60 MB L2 of an H200. */
static const size_t DEFAULT_SIZES[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                       (size_t)1 << 24, (size_t)1 << 26, (size_t)1 << 28};

/** Lines printed above the table. */
static const char *const NOTES[] = {
    "4n traffic: a scan can move 2n elements, so this design reaches at most 2/4 = 50 % of memcpy",
    NULL};

/** \brief Describe the chapter to the shared driver and run it. */
int main(int argc, char **argv)
{
    const gpu_chapter chapter = {
        .prog = {
            .name = "04_scan_then_fan",
            .title = "recursive scan-then-fan: scan the tiles, scan their aggregates, add the "
                     "carries",
            .variants = VARIANT_NAMES,
            .variant_count = VARIANT_COUNT,
            .default_sizes = DEFAULT_SIZES,
            .default_size_count = (int)(sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]),
            .default_reps = 20,
        },
        .scan = scan_device,
        .tile = TILE_ITEMS,
        .repeats = 1,
        .notes = NOTES,
        .temp_bytes = scan_then_fan_temp_bytes,
        .traffic = scan_then_fan_traffic,
        .describe = describe_levels,
    };
    return gpu_chapter_main(argc, argv, &chapter);
}
