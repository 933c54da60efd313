/**
 * \file multi_gpu.cu
 * \brief Chapter 14: one array sharded over every GPU of a machine and scanned as one: each GPU
 *        reduces its shard, NCCL all-gathers the totals, each GPU scans its shard seeded with the
 *        sum of the totals before its own.
 *
 * What is new since chapter 13: not the scan of a shard (chapter 08's kernel and launcher are
 * carried below unchanged) but the exchange between devices. It is chapter 05's reduce-then-scan
 * with GPUs for blocks. On every GPU, on its own stream, with no host wait in between:
 *  1. reduce_shard_kernel() sums the shard into one word (reads the shard once);
 *  2. `ncclAllGather` gives every GPU the totals of all of them, one int32 per GPU (NCCL has no
 *     scan collective: exchange_totals());
 *  3. seed_in_kernel() sums the totals of the ranks before this one (the exclusive prefix of the
 *     totals, a handful of words) and folds that *seed* into the shard's first element, as
 *     chapter 13 folds its carry;
 *  4. chapter 08's kernel scans the shard; seed_out_kernel() puts the input's first element back
 *     and, for an exclusive scan, writes the seed where the kernel wrote 0.
 * One process drives every GPU through one NCCL communicator (`ncclCommInitAll`), one rank per
 * GPU. The variants `shards-2`, `shards-3` and `shards-8` run the same steps with that many
 * shards on GPU 0 alone, one stream each, the all-gather done by copies between streams: NCCL
 * does not support two ranks of one communicator on one GPU (2.28 refuses them; 2.30's switch for
 * it is experimental), and these variants let a machine of one GPU check the seeding, the ragged
 * splits and the ordering between streams.
 *
 * Build and run (for now): `make -f Makefile.wip && ./run` in this folder; it needs NCCL, found
 * as Makefile.wip says. Inside a GPU, Merrill & Garland, "Single-pass Parallel Prefix Scan with
 * Decoupled Look-back" (2016), §4; across GPUs, their reduce-then-scan (§3.2, chapter 05). Every
 * index is a `size_t`; sums are kept in `uint32_t`, so overflow wraps.
 */
#include "cuda_util.h"
#include "data.h"
#include "io.h"
#include "report.h"
#include "selftest.h"

#include <nccl.h>
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

/** The most ranks: the GPUs of one machine (the first MAX_RANKS where it has more), or the
    shards of a `shards-N` variant. */
#define MAX_RANKS 16
/** The words each rank keeps on its device beside its shard: its total, its input's first
    element while the seed is folded into it, its seed; then the gathered totals, MAX_RANKS. */
enum { WORD_TOTAL, WORD_FIRST, WORD_SEED, WORDS, RANK_WORDS = WORDS + MAX_RANKS };
/** Blocks of reduce_shard_kernel() per SM: 16 of BLOCK_THREADS fill an SM's 2048 threads. */
#define REDUCE_BLOCKS_PER_SM 16
/** 128-bit loads each thread of reduce_shard_kernel() has in flight before it adds them. */
#define REDUCE_UNROLL 4

/** The variants: every GPU through NCCL; N shards on GPU 0, without NCCL. */
enum { VARIANT_NCCL, VARIANT_SHARDS_2, VARIANT_SHARDS_3, VARIANT_SHARDS_8, VARIANT_COUNT };
/** Names for `--variant`. */
static const char *const VARIANT_NAMES[VARIANT_COUNT] = {"nccl", "shards-2", "shards-3",
                                                         "shards-8"};
/** Shards of each variant on GPU 0 (0: one per GPU, through NCCL). */
static const int VARIANT_SHARDS[VARIANT_COUNT] = {0, 2, 3, 8};
/** The battery's "tile": 24 kernel tiles, so that with 1, 2, 3 or 8 shards (24 / N tiles each)
    its sizes tile − 1, tile, tile + 1 put every shard boundary on a kernel tile's boundary and
    one element either side of it. */
#define BATTERY_TILE (24 * TILE_ITEMS)


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
/* New: the reduce, and the seed folded into a shard                                          */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Pass 1 on one GPU: add up the shard into `*total` (which must hold 0). Reads the shard
 *        once, writes one word per block.
 *
 * Each thread adds 128-bit vectors striding over the whole shard, REDUCE_UNROLL loads in flight
 * before it adds them (a reduction does nothing else, so it keeps the memory busy only by having
 * many loads outstanding); the warps add their lanes (warp_reduce()), the block its warps, and
 * one atomicAdd per block adds the block's sum. Addition modulo 2^32 is associative and
 * commutative, so the order in which the blocks arrive cannot change the total.
 * \param in    the shard, 16-byte aligned
 * \param n     its element count, at least 1
 * \param total one word, 0 before the launch; receives the shard's sum
 * \pre blockDim.x == BLOCK_THREADS; any gridDim.x ≥ 1.
 */
__global__ void __launch_bounds__(BLOCK_THREADS)
    reduce_shard_kernel(const int32_t *in, size_t n, uint32_t *total)
{
    __shared__ uint32_t warp_total[BLOCK_WARPS];
    const int lane = threadIdx.x % WARP_THREADS, warp = threadIdx.x / WARP_THREADS;
    const uint4 *vectors = (const uint4 *)in;
    const size_t vector_count = n / 4, stride = (size_t)gridDim.x * BLOCK_THREADS;
    size_t v = (size_t)blockIdx.x * BLOCK_THREADS + threadIdx.x;
    uint32_t sum = 0;
    for (; v + (REDUCE_UNROLL - 1) * stride < vector_count; v += REDUCE_UNROLL * stride) {
        uint4 q[REDUCE_UNROLL];
        for (int k = 0; k < REDUCE_UNROLL; ++k)
            q[k] = vectors[v + k * stride];
        for (int k = 0; k < REDUCE_UNROLL; ++k)
            sum += (q[k].x + q[k].y) + (q[k].z + q[k].w);
    }
    for (; v < vector_count; v += stride) {
        const uint4 q = vectors[v];
        sum += (q.x + q.y) + (q.z + q.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4) /* the last n % 4 elements, one thread each */
        sum += (uint32_t)in[vector_count * 4 + threadIdx.x];
    sum = warp_reduce(sum);
    if (lane == 0)
        warp_total[warp] = sum;
    __syncthreads(); /* every warp total is written */
    if (threadIdx.x == 0) {
        uint32_t block_sum = 0;
        for (int w = 0; w < BLOCK_WARPS; ++w)
            block_sum += warp_total[w];
        atomicAdd(total, block_sum);
    }
}

/**
 * \brief Before a shard's scan: its seed, the sum of the totals of the ranks before this one,
 *        folded into the shard's first element; the element and the seed kept in `words`.
 *
 * The gathered totals are the same G words on every GPU, so every GPU takes the exclusive
 * prefix of them itself: G is at most MAX_RANKS, a serial loop of one thread. Chapter 08's kernel
 * then scans the shard from its tile 0 as it scans any array, and every result comes out with the
 * seed added (chapter 13 folds its carry in the same way). The totals were written by the
 * all-gather on the same stream, so plain loads see them.
 * \param shard  the shard's input (its first element is changed until seed_out_kernel())
 * \param totals the gathered totals, one per rank, in rank order
 * \param rank   this shard's rank
 * \param words  this rank's words: writes WORD_FIRST and WORD_SEED
 * \pre <<<1, 1>>>, on the rank's stream, after the exchange and before the scan; the shard has
 *      at least one element.
 */
__global__ void seed_in_kernel(int32_t *shard, const uint32_t *totals, int rank, uint32_t *words)
{
    uint32_t seed = 0;
    for (int r = 0; r < rank; ++r)
        seed += totals[r];
    words[WORD_SEED] = seed;
    words[WORD_FIRST] = (uint32_t)shard[0];
    shard[0] = (int32_t)((uint32_t)shard[0] + seed);
}

/**
 * \brief After a shard's scan: the input's first element put back (when the scan was not in
 *        place), and for an exclusive scan the seed written where the kernel wrote 0.
 * \param in        the shard's input
 * \param out       the shard's output (may be `in`)
 * \param words     this rank's words, as seed_in_kernel() left them
 * \param exclusive 1 for an exclusive scan
 * \pre <<<1, 1>>>, on the rank's stream, after the scan.
 */
__global__ void seed_out_kernel(int32_t *in, int32_t *out, const uint32_t *words, int exclusive)
{
    if (exclusive)
        out[0] = (int32_t)words[WORD_SEED];
    if (in != out)
        in[0] = (int32_t)words[WORD_FIRST];
}

/* ------------------------------------------------------------------------------------------ */
/* New: the ranks, their shards, and the exchange                                             */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Check an NCCL call (through NCCL_CHECK()): on failure print what failed, where and
 *        NCCL's reason, and exit with status 3, as cuda_fail() does for CUDA.
 */
static void nccl_check(ncclResult_t status, const char *what, const char *file, int line)
{
    if (status == ncclSuccess)
        return;
    fflush(stdout);
    fprintf(stderr, "run: NCCL error %s (%s)\n  in %s\n  at %s:%d\n", ncclGetErrorString(status),
            ncclGetLastError(NULL), what, file, line);
    exit(EXIT_CUDA);
}
/** An NCCL call, checked by nccl_check() (the macro only names the call and its place). */
#define NCCL_CHECK(call) nccl_check((call), #call, __FILE__, __LINE__)

/** The events a rank records in every run, for the timings and, with shards on one GPU, for
    the exchange's waits. */
enum { MARK_START, MARK_REDUCED, MARK_GATHERED, MARK_END, MARKS };

/** One rank: a GPU (or, for `shards-N`, one stream of GPU 0) and its shard of the array. */
typedef struct rank_state {
    int device;               /**< its GPU */
    int sms;                  /**< that GPU's SMs (reduce_shard_kernel()'s grid) */
    cudaStream_t stream;      /**< its stream: all its work, the all-gather included */
    cudaEvent_t marks[MARKS]; /**< MARK_* of the last run */
    size_t first;             /**< its shard: elements first … first + count − 1 of the array */
    size_t count;             /**< the shard's element count (may be 0) */
    size_t capacity;          /**< elements d_in and d_out hold */
    int32_t *d_in;            /**< the shard's input */
    int32_t *d_out;           /**< the shard's output */
    void *d_scratch;          /**< chapter 08's scratch for `capacity` elements, zeroed once */
    size_t scratch_bytes;     /**< its size */
    uint32_t *d_words;        /**< WORDS words, then the gathered totals (RANK_WORDS in all) */
} rank_state;

/** The ranks of one variant, and what they share. */
typedef struct cluster {
    int ranks;                     /**< how many */
    int nccl;                      /**< 1: one GPU per rank, one NCCL communicator */
    ncclComm_t comms[MAX_RANKS];   /**< the communicator's ranks (nccl) */
    uint32_t *d_words_all;         /**< every rank's RANK_WORDS in one allocation (not nccl) */
    rank_state rank[MAX_RANKS];    /**< the ranks, in rank order */
} cluster;

/** The shard of rank k of `ranks` in n elements: n / ranks each, the first n % ranks one more. */
static void shard_of(size_t n, int ranks, int k, size_t *first, size_t *count)
{
    const size_t base = n / (size_t)ranks, extra = n % (size_t)ranks, r = (size_t)k;
    *first = r * base + (r < extra ? r : extra);
    *count = base + (r < extra ? 1 : 0);
}

/**
 * \brief Start a cluster: `ranks` ranks, each on its own GPU through NCCL (`nccl`), or all on
 *        GPU 0 without NCCL. Streams, events and the words; the shards come with cluster_reserve().
 */
static void cluster_open(cluster *c, int ranks, int nccl)
{
    memset(c, 0, sizeof *c);
    c->ranks = ranks;
    c->nccl = nccl;
    if (nccl) {
        /* NVLink multicast (NVLS) stays off whatever the environment says: on the shared machines
           this course runs on, a program that uses it can take the host's GPUs out of service
           for others, and an all-gather of a few words gains nothing from it. This program never
           calls cuMulticastCreate either. */
        setenv("NCCL_NVLS_ENABLE", "0", 1);
        NCCL_CHECK(ncclCommInitAll(c->comms, ranks, NULL)); /* rank k on GPU k */
    } else {
        CUDA_CHECK(cudaSetDevice(0));
        CUDA_CHECK(cudaMalloc((void **)&c->d_words_all,
                              (size_t)ranks * RANK_WORDS * sizeof(uint32_t)));
    }
    for (int k = 0; k < ranks; ++k) {
        rank_state *r = &c->rank[k];
        r->device = nccl ? k : 0;
        CUDA_CHECK(cudaSetDevice(r->device));
        CUDA_CHECK(cudaDeviceGetAttribute(&r->sms, cudaDevAttrMultiProcessorCount, r->device));
        CUDA_CHECK(cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking));
        for (int m = 0; m < MARKS; ++m)
            CUDA_CHECK(cudaEventCreate(&r->marks[m]));
        if (nccl)
            CUDA_CHECK(cudaMalloc((void **)&r->d_words, RANK_WORDS * sizeof(uint32_t)));
        else
            r->d_words = c->d_words_all + (size_t)k * RANK_WORDS;
    }
}

/** \brief Wait until every rank's stream has finished. */
static void cluster_wait(cluster *c)
{
    for (int k = 0; k < c->ranks; ++k)
        CUDA_CHECK(cudaStreamSynchronize(c->rank[k].stream));
}

/** \brief Free the shards' arrays (a later cluster_reserve() allocates them again). */
static void cluster_release(cluster *c)
{
    for (int k = 0; k < c->ranks; ++k) {
        rank_state *r = &c->rank[k];
        CUDA_CHECK(cudaSetDevice(r->device));
        CUDA_CHECK(cudaFree(r->d_in));
        CUDA_CHECK(cudaFree(r->d_out));
        CUDA_CHECK(cudaFree(r->d_scratch));
        r->d_in = r->d_out = NULL;
        r->d_scratch = NULL;
        r->capacity = r->scratch_bytes = 0;
    }
}

/** \brief Undo cluster_open() (and cluster_reserve()); a cluster never opened is left alone. */
static void cluster_close(cluster *c)
{
    if (c->ranks == 0)
        return;
    cluster_wait(c);
    for (int k = 0; k < c->ranks && c->nccl; ++k) { /* the communicator first, as NCCL's own
                                                        single-process example does */
        NCCL_CHECK(ncclCommFinalize(c->comms[k]));
        NCCL_CHECK(ncclCommDestroy(c->comms[k]));
    }
    cluster_release(c);
    for (int k = 0; k < c->ranks; ++k) {
        rank_state *r = &c->rank[k];
        CUDA_CHECK(cudaSetDevice(r->device));
        for (int m = 0; m < MARKS; ++m)
            CUDA_CHECK(cudaEventDestroy(r->marks[m]));
        CUDA_CHECK(cudaStreamDestroy(r->stream));
        if (c->nccl)
            CUDA_CHECK(cudaFree(r->d_words));
    }
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaFree(c->d_words_all));
    c->ranks = 0;
}

/**
 * \brief Cut n elements into the cluster's shards, and give each rank arrays that hold its
 *        shard. A rank whose arrays are too small gets new ones, and a new scratch, zeroed once
 *        (chapter 08's contract, lookback_scan_async()); arrays large enough are kept, scratch
 *        and all, so that calls after the first reuse the scratch's state as chapter 08 does.
 */
static void cluster_reserve(cluster *c, size_t n)
{
    for (int k = 0; k < c->ranks; ++k) {
        rank_state *r = &c->rank[k];
        shard_of(n, c->ranks, k, &r->first, &r->count);
        if (r->count <= r->capacity)
            continue;
        CUDA_CHECK(cudaSetDevice(r->device));
        CUDA_CHECK(cudaFree(r->d_in));
        CUDA_CHECK(cudaFree(r->d_out));
        CUDA_CHECK(cudaFree(r->d_scratch));
        r->capacity = r->count;
        r->scratch_bytes = lookback_scratch_bytes(r->capacity);
        CUDA_CHECK(cudaMalloc((void **)&r->d_in, r->capacity * sizeof(int32_t)));
        CUDA_CHECK(cudaMalloc((void **)&r->d_out, r->capacity * sizeof(int32_t)));
        CUDA_CHECK(cudaMalloc(&r->d_scratch, r->scratch_bytes));
        /* the contract: zeros, once, ordered before the first scan. On the rank's own stream:
           a stream made with cudaStreamNonBlocking does not wait for the legacy default stream,
           where a plain cudaMemset would go, and cudaMemset returns before it is done. */
        CUDA_CHECK(cudaMemsetAsync(r->d_scratch, 0, r->scratch_bytes, r->stream));
    }
}

/**
 * \brief Step 2: every rank receives every rank's total, in rank order, in its own gathered
 *        array (d_words + WORDS).
 *
 * Through NCCL: one `ncclAllGather` of one word per rank. The host thread drives every rank, so
 * the ranks' calls are grouped (ncclGroupStart()/ncclGroupEnd()): issued one by one without the
 * group, the first would wait for its peers' calls, which the host has not made yet. A call
 * inside the group may return before it is enqueued: ncclGroupEnd() enqueues each on its rank's
 * stream, after the reduce, and the seed kernel after it on the same stream reads the words.
 *
 * Without NCCL (the shards of one GPU): the ranks' words are one allocation, RANK_WORDS apart, so
 * each rank waits until every rank's reduce has ended (MARK_REDUCED) and copies the column of
 * totals into its own gathered array with one strided copy.
 */
static void exchange_totals(cluster *c)
{
    if (c->nccl) {
        NCCL_CHECK(ncclGroupStart());
        for (int k = 0; k < c->ranks; ++k)
            NCCL_CHECK(ncclAllGather(c->rank[k].d_words + WORD_TOTAL, c->rank[k].d_words + WORDS,
                                     1, ncclUint32, c->comms[k], c->rank[k].stream));
        NCCL_CHECK(ncclGroupEnd());
        return;
    }
    for (int j = 0; j < c->ranks; ++j) {
        rank_state *r = &c->rank[j];
        for (int k = 0; k < c->ranks; ++k)
            CUDA_CHECK(cudaStreamWaitEvent(r->stream, c->rank[k].marks[MARK_REDUCED], 0));
        CUDA_CHECK(cudaMemcpy2DAsync(r->d_words + WORDS, sizeof(uint32_t),
                                     c->d_words_all + WORD_TOTAL, RANK_WORDS * sizeof(uint32_t),
                                     sizeof(uint32_t), (size_t)c->ranks, cudaMemcpyDeviceToDevice,
                                     r->stream));
    }
}

/**
 * \brief The sharded scan, enqueued on every rank's stream; the host waits for nothing (see
 *        cluster_wait()). Steps 1 to 4 of the file comment, with MARK_* events between them.
 *
 * A rank with an empty shard still takes part in the exchange (a collective needs every rank),
 * with a total of 0. While seed_in_kernel() has folded the seed into a shard's first element, the
 * input is not the caller's; seed_out_kernel() gives it back before the run ends.
 * \param c         the cluster, its shards reserved and filled
 * \param exclusive 1 for exclusive, 0 for inclusive
 * \param in_place  1: each shard is scanned in place, in d_in; 0: from d_in into d_out
 */
static void sharded_scan(cluster *c, int exclusive, int in_place)
{
    for (int k = 0; k < c->ranks; ++k) {
        rank_state *r = &c->rank[k];
        CUDA_CHECK(cudaSetDevice(r->device));
        CUDA_CHECK(cudaEventRecord(r->marks[MARK_START], r->stream));
        CUDA_CHECK(cudaMemsetAsync(r->d_words + WORD_TOTAL, 0, sizeof(uint32_t), r->stream));
        if (r->count) {
            const size_t vectors = r->count / 4 + 1;
            const size_t most = (size_t)r->sms * REDUCE_BLOCKS_PER_SM;
            const size_t wanted = (vectors + BLOCK_THREADS - 1) / BLOCK_THREADS;
            reduce_shard_kernel<<<(unsigned)(wanted < most ? wanted : most), BLOCK_THREADS, 0,
                                  r->stream>>>(r->d_in, r->count, r->d_words + WORD_TOTAL);
            CUDA_CHECK_LAUNCH();
        }
        CUDA_CHECK(cudaEventRecord(r->marks[MARK_REDUCED], r->stream));
    }
    exchange_totals(c);
    for (int k = 0; k < c->ranks; ++k) {
        rank_state *r = &c->rank[k];
        int32_t *out = in_place ? r->d_in : r->d_out;
        CUDA_CHECK(cudaSetDevice(r->device));
        CUDA_CHECK(cudaEventRecord(r->marks[MARK_GATHERED], r->stream));
        if (r->count) {
            seed_in_kernel<<<1, 1, 0, r->stream>>>(r->d_in, r->d_words + WORDS, k, r->d_words);
            CUDA_CHECK_LAUNCH();
            lookback_scan_async(r->d_in, out, r->count, exclusive, r->d_scratch,
                                r->scratch_bytes, r->stream);
            seed_out_kernel<<<1, 1, 0, r->stream>>>(r->d_in, out, r->d_words, exclusive);
            CUDA_CHECK_LAUNCH();
        }
        CUDA_CHECK(cudaEventRecord(r->marks[MARK_END], r->stream));
    }
}

/** \brief The memcpy every row is compared with: each rank copies its shard, d_in to d_out,
           all at once, enqueued like sharded_scan() (MARK_START and MARK_END only). */
static void copy_shards(cluster *c)
{
    for (int k = 0; k < c->ranks; ++k) {
        rank_state *r = &c->rank[k];
        CUDA_CHECK(cudaSetDevice(r->device));
        CUDA_CHECK(cudaEventRecord(r->marks[MARK_START], r->stream));
        if (r->count)
            CUDA_CHECK(cudaMemcpyAsync(r->d_out, r->d_in, r->count * sizeof(int32_t),
                                       cudaMemcpyDeviceToDevice, r->stream));
        CUDA_CHECK(cudaEventRecord(r->marks[MARK_END], r->stream));
    }
}

/** \brief Copy the host array into the shards (the cluster reserved for its n) and poison the
           outputs, unless the scan will run in place: enqueued on each rank's stream, so ordered
           before the work that follows there (`in` may be reused at once: a copy from pageable
           memory is staged before cudaMemcpyAsync returns). */
static void upload(cluster *c, const int32_t *in, int in_place)
{
    for (int k = 0; k < c->ranks; ++k) {
        rank_state *r = &c->rank[k];
        if (r->count == 0)
            continue;
        CUDA_CHECK(cudaSetDevice(r->device));
        CUDA_CHECK(cudaMemcpyAsync(r->d_in, in + r->first, r->count * sizeof(int32_t),
                                   cudaMemcpyHostToDevice, r->stream));
        if (!in_place)
            CUDA_CHECK(cudaMemsetAsync(r->d_out, POISON_BYTE, r->count * sizeof(int32_t),
                                       r->stream));
    }
}

/** \brief Copy every shard's result into the host array `out`, after the work enqueued on its
           rank's stream; returns when every copy is done. */
static void download(cluster *c, int32_t *out, int in_place)
{
    for (int k = 0; k < c->ranks; ++k) {
        rank_state *r = &c->rank[k];
        if (r->count == 0)
            continue;
        CUDA_CHECK(cudaSetDevice(r->device));
        CUDA_CHECK(cudaMemcpyAsync(out + r->first, in_place ? r->d_in : r->d_out,
                                   r->count * sizeof(int32_t), cudaMemcpyDeviceToHost,
                                   r->stream));
    }
    cluster_wait(c);
}

/** \brief 1 if every shard's input still starts with the caller's element (seed_out_kernel()
           put it back); else 0, with the first rank where it does not said on stdout. */
static int input_kept(cluster *c, const int32_t *in)
{
    for (int k = 0; k < c->ranks; ++k) {
        rank_state *r = &c->rank[k];
        int32_t first = 0;
        if (r->count == 0)
            continue;
        CUDA_CHECK(cudaSetDevice(r->device));
        CUDA_CHECK(cudaMemcpyAsync(&first, r->d_in, sizeof first, cudaMemcpyDeviceToHost,
                                   r->stream));
        CUDA_CHECK(cudaStreamSynchronize(r->stream));
        if (first != in[r->first]) {
            printf("    rank %d's input was not given back: its first element is %d, not %d\n",
                   k, first, in[r->first]);
            return 0;
        }
    }
    return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* The host driver: the variants, the battery, the stress test, the timing sweep              */
/* ------------------------------------------------------------------------------------------ */

/** Untimed runs before the timed ones. */
#define WARMUP_RUNS 2
/** Above this many elements, a call frees the other variants' arrays first (the n > 2^31 case
    would otherwise hold one copy of the array per variant on GPU 0). */
#define KEEP_OTHERS_MAX ((size_t)1 << 26)

/** Everything the program runs on: the GPUs, a cluster per variant, opened at first use. */
typedef struct machine {
    int gpus;                          /**< GPUs used: every GPU visible, at most MAX_RANKS */
    cluster variant[VARIANT_COUNT];    /**< the variants' clusters (ranks 0: not opened yet) */
    cluster copy_one;                  /**< one rank on GPU 0: the one-GPU memcpy of the sweep */
    long calls;                        /**< battery_scan() calls so far (which run in place) */
    const scan_options *opt;           /**< the command line (which variants run) */
} machine;

/** \brief The cluster of variant v, opened at its first use. */
static cluster *variant_cluster(machine *m, int v)
{
    cluster *c = &m->variant[v];
    if (c->ranks == 0)
        cluster_open(c, v == VARIANT_NCCL ? m->gpus : VARIANT_SHARDS[v], v == VARIANT_NCCL);
    return c;
}

/** \brief Free every cluster's arrays but those of `keep` (NULL: all of them). */
static void release_others(machine *m, const cluster *keep)
{
    for (int v = 0; v < VARIANT_COUNT; ++v)
        if (&m->variant[v] != keep && m->variant[v].ranks)
            cluster_release(&m->variant[v]);
    if (&m->copy_one != keep && m->copy_one.ranks)
        cluster_release(&m->copy_one);
}

/**
 * \brief The ::scan_fn of the battery, the stress test and `--input`: the host array into the
 *        variant's shards, the sharded scan, the results back. Calls alternate, two by two,
 *        between scanning out of place (and then checking that the input was given back) and in
 *        place, so that every case of the battery, run three times, takes both paths.
 */
static int battery_scan(void *ctx, int variant, const int32_t *in, int32_t *out, size_t n,
                        int exclusive)
{
    machine *m = (machine *)ctx;
    cluster *c = variant_cluster(m, variant);
    const int in_place = (int)(m->calls++ / 2 % 2);
    if (n > KEEP_OTHERS_MAX)
        release_others(m, c);
    cluster_reserve(c, n);
    upload(c, in, in_place);
    sharded_scan(c, exclusive, in_place);
    cluster_wait(c);
    download(c, out, in_place);
    return in_place || input_kept(c, in) ? 0 : 1;
}

/** \brief The free memory of GPU `device`, in bytes. */
static size_t free_bytes_on(int device)
{
    size_t free_bytes = 0, total = 0;
    CUDA_CHECK(cudaSetDevice(device));
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    return free_bytes;
}

/**
 * \brief Device memory the selected variants need for n elements, one at a time: on GPU 0 the
 *        whole array for any `shards-N` (and the sweep's one-GPU memcpy), else its shard.
 */
static double gpu_need(const machine *m, const scan_options *opt, size_t n, int device)
{
    const size_t shard = (n + (size_t)m->gpus - 1) / (size_t)m->gpus;
    size_t most = cli_variant_selected(opt, VARIANT_NCCL) ? shard : 0;
    for (int v = VARIANT_SHARDS_2; v < VARIANT_COUNT && device == 0; ++v)
        if (cli_variant_selected(opt, v))
            most = n;
    return 2.0 * sizeof(int32_t) * (double)most + (double)lookback_scratch_bytes(most) + 65536.0;
}

/** \brief 0 if every GPU has the free memory gpu_need() says for n; else the first GPU that has
           not, with what it needs and has in `reason`. */
static int gpus_short(const machine *m, const scan_options *opt, size_t n, char *reason,
                      size_t len)
{
    for (int d = 0; d < m->gpus; ++d) {
        const double need = gpu_need(m, opt, n, d), have = (double)free_bytes_on(d);
        if (need > have) {
            snprintf(reason, len, "n = %zu needs %.2f GiB on GPU %d; %.2f GiB are free", n,
                     need / (1 << 30), d, have / (1 << 30));
            return 1;
        }
    }
    return 0;
}

/** \brief The ::self_test_config::big_fits: free every cached array, then ask whether the host
           and every GPU have the memory for the n > 2^31 case now. */
static int big_case_fits(void *ctx, char *reason, size_t len)
{
    machine *m = (machine *)ctx;
    release_others(m, NULL);
    const size_t need = self_test_host_bytes(SELF_TEST_BIG_N), have = host_memory_available();
    if (have < need + need / 4) {
        snprintf(reason, len, "needs %.1f GiB of host memory; %.1f GiB free",
                 (double)(need + need / 4) / (1 << 30), (double)have / (1 << 30));
        return 0;
    }
    return !gpus_short(m, m->opt, SELF_TEST_BIG_N, reason, len);
}

/** `--stress R`: R runs of each size and variant, alternating inclusive and exclusive, every
    other pair in place (battery_scan()), every element compared. */
static int stress(machine *m, const scan_options *opt)
{
    const size_t sizes[] = {1, TILE_ITEMS + 1, BATTERY_TILE + 1, ((size_t)1 << 20) + 5,
                            (size_t)1 << 24};
    const size_t *list = opt->n_given ? &opt->n : sizes;
    const int count = opt->n_given ? 1 : (int)(sizeof sizes / sizeof sizes[0]);
    int status = EXIT_OK;
    report_note(stdout, opt->csv, "stress test: %d runs per size and variant, inclusive and "
                "exclusive in turn, every other pair in place, every element compared",
                opt->stress);
    for (int s = 0; s < count; ++s) {
        const size_t n = list[s];
        int32_t *in = (int32_t *)xmalloc(n * sizeof(int32_t), "the input");
        int32_t *out = (int32_t *)xmalloc(n * sizeof(int32_t), "the output");
        int32_t *ref[2] = {(int32_t *)xmalloc(n * sizeof(int32_t), "the reference"),
                           (int32_t *)xmalloc(n * sizeof(int32_t), "the reference")};
        generate_input(in, n, PATTERN_RANDOM, opt->seed + (uint64_t)s);
        for (int exclusive = 0; exclusive < 2; ++exclusive)
            scan_reference(in, ref[exclusive], n, exclusive, 0);
        for (int v = 0; v < VARIANT_COUNT; ++v) {
            if (!cli_variant_selected(opt, v))
                continue;
            long failed = 0;
            for (int r = 0; r < opt->stress; ++r) {
                poison(out, n);
                const int error = battery_scan(m, v, in, out, n, r % 2);
                const verify_result res = verify_scan(ref[r % 2], out, n);
                if ((error || res.mismatches) && failed++ == 0) {
                    printf("run %d (%s) of n = %zu, %s, is wrong:\n", r,
                           r % 2 ? "exclusive" : "inclusive", n, VARIANT_NAMES[v]);
                    verify_report(stdout, &res, ref[r % 2], out, n);
                }
            }
            report_note(stdout, opt->csv, "n = %zu, %s: %d runs, %ld wrong", n, VARIANT_NAMES[v],
                        opt->stress, failed);
            if (failed)
                status = EXIT_WRONG;
        }
        free(in);
        free(out);
        free(ref[0]);
        free(ref[1]);
    }
    printf("stress test %s\n", status == EXIT_OK ? "passed: no run was wrong" : "FAILED");
    return status;
}

/** What the timed runs of one row say: the time (each run's slowest rank) and the shares. */
typedef struct row_times {
    timing time;          /**< median and spread of the runs, in ms */
    double reduce_share;  /**< median over runs of (every rank's reduce ended) / run time */
    double gather_share;  /**< median over runs of (longest reduce end → all-gather end) / run time */
} row_times;

/** \brief Milliseconds between two marks of a rank's last run. */
static double mark_ms(const rank_state *r, int from, int to)
{
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, r->marks[from], r->marks[to]));
    return ms;
}

/**
 * \brief Time WARMUP_RUNS untimed, then `reps` timed runs of the sharded scan (or, with `copy`,
 *        of copy_shards()), out of place. A run's time is its slowest rank's, from that rank's
 *        MARK_START to its MARK_END (each rank's events are on its own GPU: times on two GPUs
 *        cannot be subtracted); the shares are taken on each rank and the largest kept.
 */
static row_times time_rows(cluster *c, int copy, int exclusive, int reps)
{
    double *total = (double *)xmalloc(3 * (size_t)reps * sizeof(double), "the timings");
    double *reduce = total + reps, *gather = total + 2 * reps;
    for (int run = -WARMUP_RUNS; run < reps; ++run) {
        if (copy)
            copy_shards(c);
        else
            sharded_scan(c, exclusive, 0);
        cluster_wait(c);
        if (run < 0)
            continue;
        double t = 0.0, red = 0.0, gat = 0.0;
        for (int k = 0; k < c->ranks; ++k) {
            const rank_state *r = &c->rank[k];
            const double mine = mark_ms(r, MARK_START, MARK_END);
            t = mine > t ? mine : t;
            if (copy)
                continue;
            const double rk = mark_ms(r, MARK_START, MARK_REDUCED);
            const double gk = mark_ms(r, MARK_REDUCED, MARK_GATHERED);
            red = rk > red ? rk : red;
            gat = gk > gat ? gk : gat;
        }
        total[run] = t;
        reduce[run] = t > 0 ? red / t : 0.0;
        gather[run] = t > 0 ? gat / t : 0.0;
    }
    row_times out = {timing_of(total, reps), median(reduce, reps), median(gather, reps)};
    free(total);
    return out;
}

/** The sweep's columns. */
static const report_column COLUMNS[] = {
    {"n", 10},          {"variant", -9},        {"gpus", 4},          {"shards", 6},
    {"time_us", 12},    {"GB/s", 8},            {"pct_memcpy", 10},   {"reduce_pct", 10},
    {"allgather_pct", 13}, {"spread_pct", 10},  {"memcpy_spread_pct", 17},
    {"noise", -17},     {"check", -5}};
/** How many. */
#define COLUMN_COUNT ((int)(sizeof COLUMNS / sizeof COLUMNS[0]))

/** \brief One row: `t` the row's runs, `copy` its memcpy's; a memcpy row has no shares and no
           check ("-"). */
static void print_row(const scan_options *opt, size_t n, const char *variant, const cluster *c,
                      row_times t, timing copy, const char *check)
{
    char nbuf[32], gbuf[8], sbuf[8], tbuf[32], bbuf[32], pbuf[32], rbuf[32], abuf[32], s1[32],
        s2[32];
    const int memcpy_row = strcmp(check, "-") == 0, timed = n > 0;
    const double pct = t.time.median > 0 ? 100.0 * copy.median / t.time.median : 0.0;
    format_size(n, nbuf, sizeof nbuf);
    snprintf(gbuf, sizeof gbuf, "%d", c->nccl ? c->ranks : 1);
    snprintf(sbuf, sizeof sbuf, "%d", c->ranks);
    snprintf(tbuf, sizeof tbuf, "%.2f", t.time.median * 1e3);
    snprintf(bbuf, sizeof bbuf, timed ? "%.1f" : "-", gb_per_s(scan_min_bytes(n), t.time.median));
    snprintf(pbuf, sizeof pbuf, timed ? "%.1f" : "-", pct);
    snprintf(rbuf, sizeof rbuf, timed && !memcpy_row ? "%.1f" : "-", 100.0 * t.reduce_share);
    snprintf(abuf, sizeof abuf, timed && !memcpy_row ? "%.1f" : "-", 100.0 * t.gather_share);
    const char *row[] = {nbuf, variant, gbuf, sbuf, tbuf, bbuf, pbuf, rbuf, abuf,
                         format_spread(t.time, timed, s1, sizeof s1),
                         format_spread(copy, timed, s2, sizeof s2),
                         noise_flag(t.time, copy, pct, timed), check};
    report_row(stdout, COLUMNS, COLUMN_COUNT, opt->csv, row);
}

/** \brief A memcpy row: the cluster's shards of `in` copied, each rank its own, all at once;
           returns the copy's timing for the rows that follow. */
static timing memcpy_row(const scan_options *opt, cluster *c, const int32_t *in, size_t n)
{
    row_times t = {{0.0, 0.0}, 0.0, 0.0};
    cluster_reserve(c, n);
    upload(c, in, 0);
    if (n)
        t = time_rows(c, 1, 0, opt->reps);
    print_row(opt, n, "memcpy", c, t, t.time, "-");
    return t.time;
}

/** \brief A variant's row: verified, timed, verified again (the timed runs reuse the input, so
           an input not given back shows here too); its arrays freed after. */
static int variant_row(const scan_options *opt, machine *m, int v, const int32_t *in,
                       int32_t *out, const int32_t *ref, size_t n, timing copy)
{
    cluster *c = variant_cluster(m, v);
    row_times t = {{0.0, 0.0}, 0.0, 0.0};
    cluster_reserve(c, n);
    upload(c, in, 0);
    sharded_scan(c, opt->exclusive, 0);
    cluster_wait(c);
    download(c, out, 0);
    const verify_result before = verify_scan(ref, out, n);
    if (n)
        t = time_rows(c, 0, opt->exclusive, opt->reps);
    poison(out, n);
    download(c, out, 0);
    const verify_result after = verify_scan(ref, out, n);
    const int ok = before.mismatches == 0 && after.mismatches == 0;
    print_row(opt, n, VARIANT_NAMES[v], c, t, copy, ok ? "ok" : "WRONG");
    if (!ok)
        verify_report(stdout, before.mismatches ? &before : &after, ref, out, n);
    cluster_release(c);
    return ok ? EXIT_OK : EXIT_WRONG;
}

/** The default sweep, per GPU: beyond L2, then 1 GiB and 4 GiB of input on each GPU (the
    H200's L2 is 60 MiB, the first line of `./run` says). */
static const size_t DEFAULT_SIZES[] = {(size_t)1 << 24, (size_t)1 << 28, (size_t)1 << 30};

/**
 * \brief The timing sweep: per size, the memcpy of every GPU at once and the `nccl` row; then,
 *        for the `shards-N` rows, GPU 0's memcpy alone (on a machine of one GPU, the same row)
 *        and those rows. Every row is checked before and after its timed runs.
 */
static int sweep(machine *m, const scan_options *opt)
{
    size_t sizes[sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]];
    const int count = opt->n_given ? 1 : (int)(sizeof sizes / sizeof sizes[0]);
    size_t largest = 0;
    char what[64], reason[192];
    int status = EXIT_OK;
    for (int s = 0; s < count; ++s) {
        sizes[s] = opt->n_given ? opt->n : DEFAULT_SIZES[s] * (size_t)m->gpus;
        largest = sizes[s] > largest ? sizes[s] : largest;
    }
    snprintf(what, sizeof what, "-n %zu", largest);
    io_require_host_memory(3.0 * sizeof(int32_t) * (double)largest, what);
    if (gpus_short(m, opt, largest, reason, sizeof reason))
        cli_fail(EXIT_USAGE, "%s: try a smaller -n", reason);
    int shards_selected = 0;
    for (int v = VARIANT_SHARDS_2; v < VARIANT_COUNT; ++v)
        shards_selected |= cli_variant_selected(opt, v);

    report_note(stdout, opt->csv, "%s scan, seed %llu, median of %d runs after %d warm-up runs%s",
                opt->exclusive ? "exclusive" : "inclusive", (unsigned long long)opt->seed,
                opt->reps, WARMUP_RUNS, opt->n_given ? "" : "; sizes: 2^24, 2^28, 2^30 per GPU");
    report_note(stdout, opt->csv, "GB/s counts 2*n*4 bytes over the whole machine; time_us is "
                "a run's slowest GPU's (CUDA events on each GPU); pct_memcpy compares with the "
                "memcpy row above it: each GPU copies its own shard, device to device, all at "
                "once, timed in this run");
    report_note(stdout, opt->csv, "reduce_pct: until every shard's reduce has ended; "
                "allgather_pct: from a shard's reduce's end to its all-gather's end (waiting for "
                "the others included); both the largest over the ranks, as a share of the time");
    report_noise_note(stdout, opt->csv);
    report_note(stdout, opt->csv, "nccl: %d GPU%s, one rank each, one ncclAllGather of the "
                "totals; shards-N: N shards on GPU 0, one stream each, the totals exchanged by "
                "copies between streams", m->gpus, m->gpus == 1 ? "" : "s");
    report_header(stdout, COLUMNS, COLUMN_COUNT, opt->csv);
    for (int s = 0; s < count; ++s) {
        const size_t n = sizes[s];
        int32_t *in = (int32_t *)xmalloc(n * sizeof(int32_t), "the input");
        int32_t *out = (int32_t *)xmalloc(n * sizeof(int32_t), "the output");
        int32_t *ref = (int32_t *)xmalloc(n * sizeof(int32_t), "the reference");
        generate_input(in, n, PATTERN_RANDOM, opt->seed);
        scan_reference(in, ref, n, opt->exclusive, 0);
        timing copy = {0.0, 0.0};
        if (cli_variant_selected(opt, VARIANT_NCCL)) {
            copy = memcpy_row(opt, variant_cluster(m, VARIANT_NCCL), in, n);
            if (variant_row(opt, m, VARIANT_NCCL, in, out, ref, n, copy) != EXIT_OK)
                status = EXIT_WRONG;
        }
        if (shards_selected && (m->gpus > 1 || !cli_variant_selected(opt, VARIANT_NCCL))) {
            if (m->copy_one.ranks == 0)
                cluster_open(&m->copy_one, 1, 0);
            copy = memcpy_row(opt, &m->copy_one, in, n);
            cluster_release(&m->copy_one);
        }
        for (int v = VARIANT_SHARDS_2; v < VARIANT_COUNT; ++v)
            if (cli_variant_selected(opt, v) &&
                variant_row(opt, m, v, in, out, ref, n, copy) != EXIT_OK)
                status = EXIT_WRONG;
        free(in);
        free(out);
        free(ref);
    }
    report_summary(stdout, opt->csv);
    return status;
}

/** \brief Parse; read `--input`; then the self-test, the stress test, a file, or the sweep, over
           every GPU visible (`CUDA_VISIBLE_DEVICES` chooses them). */
int main(int argc, char **argv)
{
    const scan_program prog = {
        .name = "14_multi_gpu",
        .title = "one array over every GPU: each reduces its shard, NCCL all-gathers the totals, "
                 "each scans seeded",
        .variants = VARIANT_NAMES,
        .variant_count = VARIANT_COUNT,
        .default_sizes = DEFAULT_SIZES,
        .default_size_count = (int)(sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]),
        .default_reps = 20,
        .stress = 1,
    };
    scan_options opt;
    char err[512], line[256];
    int32_t *file_in = NULL;
    size_t file_n = 0;
    cli_parse_or_exit(argc, argv, &prog, &opt);

    /* Bad files are usage errors: found before the GPU is touched, so they need no GPU. */
    if (opt.input) {
        if (io_read_int32(opt.input, &file_in, &file_n, err, sizeof err))
            cli_fail(EXIT_USAGE, "%s", err);
        if (opt.output && io_output_begin(opt.output, err, sizeof err))
            cli_fail(EXIT_USAGE, "%s", err);
    }

    cudaDeviceProp props;
    cuda_init_device(&props);
    report_note(stdout, opt.csv, "%s", cuda_device_line(&props, line, sizeof line));
    machine m;
    memset(&m, 0, sizeof m);
    m.opt = &opt;
    CUDA_CHECK(cudaGetDeviceCount(&m.gpus));
    for (int d = 1; d < m.gpus && d < MAX_RANKS; ++d) {
        CUDA_CHECK(cudaGetDeviceProperties(&props, d));
        report_note(stdout, opt.csv, "device %d: %s", d, cuda_device_line(&props, line, sizeof line));
    }
    if (m.gpus > MAX_RANKS) {
        report_note(stdout, opt.csv, "%d GPUs visible: the first %d are used (MAX_RANKS)", m.gpus,
                    MAX_RANKS);
        m.gpus = MAX_RANKS;
    }
    int version = 0;
    NCCL_CHECK(ncclGetVersion(&version));
    report_note(stdout, opt.csv, "NCCL %d.%d.%d; nccl: %d rank%s, one per GPU; NVLink multicast "
                "off (NCCL_NVLS_ENABLE=0)", version / 10000, version / 100 % 100, version % 100,
                m.gpus, m.gpus == 1 ? "" : "s");

    int status;
    if (opt.self_test) {
        self_test_config cfg = {BATTERY_TILE, 3, SELF_TEST_BIG_N, NULL, big_case_fits};
        status = self_test_run(&prog, &opt, &cfg, battery_scan, &m);
    } else if (opt.stress) {
        status = stress(&m, &opt);
    } else if (opt.input) {
        status = scan_file_run(&prog, &opt, file_in, file_n, battery_scan, &m);
    } else {
        status = sweep(&m, &opt);
    }
    for (int v = 0; v < VARIANT_COUNT; ++v)
        cluster_close(&m.variant[v]);
    cluster_close(&m.copy_one);
    free(file_in);
    return status;
}
