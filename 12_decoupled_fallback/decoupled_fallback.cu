/**
 * \file decoupled_fallback.cu
 * \brief Chapter 12: chapter 07's single pass without its forward-progress assumption: the
 *        decoupled fallback of Smith, Levien & Owens (SPAA 2025). A tile that has polled a
 *        predecessor's descriptor a bounded number of times stops waiting, reduces that
 *        predecessor's tile itself from the input, publishes the sum with an atomic max, and
 *        looks back on from there.
 *
 * What is new since chapter 07: one idea, the fallback. Chapter 07's look-back waits for as long
 * as a predecessor takes to publish, which ends only if the predecessor's block keeps being run
 * (chapter 07's notes, "Why every wait ends"). Here the wait is bounded (paper §3, strategy 2):
 *  - `look_back_with_fallback()` reads the window of 32 descriptors as chapter 07's look_back()
 *    does, but counts its polls; when POLL_BUDGET polls have found a needed predecessor still
 *    `TILE_INVALID`, that predecessor is the *blocking tile*;
 *  - `fall_back()`: warp 0 reduces the blocking tile from the input (a predecessor is never the
 *    last tile, so it is always whole), then publishes its aggregate with an atomic max on the
 *    descriptor (paper §4.2 and §4.3). The state sits in the word's high half and the states are
 *    numbered in the order a tile moves through them, so the max never moves a state back: a
 *    fallback that comes late, after the owner published its prefix, changes nothing;
 *  - the look-back then goes on from the tile before the blocking one.
 * No block ever waits for another without bound, so the scan ends even if a block that has started
 * is then left unrun for a while. The owner's own two publications (aggregate, then prefix) are
 * chapter 07's relaxed stores, not read-modify-writes. In place (`out == in`) a fallback may read
 * a tile that its owner is overwriting; then the fallback checks the descriptor again behind a
 * fence, and the owner stores behind a fence (store_tile_released()): the notes argue it from the
 * PTX memory model (paper §6.1 says its WebGPU version cannot scan in place without a memory
 * barrier; PTX has the fence).
 *
 * The variants: `decoupled-fallback` (the chapter), `fallback-1pct`, `fallback-50pct` and
 * `fallback-100pct` (the fallback forced on that share of look-backs, for its cost: paper §5.4
 * forces it by other means), `decoupled-lookback` (chapter 07's look_back(), in this kernel) and
 * `cub`. `--starve` holds back the block of every STARVE_PERIOD-th tile until the tile after it
 * has published its inclusive prefix, as a scheduler without forward progress may: the fallback
 * variants pass, and chapter 07's look-back waits until the watchdog stops it (exit 3).
 *
 * Build and run: `make chapter-12 && ./run` from the top folder, or `make && ./run` here.
 * Follows Smith, Levien & Owens, "Decoupled Fallback: A Portable Single-Pass GPU Scan" (SPAA
 * 2025), §3 and §4.2–4.3, on chapter 07's look-back (Merrill & Garland 2016, §4). In the helpers
 * carried from chapter 07, "the paper" means Merrill & Garland's. Every index is a `size_t`; sums
 * are kept in `uint32_t`, so overflow wraps.
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

/** Elements one block scans: chapter 03's coarsened tile. */
#define TILE_ITEMS 1024
/** Threads of one warp: also the look-back's window, one predecessor per lane. */
#define WARP_THREADS 32
/** Every lane of the warp: the mask of a shuffle or vote that all 32 lanes must execute. */
#define FULL_MASK 0xffffffffu
/** Threads of a block: 128, 8 elements each (two 128-bit loads), as in chapter 03. */
#define COARSE_THREADS 128
/** Elements per thread. */
#define ITEMS_PER_THREAD (TILE_ITEMS / COARSE_THREADS)
/** Warps per block. */
#define COARSE_WARPS (COARSE_THREADS / WARP_THREADS)

/* The states are numbered in the order a tile moves through them: the atomic max of fall_back()
   relies on it (the state is the high half of the word, so it is compared first). */
/** Descriptor state: nothing published yet (the launcher clears every descriptor to 0). */
#define TILE_INVALID 0u
/** Descriptor state: the value is the tile's aggregate, its own sum. */
#define TILE_AGGREGATE 1u
/** Descriptor state: the value is the tile's inclusive prefix. */
#define TILE_PREFIX 2u

/** How long a block may wait for its predecessors before the watchdog stops the kernel. */
#define WATCHDOG_NS 5000000000ull
/** Spins between two looks at the clock. */
#define WATCHDOG_SPINS 256u

#ifndef POLL_BUDGET
/** Reads of a window that may find a needed predecessor unpublished before the look-back falls
    back on it (`-DPOLL_BUDGET=K` to try another; docs/experiments/12_chapter_h200.sh does). The
    paper's 4 (§5.1) counts reads of one tile's state, not of a window; how many a GPU needs to
    keep false fallbacks rare is for the first GPU run to measure:
    docs/experiments/12_decoupled_fallback.md. */
#define POLL_BUDGET 32u
#endif
#if POLL_BUDGET < 1
#error "POLL_BUDGET must be at least 1: 0 in fallback_rules selects chapter 07's look_back()"
#endif

/** `--starve`: the block of every STARVE_PERIOD-th tile (tiles 1, 1 + STARVE_PERIOD, …) is held
    back until the tile after it has published its inclusive prefix. */
#define STARVE_PERIOD 64u

/** The counters after the descriptors in the scratch: the tile counter, then two statistics. */
enum { COUNTER_NEXT_TILE, COUNTER_FALLBACKS, COUNTER_INSERTIONS, COUNTER_COUNT };

/**
 * What one launch does beyond chapter 07's pass: passed by value to the kernel.
 */
typedef struct fallback_rules {
    unsigned poll_budget; /**< POLL_BUDGET; 0: no fallback, chapter 07's look_back() */
    unsigned forced_pct;  /**< percent of look-backs that fall back on their nearest predecessor
                               at once, whatever its state (0 in the chapter's own variant) */
    unsigned hold_period; /**< `--starve`: hold back every hold_period-th tile; 0: none */
} fallback_rules;

/** The variants. */
enum {
    VARIANT_FALLBACK,
    VARIANT_FORCED_1,
    VARIANT_FORCED_50,
    VARIANT_FORCED_100,
    VARIANT_LOOKBACK,
    VARIANT_CUB,
    VARIANT_COUNT
};

/** Names for `--variant`. */
static const char *const VARIANT_NAMES[VARIANT_COUNT] = {
    "decoupled-fallback", "fallback-1pct", "fallback-50pct", "fallback-100pct",
    "decoupled-lookback", "cub"};

/** Each variant's rules (`cub` has none: it is CUB's own kernel). */
static const fallback_rules VARIANT_RULES[VARIANT_COUNT] = {
    {POLL_BUDGET, 0, 0}, {POLL_BUDGET, 1, 0}, {POLL_BUDGET, 50, 0}, {POLL_BUDGET, 100, 0},
    {0, 0, 0},           {0, 0, 0}};

/* ------------------------------------------------------------------------------------------ */
/* Carried over unchanged from chapter 02 (02_warp_shfl/warp_shfl.cu, via chapters 03-07)       */
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
/* Carried over unchanged from chapter 03 (03_block_scan/block_scan.cu, via chapters 05-07)     */
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
/* Carried over unchanged from chapter 06 (06_chained_scan/chained_scan.cu, via chapter 07)     */
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
/* Carried over unchanged from chapter 07 (07_decoupled_lookback/decoupled_lookback.cu)         */
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
/* The lesson: a bounded wait, the fallback, and a publication that only moves forward          */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Publish a descriptor that may already hold more: one 64-bit atomic max, relaxed, at GPU
 *        scope, which returns the word it replaced.
 *
 * The state is the high half of the word and the states are numbered in the order a tile moves
 * through them, so the unsigned order of two words is the order of their states first: the max
 * keeps a `TILE_PREFIX` against any `TILE_AGGREGATE`, and a `TILE_AGGREGATE` against
 * `TILE_INVALID`. Two words of the same state hold the same value (a tile has one aggregate and
 * one inclusive prefix), so the max never has to choose between two values. Relaxed: it orders
 * nothing but itself; it is morally strong with load_descriptor() and store_descriptor() (all
 * three relaxed at GPU scope, PTX ISA §8.7), and being a read-modify-write, no other write to
 * the word comes between what it reads and what it writes (§8.10.3).
 * \param descriptor the descriptor
 * \param word       state and value, packed
 * \return the word before the max
 */
__device__ unsigned long long atomic_max_descriptor(unsigned long long *descriptor,
                                                    unsigned long long word)
{
    unsigned long long before;
    asm volatile("atom.relaxed.gpu.global.max.u64 %0, [%1], %2;"
                 : "=l"(before)
                 : "l"(descriptor), "l"(word)
                 : "memory");
    return before;
}

/**
 * \brief A fence, acquire-release, at GPU scope (`fence.acq_rel.gpu`): with a strong store after
 *        it, a release pattern; with a strong load before it, an acquire pattern (PTX ISA §8.8).
 */
__device__ void fence_acq_rel_gpu(void)
{
    asm volatile("fence.acq_rel.gpu;" : : : "memory");
}

/**
 * \brief Load four elements with one strong 128-bit load, relaxed, at GPU scope. The model treats
 *        it as four 32-bit loads (PTX ISA §8.2.4), each morally strong with a store of
 *        store_tile_released() to the same element.
 * \param at 16-byte aligned
 * \return the four elements
 */
__device__ uint4 load_vector_relaxed(const uint4 *at)
{
    uint4 q;
    asm volatile("ld.relaxed.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(q.x), "=r"(q.y), "=r"(q.z), "=r"(q.w)
                 : "l"(at)
                 : "memory");
    return q;
}

/**
 * \brief The fallback (paper §4.2, step 3), run by one warp: reduce the blocking tile from the
 *        input, publish its aggregate unless its owner has published more, and return the word
 *        the look-back should take for that tile.
 *
 * One warp, not the block: each lane issues its 8 loads of 128 bits before it adds anything, so
 * the time is about one trip to memory whatever the number of lanes, and the other warps, which
 * wait at the barrier after the look-back, need no part in it. The sum is the tile's aggregate,
 * and the atomic max publishes it: a `TILE_PREFIX` for tile 0, whose aggregate is its inclusive
 * prefix. If the max finds a prefix (the owner was only late), the look-back takes that instead.
 * In place, the owner may be storing its results over the input we read, but only after it
 * published its prefix, behind a fence of its own (store_tile_released()). So the input is read
 * with strong loads, and in place the descriptor is read once more behind a fence: a lane that
 * read any of the owner's results finds the prefix there (the notes give the argument), and the
 * warp takes the prefix instead of a sum that may mix input and results. The counters count
 * fallbacks, and fallbacks whose publication found the descriptor still `TILE_INVALID`.
 * \param descriptors one word per tile
 * \param counters    the scratch's counters (COUNTER_FALLBACKS, COUNTER_INSERTIONS)
 * \param in          input; the blocking tile is whole
 * \param blocking    the blocking tile's id
 * \param in_place    1 if the output is the input
 * \return a `TILE_PREFIX` word (the look-back stops there) or a `TILE_AGGREGATE` word, in every
 *         lane
 * \pre One full warp calls it; `blocking` is not the last tile.
 */
__device__ unsigned long long fall_back(unsigned long long *descriptors, unsigned *counters,
                                        const int32_t *in, unsigned blocking, int in_place)
{
    /* [student part: fall-back; explained in 12_decoupled_fallback/README.md, "The idea"] */
    const int lane = threadIdx.x % WARP_THREADS;
    if (lane == 0)
        atomicAdd(&counters[COUNTER_FALLBACKS], 1u);
    const uint4 *tile = (const uint4 *)(in + (size_t)blocking * TILE_ITEMS);
    uint4 q[TILE_ITEMS / 4 / WARP_THREADS];
    for (int v = 0; v < TILE_ITEMS / 4 / WARP_THREADS; ++v) /* all 8 loads before any addition */
        q[v] = load_vector_relaxed(&tile[v * WARP_THREADS + lane]);
    uint32_t sum = 0;
    for (int v = 0; v < TILE_ITEMS / 4 / WARP_THREADS; ++v)
        sum += q[v].x + q[v].y + q[v].z + q[v].w;
    if (in_place) {
        /* the acquire pattern of each lane's loads: a lane whose loads saw the owner's results
           sees the owner's prefix in the load below (notes, "In place") */
        fence_acq_rel_gpu();
        const unsigned long long again = load_descriptor(&descriptors[blocking]);
        const unsigned done = __ballot_sync(FULL_MASK, (unsigned)(again >> 32) == TILE_PREFIX);
        if (done) /* the owner's prefix: our sum may hold some of its results */
            return __shfl_sync(FULL_MASK, again, __ffs(done) - 1);
    }
    sum = warp_reduce(sum);
    const unsigned long long ours =
        pack_descriptor(blocking == 0 ? TILE_PREFIX : TILE_AGGREGATE, sum);
    unsigned long long before = 0;
    if (lane == 0) {
        before = atomic_max_descriptor(&descriptors[blocking], ours);
        if ((unsigned)(before >> 32) == TILE_INVALID)
            atomicAdd(&counters[COUNTER_INSERTIONS], 1u);
    }
    before = __shfl_sync(FULL_MASK, before, 0);
    return (unsigned)(before >> 32) == TILE_PREFIX ? before : ours;
    /* [end of student part: fall-back] */
}

/**
 * \brief Chapter 07's look-back with a bounded wait: when POLL_BUDGET reads of a window have found
 *        a needed predecessor unpublished, fall back on the nearest such predecessor and look back
 *        on from the tile before it. Publish this tile's inclusive prefix, return its exclusive
 *        prefix.
 *
 * The window logic is look_back()'s: lane i reads the descriptor of tile `window_last − i`; the
 * lanes up to the nearest `TILE_PREFIX` are needed. When the budget is spent, the nearest needed
 * lane that is still `TILE_INVALID` names the blocking tile; the lanes below it hold aggregates
 * (a prefix among them would have ended the needed lanes there), which are added, and the
 * blocking tile's word comes from fall_back(). A forced look-back (`forced`, for timing) falls
 * back on its nearest predecessor before it reads anything.
 * \param descriptors one word per tile
 * \param counters    the scratch's counters
 * \param in          input (read only by fall_back())
 * \param tile        this tile's id
 * \param aggregate   this tile's aggregate
 * \param poll_budget reads of a window before a fallback (at least 1)
 * \param forced      1: fall back on tile − 1 at once, whatever its state
 * \param in_place    1 if the output is the input (see fall_back())
 * \return the tile's exclusive prefix (in every lane)
 * \pre One full warp calls it, after this tile's aggregate is published.
 */
__device__ uint32_t look_back_with_fallback(unsigned long long *descriptors, unsigned *counters,
                                            const int32_t *in, unsigned tile, uint32_t aggregate,
                                            unsigned poll_budget, int forced, int in_place)
{
    /* [student part: look-back-with-fallback; explained in 12_decoupled_fallback/README.md, "The idea"] */
    const int lane = threadIdx.x % WARP_THREADS;
    if (tile == 0)
        return 0;
    uint32_t exclusive_prefix = 0;
    long long window_last = (long long)tile - 1;
    if (forced) {
        const unsigned long long word = fall_back(descriptors, counters, in, tile - 1, in_place);
        exclusive_prefix = (uint32_t)word;
        window_last = (unsigned)(word >> 32) == TILE_PREFIX ? -1 : (long long)tile - 2;
    }
    unsigned polls = 0, spins = 0;
    unsigned long long since = 0;
    while (window_last >= 0) {
        const long long predecessor = window_last - lane;
        const unsigned long long word = predecessor >= 0
                                            ? load_descriptor(&descriptors[predecessor])
                                            : pack_descriptor(TILE_PREFIX, 0);
        const unsigned state = (unsigned)(word >> 32);
        const unsigned prefix_lanes = __ballot_sync(FULL_MASK, state == TILE_PREFIX);
        const unsigned needed = prefix_lanes ? (prefix_lanes ^ (prefix_lanes - 1)) : FULL_MASK;
        const unsigned invalid = __ballot_sync(FULL_MASK, state == TILE_INVALID) & needed;
        if (invalid == 0) { /* as in look_back(): add the needed lanes, stop at a prefix */
            exclusive_prefix += warp_reduce((needed >> lane) & 1u ? (uint32_t)word : 0u);
            if (prefix_lanes)
                break;
            window_last -= WARP_THREADS;
            polls = spins = 0; /* a new window: a new wait, for the budget and the watchdog */
            since = 0;
            continue;
        }
        if (++polls < poll_budget) { /* wait a little longer: read the window again */
            watchdog(&spins, &since, tile, window_last);
            continue;
        }
        /* the budget is spent: the nearest unpublished predecessor is the blocking tile */
        const int blocking_lane = __ffs(invalid) - 1;
        exclusive_prefix += warp_reduce(lane < blocking_lane ? (uint32_t)word : 0u);
        const long long blocking = window_last - blocking_lane;
        const unsigned long long found =
            fall_back(descriptors, counters, in, (unsigned)blocking, in_place);
        exclusive_prefix += (uint32_t)found;
        if ((unsigned)(found >> 32) == TILE_PREFIX)
            break;
        window_last = blocking - 1; /* look back on from the tile before it */
        polls = spins = 0;
        since = 0;
    }
    if (lane == 0)
        store_descriptor(&descriptors[tile],
                         pack_descriptor(TILE_PREFIX, exclusive_prefix + aggregate));
    return exclusive_prefix;
    /* [end of student part: look-back-with-fallback] */
}

/**
 * \brief store_tile() for a scan in place: a fence, then strong stores (relaxed, GPU scope).
 *
 * The fence follows, through the barrier before this call, the owner's publication of its prefix;
 * with each strong store after it, it forms a release pattern (PTX ISA §8.8). A fallback on this
 * tile whose strong load reads one of these stores, and which fences after it, then finds the
 * prefix when it reads the descriptor again (fall_back()), so it never publishes a sum that
 * mixes input and results. Vector stores for a whole tile, element by element for a tile cut
 * short; the model treats a vector store as one store per element (§8.2.4).
 * \param out        output array, 16-byte aligned (the input too: in place)
 * \param n          element count
 * \param tile_first index of the tile's first element
 * \param item       the thread's inclusive scan values from block_scan_tile()
 * \param prefix     what precedes the thread's first element
 * \param exclusive  1 for exclusive, 0 for inclusive
 * \pre blockDim.x == COARSE_THREADS; the tile's prefix is published and a barrier followed.
 */
__device__ void store_tile_released(int32_t *out, size_t n, size_t tile_first,
                                    const uint32_t item[ITEMS_PER_THREAD], uint32_t prefix,
                                    int exclusive)
{
    const size_t first = tile_first + (size_t)threadIdx.x * ITEMS_PER_THREAD;
    uint32_t result[ITEMS_PER_THREAD];
    for (int k = 0; k < ITEMS_PER_THREAD; ++k)
        result[k] = prefix + (exclusive ? (k ? item[k - 1] : 0) : item[k]);
    fence_acq_rel_gpu(); /* the prefix's publication, before any result overwrites the input */
    if (tile_first + TILE_ITEMS <= n) {
        for (int v = 0; v < ITEMS_PER_THREAD / 4; ++v)
            asm volatile("st.relaxed.gpu.global.v4.u32 [%0], {%1, %2, %3, %4};"
                         :
                         : "l"(out + first + 4 * v), "r"(result[4 * v]), "r"(result[4 * v + 1]),
                           "r"(result[4 * v + 2]), "r"(result[4 * v + 3])
                         : "memory");
    } else {
        for (int k = 0; k < ITEMS_PER_THREAD; ++k)
            if (first + k < n)
                asm volatile("st.relaxed.gpu.global.u32 [%0], %1;"
                             :
                             : "l"(out + first + k), "r"(result[k])
                             : "memory");
    }
}

/**
 * \brief `--starve` only: hold this tile's block back, before it publishes anything, until the
 *        tile after it has published its inclusive prefix, as a scheduler that does not promise
 *        forward progress may leave a started block unrun until its successor is done.
 *
 * With chapter 07's look-back the successor waits for this tile and this tile for the
 * successor: the watchdog ends it (exit 3). With the fallback the successor stops waiting after
 * its poll budget, so both finish. The hold is itself a wait: it spins on an SM, so it needs the
 * GPU to run the successor meanwhile (the H200 does). It assumes that a state never moves back:
 * under a plant that moves one back, it may wait until its watchdog stops the kernel.
 * \param descriptors one word per tile
 * \param tile        this tile's id (not the last tile)
 * \pre One full warp calls it.
 */
__device__ void hold_back(const unsigned long long *descriptors, unsigned tile)
{
    unsigned spins = 0;
    unsigned long long since = 0;
    while ((unsigned)(load_descriptor(&descriptors[tile + 1]) >> 32) != TILE_PREFIX)
        watchdog(&spins, &since, tile, (long long)tile + 1);
}

/**
 * \brief Is this tile's look-back forced to fall back (a variant `fallback-Kpct`)? Exactly
 *        `pct` of every 100 consecutive tiles are, spread evenly; tile 0 never (it has no
 *        look-back).
 */
__device__ int forced_fallback(unsigned pct, unsigned tile)
{
    return tile > 0 && (unsigned long long)tile * pct / 100 !=
                           (unsigned long long)(tile - 1) * pct / 100;
}

/**
 * \brief The single pass of chapter 07, its look-back bounded: draw a tile id, load and scan the
 *        tile, publish its aggregate, look back (falling back when a wait runs out), store.
 *
 * \param in          input, n elements, 16-byte aligned
 * \param out         output, n elements, 16-byte aligned: `in` itself (in place), or an array
 *                    that does not overlap it
 * \param n           element count
 * \param descriptors one word per tile, all TILE_INVALID (0) at launch
 * \param counters    COUNTER_COUNT words, 0 at launch: the tile counter and the statistics
 * \param exclusive   1 for exclusive, 0 for inclusive
 * \param rules       the poll budget (0: chapter 07's look_back()), the forced share, the hold
 * \pre blockDim.x == COARSE_THREADS; gridDim.x == number of tiles.
 * \warning Two launches that share `descriptors` or `counters` must not run at the same time. A
 *          fallback reads a predecessor's input while its owner may be storing over it (in
 *          place): fall_back() and store_tile_released() make that race harmless.
 */
__global__ void fallback_scan_kernel(const int32_t *in, int32_t *out, size_t n,
                                     unsigned long long *descriptors, unsigned *counters,
                                     int exclusive, fallback_rules rules)
{
    __shared__ unsigned tile_id;
    __shared__ uint32_t tile_exclusive_prefix;
    if (threadIdx.x == 0)
        tile_id = atomicAdd(&counters[COUNTER_NEXT_TILE], 1u);
    __syncthreads(); /* tile_id is written */
    const size_t tile_first = (size_t)tile_id * TILE_ITEMS;

    const int in_place = (const int32_t *)out == in;
    uint32_t item[ITEMS_PER_THREAD], aggregate;
    load_tile(in, n, tile_first, item);
    const uint32_t thread_prefix = block_scan_tile(item, &aggregate);
    if (threadIdx.x < WARP_THREADS) {
        if (rules.hold_period && tile_id % rules.hold_period == 1 && tile_id + 1 < gridDim.x)
            hold_back(descriptors, tile_id); /* --starve only */
        if (threadIdx.x == 0)
            publish_aggregate(descriptors, tile_id, aggregate);
        const uint32_t prefix =
            rules.poll_budget
                ? look_back_with_fallback(descriptors, counters, in, tile_id, aggregate,
                                          rules.poll_budget,
                                          forced_fallback(rules.forced_pct, tile_id), in_place)
                : look_back(descriptors, tile_id, aggregate);
        if (threadIdx.x == 0)
            tile_exclusive_prefix = prefix;
    }
    __syncthreads(); /* tile_exclusive_prefix is written; the prefix is published */
    if (in_place)
        store_tile_released(out, n, tile_first, item, tile_exclusive_prefix + thread_prefix,
                            exclusive);
    else
        store_tile(out, n, tile_first, item, tile_exclusive_prefix + thread_prefix, exclusive);
}

/* ------------------------------------------------------------------------------------------ */
/* Host launcher                                                                                */
/* ------------------------------------------------------------------------------------------ */

/** Tiles of n elements. */
static size_t tile_count(size_t n)
{
    return (n + TILE_ITEMS - 1) / TILE_ITEMS;
}

/** Scratch of our kernel for n elements: one descriptor per tile, then the counters. */
static size_t fallback_scratch_bytes(size_t n)
{
    return n ? tile_count(n) * sizeof(unsigned long long) + COUNTER_COUNT * sizeof(unsigned) : 0;
}

/** The ::gpu_temp_fn: our kernel's scratch, or CUB's for `cub`. */
static size_t fallback_temp_bytes(int variant, size_t n)
{
    if (variant == VARIANT_CUB)
        return n ? cub_scan_temp_bytes(n) : 0;
    return fallback_scratch_bytes(n);
}

/**
 * \brief Launch our kernel with `rules`: clear the descriptors and the counters, one block per
 *        tile. Asynchronous, on the default stream.
 * \param d_in       device input, n elements, 16-byte aligned
 * \param d_out      device output, n elements, 16-byte aligned: `d_in` itself, or no overlap
 * \param n          element count (0 launches nothing)
 * \param exclusive  1 for exclusive, 0 for inclusive
 * \param d_temp     fallback_scratch_bytes(n) bytes (contents do not matter: cleared here)
 * \param temp_bytes its size; a smaller scratch, or more tiles than one grid may have
 *                   (2^31 − 1), is a CUDA error (exit 3) before anything is launched
 * \param rules      what the launch does beyond chapter 07's pass
 */
static void fallback_launch(const int32_t *d_in, int32_t *d_out, size_t n, int exclusive,
                            void *d_temp, size_t temp_bytes, fallback_rules rules)
{
    const size_t tiles = tile_count(n);
    if (tiles == 0)
        return;
    if (tiles > 0x7fffffffu || temp_bytes < fallback_scratch_bytes(n))
        cuda_fail(cudaErrorInvalidValue, "scratch too small, or too many tiles for one grid",
                  __FILE__, __LINE__);
    unsigned long long *d_descriptors = (unsigned long long *)d_temp;
    unsigned *d_counters = (unsigned *)(d_descriptors + tiles);
    CUDA_CHECK(cudaMemsetAsync(d_temp, 0, fallback_scratch_bytes(n), 0));
    fallback_scan_kernel<<<(unsigned)tiles, COARSE_THREADS>>>(d_in, d_out, n, d_descriptors,
                                                              d_counters, exclusive, rules);
    CUDA_CHECK_LAUNCH();
}

/**
 * \brief The chapter's ::gpu_scan_fn: the variant's rules through fallback_launch(), or CUB.
 * \param variant    one of VARIANT_NAMES
 * \param d_in       device input, n elements, 16-byte aligned
 * \param d_out      device output, n elements (may equal `d_in`)
 * \param n          element count
 * \param exclusive  1 for exclusive, 0 for inclusive
 * \param d_temp     fallback_temp_bytes(variant, n) bytes
 * \param temp_bytes its size
 */
static void fallback_scan(int variant, const int32_t *d_in, int32_t *d_out, size_t n,
                          int exclusive, void *d_temp, size_t temp_bytes)
{
    if (variant == VARIANT_CUB) {
        if (n)
            cub_scan(d_in, d_out, n, exclusive, d_temp, temp_bytes);
        return;
    }
    fallback_launch(d_in, d_out, n, exclusive, d_temp, temp_bytes, VARIANT_RULES[variant]);
}

/**
 * \brief The ::gpu_traffic_fn: chapter 07's 2n plus 16 bytes of descriptors per tile, and for a
 *        forced variant the input of the tiles its fallbacks reduce (forced_pct % of n). Natural
 *        fallbacks, and the look-backs' reads of descriptors, are not counted.
 */
static double fallback_traffic(int variant, size_t n)
{
    return 2.0 * (double)n + 4.0 * (double)tile_count(n) +
           (double)VARIANT_RULES[variant].forced_pct / 100.0 * (double)n;
}

/** The ::gpu_describe_fn: tiles, how many run at once, the poll budget. */
static void describe_tiles(size_t n, char *line, size_t len)
{
    int device, sms, per_sm;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fallback_scan_kernel,
                                                             COARSE_THREADS, 0));
    snprintf(line, len,
             "n = %zu: %zu tiles of %d, one block each, %d resident per SM x %d SMs = %d at once; "
             "poll budget %u; memset + 1 kernel launch (CUB: %s)",
             n, tile_count(n), TILE_ITEMS, per_sm, sms, per_sm * sms, (unsigned)POLL_BUDGET,
             cub_version());
}

/* ------------------------------------------------------------------------------------------ */
/* --starve: blocks held back, as a scheduler without forward progress may                      */
/* ------------------------------------------------------------------------------------------ */

/** Runs of each kind and size in `--starve`: inclusive, exclusive, each also in place. */
#define STARVE_RUNS 4

/**
 * \brief After a run: does every descriptor hold `TILE_PREFIX` and its tile's inclusive prefix?
 *        A state that moved back (a late fallback's aggregate over the owner's prefix) shows here,
 *        even where the results are right. Prints the first bad descriptor.
 * \return the number of bad descriptors
 */
static size_t check_descriptors(const unsigned long long *descriptors, const int32_t *inclusive,
                                size_t n)
{
    size_t bad = 0;
    for (size_t t = 0; t < tile_count(n); ++t) {
        const size_t last = (t + 1) * TILE_ITEMS < n ? (t + 1) * TILE_ITEMS - 1 : n - 1;
        const unsigned long long want = (unsigned long long)TILE_PREFIX << 32 |
                                        (uint32_t)inclusive[last];
        if (descriptors[t] != want && bad++ == 0)
            printf("descriptor of tile %zu is state %u, value %u; want state %u (TILE_PREFIX), "
                   "value %u\n",
                   t, (unsigned)(descriptors[t] >> 32), (unsigned)descriptors[t], TILE_PREFIX,
                   (uint32_t)inclusive[last]);
    }
    return bad;
}

/**
 * \brief `--starve`: each selected variant of ours on a few sizes (or `-n`), STARVE_RUNS runs
 *        free and STARVE_RUNS with the block of every STARVE_PERIOD-th tile held back until the
 *        tile after it has published its inclusive prefix (hold_back()); every element and
 *        every descriptor compared; the fallbacks counted.
 *
 * Without `--variant`, chapter 07's look-back is left out (it would wait until the watchdog
 * stops it); `--variant decoupled-lookback` runs it, and the watchdog ends the program (exit 3).
 */
static int starve_mode(const void *ctx, const scan_options *opt, const int32_t *file,
                       size_t file_words)
{
    (void)ctx;  /* one mode, no data of its own */
    (void)file; /* a mode given alone: --input is refused with it */
    (void)file_words;
    if (opt->variant == VARIANT_CUB)
        cli_fail(EXIT_USAGE, "--starve holds back blocks of this chapter's kernel; CUB's cannot be "
                 "held: give another --variant, or none");
    const size_t defaults[] = {3 * TILE_ITEMS + 5, ((size_t)1 << 20) + 3, (size_t)1 << 24};
    const size_t *sizes = opt->n_given ? &opt->n : defaults;
    const int count = opt->n_given ? 1 : (int)(sizeof defaults / sizeof defaults[0]);
    int status = EXIT_OK;
    report_note(stdout, opt->csv, "--starve: the block of every %u-th tile (1, %u, ...) is held "
                "back until the tile after it has published its inclusive prefix; poll budget %u",
                STARVE_PERIOD, STARVE_PERIOD + 1, (unsigned)POLL_BUDGET);
    if (opt->variant < 0)
        report_note(stdout, opt->csv, "decoupled-lookback is left out: it would wait until its "
                    "watchdog stops it (exit 3); --starve --variant decoupled-lookback shows it");
    for (int s = 0; s < count; ++s) {
        const size_t n = sizes[s], tiles = tile_count(n);
        if (n == 0)
            continue;
        int32_t *in = (int32_t *)xmalloc(n * sizeof(int32_t), "the input");
        int32_t *out = (int32_t *)xmalloc(n * sizeof(int32_t), "the output");
        int32_t *ref[2];
        ref[0] = (int32_t *)xmalloc(n * sizeof(int32_t), "the inclusive reference");
        ref[1] = (int32_t *)xmalloc(n * sizeof(int32_t), "the exclusive reference");
        unsigned long long *descriptors =
            (unsigned long long *)xmalloc(tiles * sizeof(unsigned long long), "the descriptors");
        generate_input(in, n, PATTERN_RANDOM, opt->seed + (uint64_t)s);
        scan_reference(in, ref[0], n, 0, 0);
        scan_reference(in, ref[1], n, 1, 0);
        int32_t *d_in, *d_out;
        void *d_temp;
        const size_t temp_bytes = fallback_scratch_bytes(n);
        CUDA_CHECK(cudaMalloc((void **)&d_in, n * sizeof(int32_t)));
        CUDA_CHECK(cudaMalloc((void **)&d_out, n * sizeof(int32_t)));
        CUDA_CHECK(cudaMalloc(&d_temp, temp_bytes));
        CUDA_CHECK(cudaMemcpy(d_in, in, n * sizeof(int32_t), cudaMemcpyHostToDevice));
        for (int v = 0; v < VARIANT_CUB; ++v) {
            if (!cli_variant_selected(opt, v) || (opt->variant < 0 && v == VARIANT_LOOKBACK))
                continue;
            for (int held = 0; held <= 1; ++held) {
                fallback_rules rules = VARIANT_RULES[v];
                rules.hold_period = held ? STARVE_PERIOD : 0;
                long wrong = 0, bad_descriptors = 0, fallbacks = 0, insertions = 0;
                for (int r = 0; r < STARVE_RUNS; ++r) {
                    const int exclusive = r % 2, in_place = r >= 2;
                    const int32_t *src = d_in;
                    if (in_place) {
                        CUDA_CHECK(cudaMemcpy(d_out, d_in, n * sizeof(int32_t),
                                              cudaMemcpyDeviceToDevice));
                        src = d_out;
                    } else {
                        CUDA_CHECK(cudaMemset(d_out, POISON_BYTE, n * sizeof(int32_t)));
                    }
                    fallback_launch(src, d_out, n, exclusive, d_temp, temp_bytes, rules);
                    CUDA_CHECK(cudaDeviceSynchronize()); /* a watchdog's stop shows here: exit 3 */
                    unsigned counters[COUNTER_COUNT];
                    CUDA_CHECK(cudaMemcpy(out, d_out, n * sizeof(int32_t), cudaMemcpyDeviceToHost));
                    CUDA_CHECK(cudaMemcpy(descriptors, d_temp, tiles * sizeof(unsigned long long),
                                          cudaMemcpyDeviceToHost));
                    CUDA_CHECK(cudaMemcpy(counters, (unsigned long long *)d_temp + tiles,
                                          sizeof counters, cudaMemcpyDeviceToHost));
                    fallbacks += counters[COUNTER_FALLBACKS];
                    insertions += counters[COUNTER_INSERTIONS];
                    if (memcmp(out, ref[exclusive], n * sizeof(int32_t)) != 0 && wrong++ == 0) {
                        verify_result check = verify_scan(ref[exclusive], out, n);
                        printf("%s, run %d (%s%s) of n = %zu is wrong:\n", VARIANT_NAMES[v], r,
                               exclusive ? "exclusive" : "inclusive", in_place ? ", in place" : "",
                               n);
                        verify_report(stdout, &check, ref[exclusive], out, n);
                    }
                    bad_descriptors += check_descriptors(descriptors, ref[0], n) != 0;
                }
                report_note(stdout, opt->csv,
                            "n = %zu, %s, %s: %d runs, %ld wrong, %ld with a descriptor not at "
                            "TILE_PREFIX; %.1f fallbacks per run (%.1f published first)",
                            n, VARIANT_NAMES[v],
                            held ? "blocks held back" : "free", STARVE_RUNS, wrong,
                            bad_descriptors, (double)fallbacks / STARVE_RUNS,
                            (double)insertions / STARVE_RUNS);
                if (wrong || bad_descriptors)
                    status = EXIT_WRONG;
            }
        }
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_out));
        CUDA_CHECK(cudaFree(d_temp));
        free(in);
        free(out);
        free(ref[0]);
        free(ref[1]);
        free(descriptors);
    }
    printf("starve test %s\n", status == EXIT_OK ? "passed: every run right, every descriptor at "
                                                   "TILE_PREFIX"
                                                 : "FAILED");
    return status;
}

/** The chapter's own modes. */
static const scan_mode MODES[] = {
    {.option = "--starve",
     .count = NULL,
     .help = "hold back every 64th tile's block till the next published; check all",
     .test = "--starve",
     .run = starve_mode},
};

/** The default sweep: one tile, in L2, and beyond the H200's L2 (`L2 60 MiB`, the first line of
    `./run` says). */
static const size_t DEFAULT_SIZES[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                       (size_t)1 << 24, (size_t)1 << 26, (size_t)1 << 28};

/** Lines printed above the table. */
static const char *const NOTES[] = {
    "one pass: chapter 07's look-back, bounded: after a poll budget it reduces the blocking tile "
    "itself",
    "fallback-Kpct: the fallback forced on K % of look-backs; decoupled-lookback: chapter 07's "
    "look-back in this kernel",
    "cub: cub::DeviceScan::InclusiveSum/ExclusiveSum from the CUDA toolkit, on the same buffers",
    NULL};

/** \brief Describe the chapter to the shared driver and run it. */
int main(int argc, char **argv)
{
    const gpu_chapter chapter = {
        .prog = {
            .name = "12_decoupled_fallback",
            .title = "single-pass scan with decoupled fallback (Smith, Levien & Owens 2025)",
            .variants = VARIANT_NAMES,
            .variant_count = VARIANT_COUNT,
            .default_sizes = DEFAULT_SIZES,
            .default_size_count = (int)(sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]),
            .default_reps = 20,
            .stress = 1,
            .modes = MODES,
            .mode_count = (int)(sizeof MODES / sizeof MODES[0]),
        },
        .scan = fallback_scan,
        .tile = TILE_ITEMS,
        .repeats = 3,
        .notes = NOTES,
        .temp_bytes = fallback_temp_bytes,
        .traffic = fallback_traffic,
        .describe = describe_tiles,
    };
    return gpu_chapter_main(argc, argv, &chapter);
}
