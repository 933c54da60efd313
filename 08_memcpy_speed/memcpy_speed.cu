/**
 * \file memcpy_speed.cu
 * \brief Chapter 08: chapter 07's single pass at memcpy speed on Hopper: the same look-back, fed
 *        by tiles that keep the memory system busy while they wait for it.
 *
 * What is new since chapter 07: not the algorithm (the descriptors, publish_aggregate() and
 * look_back() are carried over unchanged) but the way a tile uses the memory system while it
 * waits. Each step below was measured on an H200; the notes give the table.
 *  - 128-bit accesses, warp-striped: each warp instruction reads or writes 512 consecutive bytes;
 *  - tiles of 4096 elements: a quarter as many tiles, descriptors and trips through the counter;
 *  - the tile staged in shared memory with `cp.async`, which holds no registers while the copy
 *    flies; with the register budget below, 13 tiles (208 KB) fit one H100/H200 SM;
 *  - an L2 prefetch: each block asks L2 for the tile 256 ahead of its own, so DRAM keeps streaming
 *    while tiles wait in their look-backs;
 *  - one launch per call: the descriptors come in two arrays that calls use in turn, each call
 *    clearing the array the call before it used, so no `cudaMemsetAsync` precedes the kernel;
 *  - a register budget per architecture (`__launch_bounds__`), so the blocks that fit one SM's
 *    shared memory are not turned away by their registers;
 *  - reduce the tile, publish its aggregate, then scan it: the successors wait for the aggregate,
 *    not for the scan.
 * The scratch therefore holds state from call to call: it must hold zeros before its first use
 * (see lookback_scan_async()), and two scans with two scratch buffers may run at once on two
 * streams (`--two-streams`). CUB's `DeviceScan` runs beside it, on the same buffers.
 *
 * Build and run: `make chapter-8 && ./run` from the top folder, or `make && ./run` here.
 * Follows Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back" (2016),
 * §4; the Hopper steps are this course's. Every index is a `size_t`; sums are kept in `uint32_t`,
 * so overflow wraps.
 */
#include "cub_scan.h"
#include "cuda_util.h"
#include "data.h"
#include "gpu_driver.h"
#include "io.h"
#include "report.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** Threads of one warp: also the look-back's window, one predecessor per lane. */
#define WARP_THREADS 32
/** Every lane of the warp: the mask of a shuffle or vote that all 32 lanes must execute. */
#define FULL_MASK 0xffffffffu
/** Threads of a block. */
#define BLOCK_THREADS 128
/** Elements per thread: VECTORS_PER_THREAD 128-bit vectors. */
#define ITEMS_PER_THREAD 32
/** 128-bit vectors per thread. */
#define VECTORS_PER_THREAD (ITEMS_PER_THREAD / 4)
/** Elements one block scans: its tile, staged in shared memory (16 KB). */
#define TILE_ITEMS (BLOCK_THREADS * ITEMS_PER_THREAD)
/** 128-bit vectors of one warp's contiguous part of the tile. */
#define WARP_VECTORS (WARP_THREADS * VECTORS_PER_THREAD)
/** Warps per block. */
#define BLOCK_WARPS (BLOCK_THREADS / WARP_THREADS)

/* The register budget. `__launch_bounds__(BLOCK_THREADS, MIN_BLOCKS_PER_SM)` caps each thread at
   65536 / (128 · MIN_BLOCKS_PER_SM) registers, rounded down to a multiple of 8 (registers are
   given out to a warp 256 at a time). The right number of blocks is what one SM's shared memory
   holds: a tile of 16 KB plus the 1 KB the CUDA driver reserves per block. Asking for more caps
   registers for blocks that cannot fit anyway; asking for fewer lets registers turn away blocks
   that would. (ptxas's report for each architecture is in the notes.) */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000)
/** Hopper and datacenter Blackwell: 228 KB of shared memory per SM, 13 tiles; 32 registers. */
#define MIN_BLOCKS_PER_SM 13
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 800
/** A100: 164 KB per SM, 9 tiles; 56 registers. */
#define MIN_BLOCKS_PER_SM 9
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
/** Turing: 64 KB per SM, 3 tiles. */
#define MIN_BLOCKS_PER_SM 3
#else
/** Consumer Ampere, Ada and Blackwell: at least 100 KB per SM, 5 tiles. */
#define MIN_BLOCKS_PER_SM 5
#endif

/** How far ahead, in tiles, each block asks L2 to fetch input (prefetch_tile_l2()): 256 tiles
    are 4 MiB, a fraction of the H200's L2 (`L2 60 MiB`, the first line of `./run` says). */
#define PREFETCH_TILES 256

/** Descriptor state: nothing published yet. */
#define TILE_INVALID 0u
/** Descriptor state: the value is the tile's aggregate, its own sum. */
#define TILE_AGGREGATE 1u
/** Descriptor state: the value is the tile's inclusive prefix. */
#define TILE_PREFIX 2u

/** The scratch's first word, bit 63: which of the two descriptor arrays this call uses. */
#define STATE_ARRAY_BIT (1ull << 63)
/** The scratch's first word, bits 32–62: how many descriptors the last call wrote (a mask). */
#define STATE_STALE_MASK 0x7fffffffull

/** How long a tile may wait for its predecessors before the watchdog stops the kernel. */
#define WATCHDOG_NS 5000000000ull
/** Spins between two looks at the clock. */
#define WATCHDOG_SPINS 256u

/** The variants: this chapter's scan, and CUB's beside it. */
enum { VARIANT_LOOKBACK, VARIANT_CUB, VARIANT_COUNT };

/** Names for `--variant`. */
static const char *const VARIANT_NAMES[VARIANT_COUNT] = {"decoupled-lookback", "cub"};

/* ------------------------------------------------------------------------------------------ */
/* Carried over unchanged from chapter 02 (02_warp_shfl/warp_shfl.cu, via chapters 03-07)     */
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
/* Carried over unchanged from chapter 06 (06_chained_scan/chained_scan.cu, via chapter 07)   */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Read a descriptor: one 64-bit load, relaxed, at GPU scope.
 *
 * 64 bits, aligned, in one instruction: the state and the value arrive together, so a reader
 * never sees a flag without its value, and no fence is needed (nothing else is read on the
 * strength of the flag). Relaxed at GPU scope, this load and store_descriptor()'s store are
 * morally strong (PTX ISA §8.7), so the load returns the whole of one store's value, never half
 * of two (§8.10.3). Which cache serves it is the hardware's business, not the model's: ptxas
 * makes it `LDG.E.64.STRONG.GPU` for sm_90 (docs/experiments/08_exclusive_sass_2026-12-02.md).
 * `asm volatile` with a "memory" clobber keeps the compiler from hoisting it out of a spin loop.
 * \param descriptor the descriptor
 * \return its 64 bits
 */
__device__ unsigned long long load_descriptor(const unsigned long long *descriptor)
{
    unsigned long long word;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(word) : "l"(descriptor) : "memory");
    return word;
}

/**
 * \brief Publish a descriptor: one 64-bit store, relaxed, at GPU scope (see load_descriptor()).
 * \param descriptor the descriptor
 * \param word       state and value, packed
 */
__device__ void store_descriptor(unsigned long long *descriptor, unsigned long long word)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" : : "l"(descriptor), "l"(word) : "memory");
}

/**
 * \brief The watchdog of a spin loop: every WATCHDOG_SPINS calls, look at the GPU's clock; once
 *        the wait has lasted WATCHDOG_NS, print who waited for whom and stop the kernel.
 *
 * A correct single-pass scan never trips it (forward progress is argued in the notes); a bug
 * that breaks the chain (a tile that never publishes) would otherwise hang the GPU. `__trap()`
 * ends the kernel with an error that the host's next CUDA call reports: exit status 3.
 * \param spins   this wait's spin count so far (updated)
 * \param since   when this wait began, in ns of %globaltimer (0 until the first look)
 * \param tile    the waiting tile
 * \param waiting the nearest tile it waits for
 */
__device__ void watchdog(unsigned *spins, unsigned long long *since, unsigned long long tile,
                         long long waiting)
{
    if (++*spins % WATCHDOG_SPINS != 0)
        return;
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (*since == 0) {
        *since = now;
    } else if (now - *since > WATCHDOG_NS) {
        if (threadIdx.x % WARP_THREADS == 0) /* one line per waiting warp, not 32 */
            printf("watchdog: tile %llu waited %.1f s for tile %lld or one before it, which "
                   "never published its descriptor: stopping the kernel\n",
                   tile, (double)(now - *since) * 1e-9, waiting);
        __trap();
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Carried over unchanged from chapter 07 (07_decoupled_lookback/decoupled_lookback.cu)       */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief The sum of one value per lane, returned to every lane: a butterfly of
 *        `__shfl_xor_sync`, in which lane i adds the value of lane i XOR 16, 8, 4, 2, 1.
 * \param x this lane's value
 * \return the sum over the warp
 * \pre All 32 lanes of the warp call it together.
 */
__device__ uint32_t warp_reduce(uint32_t x)
{
    for (int offset = WARP_THREADS / 2; offset > 0; offset /= 2)
        x += __shfl_xor_sync(FULL_MASK, x, offset);
    return x;
}

/** Pack a descriptor: the state in the high 32 bits, the value in the low 32. */
__device__ unsigned long long pack_descriptor(unsigned state, uint32_t value)
{
    return (unsigned long long)state << 32 | value;
}

/**
 * \brief Publish the tile's aggregate as soon as it is known: its successors' look-backs wait for
 *        it. Tile 0 has no predecessors, so its aggregate is already its inclusive prefix.
 * \param descriptors one word per tile
 * \param tile        this tile's id
 * \param aggregate   this tile's aggregate
 * \pre Called by one thread.
 */
__device__ void publish_aggregate(unsigned long long *descriptors, unsigned tile,
                                  uint32_t aggregate)
{
    /* [student part: publish-aggregate; explained in 07_decoupled_lookback/README.md, "The idea"] */
    if (tile == 0)
        store_descriptor(&descriptors[0], pack_descriptor(TILE_PREFIX, aggregate));
    else
        store_descriptor(&descriptors[tile], pack_descriptor(TILE_AGGREGATE, aggregate));
    /* [end of student part: publish-aggregate] */
}

/**
 * \brief The look-back (paper §4.4), run by one warp once the tile's aggregate is published: add
 *        up the predecessors' values 32 at a time back to the nearest `TILE_PREFIX`, publish this
 *        tile's inclusive prefix, and return its exclusive prefix.
 *
 * Lane i reads the descriptor of tile `window_last − i`, so the lowest lane holds the nearest
 * predecessor. Two ballots tell every lane which lanes hold a `TILE_PREFIX` and which are still
 * `TILE_INVALID`. The window is ready when every lane up to the nearest prefix (all 32, if there is
 * none) has published something; the descriptors beyond that prefix are not needed, and adding
 * them too would count their tiles twice. Until then the window is read again. With no prefix in
 * it, its 32 aggregates are added and the window moves 32 tiles back. Tile 0 publishes a prefix
 * (publish_aggregate()), so every walk ends there at the latest.
 * \param descriptors one word per tile
 * \param tile        this tile's id
 * \param aggregate   this tile's aggregate
 * \return the tile's exclusive prefix (in every lane)
 * \pre One full warp calls it; every tile below `tile` was handed to a block that is running.
 */
__device__ uint32_t look_back(unsigned long long *descriptors, unsigned tile, uint32_t aggregate)
{
    /* [student part: look-back; explained in 07_decoupled_lookback/README.md, "The idea"] */
    const int lane = threadIdx.x % WARP_THREADS;
    if (tile == 0)
        return 0;
    uint32_t exclusive_prefix = 0;
    long long window_last = (long long)tile - 1;
    unsigned spins = 0;
    unsigned long long since = 0;
    for (;;) {
        const long long predecessor = window_last - lane;
        /* before tile 0: only in a window that holds tile 0, whose prefix lies nearer */
        const unsigned long long word = predecessor >= 0
                                            ? load_descriptor(&descriptors[predecessor])
                                            : pack_descriptor(TILE_PREFIX, 0);
        const unsigned state = (unsigned)(word >> 32);
        const unsigned prefix_lanes = __ballot_sync(FULL_MASK, state == TILE_PREFIX);
        /* the lanes up to and including the nearest prefix (x ^ (x - 1) keeps the lowest set bit
           of x and every bit below it); all 32 when there is none */
        const unsigned needed = prefix_lanes ? (prefix_lanes ^ (prefix_lanes - 1)) : FULL_MASK;
        if ((__ballot_sync(FULL_MASK, state == TILE_INVALID) & needed) != 0) {
            /* a needed predecessor has not published yet: read the window again */
            watchdog(&spins, &since, tile, window_last);
            continue;
        }
        exclusive_prefix += warp_reduce((needed >> lane) & 1u ? (uint32_t)word : 0u);
        if (prefix_lanes)
            break;
        window_last -= WARP_THREADS;
    }
    if (lane == 0)
        store_descriptor(&descriptors[tile],
                         pack_descriptor(TILE_PREFIX, exclusive_prefix + aggregate));
    return exclusive_prefix;
    /* [end of student part: look-back] */
}

/* ------------------------------------------------------------------------------------------ */
/* The lesson: the tile in shared memory, fed from L2                                         */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Copy a tile into shared memory without passing through registers: `cp.async`, 16 bytes
 *        per instruction per thread, all of them in flight at once.
 *
 * Warp w copies the w-th WARP_VECTORS vectors of the tile, striped: instruction v of the warp
 * reads 512 consecutive bytes, one 16-byte vector per lane. While the copies fly the thread holds
 * no registers for them. (The 13 blocks of 16 KB tiles per SM come from the tile's place in shared
 * memory and the register budget; `cp.async` itself was measured worth about a point of memcpy,
 * the notes' step tables.) `cp.async` needs compute capability 8.0; on Turing the copy goes
 * through registers. A tile cut short by the end of the array is copied element by element, with 0 (the
 * identity of the sum) past the end.
 * \param in         input, 16-byte aligned
 * \param n          element count
 * \param tile_first index of the tile's first element
 * \param tile       the tile in shared memory
 * \pre blockDim.x == BLOCK_THREADS; a `__syncthreads()` follows before anyone reads `tile`
 *      (the wait makes this thread's copies visible to itself; the barrier, to the others).
 */
__device__ __forceinline__ void load_tile_async(const int32_t *in, size_t n, size_t tile_first,
                                                uint4 *tile)
{
    const int lane = threadIdx.x % WARP_THREADS, warp = threadIdx.x / WARP_THREADS;
    if (tile_first + TILE_ITEMS <= n) {
        const uint4 *source = (const uint4 *)(in + tile_first);
        for (int v = 0; v < VECTORS_PER_THREAD; ++v) {
            const int k = warp * WARP_VECTORS + v * WARP_THREADS + lane;
#if __CUDA_ARCH__ >= 800
            const unsigned destination = (unsigned)__cvta_generic_to_shared(&tile[k]);
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                         : : "r"(destination), "l"(source + k) : "memory");
#else
            tile[k] = source[k]; /* Turing (sm_75) has no cp.async: through a register */
#endif
        }
#if __CUDA_ARCH__ >= 800
        asm volatile("cp.async.wait_all;" : : : "memory");
#endif
    } else {
        uint32_t *element = (uint32_t *)tile;
        for (int k = threadIdx.x; k < TILE_ITEMS; k += BLOCK_THREADS)
            element[k] = tile_first + k < n ? (uint32_t)in[tile_first + k] : 0;
    }
}

/**
 * \brief Ask L2 to fetch the input of the tile PREFETCH_TILES ahead of this one: each thread
 *        names one or more 128-byte lines, and moves on at once.
 *
 * `prefetch.global.L2` holds no register and no shared memory, and the block does not wait for it:
 * the bytes travel from DRAM while this block scans and looks back. The intent (it fits the
 * measured gain, but L2 hit rates were not measured): when that tile's block starts, its
 * `cp.async` finds the tile in L2, so its copy is shorter. A prefetch is only a hint: it changes
 * no result, and lines past the end of the input are not named.
 * \param in         input
 * \param n          element count
 * \param tile_first index of this tile's first element
 * \pre blockDim.x == BLOCK_THREADS.
 */
__device__ __forceinline__ void prefetch_tile_l2(const int32_t *in, size_t n, size_t tile_first)
{
    const int line_items = 128 / (int)sizeof(int32_t);
    const size_t first = tile_first + (size_t)PREFETCH_TILES * TILE_ITEMS;
    for (int k = threadIdx.x * line_items; k < TILE_ITEMS; k += BLOCK_THREADS * line_items)
        if (first + k < n)
            asm volatile("prefetch.global.L2 [%0];" : : "l"(in + first + k));
}

/**
 * \brief Reduce the tile in shared memory: the tile's aggregate, and what precedes each warp's
 *        part of the tile.
 *
 * The aggregate is what the tile's successors wait for, so it is computed first, by the cheapest
 * means: each thread adds its 32 elements, each warp adds its lanes (warp_reduce()), and the
 * warp totals meet behind one barrier, as in chapter 03. The scan of the tile then needs no
 * barrier of its own.
 * \param tile        the tile (not changed)
 * \param warp_prefix receives the sum of the tile's elements before this warp's part
 * \return the tile's aggregate (in every thread)
 * \pre blockDim.x == BLOCK_THREADS; every thread calls it, once per kernel.
 */
__device__ __forceinline__ uint32_t reduce_tile_shared(const uint4 *tile, uint32_t *warp_prefix)
{
    __shared__ uint32_t warp_total[BLOCK_WARPS];
    const int lane = threadIdx.x % WARP_THREADS, warp = threadIdx.x / WARP_THREADS;
    uint32_t sum = 0;
    for (int v = 0; v < VECTORS_PER_THREAD; ++v) {
        const uint4 q = tile[warp * WARP_VECTORS + v * WARP_THREADS + lane];
        sum += (q.x + q.y) + (q.z + q.w);
    }
    sum = warp_reduce(sum);
    if (lane == 0)
        warp_total[warp] = sum;
    __syncthreads(); /* every warp total is written */
    uint32_t before = 0, total = 0;
    for (int w = 0; w < warp; ++w)
        before += warp_total[w];
    for (int w = 0; w < BLOCK_WARPS; ++w)
        total += warp_total[w];
    *warp_prefix = before;
    return total;
}

/**
 * \brief Scan this warp's part of the tile in shared memory, in place: inclusive, or exclusive.
 *
 * Vector v of the warp's part is 128 consecutive elements, 4 per lane: a serial scan of the
 * lane's 4 in registers, a warp scan of the lane totals, and the total of vectors 0 … v−1 carried
 * in front. Each lane reads and writes 16 bytes at a time, the 32 lanes consecutive: no bank
 * conflicts. A warp touches only its own part, so no barrier is needed. The exclusive scan writes
 * the sum of the elements before each one, which the lane has in registers anyway (`before`,
 * then its own running sums): the store then needs no element of another lane.
 * \param tile      the tile; out: each element's scan within its warp's part
 * \param exclusive 1 for exclusive, 0 for inclusive (a constant in each copy of the pass)
 * \pre All 32 lanes of the warp call it together.
 */
__device__ __forceinline__ void scan_warp_part_shared(uint4 *tile, int exclusive)
{
    const int lane = threadIdx.x % WARP_THREADS, warp = threadIdx.x / WARP_THREADS;
    uint32_t carried = 0; /* the sum of vectors 0 … v−1 of the warp's part */
    for (int v = 0; v < VECTORS_PER_THREAD; ++v) {
        uint4 *mine = &tile[warp * WARP_VECTORS + v * WARP_THREADS + lane];
        uint4 q = *mine;
        q.y += q.x;
        q.z += q.y;
        q.w += q.z;
        const uint32_t lane_inclusive = warp_inclusive_scan(q.w);
        const uint32_t before = carried + lane_inclusive - q.w;
        *mine = exclusive ? make_uint4(before, before + q.x, before + q.y, before + q.z)
                          : make_uint4(before + q.x, before + q.y, before + q.z, before + q.w);
        carried += __shfl_sync(FULL_MASK, lane_inclusive, WARP_THREADS - 1);
    }
}

/**
 * \brief Store the scanned tile from shared memory: `prefix` plus each element's scan within its
 *        warp's part (inclusive or exclusive, as scan_warp_part_shared() wrote it).
 * \param out        output, 16-byte aligned
 * \param n          element count
 * \param tile_first index of the tile's first element
 * \param tile       the tile, scanned by scan_warp_part_shared()
 * \param prefix     what precedes this warp's part of the tile
 * \pre blockDim.x == BLOCK_THREADS.
 */
__device__ __forceinline__ void store_tile_shared(int32_t *out, size_t n, size_t tile_first,
                                                  const uint4 *tile, uint32_t prefix)
{
    const int lane = threadIdx.x % WARP_THREADS, warp = threadIdx.x / WARP_THREADS;
    for (int v = 0; v < VECTORS_PER_THREAD; ++v) {
        const int k = warp * WARP_VECTORS + v * WARP_THREADS + lane;
        uint4 q = tile[k];
        q = make_uint4(prefix + q.x, prefix + q.y, prefix + q.z, prefix + q.w);
        const size_t first = tile_first + (size_t)k * 4;
        if (tile_first + TILE_ITEMS <= n) {
            ((uint4 *)out)[first / 4] = q;
        } else {
            const uint32_t r[4] = {q.x, q.y, q.z, q.w};
            for (int c = 0; c < 4; ++c)
                if (first + c < n)
                    out[first + c] = (int32_t)r[c];
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The lesson: one launch per call, with the state in the caller's scratch                    */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Draw this block's tile id from the scratch's state word; the same atomic also says which
 *        descriptor array this call uses and how many descriptors the last call left in the other.
 *
 * The state word: bits 0–31 the next tile id, bits 32–62 how many descriptors the last call wrote,
 * bit 63 which array this call uses. The block that draws the last id sets it up for the next
 * call: id 0, the other array, this call's tile count. Every other block has drawn by then (the
 * ids are handed out one by one, and this was the last), so no block of this call sees the new
 * word; the next call, on the same stream, starts after this one has finished.
 * \param state the scratch's state word
 * \return the word as this block drew it
 * \pre Called by one thread of each block, once; gridDim.x ≤ 2^31 − 1.
 */
__device__ __forceinline__ unsigned long long draw_tile(unsigned long long *state)
{
    const unsigned long long drawn = atomicAdd(state, 1ull);
    if ((unsigned)drawn == gridDim.x - 1)
        atomicExch(state, ((drawn ^ STATE_ARRAY_BIT) & STATE_ARRAY_BIT) |
                              (unsigned long long)gridDim.x << 32);
    return drawn;
}

/**
 * \brief Clear, for the next call, the descriptors that the last call left in the array this call
 *        does not use: block b clears descriptors b, b + gridDim.x, … below `stale`.
 *
 * Nothing reads that array during this call, and the next call starts after this one has
 * finished, so plain stores do.
 * \param other the array this call does not use
 * \param stale how many descriptors the last call wrote there
 * \param tile  this block's tile id
 * \pre blockDim.x == BLOCK_THREADS.
 */
__device__ __forceinline__ void clear_stale_descriptors(unsigned long long *other, size_t stale,
                                                        unsigned tile)
{
    for (size_t t = tile + (size_t)threadIdx.x * gridDim.x; t < stale;
         t += (size_t)BLOCK_THREADS * gridDim.x)
        other[t] = 0;
}

/**
 * \brief One tile of the single pass: draw a tile id, prefetch a later tile into L2, copy this
 *        tile to shared memory, reduce it and publish the aggregate, scan it, look back, store.
 * \param in        input (16-byte aligned)
 * \param out       output (16-byte aligned; may be `in`: the whole tile is in shared memory
 *                  before any of it is written, and a block writes only its own tile)
 * \param n         element count
 * \param state     the scratch: the state word, then two arrays of `capacity` descriptors
 * \param capacity  descriptors per array
 * \param exclusive 1 for an exclusive scan (a constant in each of the kernel's two copies)
 * \pre blockDim.x == BLOCK_THREADS; gridDim.x == number of tiles ≤ capacity.
 */
__device__ __forceinline__ void single_pass_tile(const int32_t *in, int32_t *out, size_t n,
                                                 unsigned long long *state, size_t capacity,
                                                 int exclusive)
{
    __shared__ unsigned long long drawn;
    __shared__ uint32_t tile_exclusive_prefix;
    if (threadIdx.x == 0)
        drawn = draw_tile(state);
    __syncthreads(); /* drawn is written */
    const unsigned tile = (unsigned)drawn;
    const size_t array = drawn & STATE_ARRAY_BIT ? 1 : 0;
    unsigned long long *descriptors = state + 1 + array * capacity;
    clear_stale_descriptors(state + 1 + (1 - array) * capacity,
                            (size_t)(drawn >> 32 & STATE_STALE_MASK), tile);
    const size_t tile_first = (size_t)tile * TILE_ITEMS;
    prefetch_tile_l2(in, n, tile_first);

    __shared__ uint4 tile_data[TILE_ITEMS / 4];
    load_tile_async(in, n, tile_first, tile_data);
    __syncthreads(); /* the whole tile is in shared memory */
    uint32_t warp_prefix;
    const uint32_t aggregate = reduce_tile_shared(tile_data, &warp_prefix);
    if (threadIdx.x == 0)
        publish_aggregate(descriptors, tile, aggregate);
    scan_warp_part_shared(tile_data, exclusive);

    if (threadIdx.x < WARP_THREADS) {
        const uint32_t prefix = look_back(descriptors, tile, aggregate);
        if (threadIdx.x == 0)
            tile_exclusive_prefix = prefix;
    }
    __syncthreads(); /* tile_exclusive_prefix is written */
    store_tile_shared(out, n, tile_first, tile_data, tile_exclusive_prefix + warp_prefix);
}

/**
 * \brief The single-pass scan: one launch, one tile per block (see single_pass_tile()).
 * \param in        input (16-byte aligned)
 * \param out       output (16-byte aligned; may be `in`)
 * \param n         element count
 * \param state     the scratch (lookback_scan_async() says what it must hold)
 * \param capacity  descriptors per array of the scratch
 * \param exclusive 1 for exclusive, 0 for inclusive
 * \pre blockDim.x == BLOCK_THREADS; gridDim.x == ceil(n / TILE_ITEMS) ≤ capacity.
 * \warning Two launches that share a scratch must not run at the same time.
 */
__global__ void __launch_bounds__(BLOCK_THREADS, MIN_BLOCKS_PER_SM)
    lookback_scan_kernel(const int32_t *in, int32_t *out, size_t n, unsigned long long *state,
                         size_t capacity, int exclusive)
{
    /* two copies of the pass, each with `exclusive` a constant: the compiler then keeps fewer
       registers live in each (measured: docs/experiments/08_memcpy_speed.md) */
    if (exclusive)
        single_pass_tile(in, out, n, state, capacity, 1);
    else
        single_pass_tile(in, out, n, state, capacity, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Host launchers                                                                             */
/* ------------------------------------------------------------------------------------------ */

/** Tiles of n elements. */
static size_t tile_count(size_t n)
{
    return (n + TILE_ITEMS - 1) / TILE_ITEMS;
}

/** Scratch the look-back needs for n elements: the state word and two descriptor arrays. */
static size_t lookback_scratch_bytes(size_t n)
{
    return n ? (1 + 2 * tile_count(n)) * sizeof(unsigned long long) : 0;
}

/**
 * \brief The single-pass scan, asynchronous on `stream`: one kernel launch, nothing else.
 *
 * The scratch contract. `d_temp` holds the look-back's state from one call to the next: the
 * state word (the tile counter, which descriptor array the next call uses, how many descriptors
 * the last call left) and the two descriptor arrays. So:
 *  - before the first call that uses it, every byte of it must be 0, and that zeroing must be
 *    ordered before the call (the same stream, or a synchronisation in between);
 *  - after that, only this launcher may write it, and it must be passed with the same
 *    `temp_bytes` every time (the arrays' places depend on it);
 *  - calls that share it must not overlap: issue them on one stream, or order them with events.
 * Calls with different scratch buffers are independent: they may run at once on different
 * streams. A call leaves the scratch ready for the next one (the array the next call uses is all
 * 0: this call cleared it), so no clearing is needed between calls. The driver keeps the first
 * promise for the variants gpu_chapter::temp_is_state names (it zeroes their scratch once, when
 * it allocates it), and `--two-streams` checks that calls with their own scratch may overlap.
 * \param d_in       device input, n elements, 16-byte aligned
 * \param d_out      device output, n elements, 16-byte aligned (may equal `d_in`)
 * \param n          element count (0 launches nothing)
 * \param exclusive  1 for exclusive, 0 for inclusive
 * \param d_temp     the scratch, as above
 * \param temp_bytes its size: at least lookback_scratch_bytes(n)
 * \param stream     the stream to launch on
 */
static void lookback_scan_async(const int32_t *d_in, int32_t *d_out, size_t n, int exclusive,
                                void *d_temp, size_t temp_bytes, cudaStream_t stream)
{
    const size_t tiles = tile_count(n);
    if (tiles == 0)
        return;
    if (tiles > 0x7fffffffu || temp_bytes < lookback_scratch_bytes(n))
        cuda_fail(cudaErrorInvalidValue, "scratch too small, or too many tiles for one grid",
                  __FILE__, __LINE__);
    const size_t capacity = (temp_bytes / sizeof(unsigned long long) - 1) / 2;
    lookback_scan_kernel<<<(unsigned)tiles, BLOCK_THREADS, 0, stream>>>(
        d_in, d_out, n, (unsigned long long *)d_temp, capacity, exclusive);
    CUDA_CHECK_LAUNCH();
}

/** The ::gpu_temp_fn: the look-back's scratch, or CUB's. */
static size_t lookback_temp_bytes(int variant, size_t n)
{
    return variant == VARIANT_CUB ? (n ? cub_scan_temp_bytes(n) : 0) : lookback_scratch_bytes(n);
}

/**
 * \brief The chapter's ::gpu_scan_fn: lookback_scan_async() on the default stream, or CUB's scan.
 * \param variant    VARIANT_LOOKBACK or VARIANT_CUB
 * \param d_in       device input, n elements, 16-byte aligned
 * \param d_out      device output, n elements, 16-byte aligned (may equal `d_in`)
 * \param n          element count (0 launches nothing)
 * \param exclusive  1 for exclusive, 0 for inclusive
 * \param d_temp     this variant's scratch: for the look-back, as lookback_scan_async() says
 * \param temp_bytes its size
 */
static void lookback_scan(int variant, const int32_t *d_in, int32_t *d_out, size_t n,
                          int exclusive, void *d_temp, size_t temp_bytes)
{
    if (n == 0)
        return;
    if (variant == VARIANT_CUB)
        cub_scan(d_in, d_out, n, exclusive, d_temp, temp_bytes);
    else
        lookback_scan_async(d_in, d_out, n, exclusive, d_temp, temp_bytes, 0);
}

/** The ::gpu_describe_fn: tiles, and how many blocks of the kernel fit the GPU at once. */
static void describe_tiles(size_t n, char *line, size_t len)
{
    int device, sms, per_sm;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, lookback_scan_kernel,
                                                             BLOCK_THREADS, 0));
    snprintf(line, len,
             "n = %zu: %zu tiles of %d, one block each, %d resident per SM x %d SMs = %d at once; "
             "1 kernel launch (CUB: %s)",
             n, tile_count(n), TILE_ITEMS, per_sm, sms, per_sm * sms, cub_version());
}

/** The ::gpu_traffic_fn: 2n elements, plus each tile's descriptor written three times (aggregate,
    prefix, and cleared by the next call): 24 bytes, the size of 6 elements. The look-backs' reads
    of descriptors are not counted. */
static double lookback_traffic(int variant, size_t n)
{
    (void)variant;
    return 2.0 * (double)n + 6.0 * (double)tile_count(n);
}

/* ------------------------------------------------------------------------------------------ */
/* --two-streams: two scans at once, each with its own scratch                                */
/* ------------------------------------------------------------------------------------------ */

/** One of the two scans of `--two-streams`. */
typedef struct stream_scan {
    size_t n;            /**< element count */
    int exclusive;       /**< 1 for exclusive */
    int32_t *in;         /**< host input */
    int32_t *ref;        /**< host reference */
    int32_t *out;        /**< host copy of the result */
    int32_t *d_in;       /**< device input */
    int32_t *d_out;      /**< device output */
    void *d_temp;        /**< its own scratch, zeroed once */
    size_t temp_bytes;   /**< the scratch's size */
    cudaStream_t stream; /**< its own stream */
} stream_scan;

/**
 * \brief `--two-streams R`: R rounds of two scans launched at once on two streams, each with its
 *        own scratch, every element of both compared with the CPU.
 *
 * The sizes (n = 2^20 + 5, or `-n N`, and 3 · ⌊n / 4⌋ + 7 = 786 442) give two grids that fit an
 * H200 together, so their blocks can run side by side. Any state the two shared (a tile counter
 * in a `__device__` variable, say) would hand one scan's tile ids to the other's blocks.
 */
static int two_streams_mode(const void *ctx, const scan_options *opt, const int32_t *file,
                            size_t file_words)
{
    (void)ctx;  /* one mode, no data of its own */
    (void)file; /* a mode given alone: --input is refused with it */
    (void)file_words;
    const size_t n0 = opt->n_given ? opt->n : ((size_t)1 << 20) + 5;
    stream_scan s[2] = {{.n = n0, .exclusive = 0}, {.n = n0 / 4 * 3 + 7, .exclusive = 1}};
    for (int k = 0; k < 2; ++k) {
        const size_t bytes = s[k].n * sizeof(int32_t);
        s[k].in = (int32_t *)xmalloc(bytes, "the input");
        s[k].ref = (int32_t *)xmalloc(bytes, "the reference");
        s[k].out = (int32_t *)xmalloc(bytes, "the output");
        generate_input(s[k].in, s[k].n, PATTERN_RANDOM, opt->seed + (uint64_t)k);
        scan_reference(s[k].in, s[k].ref, s[k].n, s[k].exclusive, 0);
        s[k].temp_bytes = lookback_scratch_bytes(s[k].n);
        CUDA_CHECK(cudaMalloc((void **)&s[k].d_in, bytes));
        CUDA_CHECK(cudaMalloc((void **)&s[k].d_out, bytes));
        CUDA_CHECK(cudaMalloc(&s[k].d_temp, s[k].temp_bytes));
        CUDA_CHECK(cudaMemset(s[k].d_temp, 0, s[k].temp_bytes)); /* the contract: zeros, once */
        CUDA_CHECK(cudaMemcpy(s[k].d_in, s[k].in, bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaStreamCreateWithFlags(&s[k].stream, cudaStreamNonBlocking));
    }
    report_note(stdout, opt->csv, "two scans at once on two streams, each with its own scratch: "
                "n = %zu (inclusive) and n = %zu (exclusive), %d rounds, every element compared",
                s[0].n, s[1].n, opt->mode_count);
    long wrong[2] = {0, 0};
    for (int r = 0; r < opt->mode_count; ++r) {
        for (int k = 0; k < 2; ++k)
            CUDA_CHECK(cudaMemsetAsync(s[k].d_out, POISON_BYTE, s[k].n * sizeof(int32_t),
                                       s[k].stream));
        CUDA_CHECK(cudaDeviceSynchronize()); /* both poisoned: the two launches go out together */
        for (int k = 0; k < 2; ++k)
            lookback_scan_async(s[k].d_in, s[k].d_out, s[k].n, s[k].exclusive, s[k].d_temp,
                                s[k].temp_bytes, s[k].stream);
        CUDA_CHECK(cudaDeviceSynchronize());
        for (int k = 0; k < 2; ++k) {
            CUDA_CHECK(cudaMemcpy(s[k].out, s[k].d_out, s[k].n * sizeof(int32_t),
                                  cudaMemcpyDeviceToHost));
            if (memcmp(s[k].out, s[k].ref, s[k].n * sizeof(int32_t)) == 0)
                continue;
            if (wrong[k]++ == 0) {
                verify_result v = verify_scan(s[k].ref, s[k].out, s[k].n);
                printf("round %d, scan %d (n = %zu) is wrong:\n", r, k, s[k].n);
                verify_report(stdout, &v, s[k].ref, s[k].out, s[k].n);
            }
        }
    }
    for (int k = 0; k < 2; ++k) {
        report_note(stdout, opt->csv, "scan %d: %d rounds, %ld wrong", k, opt->mode_count,
                    wrong[k]);
        CUDA_CHECK(cudaStreamDestroy(s[k].stream));
        CUDA_CHECK(cudaFree(s[k].d_in));
        CUDA_CHECK(cudaFree(s[k].d_out));
        CUDA_CHECK(cudaFree(s[k].d_temp));
        free(s[k].in);
        free(s[k].ref);
        free(s[k].out);
    }
    const int ok = wrong[0] == 0 && wrong[1] == 0;
    printf("two streams %s\n", ok ? "passed: no round was wrong" : "FAILED");
    return ok ? EXIT_OK : EXIT_WRONG;
}

/** The chapter's own modes. */
static const scan_mode MODES[] = {
    {.option = "--two-streams",
     .count = "R",
     .help = "R rounds of two scans at once on two streams, own scratch each, checked",
     .test = "--two-streams 300",
     .run = two_streams_mode},
};

/** The default sweep: one tile, in L2, and beyond the H200's L2 (`L2 60 MiB`, the first line of
    `./run` says). */
static const size_t DEFAULT_SIZES[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                       (size_t)1 << 24, (size_t)1 << 26, (size_t)1 << 28};

/** Lines printed above the table. */
static const char *const NOTES[] = {
    "one pass, one launch: read n, write n, plus one 8-byte descriptor per tile of 4096",
    "cub: cub::DeviceScan::InclusiveSum/ExclusiveSum from the CUDA toolkit, on the same buffers",
    NULL};

/** \brief Describe the chapter to the shared driver and run it. */
int main(int argc, char **argv)
{
    const gpu_chapter chapter = {
        .prog = {
            .name = "08_memcpy_speed",
            .title = "chapter 07's single pass at memcpy speed on Hopper, beside CUB",
            .variants = VARIANT_NAMES,
            .variant_count = VARIANT_COUNT,
            .default_sizes = DEFAULT_SIZES,
            .default_size_count = (int)(sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]),
            .default_reps = 20,
            .stress = 1,
            .modes = MODES,
            .mode_count = (int)(sizeof MODES / sizeof MODES[0]),
            .test_big_case = 1, /* make test's n > 2^31 case of the look-back (07 to 10) */
        },
        .scan = lookback_scan,
        .tile = TILE_ITEMS,
        .repeats = 3,
        .notes = NOTES,
        .temp_bytes = lookback_temp_bytes,
        .temp_is_state = 1u << VARIANT_LOOKBACK, /* CUB's scratch is poisoned before every run */
        .traffic = lookback_traffic,
        .describe = describe_tiles,
    };
    return gpu_chapter_main(argc, argv, &chapter);
}
