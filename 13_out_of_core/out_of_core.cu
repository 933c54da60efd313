/**
 * \file out_of_core.cu
 * \brief Chapter 13: scanning an array that lives on the host (pinned memory, or a file of any
 *        size), streamed through the GPU in chunks, with the carry passed from chunk to chunk on
 *        the device.
 *
 * What is new since chapter 08: not the scan of a chunk (chapter 08's kernel and launcher are
 * carried below unchanged) but everything around it. The array is cut into chunks that fit a
 * device-memory budget (`--device-memory`, default: what the GPU has free). Each chunk goes
 * through SLOTS device buffers in turn, on three streams: a host-to-device copy, the scan, a
 * device-to-host copy, so that while chunk k is scanned, chunk k + 1 arrives and chunk k − 1
 * leaves. What makes the chunks one scan is the *carry*, the sum of every element before the
 * chunk, kept in one device word: carry_in_kernel() adds it to the chunk's first element before
 * chapter 08's kernel runs (so its tile 0 starts the scan from it), carry_out_kernel() reads
 * the new carry from the chunk's last result. Both run on the scan's stream, so stream order is
 * what hands the carry from one chunk to the next: no host round trip per chunk. The speed limit
 * is no longer the GPU's memory but the host link: the ceiling is a host-to-device and a
 * device-to-host copy of the same bytes running at once.
 *
 * Rows: `pipeline` (this), `naive-cub` (the same chunks, copy in, CUB's scan, copy out, one
 * after the other), `cpu-threads` (chapter 01's threaded scan on the same host arrays), beside
 * `duplex-copy`, the ceiling. With `--input`, a file streams through the pipeline and its read
 * speed is timed beside it.
 *
 * Build and run: `make chapter-13 && ./run` from the top folder, or `make && ./run` here. The
 * chunks' chain is chapter 06's chained scan at the granularity of chunks; inside a chunk,
 * Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back" (2016), §4.
 * Every index is a `size_t`; sums are kept in `uint32_t`, so overflow wraps.
 */
#include "cub_scan.h"
#include "cuda_util.h"
#include "data.h"
#include "io.h"
#include "report.h"
#include "selftest.h"

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Chapter 08's constants (its kernel is carried below)                                       */
/* ------------------------------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------------------------------ */
/* This chapter's constants                                                                   */
/* ------------------------------------------------------------------------------------------ */

/** Device buffers a chunk goes through in turn: while one is filled from the host, one is
    scanned and one is emptied to the host (triple buffering; the notes say why not two). */
#define SLOTS 3
/** Largest chunk, in elements (64 MiB): the pipeline fills and drains once per call, so a chunk
    is small beside the array; and, a hypothesis that `./run`'s `the link` line tests (exercise
    2 varies the chunk), large enough that each copy runs at the link's speed. */
#define MAX_CHUNK_ITEMS ((size_t)1 << 24)
/** The chunk of `--self-test` and `--stress` unless `--device-memory` says otherwise (4 MiB):
    the battery's sizes around it (chunk ± 1, 3 · chunk + 7) and 2^24 + 1 then span many chunks,
    far more than the budget holds at once. */
#define TEST_CHUNK_ITEMS ((size_t)1 << 20)
/** The words of the carry, in device memory: the running carry, and what carry_in_kernel()
    keeps for carry_out_kernel(). */
enum { CARRY_RUNNING, CARRY_SAVED, CARRY_LAST, CARRY_WORDS };

/** The variants: the pipeline, the naive loop, chapter 01's threaded CPU scan. */
enum { VARIANT_PIPELINE, VARIANT_NAIVE, VARIANT_CPU, VARIANT_COUNT };

/** Names for `--variant`. */
static const char *const VARIANT_NAMES[VARIANT_COUNT] = {"pipeline", "naive-cub", "cpu-threads"};

/** Chapter 01's two-pass threaded scan (cpu_threads.c compiles chapter 01's own source). */
extern "C" void chapter01_scan_threads(const int32_t *in, int32_t *out, size_t n, int exclusive);

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
/* Carried over unchanged from chapter 08 (08_memcpy_speed/memcpy_speed.cu): its kernel       */
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
/* Carried over unchanged from chapter 08: its launcher                                       */
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

/* ------------------------------------------------------------------------------------------ */
/* New: the carry from chunk to chunk, on the device                                          */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Before a chunk's scan: add the carry (the sum of every element of the chunks before it)
 *        to the chunk's first element, and keep what carry_out_kernel() will need.
 *
 * Chapter 08's kernel scans a chunk as it scans any array, from 0. With the carry folded into
 * element 0, its tile 0 publishes carry + aggregate as its inclusive prefix, every look-back
 * ends on a prefix that holds the carry, and every result of the chunk comes out with the carry
 * added: this chunk's part of the scan of the whole array. The kernel is not changed and does
 * not know about chunks. The carry word was written by the previous chunk's carry_out_kernel()
 * on the same stream: a kernel starts only after the one before it on its stream has finished
 * and its writes are visible (the notes say what this rests on), so plain loads and stores do.
 * \param chunk the chunk's input in device memory
 * \param n     its element count, at least 1
 * \param carry CARRY_WORDS words: reads CARRY_RUNNING; writes CARRY_SAVED and CARRY_LAST
 * \pre <<<1, 1>>>, on the scan's stream, after the chunk's copy and before its scan.
 */
__global__ void carry_in_kernel(int32_t *chunk, size_t n, uint32_t *carry)
{
    const uint32_t running = carry[CARRY_RUNNING];
    carry[CARRY_SAVED] = running;
    carry[CARRY_LAST] = (uint32_t)chunk[n - 1]; /* the scan, in place, overwrites it */
    chunk[0] = (int32_t)((uint32_t)chunk[0] + running);
}

/**
 * \brief After a chunk's scan: the carry for the next chunk, from the chunk's last result.
 *
 * Inclusive: the last result is the sum of everything up to the chunk's end, the next carry.
 * Exclusive: the kernel wrote 0 (the identity) at element 0, where the carry belongs; and the
 * last result lacks the chunk's last element, which carry_in_kernel() kept.
 * \param chunk     the chunk, scanned in place
 * \param n         its element count, at least 1
 * \param carry     CARRY_WORDS words: writes CARRY_RUNNING
 * \param exclusive 1 for an exclusive scan
 * \pre <<<1, 1>>>, on the scan's stream, after the chunk's scan and before its copy out.
 */
__global__ void carry_out_kernel(int32_t *chunk, size_t n, uint32_t *carry, int exclusive)
{
    if (exclusive) {
        chunk[0] = (int32_t)carry[CARRY_SAVED]; /* before reading chunk[n - 1]: n may be 1 */
        carry[CARRY_RUNNING] = (uint32_t)chunk[n - 1] + carry[CARRY_LAST];
    } else {
        carry[CARRY_RUNNING] = (uint32_t)chunk[n - 1];
    }
}

/* ------------------------------------------------------------------------------------------ */
/* New: the pipeline of chunks                                                                */
/* ------------------------------------------------------------------------------------------ */

/** The events a `--timeline` run records per chunk (pipeline::marks). */
enum { MARK_IN_BEGIN, MARK_IN_END, MARK_SCAN_BEGIN, MARK_KERNEL_BEGIN, MARK_KERNEL_END,
       MARK_SCAN_END, MARK_OUT_BEGIN, MARK_OUT_END, MARKS_PER_CHUNK };

/**
 * The streaming scan's device side: SLOTS chunk buffers, chapter 08's scratch, CUB's scratch
 * (for `naive-cub`) and the carry, carved from one allocation that the budget bounds; three
 * streams, one per kind of work; and pinned host buffers for inputs that are not in pinned
 * memory (a file, the battery's arrays).
 */
typedef struct pipeline {
    size_t chunk;                  /**< elements per chunk: a multiple of TILE_ITEMS */
    size_t device_bytes;           /**< bytes of the one device allocation */
    char *d_block;                 /**< that allocation */
    int32_t *d_slot[SLOTS];        /**< the chunk buffers; a chunk is scanned in place */
    void *d_scratch;               /**< chapter 08's scratch (its contract: zeroed once) */
    size_t scratch_bytes;          /**< its size, for a whole chunk */
    void *d_cub;                   /**< CUB's scratch, for a whole chunk */
    size_t cub_bytes;              /**< its size */
    uint32_t *d_carry;             /**< CARRY_WORDS words */
    cudaStream_t to_device;        /**< the host-to-device copies */
    cudaStream_t scan;             /**< the carry kernels and the scans, in chunk order */
    cudaStream_t to_host;          /**< the device-to-host copies */
    cudaEvent_t loaded[SLOTS];     /**< a slot's chunk has arrived */
    cudaEvent_t scanned[SLOTS];    /**< a slot's chunk is scanned and the carry moved on */
    cudaEvent_t emptied[SLOTS];    /**< a slot's chunk has left: the slot may be refilled */
    int32_t *h_in[SLOTS];          /**< pinned staging of inputs (NULL until needed) */
    int32_t *h_out[SLOTS];         /**< pinned staging of results (NULL until needed) */
    cudaEvent_t *marks;            /**< `--timeline`: MARKS_PER_CHUNK events per chunk, or NULL */
    size_t mark_chunks;            /**< chunks `marks` has room for */
} pipeline;

/** `bytes` rounded up to a multiple of 256 (the places carved from the one allocation). */
static size_t align256(size_t bytes)
{
    return (bytes + 255) / 256 * 256;
}

/** Device bytes the pipeline needs for chunks of `chunk` elements, CUB's scratch included. */
static size_t pipeline_bytes(size_t chunk)
{
    return SLOTS * align256(chunk * sizeof(int32_t)) + align256(lookback_scratch_bytes(chunk)) +
           align256(cub_scan_temp_bytes(chunk)) + align256(CARRY_WORDS * sizeof(uint32_t));
}

/** The largest chunk (a multiple of TILE_ITEMS, at most `most`) whose pipeline fits `budget`
    bytes; 0 if not even one tile's does. */
static size_t chunk_for_budget(size_t budget, size_t most)
{
    size_t chunk = budget / (SLOTS * sizeof(int32_t)) / TILE_ITEMS * TILE_ITEMS;
    chunk = chunk < most ? chunk : most;
    while (chunk > 0 && pipeline_bytes(chunk) > budget) /* the scratch: a few tiles at most */
        chunk -= TILE_ITEMS;
    return chunk;
}

/** MiB, for messages. */
static double mib(double bytes)
{
    return bytes / (1024.0 * 1024.0);
}

/**
 * \brief Set up the pipeline for the largest chunk, at most `most` elements, that `budget` bytes
 *        of device memory hold: one allocation, carved; chapter 08's scratch zeroed (its
 *        contract); three streams; the events. Exits with status 2 if the budget is too small.
 */
static void pipeline_create(pipeline *p, size_t budget, size_t most)
{
    memset(p, 0, sizeof *p);
    p->chunk = chunk_for_budget(budget, most);
    if (p->chunk == 0)
        cli_fail(EXIT_USAGE, "--device-memory %zu is too small: the pipeline needs at least %zu "
                 "bytes (%d chunks of %d elements and their scratch); give more, e.g. "
                 "--device-memory 1MiB", budget, pipeline_bytes(TILE_ITEMS), SLOTS, TILE_ITEMS);
    p->device_bytes = pipeline_bytes(p->chunk);
    p->scratch_bytes = lookback_scratch_bytes(p->chunk);
    p->cub_bytes = cub_scan_temp_bytes(p->chunk);
    CUDA_CHECK(cudaMalloc((void **)&p->d_block, p->device_bytes));
    char *at = p->d_block;
    for (int s = 0; s < SLOTS; ++s) {
        p->d_slot[s] = (int32_t *)at;
        at += align256(p->chunk * sizeof(int32_t));
    }
    p->d_scratch = at;
    at += align256(p->scratch_bytes);
    p->d_cub = at;
    at += align256(p->cub_bytes);
    p->d_carry = (uint32_t *)at;
    CUDA_CHECK(cudaMemset(p->d_scratch, 0, p->scratch_bytes)); /* chapter 08's contract: zeros */
    /* Blocking streams (the default flag): an event on the legacy default stream, as
       cuda_timing_ms() records, then waits for all three, so it brackets a whole call. */
    CUDA_CHECK(cudaStreamCreate(&p->to_device));
    CUDA_CHECK(cudaStreamCreate(&p->scan));
    CUDA_CHECK(cudaStreamCreate(&p->to_host));
    for (int s = 0; s < SLOTS; ++s) {
        CUDA_CHECK(cudaEventCreateWithFlags(&p->loaded[s], cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&p->scanned[s], cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&p->emptied[s], cudaEventDisableTiming));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
}

/** Pinned host buffers for a staged input (pipeline_scan_staged()), allocated on first use. */
static void pipeline_staging(pipeline *p)
{
    if (p->h_in[0])
        return;
    for (int s = 0; s < SLOTS; ++s) {
        CUDA_CHECK(cudaMallocHost((void **)&p->h_in[s], p->chunk * sizeof(int32_t)));
        CUDA_CHECK(cudaMallocHost((void **)&p->h_out[s], p->chunk * sizeof(int32_t)));
    }
}

/** Free what pipeline_create(), pipeline_staging() and `--timeline` allocated. */
static void pipeline_destroy(pipeline *p)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int s = 0; s < SLOTS; ++s) {
        CUDA_CHECK(cudaEventDestroy(p->loaded[s]));
        CUDA_CHECK(cudaEventDestroy(p->scanned[s]));
        CUDA_CHECK(cudaEventDestroy(p->emptied[s]));
        CUDA_CHECK(cudaFreeHost(p->h_in[s]));
        CUDA_CHECK(cudaFreeHost(p->h_out[s]));
    }
    for (size_t m = 0; m < p->mark_chunks * MARKS_PER_CHUNK; ++m)
        CUDA_CHECK(cudaEventDestroy(p->marks[m]));
    free(p->marks);
    CUDA_CHECK(cudaStreamDestroy(p->to_device));
    CUDA_CHECK(cudaStreamDestroy(p->scan));
    CUDA_CHECK(cudaStreamDestroy(p->to_host));
    CUDA_CHECK(cudaFree(p->d_block));
    memset(p, 0, sizeof *p);
}

/** `--timeline`: record mark `which` of chunk k on `stream` (nothing outside a timeline run). */
static void mark(const pipeline *p, size_t k, int which, cudaStream_t stream)
{
    if (p->marks && k < p->mark_chunks)
        CUDA_CHECK(cudaEventRecord(p->marks[k * MARKS_PER_CHUNK + which], stream));
}

/**
 * \brief Enqueue chunk k: copy it in, fold the carry in, scan it with chapter 08's kernel, move
 *        the carry on, copy it out; each step on its stream, each hand-off an event.
 *
 * The three streams run side by side; what orders them is the events. Chunk k uses slot
 * k mod SLOTS: its copy in waits until the chunk that used the slot before (k − SLOTS) has left
 * it (`emptied`); its scan waits for its copy in (`loaded`); its copy out waits for its scan
 * (`scanned`). The scans, and so the carry, stay in chunk order on their one stream, which is
 * also what chapter 08's scratch contract asks: calls that share a scratch never overlap.
 * A wait on an event never recorded is a no-op (CUDA Runtime API, `cudaStreamWaitEvent`: it
 * acts as if the record had completed), so the first SLOTS chunks do not wait; a later wait
 * takes the event's latest record, made for the chunk before in the same slot, or in the
 * previous call.
 * \param p         the pipeline
 * \param k         the chunk's number (for its slot and its marks)
 * \param src       its input, `len` elements in host memory (pinned, for the copy to overlap)
 * \param dst       where its result goes, in host memory (may be `src`)
 * \param len       its element count, 1 … pipeline::chunk
 * \param exclusive 1 for an exclusive scan
 */
static void enqueue_chunk(pipeline *p, size_t k, const int32_t *src, int32_t *dst, size_t len,
                          int exclusive)
{
    const int s = (int)(k % SLOTS);
    int32_t *d = p->d_slot[s];
    const size_t bytes = len * sizeof(int32_t);
    CUDA_CHECK(cudaStreamWaitEvent(p->to_device, p->emptied[s], 0));
    mark(p, k, MARK_IN_BEGIN, p->to_device);
    CUDA_CHECK(cudaMemcpyAsync(d, src, bytes, cudaMemcpyHostToDevice, p->to_device));
    mark(p, k, MARK_IN_END, p->to_device);
    CUDA_CHECK(cudaEventRecord(p->loaded[s], p->to_device));

    CUDA_CHECK(cudaStreamWaitEvent(p->scan, p->loaded[s], 0));
    mark(p, k, MARK_SCAN_BEGIN, p->scan);
    carry_in_kernel<<<1, 1, 0, p->scan>>>(d, len, p->d_carry);
    CUDA_CHECK_LAUNCH();
    mark(p, k, MARK_KERNEL_BEGIN, p->scan);
    lookback_scan_async(d, d, len, exclusive, p->d_scratch, p->scratch_bytes, p->scan);
    mark(p, k, MARK_KERNEL_END, p->scan);
    carry_out_kernel<<<1, 1, 0, p->scan>>>(d, len, p->d_carry, exclusive);
    CUDA_CHECK_LAUNCH();
    mark(p, k, MARK_SCAN_END, p->scan);
    CUDA_CHECK(cudaEventRecord(p->scanned[s], p->scan));

    CUDA_CHECK(cudaStreamWaitEvent(p->to_host, p->scanned[s], 0));
    mark(p, k, MARK_OUT_BEGIN, p->to_host);
    CUDA_CHECK(cudaMemcpyAsync(dst, d, bytes, cudaMemcpyDeviceToHost, p->to_host));
    mark(p, k, MARK_OUT_END, p->to_host);
    CUDA_CHECK(cudaEventRecord(p->emptied[s], p->to_host));
}

/** Start a call: the carry is 0 before the first chunk (on the scan stream, so before it). */
static void reset_carry(pipeline *p)
{
    CUDA_CHECK(cudaMemsetAsync(p->d_carry, 0, CARRY_WORDS * sizeof(uint32_t), p->scan));
}

/**
 * \brief The pipeline over host arrays: every chunk enqueued, nothing waited for (the caller
 *        synchronises). For the copies to overlap, `in` and `out` must be pinned
 *        (`cudaMallocHost`); pageable memory gives the same result, more slowly.
 * \param p         the pipeline
 * \param in        n input elements in host memory
 * \param out       n results in host memory (may be `in`)
 * \param n         element count (0 enqueues nothing)
 * \param exclusive 1 for an exclusive scan
 */
static void pipeline_scan(pipeline *p, const int32_t *in, int32_t *out, size_t n, int exclusive)
{
    reset_carry(p);
    for (size_t k = 0, first = 0; first < n; ++k, first += p->chunk) {
        const size_t len = n - first < p->chunk ? n - first : p->chunk;
        enqueue_chunk(p, k, in + first, out + first, len, exclusive);
    }
}

/** Fills `buf` with up to `max` input elements; returns how many (0: the input has ended). */
typedef size_t (*chunk_source)(void *ctx, int32_t *buf, size_t max);
/** Takes one scanned chunk: its `len` inputs and results, in chunk order. */
typedef void (*chunk_sink)(void *ctx, const int32_t *in, const int32_t *out, size_t len);

/**
 * \brief The pipeline over an input that is not in pinned memory (a file, a pipe, a pageable
 *        array): the host fills pinned buffers from `source` and hands each result to `sink`,
 *        while the GPU works on the chunks before.
 *
 * Host buffer pair s serves chunks s, s + SLOTS, …: before the host refills it with chunk k, it
 * waits for chunk k − SLOTS to have left the GPU (`emptied`) and hands that chunk to `sink`. So
 * the host reads chunk k while chunks k − SLOTS + 1 … k − 1 are on their way, and the sink sees
 * every chunk once, in order. Returns when every chunk has been handed to the sink.
 * \return the element count
 */
static size_t pipeline_scan_staged(pipeline *p, chunk_source source, chunk_sink sink, void *ctx,
                                   int exclusive)
{
    size_t len[SLOTS] = {0}, k = 0, done = 0, total = 0;
    pipeline_staging(p);
    reset_carry(p);
    for (;; ++k) {
        const int s = (int)(k % SLOTS);
        if (k >= SLOTS) { /* the chunk that used these buffers last */
            CUDA_CHECK(cudaEventSynchronize(p->emptied[s]));
            sink(ctx, p->h_in[s], p->h_out[s], len[s]);
            ++done;
        }
        len[s] = source(ctx, p->h_in[s], p->chunk);
        if (len[s] == 0)
            break;
        total += len[s];
        enqueue_chunk(p, k, p->h_in[s], p->h_out[s], len[s], exclusive);
    }
    for (; done < k; ++done) {
        const int s = (int)(done % SLOTS);
        CUDA_CHECK(cudaEventSynchronize(p->emptied[s]));
        sink(ctx, p->h_in[s], p->h_out[s], len[s]);
    }
    return total;
}

/* ------------------------------------------------------------------------------------------ */
/* The rows beside it: the naive loop, the ceiling, chapter 01's CPU scan                      */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief The naive loop: the same chunks and the same carry kernels, but one thing at a time on
 *        the default stream: copy a chunk in, CUB's scan (common/cub_scan.cu), copy it out.
 *        Each `cudaMemcpy` returns when its copy is done, so nothing overlaps.
 */
static void naive_scan(pipeline *p, const int32_t *in, int32_t *out, size_t n, int exclusive)
{
    int32_t *d = p->d_slot[0];
    CUDA_CHECK(cudaMemset(p->d_carry, 0, CARRY_WORDS * sizeof(uint32_t)));
    for (size_t first = 0; first < n; first += p->chunk) {
        const size_t len = n - first < p->chunk ? n - first : p->chunk;
        CUDA_CHECK(cudaMemcpy(d, in + first, len * sizeof(int32_t), cudaMemcpyHostToDevice));
        carry_in_kernel<<<1, 1>>>(d, len, p->d_carry);
        CUDA_CHECK_LAUNCH();
        cub_scan(d, d, len, exclusive, p->d_cub, p->cub_bytes);
        carry_out_kernel<<<1, 1>>>(d, len, p->d_carry, exclusive);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaMemcpy(out + first, d, len * sizeof(int32_t), cudaMemcpyDeviceToHost));
    }
}

/** Which way duplex_copy() copies. */
enum { COPY_TO_DEVICE = 1, COPY_TO_HOST = 2, COPY_BOTH = 3 };

/**
 * \brief The ceiling: the bytes the scan moves, and nothing else. Chunk by chunk (the pipeline's
 *        chunks), `in` to a device slot on one stream and another slot to `out` on another, so
 *        that both directions of the link run at once (`COPY_BOTH`), or one of them alone.
 *        `out` receives whatever the slot held.
 */
static void duplex_copy(pipeline *p, const int32_t *in, int32_t *out, size_t n, int directions)
{
    for (size_t first = 0; first < n; first += p->chunk) {
        const size_t bytes = (n - first < p->chunk ? n - first : p->chunk) * sizeof(int32_t);
        if (directions & COPY_TO_DEVICE)
            CUDA_CHECK(cudaMemcpyAsync(p->d_slot[0], in + first, bytes, cudaMemcpyHostToDevice,
                                       p->to_device));
        if (directions & COPY_TO_HOST)
            CUDA_CHECK(cudaMemcpyAsync(out + first, p->d_slot[1], bytes, cudaMemcpyDeviceToHost,
                                       p->to_host));
    }
}

/**
 * \brief Check every element of a scan against its input, without a reference array: out[i] must
 *        be out[i − 1] + in[i] (inclusive) or out[i − 1] + in[i − 1] (exclusive), with
 *        `out_before` and `in_before` standing for out[−1] and in[−1] (0 and 0 for an array's
 *        start; a chunk's predecessor's last otherwise). By induction from the start, an output
 *        that passes is the serial scan, element for element; the first index that fails is the
 *        first wrong element. So arrays of any size are checked in one parallel pass.
 * \param in         the input, n elements
 * \param out        the scan to check, n elements
 * \param n          element count
 * \param exclusive  1 for an exclusive scan, 0 for inclusive
 * \param out_before out[−1]: 0 at an array's start, else the previous chunk's last output
 * \param in_before  in[−1]: 0 at an array's start, else the previous chunk's last input
 * \param expected   receives the right value at the index returned (when it is not n)
 * \return the first wrong index, or n
 */
static size_t first_wrong(const int32_t *in, const int32_t *out, size_t n, int exclusive,
                          uint32_t out_before, uint32_t in_before, uint32_t *expected)
{
    size_t first = n;
#pragma omp parallel for schedule(static) reduction(min : first)
    for (size_t i = 0; i < n; ++i) {
        const uint32_t previous_out = i ? (uint32_t)out[i - 1] : out_before;
        const uint32_t added = exclusive ? (i ? (uint32_t)in[i - 1] : in_before) : (uint32_t)in[i];
        if ((uint32_t)out[i] != previous_out + added && i < first)
            first = i;
    }
    if (first < n)
        *expected = (first ? (uint32_t)out[first - 1] : out_before) +
                    (exclusive ? (first ? (uint32_t)in[first - 1] : in_before) : (uint32_t)in[first]);
    return first;
}

/** Check a whole array (first_wrong() from the start); print the first wrong element, if any,
    unless `what` is NULL. Returns 1 if every element is right. */
static int check_array(const int32_t *in, const int32_t *out, size_t n, int exclusive,
                       const char *what)
{
    uint32_t expected = 0;
    const size_t bad = first_wrong(in, out, n, exclusive, 0, 0, &expected);
    if (bad < n && what)
        printf("%s is wrong: first at index %zu: expected %d, got %d\n", what, bad,
               (int32_t)expected, out[bad]);
    return bad == n;
}

/** pinned host memory of n elements (at least one, so that n = 0 has an address). */
static int32_t *pinned(size_t n)
{
    int32_t *p = NULL;
    CUDA_CHECK(cudaMallocHost((void **)&p, (n ? n : 1) * sizeof(int32_t)));
    return p;
}

/* ------------------------------------------------------------------------------------------ */
/* The host driver: timing sweep, self-test, stress, file, timeline                           */
/* ------------------------------------------------------------------------------------------ */

/** Untimed runs before the timed ones (first-use costs of the streams, the pinned pages, the
    thread pool). */
#define WARMUP_RUNS 1

/** What the timed work functions need. */
typedef struct timed_scan {
    pipeline *p;        /**< the pipeline */
    const int32_t *in;  /**< pinned input */
    int32_t *out;       /**< pinned output */
    size_t n;           /**< element count */
    int exclusive;      /**< exclusive scan */
    int variant;        /**< VARIANT_*, or a COPY_* direction for the copies (timed_copy()) */
} timed_scan;

/** The ::gpu_work_fn of the pipeline and naive rows. */
static void timed_gpu_scan(void *ctx)
{
    timed_scan *t = (timed_scan *)ctx;
    if (t->variant == VARIANT_PIPELINE)
        pipeline_scan(t->p, t->in, t->out, t->n, t->exclusive);
    else
        naive_scan(t->p, t->in, t->out, t->n, t->exclusive);
}

/** The ::gpu_work_fn of the copies (the ceiling and the one-way rates). */
static void timed_copy(void *ctx)
{
    timed_scan *t = (timed_scan *)ctx;
    duplex_copy(t->p, t->in, t->out, t->n, t->variant);
}

/** Run any variant once on host arrays and wait for it. */
static void run_variant(pipeline *p, int variant, const int32_t *in, int32_t *out, size_t n,
                        int exclusive)
{
    if (variant == VARIANT_CPU) {
        chapter01_scan_threads(in, out, n, exclusive);
        return;
    }
    timed_scan t = {p, in, out, n, exclusive, variant};
    timed_gpu_scan(&t);
    CUDA_CHECK(cudaDeviceSynchronize());
}

/** Median and spread, in ms, of `reps` runs of chapter 01's threaded scan (host clock). */
static timing time_cpu(const int32_t *in, int32_t *out, size_t n, int exclusive, int reps)
{
    double *ms = (double *)xmalloc((size_t)reps * sizeof(double), "the timings");
    for (int r = -WARMUP_RUNS; r < reps; ++r) {
        const double start = host_seconds();
        chapter01_scan_threads(in, out, n, exclusive);
        if (r >= 0)
            ms[r] = (host_seconds() - start) * 1e3;
    }
    const timing t = timing_of(ms, reps);
    free(ms);
    return t;
}

/** The sweep's columns. */
static const report_column COLUMNS[] = {
    {"n", 10},           {"variant", -12},          {"time_us", 12},  {"GB/s", 8},
    {"pct_ceiling", 11}, {"spread_pct", 10},        {"ceiling_spread_pct", 18},
    {"noise", -17},      {"check", -5}};
/** How many. */
#define COLUMN_COUNT ((int)(sizeof COLUMNS / sizeof COLUMNS[0]))

/** One row: `t` its timing, `ceiling` the duplex copy's (ms). A CPU row is not a share of the
    link, so only its spread can make it noisy. */
static void print_row(const scan_options *opt, size_t n, const char *variant, timing t,
                      timing ceiling, int uses_link, const char *check)
{
    char nbuf[32], tbuf[32], gbuf[32], pbuf[32], sbuf[32], cbuf[32];
    const double pct = t.median > 0 ? 100.0 * ceiling.median / t.median : 0.0;
    format_size(n, nbuf, sizeof nbuf);
    snprintf(tbuf, sizeof tbuf, "%.2f", t.median * 1e3);
    snprintf(gbuf, sizeof gbuf, n ? "%.1f" : "-", gb_per_s(scan_min_bytes(n), t.median));
    snprintf(pbuf, sizeof pbuf, n && t.median > 0 ? "%.1f" : "-", pct);
    const char *row[] = {nbuf, variant, tbuf, gbuf, pbuf, format_spread(t, n > 0, sbuf, sizeof sbuf),
                         format_spread(ceiling, n > 0, cbuf, sizeof cbuf),
                         noise_flag(t, ceiling, uses_link ? pct : 0.0, n > 0), check};
    report_row(stdout, COLUMNS, COLUMN_COUNT, opt->csv, row);
}

/** Default sweep: beyond the chunk (2^24) up to 4 GiB; -n 2^33 is the notes' other size. */
static const size_t DEFAULT_SIZES[] = {(size_t)1 << 24, (size_t)1 << 28, (size_t)1 << 30};

/**
 * \brief The timing sweep: per size, the ceiling (the duplex copy), then each variant verified,
 *        timed, verified again, from and to pinned host memory.
 */
static int sweep(pipeline *p, const scan_options *opt)
{
    const size_t *sizes = opt->n_given ? &opt->n : DEFAULT_SIZES;
    const int count = opt->n_given ? 1 : (int)(sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]);
    size_t largest = 0;
    char what[64];
    int status = EXIT_OK;
    for (int s = 0; s < count; ++s)
        largest = sizes[s] > largest ? sizes[s] : largest;
    snprintf(what, sizeof what, "-n %zu (input and output, pinned)", largest);
    io_require_host_memory(2.2 * sizeof(int32_t) * (double)largest, what);

    report_note(stdout, opt->csv, "%s scan, seed %llu, median of %d runs after %d warm-up run, "
                "from and to pinned host memory", opt->exclusive ? "exclusive" : "inclusive",
                (unsigned long long)opt->seed, opt->reps, WARMUP_RUNS);
    report_note(stdout, opt->csv, "GB/s counts 2*n*4 bytes (each element crosses the link in and "
                "out); pct_ceiling compares with duplex-copy: the same bytes copied host->device "
                "and device->host at once on two streams, chunk by chunk, timed in this run");
    report_noise_note(stdout, opt->csv);
    report_note(stdout, opt->csv, "(here 'over-memcpy' means over the duplex copy; cpu-threads "
                "does not use the link: its pct_ceiling is a comparison, never noise)");
    report_note(stdout, opt->csv, "pipeline: %d device slots, 3 streams (copy in, scan, copy "
                "out), chapter 08's kernel per chunk, the carry on the device; naive-cub: copy "
                "in, CUB, copy out, one at a time; cpu-threads: chapter 01's scan, %d threads",
                SLOTS, omp_get_max_threads());
    int device = 0, engines = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, device));
    report_note(stdout, opt->csv, "copy engines: %d (cudaDevAttrAsyncEngineCount; 2 or more can "
                "copy both ways at once)", engines);
    report_header(stdout, COLUMNS, COLUMN_COUNT, opt->csv);
    for (int s = 0; s < count; ++s) {
        const size_t n = sizes[s];
        int32_t *in = pinned(n), *out = pinned(n);
        generate_input(in, n, PATTERN_RANDOM, opt->seed);
        report_note(stdout, opt->csv, "n = %zu: %zu chunks of up to %zu elements", n,
                    (n + p->chunk - 1) / p->chunk, p->chunk);

        timed_scan copy = {p, in, out, n, 0, COPY_BOTH};
        const timing none = {0.0, 0.0};
        const timing ceiling = n ? cuda_timing_ms(timed_copy, &copy, WARMUP_RUNS, opt->reps) : none;
        if (n) {
            copy.variant = COPY_TO_DEVICE;
            const double h2d = cuda_timing_ms(timed_copy, &copy, WARMUP_RUNS, opt->reps).median;
            copy.variant = COPY_TO_HOST;
            const double d2h = cuda_timing_ms(timed_copy, &copy, WARMUP_RUNS, opt->reps).median;
            const double bytes = (double)n * sizeof(int32_t);
            report_note(stdout, opt->csv, "the link, n = %zu: host->device alone %.1f GB/s, "
                        "device->host alone %.1f GB/s, both at once %.1f GB/s each way", n,
                        gb_per_s(bytes, h2d), gb_per_s(bytes, d2h),
                        gb_per_s(bytes, ceiling.median));
        }
        print_row(opt, n, "duplex-copy", ceiling, ceiling, 1, "-");

        for (int v = 0; v < VARIANT_COUNT; ++v) {
            if (!cli_variant_selected(opt, v))
                continue;
            poison(out, n);
            run_variant(p, v, in, out, n, opt->exclusive);
            int ok = check_array(in, out, n, opt->exclusive, VARIANT_NAMES[v]);
            timed_scan job = {p, in, out, n, opt->exclusive, v};
            timing t = none;
            if (n && v == VARIANT_CPU)
                t = time_cpu(in, out, n, opt->exclusive, opt->reps);
            else if (n)
                t = cuda_timing_ms(timed_gpu_scan, &job, WARMUP_RUNS, opt->reps);
            ok = check_array(in, out, n, opt->exclusive, VARIANT_NAMES[v]) && ok;
            print_row(opt, n, VARIANT_NAMES[v], t, ceiling, v != VARIANT_CPU, ok ? "ok" : "WRONG");
            if (!ok)
                status = EXIT_WRONG;
        }
        CUDA_CHECK(cudaFreeHost(in));
        CUDA_CHECK(cudaFreeHost(out));
    }
    report_summary(stdout, opt->csv);
    return status;
}

/** Largest battery size that also goes through pipeline_scan() on pinned copies (the path the
    timings take): 2^26 elements, 256 MiB per pinned array. Only the n > 2^31 case is above it. */
#define PINNED_TEST_MAX ((size_t)1 << 26)

/** What the battery's scan needs: the pipeline, and pinned arrays for its pinned path. */
typedef struct battery {
    pipeline *p;           /**< the pipeline */
    int32_t *pinned_in;    /**< a pinned copy of the case's input */
    int32_t *pinned_out;   /**< the pinned path's results */
    size_t pinned_n;       /**< elements they hold (0: none yet) */
} battery;

/** One staged call of the battery: its pageable arrays, and how far the pipeline has got. */
typedef struct battery_call {
    const int32_t *in;     /**< the battery's input (pageable) */
    int32_t *out;          /**< where the results go (pageable) */
    size_t n;              /**< its element count */
    size_t read;           /**< elements handed to the pipeline so far */
    size_t written;        /**< results taken from it so far */
} battery_call;

/** The ::chunk_source of the battery: the next piece of its array. */
static size_t array_source(void *ctx, int32_t *buf, size_t max)
{
    battery_call *c = (battery_call *)ctx;
    const size_t len = c->n - c->read < max ? c->n - c->read : max;
    if (len)
        memcpy(buf, c->in + c->read, len * sizeof(int32_t));
    c->read += len;
    return len;
}

/** The ::chunk_sink of the battery: the results, into its output array. */
static void array_sink(void *ctx, const int32_t *in, const int32_t *out, size_t len)
{
    battery_call *c = (battery_call *)ctx;
    (void)in;
    memcpy(c->out + c->written, out, len * sizeof(int32_t));
    c->written += len;
}

/**
 * \brief The ::scan_fn of the battery. The pipeline takes both its paths: pipeline_scan() on
 *        pinned copies (the path of the timings, where only the `emptied` event keeps a slot
 *        from being refilled early), whose results the battery checks; then
 *        pipeline_scan_staged() (the path of a file), whose results must equal them element for
 *        element. Above ::PINNED_TEST_MAX only the staged path runs. The naive loop and chapter
 *        01's scan run on the battery's pageable arrays.
 */
static int scan_host(void *ctx, int variant, const int32_t *in, int32_t *out, size_t n,
                     int exclusive)
{
    battery *b = (battery *)ctx;
    if (variant != VARIANT_PIPELINE) {
        run_variant(b->p, variant, in, out, n, exclusive);
        return 0;
    }
    int32_t *staged = out;
    if (n <= PINNED_TEST_MAX) {
        if (b->pinned_n < n || !b->pinned_in) { /* the battery's sizes grow: few reallocations */
            CUDA_CHECK(cudaFreeHost(b->pinned_in));
            CUDA_CHECK(cudaFreeHost(b->pinned_out));
            b->pinned_in = pinned(n);
            b->pinned_out = pinned(n);
            b->pinned_n = n;
        }
        memcpy(b->pinned_in, in, n * sizeof(int32_t));
        poison(b->pinned_out, n);
        pipeline_scan(b->p, b->pinned_in, b->pinned_out, n, exclusive);
        CUDA_CHECK(cudaDeviceSynchronize());
        memcpy(out, b->pinned_out, n * sizeof(int32_t));
        staged = (int32_t *)xmalloc((n ? n : 1) * sizeof(int32_t), "the staged path's results");
        poison(staged, n);
    }
    battery_call c = {in, staged, n, 0, 0};
    pipeline_scan_staged(b->p, array_source, array_sink, &c, exclusive);
    int status = c.written == n ? 0 : 1;
    if (staged != out) {
        for (size_t i = 0; i < n && status == 0; ++i)
            if (staged[i] != out[i]) {
                printf("    the staged path (a file's) differs from the pinned path at index %zu: "
                       "%d, not %d\n", i, staged[i], out[i]);
                status = 1;
            }
        free(staged);
    }
    return status;
}

/** The ::self_test_config::big_fits: does the host have the memory for the n > 2^31 case now?
    (The GPU needs only the budget's chunks.) */
static int big_case_fits(void *ctx, char *reason, size_t len)
{
    (void)ctx;
    const size_t need = self_test_host_bytes(SELF_TEST_BIG_N), have = host_memory_available();
    if (have >= need + need / 4)
        return 1;
    snprintf(reason, len, "needs %.1f GiB of host memory; %.1f GiB free",
             (double)(need + need / 4) / (1 << 30), (double)have / (1 << 30));
    return 0;
}

/** `--stress R`: R runs of each size, alternating inclusive and exclusive, every other pair in
    place, from pinned memory, every element checked. */
static int stress(pipeline *p, const scan_options *opt)
{
    const size_t c = p->chunk;
    const size_t sizes[] = {1, TILE_ITEMS + 1, c - 1, c + 1, 5 * c + 3, (size_t)1 << 24};
    const size_t *list = opt->n_given ? &opt->n : sizes;
    const int count = opt->n_given ? 1 : (int)(sizeof sizes / sizeof sizes[0]);
    int status = EXIT_OK;
    report_note(stdout, opt->csv, "stress test of the pipeline: %d runs per size, chunks of %zu "
                "elements, every element compared", opt->stress, c);
    for (int s = 0; s < count; ++s) {
        const size_t n = list[s];
        int32_t *in = pinned(n), *out = pinned(n);
        generate_input(in, n, PATTERN_RANDOM, opt->seed + (uint64_t)s);
        long failed = 0;
        for (int r = 0; r < opt->stress; ++r) {
            const int exclusive = r % 2, in_place = r % 4 >= 2;
            if (in_place)
                memcpy(out, in, n * sizeof(int32_t));
            else
                poison(out, n);
            pipeline_scan(p, in_place ? out : in, out, n, exclusive);
            CUDA_CHECK(cudaDeviceSynchronize());
            char what[96];
            snprintf(what, sizeof what, "run %d (%s%s) of n = %zu", r,
                     exclusive ? "exclusive" : "inclusive", in_place ? ", in place" : "", n);
            if (!check_array(in, out, n, exclusive, failed ? NULL : what))
                ++failed;
        }
        report_note(stdout, opt->csv, "n = %zu: %d runs, %ld wrong", n, opt->stress, failed);
        if (failed)
            status = EXIT_WRONG;
        CUDA_CHECK(cudaFreeHost(in));
        CUDA_CHECK(cudaFreeHost(out));
    }
    printf("stress test %s\n", status == EXIT_OK ? "passed: no run was wrong" : "FAILED");
    return status;
}

/** What the file's chunks need: where they come from, where they go, and the check's state. */
typedef struct file_scan {
    io_input *src;          /**< the `--input` */
    const scan_options *opt; /**< `--exclusive`, `--output` */
    uint32_t out_last;      /**< the last result of the chunks so far (0 before the first) */
    uint32_t in_last;       /**< the last input element of the chunks so far */
    size_t checked;         /**< elements checked so far */
    size_t bad;             /**< the first wrong index, or (size_t)-1 */
    uint32_t expected;      /**< the right value there */
    int32_t got;            /**< the value there */
} file_scan;

/** The ::chunk_source of a file: the next `max` elements, or fewer at its end. A read error or
    a partial last element ends the program (exit 2), and the output is not written. */
static size_t file_source(void *ctx, int32_t *buf, size_t max)
{
    file_scan *f = (file_scan *)ctx;
    char err[512];
    size_t got = 0;
    if (io_input_read(f->src, buf, max, &got, err, sizeof err))
        cli_fail(EXIT_USAGE, "%s; --output was not written", err);
    return got;
}

/** The ::chunk_sink of a file: check the chunk against its input (first_wrong(), seeded with
    the chunk before), then append it to the output while every chunk has been right. */
static void file_sink(void *ctx, const int32_t *in, const int32_t *out, size_t len)
{
    file_scan *f = (file_scan *)ctx;
    char err[512];
    uint32_t expected = 0;
    const size_t bad = first_wrong(in, out, len, f->opt->exclusive, f->out_last, f->in_last,
                                   &expected);
    if (bad < len && f->bad == (size_t)-1) {
        f->bad = f->checked + bad;
        f->expected = expected;
        f->got = out[bad];
    }
    f->out_last = (uint32_t)out[len - 1];
    f->in_last = (uint32_t)in[len - 1];
    f->checked += len;
    if (f->opt->output && f->bad == (size_t)-1 && io_output_append(out, len, err, sizeof err))
        cli_fail(EXIT_WRITE, "%s", err);
}

/**
 * \brief `--input F [--output G]`: F streams through the pipeline chunk by chunk, whatever its
 *        size; every result is checked against its input as it comes back, and G (which may be
 *        F) is replaced only when every chunk was right and the report is out. Then, for a
 *        regular file, F is read alone once more, for its read speed.
 */
static int scan_file(pipeline *p, const scan_options *opt, io_input *src)
{
    char err[512];
    file_scan f = {src, opt, 0, 0, 0, (size_t)-1, 0, 0};
    const double start = host_seconds();
    const size_t n = pipeline_scan_staged(p, file_source, file_sink, &f, opt->exclusive);
    CUDA_CHECK(cudaDeviceSynchronize());
    const double seconds = host_seconds() - start;
    const int ok = f.bad == (size_t)-1;
    printf("%-14s %zu elements of %s, %s scan: %s\n", VARIANT_NAMES[VARIANT_PIPELINE], n,
           opt->input, opt->exclusive ? "exclusive" : "inclusive", ok ? "verified" : "WRONG");
    if (!ok) {
        printf("first wrong element: index %zu, expected %d, got %d\n", f.bad,
               (int32_t)f.expected, f.got);
        io_output_abandon();
        return EXIT_WRONG;
    }
    printf("read, scanned, checked%s in %.3f s: %.2f GB/s (2*n*4 bytes); %zu chunks of up to "
           "%zu elements\n", opt->output ? " and appended to the output" : "", seconds,
           gb_per_s(scan_min_bytes(n), seconds * 1e3), (n + p->chunk - 1) / p->chunk, p->chunk);
    if (src->bytes >= 0) {
        io_input again;
        size_t got = 0;
        if (io_input_open(opt->input, &again, err, sizeof err))
            cli_fail(EXIT_USAGE, "%s", err);
        const double read_start = host_seconds();
        do {
            if (io_input_read(&again, p->h_in[0], p->chunk, &got, err, sizeof err))
                cli_fail(EXIT_USAGE, "%s", err);
        } while (got);
        const double read_s = host_seconds() - read_start;
        io_input_close(&again);
        printf("the file read alone: %.3f s, %.2f GB/s (n*4 bytes; the page cache may hold it)\n",
               read_s, gb_per_s((double)n * sizeof(int32_t), read_s * 1e3));
    } else {
        printf("the file read alone: not timed (a pipe can be read only once)\n");
    }
    if (opt->output) {
        /* the report's last line before the file is renamed into place (common/io.h) */
        if (io_output_write(NULL, 0, err, sizeof err))
            cli_fail(EXIT_WRITE, "%s", err);
        printf("wrote %zu elements to %s\n", n, opt->output);
        if (io_output_publish(err, sizeof err))
            cli_fail(EXIT_WRITE, "%s", err);
    }
    return EXIT_OK;
}

/** Default size of `--timeline`: 16 chunks of 2^24. */
#define TIMELINE_N ((size_t)1 << 28)

/**
 * \brief `--timeline`: one run of the pipeline (after a warm-up), every copy, carry kernel and
 *        scan bracketed by events; one CSV line per step (chunk, stream, step, start and end in
 *        µs from the first copy), for the notes' figure. The result is checked too.
 */
static int timeline(pipeline *p, const scan_options *opt)
{
    const size_t n = opt->n_given ? opt->n : TIMELINE_N;
    const size_t chunks = (n + p->chunk - 1) / p->chunk;
    int32_t *in = pinned(n), *out = pinned(n);
    generate_input(in, n, PATTERN_RANDOM, opt->seed);
    pipeline_scan(p, in, out, n, opt->exclusive); /* warm-up, without marks */
    CUDA_CHECK(cudaDeviceSynchronize());
    p->marks = (cudaEvent_t *)xmalloc(chunks * MARKS_PER_CHUNK * sizeof(cudaEvent_t),
                                      "the timeline's events");
    for (size_t m = 0; m < chunks * MARKS_PER_CHUNK; ++m)
        CUDA_CHECK(cudaEventCreate(&p->marks[m]));
    p->mark_chunks = chunks;
    poison(out, n);
    pipeline_scan(p, in, out, n, opt->exclusive);
    CUDA_CHECK(cudaDeviceSynchronize());
    const int ok = check_array(in, out, n, opt->exclusive, "the timeline's run");
    static const struct { const char *stream, *step; int begin, end; } STEPS[] = {
        {"to_device", "copy", MARK_IN_BEGIN, MARK_IN_END},
        {"scan", "carry_in", MARK_SCAN_BEGIN, MARK_KERNEL_BEGIN},
        {"scan", "scan", MARK_KERNEL_BEGIN, MARK_KERNEL_END},
        {"scan", "carry_out", MARK_KERNEL_END, MARK_SCAN_END},
        {"to_host", "copy", MARK_OUT_BEGIN, MARK_OUT_END}};
    printf("# timeline of one pipeline run: n = %zu, %zu chunks of up to %zu elements, %d slots; "
           "times in us from the first copy's start (CUDA events)\n", n, chunks, p->chunk, SLOTS);
    printf("chunk,stream,step,start_us,end_us\n");
    for (size_t k = 0; k < chunks; ++k)
        for (size_t i = 0; i < sizeof STEPS / sizeof STEPS[0]; ++i) {
            float begin = 0.0f, end = 0.0f;
            CUDA_CHECK(cudaEventElapsedTime(&begin, p->marks[0],
                                            p->marks[k * MARKS_PER_CHUNK + STEPS[i].begin]));
            CUDA_CHECK(cudaEventElapsedTime(&end, p->marks[0],
                                            p->marks[k * MARKS_PER_CHUNK + STEPS[i].end]));
            printf("%zu,%s,%s,%.1f,%.1f\n", k, STEPS[i].stream, STEPS[i].step, begin * 1e3,
                   end * 1e3);
        }
    printf("# %s\n", ok ? "checked: every element right" : "WRONG");
    CUDA_CHECK(cudaFreeHost(in));
    CUDA_CHECK(cudaFreeHost(out));
    return ok ? EXIT_OK : EXIT_WRONG;
}

/** The chapter's own mode (main() runs it; its `run` is not used). */
static const scan_mode MODES[] = {
    {.option = "--timeline",
     .count = NULL,
     .help = "one pipeline run of -n (default 2^28), each step timed with events: CSV",
     .test = NULL,
     .run = NULL},
};

/** \brief Parse; open the files; then the self-test, the stress test, the timeline, a file, or
    the sweep, each through a pipeline sized by the device-memory budget. */
int main(int argc, char **argv)
{
    const scan_program prog = {
        .name = "13_out_of_core",
        .title = "host-resident arrays streamed through the GPU in chunks, the carry on the device",
        .variants = VARIANT_NAMES,
        .variant_count = VARIANT_COUNT,
        .default_sizes = DEFAULT_SIZES,
        .default_size_count = (int)(sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]),
        .default_reps = 10,
        .stress = 1,
        .modes = MODES,
        .mode_count = (int)(sizeof MODES / sizeof MODES[0]),
        .device_budget = 1,
    };
    scan_options opt;
    char err[512], line[256];
    io_input src;
    cli_parse_or_exit(argc, argv, &prog, &opt);

    /* Bad files are usage errors: found before the GPU is touched, so they need no GPU. */
    if (opt.input) {
        if (opt.variant > VARIANT_PIPELINE)
            cli_fail(EXIT_USAGE, "--input streams the file through the pipeline alone; drop "
                     "--variant %s", VARIANT_NAMES[opt.variant]);
        if (io_input_open(opt.input, &src, err, sizeof err))
            cli_fail(EXIT_USAGE, "%s", err);
        if (opt.output && io_output_begin(opt.output, err, sizeof err))
            cli_fail(EXIT_USAGE, "%s", err);
    }

    /* A budget below the slots alone is refused before the GPU is touched (pipeline_create()
       checks the exact need, scratch included, once CUB can be asked for its own). */
    const size_t least = SLOTS * TILE_ITEMS * sizeof(int32_t);
    if (opt.device_memory && opt.device_memory < least)
        cli_fail(EXIT_USAGE, "--device-memory %zu is too small: the pipeline needs more than %zu "
                 "bytes (%d chunks of %d elements and their scratch); give more, e.g. "
                 "--device-memory 1MiB", opt.device_memory, least, SLOTS, TILE_ITEMS);

    cudaDeviceProp props;
    cuda_init_device(&props);
    report_note(stdout, opt.csv, "%s", cuda_device_line(&props, line, sizeof line));

    /* The budget: --device-memory; else, for the self-test and the stress test, what chunks of
       TEST_CHUNK_ITEMS need (so that their arrays are larger than the budget, not only than the
       chunk); else what the GPU has free. */
    const int testing = opt.self_test || opt.stress;
    const size_t budget = opt.device_memory    ? opt.device_memory
                          : testing            ? pipeline_bytes(TEST_CHUNK_ITEMS)
                                               : cuda_free_bytes();
    pipeline p;
    pipeline_create(&p, budget, MAX_CHUNK_ITEMS);
    report_note(stdout, opt.csv, "device memory: budget %.1f MiB (%s), used %.1f MiB: %d slots "
                "of %zu elements, chapter 08's and CUB's scratch, the carry", mib((double)budget),
                opt.device_memory ? "--device-memory" : testing ? "the tests' own"
                                                                : "what the GPU has free",
                mib((double)p.device_bytes), SLOTS, p.chunk);

    int status;
    if (opt.self_test) {
        self_test_config cfg = {p.chunk, 3, SELF_TEST_BIG_N, NULL, big_case_fits};
        battery b = {&p, NULL, NULL, 0};
        status = self_test_run(&prog, &opt, &cfg, scan_host, &b);
        CUDA_CHECK(cudaFreeHost(b.pinned_in));
        CUDA_CHECK(cudaFreeHost(b.pinned_out));
    } else if (opt.stress) {
        status = stress(&p, &opt);
    } else if (opt.mode) {
        status = timeline(&p, &opt);
    } else if (opt.input) {
        status = scan_file(&p, &opt, &src);
        io_input_close(&src);
    } else {
        status = sweep(&p, &opt);
    }
    pipeline_destroy(&p);
    return status;
}
