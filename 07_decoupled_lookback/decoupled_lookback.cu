/**
 * \file decoupled_lookback.cu
 * \brief Chapter 07: the single-pass scan with decoupled look-back (Merrill & Garland 2016): every
 *        tile publishes its aggregate at once, and finds its prefix by summing its predecessors'
 *        descriptors, a warp at a time, until it meets one that already knows its inclusive prefix.
 *
 * What is new since chapter 06: there, tile t could not publish anything until tile t−1 had
 * published its inclusive prefix, so the prefixes crossed the grid one global-memory round trip
 * per tile: a chain of latencies, not a stream of bytes. Here the descriptor of a tile has three
 * states (paper §4.1):
 *  - `TILE_INVALID`   nothing published yet;
 *  - `TILE_AGGREGATE` the tile's own sum is known (published as soon as the tile is reduced);
 *  - `TILE_PREFIX`    the sum of everything up to and including the tile is known.
 * A waiting tile no longer needs its predecessor's prefix: the aggregates of the tiles before it,
 * back to the first `TILE_PREFIX`, add up to the same number. One warp reads 32 predecessors at
 * once (paper §4.4), so a deep look-back costs one round trip per 32 tiles, not one per tile.
 *
 * What Hopper needs on top of the paper's algorithm (the notes show the measurements):
 *  - 128-bit loads and stores, each warp instruction covering 512 consecutive bytes;
 *  - big tiles (4096 elements), so that fewer tiles have to pass the prefix along;
 *  - many bytes in flight per SM while tiles wait for their predecessors: the tile is copied into
 *    shared memory with `cp.async`, which holds no registers, so 13 tiles (208 KB) fit one SM;
 *  - DRAM reads started early: each block asks L2 to fetch the tile 256 ahead of its own
 *    (`prefetch.global.L2`), so the copy into shared memory finds its tile in L2;
 *  - one launch per call: the descriptors carry a per-call *epoch*, so that an earlier call's
 *    descriptors read as `TILE_INVALID` and no kernel has to clear them first, and the tile
 *    counter puts itself back to zero;
 *  - in place (`out == in`) works, since each tile reads all of its input before it writes.
 *
 * The same pass, with a different operator or a different use of the scan, also gives a float
 * sum (`--type f32`: the look-back adds in an order that depends on timing, so float results vary
 * from run to run) and an in-place stream compaction (`--select`, paper §4.4).
 *
 * Build and run: `make chapter-7 && ./run` from the top folder, or `make && ./run` here.
 * Follows Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back" (2016),
 * §4 (Figs 4–6). Every index is a `size_t`; int32 sums are kept in `uint32_t`, so overflow wraps.
 */
#include "cub_scan.h"
#include "cuda_util.h"
#include "data.h"
#include "gpu_driver.h"
#include "io.h"
#include "report.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** Threads of one warp. */
#define WARP_THREADS 32
/** Every lane of the warp: the mask of a shuffle or vote that all 32 lanes must execute. */
#define FULL_MASK 0xffffffffu
/** Threads of a block. */
#define BLOCK_THREADS 128
/** Elements per thread: VECTORS_PER_THREAD 128-bit vectors. */
#define ITEMS_PER_THREAD 32
/** 128-bit vectors per thread. */
#define VECTORS_PER_THREAD (ITEMS_PER_THREAD / 4)
/** Elements one block scans: its tile, staged in shared memory. */
#define TILE_ITEMS (BLOCK_THREADS * ITEMS_PER_THREAD)
/** 128-bit vectors of one warp's contiguous part of the tile. */
#define WARP_VECTORS (WARP_THREADS * VECTORS_PER_THREAD)
/** Warps per block. */
#define BLOCK_WARPS (BLOCK_THREADS / WARP_THREADS)
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000)
/** Blocks we ask the compiler to fit on one SM: 13 tiles of 16 KB fill 208 of an H100/H200 SM's
    228 KB of shared memory (and cap registers at 65536 / (128 · 13) = 39). For GPUs with 2048
    threads per SM. */
#define MIN_BLOCKS_PER_SM 13
#else
/** Blocks per SM on GPUs with 1024 (Turing) or 1536 (consumer Ampere, Ada, Blackwell) threads per
    SM: asking for more is an error. */
#define MIN_BLOCKS_PER_SM 8
#endif

/** How far ahead, in tiles, each block asks L2 to fetch input (prefetch_tile_l2()): 256 tiles
    are 4 MB, a fraction of the H200's 60 MB L2. 128 to 512 measured within 1 % of each other at
    2^28; 1024 and more were slower (notes). */
#define PREFETCH_TILES 256

/** Descriptor state: nothing published (also: written by an earlier call, or never written). */
#define TILE_INVALID 0u
/** Descriptor state: the value is the tile's aggregate. */
#define TILE_AGGREGATE 1u
/** Descriptor state: the value is the tile's inclusive prefix. */
#define TILE_PREFIX 2u
/** Epochs run 1 … EPOCH_LIMIT − 1 (29 bits). 0 is never used, and the poison the driver writes
    into scratch (0xA5 bytes) decodes to epoch 0x29696969, above the limit: neither can match. */
#define EPOCH_LIMIT (1u << 29)

/** How long a tile may wait for its predecessors before the watchdog stops the kernel. */
#define WATCHDOG_NS 5000000000ull
/** Spins between two looks at the clock. */
#define WATCHDOG_SPINS 256u

/** The operators one pass can scan with (a compile-time constant in each kernel). */
enum {
    OP_ADD_I32, /**< int32 sum, wrapping: exact, so any order gives the same bits */
    OP_ADD_F32, /**< float sum: rounded, so the order of the additions shows in the result */
    OP_SELECT   /**< compaction: scan the flags x > 0, then move each kept x to its rank */
};

/** The variants: this chapter's scan, and CUB's beside it. */
enum { VARIANT_LOOKBACK, VARIANT_CUB, VARIANT_COUNT };

/** Names for `--variant`. */
static const char *const VARIANT_NAMES[VARIANT_COUNT] = {"decoupled-lookback", "cub"};

/* ------------------------------------------------------------------------------------------ */
/* Carried over unchanged from chapter 06 (06_chained_scan/chained_scan.cu)                     */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Read a descriptor: one 64-bit load, relaxed, at GPU scope.
 *
 * 64 bits, aligned, in one instruction: the state and the value arrive together, so a reader
 * never sees a flag without its value, and no fence is needed (nothing else is read on the
 * strength of the flag). "GPU scope" makes the load go to L2, where other SMs' stores land;
 * it may not be served from this SM's L1, and it may not be hoisted out of the spin loop.
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
/* The tile in shared memory, for any of the operators                                         */
/* ------------------------------------------------------------------------------------------ */

/** The tile counter: the next tile id to hand out. Zero when the module loads, and put back to
    zero by the block that draws the last id, so every launch finds it at zero. */
__device__ unsigned g_next_tile;

/** a ⊕ b for operator `op` on the bits of 32-bit values (a constant after inlining). */
__device__ __forceinline__ uint32_t combine(uint32_t a, uint32_t b, int op)
{
    if (op == OP_ADD_F32)
        return __float_as_uint(__uint_as_float(a) + __uint_as_float(b));
    return a + b;
}

/**
 * \brief Chapter 02's Kogge-Stone warp scan, for operator `op`.
 * \param x  this lane's value
 * \param op the operator
 * \return x0 ⊕ … ⊕ x_lane
 * \pre All 32 lanes call it together.
 */
__device__ __forceinline__ uint32_t warp_inclusive_scan_op(uint32_t x, int op)
{
    const int lane = threadIdx.x % WARP_THREADS;
    for (int offset = 1; offset < WARP_THREADS; offset *= 2) {
        uint32_t below = __shfl_up_sync(FULL_MASK, x, offset);
        if (lane >= offset)
            x = combine(below, x, op);
    }
    return x;
}

/**
 * \brief The sum of one value per lane, in every lane: a butterfly of `__shfl_xor_sync`.
 * \pre All 32 lanes call it together.
 */
__device__ __forceinline__ uint32_t warp_reduce_op(uint32_t x, int op)
{
    for (int offset = WARP_THREADS / 2; offset > 0; offset /= 2)
        x = combine(x, __shfl_xor_sync(FULL_MASK, x, offset), op);
    return x;
}

/**
 * \brief Copy a tile into shared memory without passing through registers: `cp.async`, 16 bytes
 *        per instruction per thread, all of them in flight at once.
 *
 * Warp w copies the w-th WARP_VECTORS vectors of the tile; each instruction of the warp reads 512
 * consecutive bytes. While the copies fly, the thread holds no registers for them: that is what
 * lets 13 blocks of 16 KB tiles (208 KB per SM) wait on memory at once. (`cp.async` needs
 * compute capability 8.0; on Turing the copy goes through registers.) A tile cut short by the
 * end of the array is copied element by element, with 0 past the end: 0 is the identity of both
 * sums (0.0f has the bits of 0), and is not selected by x > 0.
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
 * `prefetch.global.L2` holds no register, no shared memory and no place in the block's wait: the
 * bytes travel from DRAM while this block scans and looks back. When that tile's block starts,
 * its `cp.async` finds the tile in L2, so its copy is shorter, and so are the waits of the tiles
 * after it (the notes measure it: 74 % of memcpy without, 86 % with). A prefetch is only a hint:
 * it changes no result, and lines past the end of the input are not named.
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
 * \brief Reduce the tile in shared memory, for operator `op`: the tile's aggregate, and what
 *        precedes each warp's part of the tile.
 *
 * The aggregate is what the tile's successors wait for, so it is computed first, by the cheapest
 * means (paper §4: reduce, publish, look back, then scan): each thread adds its 32 elements, each
 * warp adds its lanes with a butterfly, and the warp totals meet behind one barrier, as in
 * chapter 03. The scan of the tile then needs no barrier of its own.
 * \param tile        the tile (not changed)
 * \param warp_prefix receives the sum of the tile's elements before this warp's part
 * \param op          the operator
 * \return the tile's aggregate (in every thread)
 * \pre blockDim.x == BLOCK_THREADS; every thread calls it, once per kernel.
 */
__device__ __forceinline__ uint32_t reduce_tile_shared(const uint4 *tile, uint32_t *warp_prefix,
                                                       int op)
{
    __shared__ uint32_t warp_total[BLOCK_WARPS];
    const int lane = threadIdx.x % WARP_THREADS, warp = threadIdx.x / WARP_THREADS;
    uint32_t sum = 0;
    for (int v = 0; v < VECTORS_PER_THREAD; ++v) {
        uint4 q = tile[warp * WARP_VECTORS + v * WARP_THREADS + lane];
        if (op == OP_SELECT) /* the compaction counts the elements it keeps: x > 0 */
            q = make_uint4((int32_t)q.x > 0, (int32_t)q.y > 0, (int32_t)q.z > 0, (int32_t)q.w > 0);
        sum = combine(sum, combine(combine(q.x, q.y, op), combine(q.z, q.w, op), op), op);
    }
    sum = warp_reduce_op(sum, op);
    if (lane == 0)
        warp_total[warp] = sum;
    __syncthreads(); /* every warp total is written */
    uint32_t before = 0, total = 0;
    for (int w = 0; w < warp; ++w)
        before = combine(before, warp_total[w], op);
    for (int w = 0; w < BLOCK_WARPS; ++w)
        total = combine(total, warp_total[w], op);
    *warp_prefix = before;
    return total;
}

/**
 * \brief Scan this warp's part of the tile in shared memory, in place, for operator `op`.
 *
 * Vector v of the warp's part is 128 consecutive elements, 4 per lane: a serial scan of the
 * lane's 4 in registers, a warp scan of the lane totals, and the total of vectors 0 … v−1 carried
 * in front. Each lane reads and writes 16 bytes at a time, the 32 lanes consecutive: no bank
 * conflicts. A warp touches only its own part, so no barrier is needed.
 * \param tile the tile; out: each element's inclusive scan within its warp's part
 * \param op   the operator (OP_ADD_I32 or OP_ADD_F32)
 * \pre All 32 lanes of the warp call it together.
 */
__device__ __forceinline__ void scan_warp_part_shared(uint4 *tile, int op)
{
    const int lane = threadIdx.x % WARP_THREADS, warp = threadIdx.x / WARP_THREADS;
    uint32_t carried = 0; /* the sum of vectors 0 … v−1 of the warp's part */
    for (int v = 0; v < VECTORS_PER_THREAD; ++v) {
        uint4 *mine = &tile[warp * WARP_VECTORS + v * WARP_THREADS + lane];
        uint4 q = *mine;
        q.y = combine(q.x, q.y, op);
        q.z = combine(q.y, q.z, op);
        q.w = combine(q.z, q.w, op);
        const uint32_t lane_inclusive = warp_inclusive_scan_op(q.w, op);
        const uint32_t lane_exclusive = __shfl_up_sync(FULL_MASK, lane_inclusive, 1);
        const uint32_t before = lane == 0 ? carried : combine(carried, lane_exclusive, op);
        *mine = make_uint4(combine(before, q.x, op), combine(before, q.y, op),
                           combine(before, q.z, op), combine(before, q.w, op));
        carried = combine(carried, __shfl_sync(FULL_MASK, lane_inclusive, WARP_THREADS - 1), op);
    }
}

/**
 * \brief Store the scanned tile from shared memory: `prefix` ⊕ each element's scan within its
 *        warp's part (inclusive), or ⊕ the scan of the element before it (exclusive).
 * \param out        output, 16-byte aligned
 * \param n          element count
 * \param tile_first index of the tile's first element
 * \param tile       the tile, scanned by scan_warp_part_shared()
 * \param prefix     what precedes this warp's part of the tile
 * \param exclusive  1 for exclusive, 0 for inclusive
 * \param op         the operator
 * \pre blockDim.x == BLOCK_THREADS.
 */
__device__ __forceinline__ void store_tile_shared(int32_t *out, size_t n, size_t tile_first,
                                                  const uint4 *tile, uint32_t prefix,
                                                  int exclusive, int op)
{
    const int lane = threadIdx.x % WARP_THREADS, warp = threadIdx.x / WARP_THREADS;
    const uint32_t *element = (const uint32_t *)tile;
    for (int v = 0; v < VECTORS_PER_THREAD; ++v) {
        const int k = warp * WARP_VECTORS + v * WARP_THREADS + lane;
        uint4 q = tile[k];
        if (exclusive) { /* shift by one: the element before ours, within the warp's part */
            const int first_of_part = v == 0 && lane == 0;
            q = make_uint4(first_of_part ? 0u : element[4 * k - 1], q.x, q.y, q.z);
            if (first_of_part) {
                q.y = combine(prefix, q.y, op);
                q.z = combine(prefix, q.z, op);
                q.w = combine(prefix, q.w, op);
                q.x = prefix;
            } else {
                q = make_uint4(combine(prefix, q.x, op), combine(prefix, q.y, op),
                               combine(prefix, q.z, op), combine(prefix, q.w, op));
            }
        } else {
            q = make_uint4(combine(prefix, q.x, op), combine(prefix, q.y, op),
                           combine(prefix, q.z, op), combine(prefix, q.w, op));
        }
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
 * \brief The compaction's store: rank the elements x > 0 of the tile again (the tile in shared
 *        memory still holds the input) and write each to `out[prefix + rank]`.
 * \param out        output (may be the input: see single_pass_tile())
 * \param tile       the tile's input in shared memory
 * \param prefix     how many elements before this warp's part are kept
 * \pre blockDim.x == BLOCK_THREADS; elements past n were loaded as 0 and are not kept.
 */
__device__ __forceinline__ void select_tile_shared(int32_t *out, const uint4 *tile, uint32_t prefix)
{
    const int lane = threadIdx.x % WARP_THREADS, warp = threadIdx.x / WARP_THREADS;
    for (int v = 0; v < VECTORS_PER_THREAD; ++v) {
        const uint4 q = tile[warp * WARP_VECTORS + v * WARP_THREADS + lane];
        const uint32_t value[4] = {q.x, q.y, q.z, q.w};
        uint32_t count = 0;
        for (int c = 0; c < 4; ++c)
            count += (int32_t)value[c] > 0;
        const uint32_t lane_inclusive = warp_inclusive_scan_op(count, OP_ADD_I32);
        uint32_t rank = prefix + lane_inclusive - count;
        for (int c = 0; c < 4; ++c)
            if ((int32_t)value[c] > 0)
                out[rank++] = (int32_t)value[c];
        prefix += __shfl_sync(FULL_MASK, lane_inclusive, WARP_THREADS - 1);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The lesson: descriptors with three states, and the look-back                                 */
/* ------------------------------------------------------------------------------------------ */

/** Pack a descriptor: epoch and state in the high 32 bits, the value in the low 32. */
__device__ __forceinline__ unsigned long long pack_descriptor(unsigned state, unsigned epoch,
                                                              uint32_t value)
{
    return (unsigned long long)(epoch << 2 | state) << 32 | value;
}

/** The state of a descriptor for this call: TILE_INVALID unless it carries this call's epoch. */
__device__ __forceinline__ unsigned descriptor_state(unsigned long long word, unsigned epoch)
{
    const unsigned high = (unsigned)(word >> 32);
    return high >> 2 == epoch ? high & 3u : TILE_INVALID;
}

/**
 * \brief Publish the tile's aggregate, as soon as it is known: its successors' look-backs wait
 *        for it. Tile 0 has no predecessors: its aggregate is its inclusive prefix.
 * \param descriptors one word per tile
 * \param tile        this tile's id
 * \param aggregate   this tile's aggregate
 * \param epoch       this call's epoch
 * \pre Called by one thread.
 */
__device__ __forceinline__ void publish_aggregate(unsigned long long *descriptors, unsigned tile,
                                                  uint32_t aggregate, unsigned epoch)
{
    if (tile == 0)
        store_descriptor(&descriptors[0], pack_descriptor(TILE_PREFIX, epoch, aggregate));
    else
        store_descriptor(&descriptors[tile], pack_descriptor(TILE_AGGREGATE, epoch, aggregate));
}

/**
 * \brief The look-back (paper §4.4), run by one warp once the tile's aggregate is published: sum
 *        the predecessors' values 32 at a time back to the nearest `TILE_PREFIX`, publish this
 *        tile's inclusive prefix, and return its exclusive prefix.
 *
 * Lane i reads the descriptor of tile `window_last − i`. The window is ready when every lane up
 * to the nearest TILE_PREFIX (or all 32, if there is none) is valid; descriptors beyond that
 * prefix are not needed, and adding them too would count their tiles twice. With no prefix in
 * the window, its 32 aggregates are added and the window moves 32 tiles back. Tile 0 published
 * its prefix with its aggregate (publish_aggregate()), so every look-back ends.
 * \param descriptors one word per tile
 * \param tile        this tile's id
 * \param aggregate   this tile's aggregate
 * \param epoch       this call's epoch
 * \param op          the operator
 * \return the exclusive prefix of the tile (in every lane)
 * \pre One full warp calls it; tiles below `tile` were handed out to running blocks.
 */
__device__ __forceinline__ uint32_t look_back(unsigned long long *descriptors, unsigned tile,
                                              uint32_t aggregate, unsigned epoch, int op)
{
    const int lane = threadIdx.x % WARP_THREADS;
    if (tile == 0)
        return 0;
    uint32_t exclusive = 0;
    long long window_last = (long long)tile - 1;
    unsigned spins = 0;
    unsigned long long since = 0;
    for (;;) {
        const long long predecessor = window_last - lane;
        /* before tile 0: reached only if tile 0 is in the window too; reads as a prefix 0 */
        const unsigned long long word = predecessor >= 0
                                            ? load_descriptor(&descriptors[predecessor])
                                            : pack_descriptor(TILE_PREFIX, epoch, 0);
        const unsigned state = descriptor_state(word, epoch);
        const unsigned prefix_lanes = __ballot_sync(FULL_MASK, state == TILE_PREFIX);
        /* lanes 0 … nearest prefix; all 32 when there is none */
        const unsigned needed = prefix_lanes ? (prefix_lanes ^ (prefix_lanes - 1)) : FULL_MASK;
        if ((__ballot_sync(FULL_MASK, state == TILE_INVALID) & needed) != 0) {
            /* a needed predecessor has not published: read the window again */
            watchdog(&spins, &since, tile, window_last);
            continue;
        }
        const uint32_t value = (needed >> lane) & 1u ? (uint32_t)word : 0u;
        exclusive = combine(warp_reduce_op(value, op), exclusive, op);
        if (prefix_lanes)
            break;
        window_last -= WARP_THREADS;
    }
    if (lane == 0)
        store_descriptor(&descriptors[tile],
                         pack_descriptor(TILE_PREFIX, epoch, combine(exclusive, aggregate, op)));
    return exclusive;
}

/**
 * \brief One tile of the single pass: draw a tile id, prefetch a later tile into L2, copy this
 *        tile to shared memory, reduce it and publish the aggregate, scan it, look back, store.
 *
 * The id comes from the counter, not from blockIdx.x: CUDA does not promise to start blocks in
 * blockIdx order, and a block that waits for a tile no running block holds would wait forever.
 * Drawn in order, every smaller id belongs to a block that is already running.
 * \param in          input (16-byte aligned)
 * \param out         output (16-byte aligned; may be `in`)
 * \param n           element count
 * \param descriptors one word per tile
 * \param epoch       this call's epoch
 * \param exclusive   1 for an exclusive scan (not used by OP_SELECT)
 * \param selected    OP_SELECT: receives the number of elements kept
 * \param op          the operator (a constant in each kernel below)
 * \pre blockDim.x == BLOCK_THREADS; gridDim.x == number of tiles.
 */
__device__ __forceinline__ void single_pass_tile(const int32_t *in, int32_t *out, size_t n,
                                                 unsigned long long *descriptors, unsigned epoch,
                                                 int exclusive, unsigned long long *selected,
                                                 int op)
{
    __shared__ unsigned tile_id;
    __shared__ uint32_t tile_prefix;
    if (threadIdx.x == 0) {
        tile_id = atomicAdd(&g_next_tile, 1u);
        if (tile_id == gridDim.x - 1) /* every other block has drawn: reset for the next call */
            atomicExch(&g_next_tile, 0u);
    }
    __syncthreads(); /* tile_id is written */
    const unsigned tile = tile_id;
    const size_t tile_first = (size_t)tile * TILE_ITEMS;
    prefetch_tile_l2(in, n, tile_first);

    __shared__ uint4 tile_data[TILE_ITEMS / 4];
    load_tile_async(in, n, tile_first, tile_data);
    __syncthreads(); /* the whole tile is in shared memory */
    uint32_t warp_prefix;
    const uint32_t aggregate = reduce_tile_shared(tile_data, &warp_prefix, op);
    if (threadIdx.x == 0)
        publish_aggregate(descriptors, tile, aggregate, epoch);
    if (op != OP_SELECT) /* the compaction ranks its elements as it stores them */
        scan_warp_part_shared(tile_data, op);

    if (threadIdx.x < WARP_THREADS) {
        const uint32_t prefix = look_back(descriptors, tile, aggregate, epoch, op);
        if (threadIdx.x == 0)
            tile_prefix = prefix;
    }
    __syncthreads(); /* tile_prefix is written */
    const uint32_t prefix = combine(tile_prefix, warp_prefix, op);

    if (op == OP_SELECT) {
        /* Every kept element goes to a place at or below its own index, in this tile or an
           earlier one, and every earlier tile loaded its input before publishing: in place is
           safe. */
        select_tile_shared(out, tile_data, prefix);
        if (tile == gridDim.x - 1 && threadIdx.x == 0)
            *selected = (unsigned long long)tile_prefix + aggregate;
        return;
    }
    store_tile_shared(out, n, tile_first, tile_data, prefix, exclusive, op);
}

/**
 * \brief The int32 scan: one launch, one tile per block (see single_pass_tile()).
 * \pre blockDim.x == BLOCK_THREADS; gridDim.x == ceil(n / TILE_ITEMS) ≥ 1.
 * \warning The tile counter is one per program: calls must not overlap (one stream).
 */
__global__ void __launch_bounds__(BLOCK_THREADS, MIN_BLOCKS_PER_SM)
    lookback_scan_kernel(const int32_t *in, int32_t *out, size_t n,
                         unsigned long long *descriptors, unsigned epoch, int exclusive)
{
    /* two copies of the pass, each with `exclusive` a constant: the compiler then keeps fewer
       registers live in each, and the exclusive scan measured 84 % of memcpy instead of 81 % */
    if (exclusive)
        single_pass_tile(in, out, n, descriptors, epoch, 1, NULL, OP_ADD_I32);
    else
        single_pass_tile(in, out, n, descriptors, epoch, 0, NULL, OP_ADD_I32);
}

/** \brief The same pass over floats (bits in int32 arrays); see lookback_scan_kernel(). */
__global__ void __launch_bounds__(BLOCK_THREADS, MIN_BLOCKS_PER_SM)
    lookback_scan_f32_kernel(const int32_t *in, int32_t *out, size_t n,
                             unsigned long long *descriptors, unsigned epoch, int exclusive)
{
    single_pass_tile(in, out, n, descriptors, epoch, exclusive, NULL, OP_ADD_F32);
}

/**
 * \brief The same pass as a stream compaction: keep the elements x > 0, in order, at the front
 *        of `out` (which may be `in`), and write how many to `*selected`.
 */
__global__ void __launch_bounds__(BLOCK_THREADS, MIN_BLOCKS_PER_SM)
    lookback_select_kernel(const int32_t *in, int32_t *out, size_t n,
                           unsigned long long *descriptors, unsigned epoch,
                           unsigned long long *selected)
{
    single_pass_tile(in, out, n, descriptors, epoch, 0, selected, OP_SELECT);
}

/* ------------------------------------------------------------------------------------------ */
/* Host launchers                                                                               */
/* ------------------------------------------------------------------------------------------ */

/** Tiles of n elements. */
static size_t tile_count(size_t n)
{
    return (n + TILE_ITEMS - 1) / TILE_ITEMS;
}

/** The epoch of the last call; the next call uses the next one. */
static unsigned g_epoch;

/**
 * \brief The next call's epoch. When the 29 bits run out, start again at 1 after clearing the
 *        descriptors, so that none left from 2^29 calls ago can pass for this call's.
 */
static unsigned next_epoch(void *d_descriptors, size_t bytes)
{
    if (++g_epoch == EPOCH_LIMIT) {
        CUDA_CHECK(cudaMemsetAsync(d_descriptors, 0, bytes, 0));
        g_epoch = 1;
    }
    return g_epoch;
}

/** Grid of one block per tile; exits with status 3 above 2^31 − 1 tiles (2^41 elements). */
static unsigned grid_for(size_t tiles)
{
    if (tiles > 0x7fffffffu)
        cuda_fail(cudaErrorInvalidConfiguration, "too many tiles for one grid", __FILE__, __LINE__);
    return (unsigned)tiles;
}

/** The ::gpu_temp_fn: one descriptor per tile (the look-back), or CUB's scratch. */
static size_t lookback_temp_bytes(int variant, size_t n)
{
    if (variant == VARIANT_CUB && n) {
        const size_t inclusive = cub_scan_temp_bytes(n, 0), exclusive = cub_scan_temp_bytes(n, 1);
        return inclusive > exclusive ? inclusive : exclusive;
    }
    return tile_count(n) * sizeof(unsigned long long);
}

/**
 * \brief The chapter's ::gpu_scan_fn: one launch of lookback_scan_kernel, or CUB's scan.
 * \param variant   VARIANT_LOOKBACK or VARIANT_CUB
 * \param d_in      device input, n elements, 16-byte aligned
 * \param d_out     device output, n elements, 16-byte aligned (may equal `d_in`)
 * \param n         element count (0 launches nothing)
 * \param exclusive 1 for exclusive, 0 for inclusive
 * \param d_temp    lookback_temp_bytes(variant, n) bytes; its contents do not matter
 */
static void lookback_scan(int variant, const int32_t *d_in, int32_t *d_out, size_t n,
                          int exclusive, void *d_temp)
{
    const size_t tiles = tile_count(n);
    if (tiles == 0)
        return;
    if (variant == VARIANT_CUB) {
        cub_scan(d_in, d_out, n, exclusive, d_temp, lookback_temp_bytes(variant, n));
        return;
    }
    unsigned long long *d_descriptors = (unsigned long long *)d_temp;
    const unsigned epoch = next_epoch(d_descriptors, tiles * sizeof *d_descriptors);
    lookback_scan_kernel<<<grid_for(tiles), BLOCK_THREADS>>>(d_in, d_out, n, d_descriptors, epoch,
                                                             exclusive);
    CUDA_CHECK_LAUNCH();
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

/* ------------------------------------------------------------------------------------------ */
/* --type f32: the same pass over floats                                                       */
/* ------------------------------------------------------------------------------------------ */

/** Runs of the float scan compared with each other. */
#define F32_RUNS 5

/** Float scan of the device array `d_in` (float bits) into `d_out`, one launch. */
static void lookback_scan_f32(const int32_t *d_in, int32_t *d_out, size_t n, int exclusive,
                              unsigned long long *d_descriptors)
{
    const size_t tiles = tile_count(n);
    if (tiles == 0)
        return;
    const unsigned epoch = next_epoch(d_descriptors, tiles * sizeof *d_descriptors);
    lookback_scan_f32_kernel<<<grid_for(tiles), BLOCK_THREADS>>>(d_in, d_out, n, d_descriptors,
                                                                 epoch, exclusive);
    CUDA_CHECK_LAUNCH();
}

/**
 * \brief `--type f32`: scan the same random floats F32_RUNS times and count the elements whose
 *        bits differ from the first run; check each run against a double-precision reference
 *        within a bound; then show that int32 runs are identical.
 *
 * The bound: every float addition rounds by at most 2^-24 of its result, and each output is at
 * the end of a chain of at most (tiles + 64) additions whose partial sums are bounded by
 * S_i = |x_0| + … + |x_i|; so |float − exact| ≤ (tiles + 64) · 2^-24 · S_i.
 */
static int f32_mode(const scan_options *opt)
{
    const size_t n = opt->n_given ? opt->n : (size_t)1 << 24;
    const size_t bytes = n * sizeof(int32_t), tiles = tile_count(n);
    int32_t *in = (int32_t *)xmalloc(bytes, "the input");
    int32_t *out = (int32_t *)xmalloc(bytes, "the output");
    int32_t *first = (int32_t *)xmalloc(bytes, "the first run's output");
    double *exact = (double *)xmalloc(n * sizeof(double), "the reference");
    double *scale = (double *)xmalloc(n * sizeof(double), "the bound");
    /* uniform floats in [-1, 1): 24 random bits each, exact in float */
    generate_input(in, n, PATTERN_RANDOM, opt->seed);
    double sum = 0.0, abs_sum = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const float x = (float)(in[i] >> 8) * (1.0f / 8388608.0f);
        memcpy(&in[i], &x, sizeof x);
        if (!opt->exclusive) {
            sum += x;
            abs_sum += fabs(x);
        }
        exact[i] = sum;
        scale[i] = abs_sum;
        if (opt->exclusive) {
            sum += x;
            abs_sum += fabs(x);
        }
    }
    int32_t *d_in, *d_out;
    unsigned long long *d_descriptors;
    CUDA_CHECK(cudaMalloc((void **)&d_in, bytes ? bytes : 4));
    CUDA_CHECK(cudaMalloc((void **)&d_out, bytes ? bytes : 4));
    CUDA_CHECK(cudaMalloc((void **)&d_descriptors, (tiles ? tiles : 1) * sizeof *d_descriptors));
    CUDA_CHECK(cudaMemcpy(d_in, in, bytes, cudaMemcpyHostToDevice));

    report_note(stdout, opt->csv, "%s float scan of n = %zu uniform values in [-1, 1), %d runs "
                "on the same input; compared bit for bit with run 0, and with a double sum",
                opt->exclusive ? "exclusive" : "inclusive", n, F32_RUNS);
    int status = EXIT_OK;
    const double eps = ldexp(1.0, -24);
    for (int r = 0; r < F32_RUNS; ++r) {
        CUDA_CHECK(cudaMemset(d_out, POISON_BYTE, bytes));
        lookback_scan_f32(d_in, d_out, n, opt->exclusive, d_descriptors);
        CUDA_CHECK(cudaMemcpy(r ? out : first, d_out, bytes, cudaMemcpyDeviceToHost));
        const float *got = (const float *)(r ? out : first);
        size_t differ = 0, over = 0;
        double worst = 0.0;
        for (size_t i = 0; i < n; ++i) {
            const double err = fabs((double)got[i] - exact[i]);
            if (err > worst)
                worst = err;
            if (!(err <= ((double)tiles + 64.0) * eps * scale[i] + 1e-30))
                ++over;
            if (r && memcmp(&out[i], &first[i], sizeof(int32_t)) != 0)
                ++differ;
        }
        printf("f32 run %d: %zu of %zu elements differ from run 0 in their bits; largest "
               "|float - exact| %.3g; %s\n",
               r, differ, n, worst, over ? "OUTSIDE the rounding bound" : "within the rounding bound");
        if (over)
            status = EXIT_WRONG;
    }
    /* int32 on the same bits: exact, so every run is the same */
    int32_t *ref = (int32_t *)xmalloc(bytes, "the int32 reference");
    scan_reference(in, ref, n, opt->exclusive, 0);
    size_t int_wrong = 0;
    for (int r = 0; r < F32_RUNS; ++r) {
        CUDA_CHECK(cudaMemset(d_out, POISON_BYTE, bytes));
        lookback_scan(VARIANT_LOOKBACK, d_in, d_out, n, opt->exclusive, d_descriptors);
        CUDA_CHECK(cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost));
        int_wrong += memcmp(out, ref, bytes) != 0;
    }
    printf("int32 scan of the same bits, %d runs: %s\n", F32_RUNS,
           int_wrong ? "WRONG" : "every run equals the exact reference, bit for bit");
    printf("why: float addition rounds, so (a + b) + c and a + (b + c) can differ; the look-back "
           "adds a varying number of predecessors' aggregates, depending on which descriptors "
           "were published when it looked\n");
    if (int_wrong)
        status = EXIT_WRONG;
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_descriptors));
    free(in);
    free(out);
    free(first);
    free(exact);
    free(scale);
    free(ref);
    return status;
}

/* ------------------------------------------------------------------------------------------ */
/* --select: in-place stream compaction on the same pass                                        */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Keep the elements x > 0 of device array `d_data` at its front, in order, in place; the
 *        count goes to `*d_selected`. One launch.
 */
static void select_positive(int32_t *d_data, size_t n, unsigned long long *d_descriptors,
                            unsigned long long *d_selected)
{
    const size_t tiles = tile_count(n);
    if (tiles == 0) {
        CUDA_CHECK(cudaMemsetAsync(d_selected, 0, sizeof *d_selected, 0));
        return;
    }
    const unsigned epoch = next_epoch(d_descriptors, tiles * sizeof *d_descriptors);
    lookback_select_kernel<<<grid_for(tiles), BLOCK_THREADS>>>(d_data, d_data, n, d_descriptors,
                                                               epoch, d_selected);
    CUDA_CHECK_LAUNCH();
}

/** What select_work() times. */
typedef struct select_job {
    int32_t *data;                   /**< device data, compacted in place */
    const int32_t *input;            /**< device copy of the input, restored before each run */
    size_t n;                        /**< element count */
    unsigned long long *descriptors; /**< scratch */
    unsigned long long *selected;    /**< device count */
} select_job;

/** One timed compaction. It works in place, so the input is copied back first; that copy is
    timed on its own too, and subtracted. */
static void select_work(void *ctx)
{
    select_job *j = (select_job *)ctx;
    CUDA_CHECK(cudaMemcpyAsync(j->data, j->input, j->n * sizeof(int32_t),
                               cudaMemcpyDeviceToDevice, 0));
    select_positive(j->data, j->n, j->descriptors, j->selected);
}

/** Sizes of the compaction's check. */
static const size_t SELECT_SIZES[] = {0, 1, 31, 1023, 1024, 1025, 3 * TILE_ITEMS + 7,
                                      33 * TILE_ITEMS + 5, 1000003, ((size_t)1 << 24) + 1};

/**
 * \brief `--select`: compact random and small signed data in place, check the count and every
 *        kept element against the CPU (for each size of SELECT_SIZES, or `-n`, twice each), then
 *        time it at the largest size.
 */
static int select_mode(const scan_options *opt)
{
    const size_t *sizes = opt->n_given ? &opt->n : SELECT_SIZES;
    const int count = opt->n_given ? 1 : (int)(sizeof SELECT_SIZES / sizeof SELECT_SIZES[0]);
    size_t most = 1;
    for (int s = 0; s < count; ++s)
        if (sizes[s] > most)
            most = sizes[s];
    int32_t *in = (int32_t *)xmalloc(most * sizeof(int32_t), "the input");
    int32_t *out = (int32_t *)xmalloc(most * sizeof(int32_t), "the output");
    int32_t *expect = (int32_t *)xmalloc(most * sizeof(int32_t), "the expected output");
    int32_t *d_data, *d_input;
    unsigned long long *d_descriptors, *d_selected, selected = 0;
    CUDA_CHECK(cudaMalloc((void **)&d_data, most * sizeof(int32_t)));
    CUDA_CHECK(cudaMalloc((void **)&d_input, most * sizeof(int32_t)));
    CUDA_CHECK(cudaMalloc((void **)&d_descriptors, tile_count(most) * 8 + 8));
    CUDA_CHECK(cudaMalloc((void **)&d_selected, sizeof *d_selected));
    report_note(stdout, opt->csv, "in-place stream compaction: keep x > 0, in order, at the front; "
                "count and every kept element checked against the CPU");
    int status = EXIT_OK, cases = 0, failed = 0;
    for (int s = 0; s < count; ++s) {
        const size_t n = sizes[s];
        for (int p = 0; p < 2; ++p) {
            generate_input(in, n, p ? PATTERN_SMALL : PATTERN_RANDOM, opt->seed + s);
            size_t kept = 0;
            for (size_t i = 0; i < n; ++i)
                if (in[i] > 0)
                    expect[kept++] = in[i];
            for (int repeat = 0; repeat < 2; ++repeat) {
                CUDA_CHECK(cudaMemcpy(d_data, in, n * sizeof(int32_t), cudaMemcpyHostToDevice));
                CUDA_CHECK(cudaMemset(d_descriptors, POISON_BYTE, tile_count(n) * 8 + 8));
                CUDA_CHECK(cudaMemset(d_selected, POISON_BYTE, sizeof *d_selected));
                select_positive(d_data, n, d_descriptors, d_selected);
                CUDA_CHECK(cudaMemcpy(&selected, d_selected, sizeof selected,
                                      cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(out, d_data, n * sizeof(int32_t), cudaMemcpyDeviceToHost));
                ++cases;
                size_t bad = kept;
                if (selected == kept)
                    for (bad = 0; bad < kept && out[bad] == expect[bad]; ++bad)
                        ;
                if (selected != kept || bad < kept) {
                    ++failed;
                    if (selected != kept)
                        printf("select n = %zu (%s): count %llu, expected %zu\n", n,
                               p ? "small" : "random", selected, kept);
                    else
                        printf("select n = %zu (%s): element %zu is %d, expected %d\n", n,
                               p ? "small" : "random", bad, out[bad], expect[bad]);
                }
            }
        }
    }
    printf("select check: %d cases, %d failed\n", cases, failed);
    if (failed)
        status = EXIT_WRONG;

    /* time the largest size: copy the input back and compact, minus the copy alone */
    const size_t n = most;
    generate_input(in, n, PATTERN_RANDOM, opt->seed);
    CUDA_CHECK(cudaMemcpy(d_input, in, n * sizeof(int32_t), cudaMemcpyHostToDevice));
    select_job job = {d_data, d_input, n, d_descriptors, d_selected};
    const double both_ms = cuda_time_median_ms(select_work, &job, 3, opt->reps);
    const double copy_ms = cuda_memcpy_ms(d_data, d_input, n * sizeof(int32_t), opt->reps);
    CUDA_CHECK(cudaMemcpy(&selected, d_selected, sizeof selected, cudaMemcpyDeviceToHost));
    printf("select n = %zu (random, keeps %llu): copy back + compact %.2f us, copy alone %.2f us: "
           "compaction about %.2f us (a memcpy of n takes %.2f us)\n",
           n, selected, both_ms * 1e3, copy_ms * 1e3, (both_ms - copy_ms) * 1e3, copy_ms * 1e3);
    CUDA_CHECK(cudaFree(d_data));
    CUDA_CHECK(cudaFree(d_input));
    CUDA_CHECK(cudaFree(d_descriptors));
    CUDA_CHECK(cudaFree(d_selected));
    free(in);
    free(out);
    free(expect);
    return status;
}

/* ------------------------------------------------------------------------------------------ */

/** The default sweep: one tile, in L2, and beyond the 60 MB L2 of an H200. */
static const size_t DEFAULT_SIZES[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                       (size_t)1 << 24, (size_t)1 << 26, (size_t)1 << 28};

/** Lines printed above the table. */
static const char *const NOTES[] = {
    "one pass: read n, write n, plus one 8-byte descriptor per tile of 4096 (2n + n/512)",
    "cub: cub::DeviceScan::InclusiveSum/ExclusiveSum from the CUDA toolkit, on the same buffers",
    NULL};

/** The ::gpu_traffic_fn: 2n elements, plus a descriptor (two words) written and read per tile. */
static double lookback_traffic(int variant, size_t n)
{
    (void)variant;
    return 2.0 * (double)n + 4.0 * (double)tile_count(n);
}

/** \brief Describe the chapter to the shared driver and run it. */
int main(int argc, char **argv)
{
    const gpu_chapter chapter = {
        {
            "07_decoupled_lookback",
            "single-pass scan with decoupled look-back (Merrill & Garland 2016), beside CUB",
            VARIANT_NAMES,
            VARIANT_COUNT,
            1,
            0,
            DEFAULT_SIZES,
            (int)(sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]),
            20,
            SCAN_EXTRA_STRESS | SCAN_EXTRA_TYPE | SCAN_EXTRA_SELECT,
        },
        lookback_scan,
        TILE_ITEMS,
        3,
        NULL,
        NULL,
        NOTES,
        lookback_temp_bytes,
        lookback_traffic,
        describe_tiles,
        f32_mode,
        select_mode,
    };
    return gpu_chapter_main(argc, argv, &chapter);
}
