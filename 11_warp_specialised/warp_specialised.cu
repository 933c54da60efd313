/**
 * \file warp_specialised.cu
 * \brief Chapter 11: a warp-specialised persistent scan on Hopper. The warps of one block split
 *        the work of chapter 08's tile between them, so that no tile holds shared memory while
 *        it waits for its prefix.
 *
 * What is new since chapter 08: not the algorithm (a tile still publishes its aggregate at once,
 * and its exclusive prefix is still the sum of the aggregates before it), but who waits for what.
 * In chapter 08 a block holds its 16 KB tile in shared memory through its whole look-back, and
 * only 13 tiles fit an SM. Here a few persistent blocks per SM (BLOCKS_PER_SM, 2) each run a
 * pipeline of warps, each warp with one job:
 *  - a *producer* (one thread) draws tile ids from a counter and copies each tile into one of
 *    RING_STAGES shared-memory *stages* with one `cp.async.bulk` (run by the SM's TMA unit);
 *  - a *reducer* warp sums every tile the moment it lands and publishes its aggregate, so no
 *    aggregate ever waits for anything but its own bytes;
 *  - a *prefix* warp keeps the block's running prefix and, for each of its tiles, adds the
 *    aggregates other blocks published since its previous tile (a *look-ahead*, as CCCL calls it);
 *  - CONSUMER_GROUPS *groups* of 4 warps copy a stage into registers, free the stage at once,
 *    scan the tile in registers, and only then wait for its prefix, add it and store.
 * A stage is held from its landing to its copy into registers: the prefix wait is paid in
 * registers, not in shared memory. Stages and hand-offs are guarded by `mbarrier`s (PTX ISA
 * §9.7.13.15); each hand-off says at the code what orders it.
 *
 * The design, the prototype it comes from and what the prototype measured:
 * docs/experiments/11_design.md (§0 first), docs/experiments/11_scan_proto.md (its third build,
 * mode `landing`, is this kernel).
 *
 * Variants: `warp-specialised` (the pipeline at every n; `--stress` runs it), `crossover` (what a
 * caller would use: chapter 08's kernel below CROSSOVER_ITEMS, the pipeline from there on),
 * `decoupled-lookback` (chapter 08's kernel and launcher, carried unchanged) and `cub`. Below
 * compute capability 9.0 (or where the ring does not fit) the pipeline variants run chapter 08's
 * kernel and say so once. The pipeline's knobs are `#ifndef` constants: `-DRING_STAGES=4` etc.
 *
 * Build and run: `make chapter-11 && ./run` from the top folder, or `make && ./run` here. The
 * tile, the descriptors and the look-back are Merrill & Garland, "Single-pass Parallel Prefix
 * Scan with Decoupled Look-back" (2016), §4; the warp specialisation follows the idea of CCCL's
 * warpspeed scan (`kernel_scan_lookahead.cuh`), in our own code. Every index is a `size_t`; sums
 * are kept in `uint32_t`, so overflow wraps.
 */
#include "cub_scan.h"
#include "cuda_util.h"
#include "gpu_driver.h"

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
/* The pipeline's constants. The knobs (#ifndef) are the best of the ablation on the H200     */
/* (docs/experiments/11_warp_specialised.md, "The ablation"): 2 blocks per SM, each with 4    */
/* stages and 2 groups. A script builds other choices with -D (e.g. -DRING_STAGES=8).         */
/* ------------------------------------------------------------------------------------------ */

#ifndef RING_STAGES
/** Stages of each block's ring: tiles of 16 KB that may be in its shared memory at once (4: 64 KB
    per block, 128 KB per SM with BLOCKS_PER_SM 2). */
#define RING_STAGES 4
#endif
#ifndef CONSUMER_GROUPS
/** Consumer groups of GROUP_WARPS warps per block: tiles that may wait for their prefix in
    registers (2: 4 per SM with BLOCKS_PER_SM 2). */
#define CONSUMER_GROUPS 2
#endif
#ifndef BLOCKS_PER_SM
/** Persistent blocks per SM, each with its own ring. pipeline_here() asks the occupancy API how
    many fit, and launches no more. Two blocks of PIPELINE_THREADS (352 with 2 groups) fit an SM
    of compute capability 9.0: 2 · (64 KB of ring + the static pipeline_shared + 1 KB the driver
    reserves) of its 228 KB, and registers for both (PIPELINE_MIN_BLOCKS below). */
#define BLOCKS_PER_SM 2
#endif
/** Bytes of shared memory per SM (CUDA C++ Programming Guide, technical specifications per
    compute capability): 100 KB on 12.x (consumer Blackwell), 228 KB on 9.0 and 10.0. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1200
#define SM_SHARED_BYTES (100 * 1024)
#else
#define SM_SHARED_BYTES (228 * 1024)
#endif
/** Blocks whose rings fit one SM's shared memory: a ring, and 2 KB for pipeline_shared and the
    1 KB the driver reserves per block. */
#define PIPELINE_FITS_SM ((int)(SM_SHARED_BYTES / (RING_BYTES + 2048)))
/** The second argument of the kernel's `__launch_bounds__`: PIPELINE_FITS_SM, at most
    BLOCKS_PER_SM (and at least 1). ptxas then caps each thread at 65536 / (PIPELINE_MIN_BLOCKS · 352) registers,
    rounded down to a multiple of 8, as for chapter 08's MIN_BLOCKS_PER_SM: 88 for two blocks
    (sm_90, 10.0), so registers never turn away a block that fits; on 12.x only one 64 KB ring
    fits, and a cap for two would only cost spills. */
#define PIPELINE_MIN_BLOCKS                                                                    \
    (PIPELINE_FITS_SM < 1 ? 1 : PIPELINE_FITS_SM < BLOCKS_PER_SM ? PIPELINE_FITS_SM : BLOCKS_PER_SM)
#ifndef SLOTS
/** Slots that hand a tile's aggregate to the prefix warp and its prefix to a group. */
#define SLOTS 16
#endif
#ifndef LOOKAHEAD_LOADS
/** Descriptors each lane of the prefix warp loads at once in the look-ahead (look_ahead()). */
#define LOOKAHEAD_LOADS 8
#endif
#ifndef MAX_PIPELINE_BLOCKS
/** At most this many blocks in the persistent grid; 0: no limit. A test build sets a small one
    (-DMAX_PIPELINE_BLOCKS=3), so that each block's ring wraps many times at small n, where the
    sanitizers are fast: a correctness knob, never a speed one. */
#define MAX_PIPELINE_BLOCKS 0
#endif
/* Experiment switches, all off in the chapter: docs/experiments/11_gap_h200.sh builds the chapter
   with each on, to find where it loses to its prototype (11_scan_proto.cu, mode landing).
   GAP_NO_PROXY_FENCE (no fence.proxy.async), GAP_LOOKAHEAD_PER_LANE (the prototype's look-ahead re-read loop), GAP_SLOT_ALL_LANES
   (every lane of the prefix warp reads its slot: the racy first version), GAP_COUNTER_APART
   (the descriptors 128 bytes past the draw counter, as the prototype's separate allocations),
   GAP_PUBLISH_AFTER_SLOT (the reducer publishes the aggregate after its slot wait, with the slot,
   as the prototype does), GAP_FULL_GRID (the grid is BLOCKS_PER_SM blocks per SM even when there
   are fewer tiles), GAP_STATE_IN_RING (the barriers and slots in dynamic shared memory after the
   ring, as the prototype keeps its stage barriers, instead of a static __shared__ struct);
   GAP_STALL_RETURNS, GAP_STALL_INLINE, GAP_WATCHDOG_TRAP_ONLY (how the watchdog's cold path is
   compiled: see stall()). */
#ifndef CROSSOVER_ITEMS
/** The `crossover` variant runs chapter 08's kernel below this n, the pipeline from it on.
    Measured on the H200 on 2026-12-04 with this configuration (2 blocks per SM, 4 stages, 2
    groups; docs/experiments/runs_2026-12-04b/c11/summary.txt): 2^24 is the smallest n from which
    the pipeline was faster than chapter 08's kernel in each of three rounds at every larger size
    (time ratios, pipeline / chapter 08, 0.96-0.97 at 2^24; 1.01-1.04 at 2^23). */
#define CROSSOVER_ITEMS ((size_t)1 << 24)
#endif

/** Warps of a consumer group. A group is chapter 08's block: 128 threads, 32 elements each,
    laid out as chapter 08 lays out its tile (warp w owns vectors w·WARP_VECTORS …). */
#define GROUP_WARPS BLOCK_WARPS
/** Threads of a consumer group. */
#define GROUP_THREADS BLOCK_THREADS
/** The producer's warp (lane 0 works, the other lanes leave at once). */
#define PRODUCER_WARP (CONSUMER_GROUPS * GROUP_WARPS)
/** The reducer's warp. */
#define REDUCER_WARP (PRODUCER_WARP + 1)
/** The prefix warp. */
#define PREFIX_WARP (PRODUCER_WARP + 2)
/** Threads of a pipeline block: the groups, the producer, the reducer, the prefix warp. */
#define PIPELINE_THREADS ((PREFIX_WARP + 1) * WARP_THREADS)
/** Bytes of a tile, and of a stage. */
#define TILE_BYTES (TILE_ITEMS * 4)
/** Dynamic shared memory of a pipeline block: the stages. */
#define RING_BYTES ((size_t)RING_STAGES * TILE_BYTES)
#ifdef GAP_STATE_IN_RING
/** Dynamic shared memory of a block: the ring, then its pipeline_shared (11_gap_h200.sh only). */
#define PIPELINE_DYNAMIC_BYTES (RING_BYTES + 1024)
#else
/** Dynamic shared memory of a block: the ring. */
#define PIPELINE_DYNAMIC_BYTES RING_BYTES
#endif
/** Arrivals that free a stage: every thread of the group that copies it out (128) and every
    thread of the reducer (32). Each thread arrives for its own reads, after its own proxy fence:
    an arrival releases only the arriving thread's accesses. One lane arriving for its warp after
    `__syncwarp()` would rest on `__syncwarp()`'s ordering, which the CUDA C++ Programming Guide
    gives ("guarantees memory ordering among threads participating in the barrier") but the PTX
    memory model does not list `bar.warp.sync` among its synchronizing operations: not resting on
    it is our conservative choice (11_design.md §3.3). */
#define EMPTY_ARRIVALS (GROUP_THREADS + WARP_THREADS)
/** tile_of[] and slot_tile[] when the producer has drawn past the last tile: no more work. */
#define NO_TILE 0xffffffffu

/* Each stage, and each slot, serves the positions k, k + RING_STAGES, … (k, k + SLOTS, …) of the
   block's tiles, and group g takes positions g, g + CONSUMER_GROUPS, …. When the count is a
   multiple of CONSUMER_GROUPS, all the positions of a stage (of a slot) belong to one group, which
   takes them in order: it has seen the barrier's previous phase complete before it waits for the
   next. Otherwise a group may wait on a barrier still one phase behind the one it wants, and
   `try_wait.parity` cannot tell the two apart (the same parity): the prototype's S = 4, G = 3
   hung so (docs/experiments/11_scan_proto.md, "Correctness"). */
static_assert(RING_STAGES % CONSUMER_GROUPS == 0,
              "RING_STAGES must be a multiple of CONSUMER_GROUPS");
static_assert(SLOTS % CONSUMER_GROUPS == 0, "SLOTS must be a multiple of CONSUMER_GROUPS");
/* SLOTS > RING_STAGES: then the reducer never waits for a slot. It reaches position k only after
   the producer refilled the stage of position k − RING_STAGES, so after that position's group
   copied it out; that group is also the group of position k − SLOTS (both counts are multiples of
   CONSUMER_GROUPS), which takes its positions in order and so freed that slot before. Fewer slots
   would be correct but make the reducer wait. */
static_assert(SLOTS > RING_STAGES, "SLOTS must be more than RING_STAGES");
/* Named barriers 1 … CONSUMER_GROUPS (group_barrier()); the hardware has 16, 0 is __syncthreads. */
static_assert(CONSUMER_GROUPS >= 1 && CONSUMER_GROUPS <= 15, "1 to 15 consumer groups");

/** The variants: the pipeline, the pipeline above a crossover, chapter 08's kernel, CUB. */
enum { VARIANT_WARP_SPECIALISED, VARIANT_CROSSOVER, VARIANT_LOOKBACK, VARIANT_CUB, VARIANT_COUNT };

/** Names for `--variant`. */
static const char *const VARIANT_NAMES[VARIANT_COUNT] = {"warp-specialised", "crossover",
                                                         "decoupled-lookback", "cub"};

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
/* Carried over unchanged from chapter 08 (08_memcpy_speed/memcpy_speed.cu): its kernel, for  */
/* the decoupled-lookback and crossover variants and for GPUs without the pipeline            */
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
/* New: the pipeline. Compiled for compute capability 9.0 and later only: the mbarrier waits  */
/* with `.acquire` and `cp.async.bulk` need it. Below, the launcher runs chapter 08's kernel. */
/* ------------------------------------------------------------------------------------------ */

/** What a pipeline wait waits for, by code: the watchdog's report stores the code, and the host
    spells it (wait_names[]). */
enum pipeline_wait {
    WAIT_DESCRIPTOR,      /**< the look-ahead: another block's aggregate */
    WAIT_FULL,            /**< a stage's `full` barrier: its tile landed */
    WAIT_EMPTY,           /**< a stage's `empty` barrier: its readers are done */
    WAIT_SLOT_FREE,       /**< a slot's `slot_free` barrier: its group took the prefix */
    WAIT_AGGREGATE_READY, /**< a slot's `aggregate_ready` barrier: the reducer filled it */
    WAIT_PREFIX_READY     /**< a slot's `prefix_ready` barrier: the prefix warp filled it */
};

/**
 * What the pipeline's watchdog saw: the first wait of a launch that ran out of time writes it
 * into pinned host memory that the GPU writes through (mapped), then stops the kernel; the host
 * prints it when the program exits on the CUDA error the trap causes (print_stall_report()).
 * Chapters 06-08's watchdog() prints from the kernel instead; here `printf` in the hot loops
 * cost a point of memcpy (its argument buffer is a stack frame; docs/experiments/
 * 11_warp_specialised.md, the gap table), so the kernel only stores a few integers.
 */
typedef struct stall_report {
    unsigned long long waited_ns; /**< how long the wait had lasted */
    unsigned long long tile;      /**< the look-ahead's tile (WAIT_DESCRIPTOR) */
    long long waiting_for;        /**< the nearest tile whose descriptor never came */
    unsigned block;               /**< the waiting block */
    unsigned warp;                /**< the waiting warp */
    unsigned wait;                /**< what it waited for: a pipeline_wait */
    unsigned index;               /**< the barrier's stage or slot */
    unsigned parity;              /**< the parity of the phase waited for */
    unsigned written;             /**< 1 once the fields above are written */
} stall_report;

/** Where the GPU writes the report (the device address of the host's copy; NULL: nowhere). */
__device__ stall_report *stall_note;
/** 0 until one waiter claims the report: the first to run out of time writes it. */
__device__ unsigned stall_claimed;

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900

/* One PTX instruction per wrapper. The sections are those of the PTX ISA copies that
   docs/experiments/11_design.md §9 names (the numbers move between versions; the titles do not). */

/** Shared-memory address of a generic pointer: the form the mbarrier and bulk-copy instructions
    take (`cvta.to.shared`). */
__device__ __forceinline__ unsigned shared_address(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/** `mbarrier.init` (PTX ISA §9.7.13.15, "mbarrier.init"): a barrier whose phase completes after
    `count` arrivals (and, where expected, a tx-count of bytes back to 0). */
__device__ __forceinline__ void mbarrier_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" : : "r"(shared_address(bar)), "r"(count)
                 : "memory");
}

/** `fence.mbarrier_init.release.cluster` (PTX ISA "membar/fence"): the initialisations before it
    are released before any later use of the barriers. */
__device__ __forceinline__ void fence_mbarrier_init(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;" : : : "memory");
}

/** `fence.proxy.async.shared::cta` (PTX ISA "membar/fence", and §9.7.9.25.2 "Async proxy":
    "Accessing the same memory location across multiple proxies needs a cross-proxy fence"): this
    thread's shared-memory accesses through the generic proxy (plain loads and stores) are ordered
    with its later ones through the async proxy (the TMA unit's). The pipeline's readers fence
    before their release on `empty`, and the async-proxy write comes from another thread, the
    producer, after its acquire: that the fence orders the reads before that write is our reading,
    not a sentence of the manual (11_design.md §3.5, hand-off 7). */
__device__ __forceinline__ void fence_proxy_async_shared(void)
{
#ifndef GAP_NO_PROXY_FENCE
    asm volatile("fence.proxy.async.shared::cta;" : : : "memory");
#endif
}

/** `mbarrier.arrive.expect_tx.release.cta` (PTX ISA §9.7.13.15, "mbarrier.expect_tx",
    "mbarrier.arrive"): one arrival, and `bytes` more to come by complete-tx before the phase may
    complete. `.release`: this thread's earlier accesses are released to whoever acquires the
    phase. */
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;"
                 : : "r"(shared_address(bar)), "r"(bytes) : "memory");
}

/** `mbarrier.arrive.release.cta` (PTX ISA §9.7.13.15, "mbarrier.arrive"): one arrival; this
    thread's earlier accesses are released to whoever acquires the phase. */
__device__ __forceinline__ void mbarrier_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" : : "r"(shared_address(bar))
                 : "memory");
}

/** `mbarrier.try_wait.parity.acquire.cta` (PTX ISA §9.7.13.15, "mbarrier.test_wait /
    mbarrier.try_wait"): 1 once the phase of parity `parity` has completed, else 0 (the thread may
    be suspended for a while first). Only the current phase and the one before it can be named:
    a barrier two phases ahead, or one behind, answers wrongly (see the static_asserts above).
    `.acquire`: what the phase's arrivals released is visible to this thread. (The predicate is
    turned into a register by one `selp`: PTX has no other way out of an asm block.) */
__device__ __forceinline__ int mbarrier_try_wait_parity(uint64_t *bar, unsigned parity)
{
    unsigned done;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(shared_address(bar)), "r"(parity) : "memory");
    return (int)done;
}

/** `cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes` (PTX ISA §9.7.9.25.4.1): the
    SM's TMA unit copies `bytes` (a multiple of 16, both addresses 16-byte aligned) from global to
    shared memory, then performs a complete-tx of `bytes` on `bar`. The copy is a weak access
    through the async proxy; its complete-tx has release semantics, and its completion is
    followed by an implicit generic-async proxy fence (§9.7.9.25.2), so a thread that acquires
    the phase reads the bytes with plain loads. */
__device__ __forceinline__ void bulk_copy_to_shared(void *dst, const void *src, unsigned bytes,
                                                    uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
                 "[%3];"
                 : : "r"(shared_address(dst)), "l"(src), "r"(bytes), "r"(shared_address(bar))
                 : "memory");
}

/** `bar.sync 1 + g, 128` (PTX ISA "bar, barrier"): a barrier for the 128 threads of consumer
    group g alone, so that the groups never wait for each other. A barrier synchronizes (PTX ISA
    §8.9.4): shared-memory accesses before it are ordered before those after it. */
__device__ __forceinline__ void group_barrier(unsigned g)
{
    asm volatile("bar.sync %0, %1;" : : "r"(1u + g), "r"((unsigned)GROUP_THREADS) : "memory");
}

/** `mov.u64 %globaltimer` (PTX ISA "Special registers"): the GPU's clock, in ns. */
__device__ __forceinline__ unsigned long long global_timer(void)
{
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    return now;
}

/**
 * \brief The pipeline's watchdog clock: every WATCHDOG_SPINS calls, look at the GPU's clock; 1
 *        once the wait that began at the first look has lasted WATCHDOG_NS.
 *
 * All a spin pays is one add and one test; the clock is read once per WATCHDOG_SPINS spins.
 * \param spins this wait's spin count so far (updated)
 * \param since when this wait began, in ns of %globaltimer (0 until the first look)
 */
__device__ __forceinline__ int out_of_time(unsigned *spins, unsigned long long *since)
{
    if (++*spins % WATCHDOG_SPINS != 0)
        return 0;
    const unsigned long long now = global_timer();
    if (*since == 0)
        *since = now;
    return now - *since > WATCHDOG_NS;
}

/* How stall() is compiled. The chapter: a function of its own, so that its code stays out of
   the hot loops, that never returns, so that nothing a loop holds has to outlive the call (the
   compiler moves the call out of the loop). The switches are for docs/experiments/11_gap_h200.sh
   only: GAP_STALL_RETURNS, run 3's control flow (2026-12-03: a waiter that loses the report
   returns to its loop); GAP_STALL_INLINE, inlined at every wait; GAP_WATCHDOG_TRAP_ONLY, no
   report, a bare trap (run 2's fastest build, 82 registers). */
#if defined(GAP_STALL_RETURNS)
#define STALL_FUNCTION __noinline__
#elif defined(GAP_STALL_INLINE) || defined(GAP_WATCHDOG_TRAP_ONLY)
#define STALL_FUNCTION __forceinline__ __attribute__((noreturn))
#else
/** How stall() is compiled (the comment above): a function of its own that never returns. */
#define STALL_FUNCTION __noinline__ __attribute__((noreturn))
#endif

/**
 * \brief A wait ran out of time: the first waiter to get here writes what it waited for into
 *        the host's report (stall_report), then stops the kernel (exit 3).
 *
 * A correct pipeline never gets here. The report's words are written before a system-scope
 * fence, and `written` after it, so the host never reads a report that is half written. The
 * fence orders the words; nothing promises that they reach host memory before the trap ends the
 * kernel. That they do is an observation, not a guarantee: on the H200, every plant of
 * tests/plant_bugs.sh that stalls the pipeline ended with its line
 * (docs/experiments/runs_2026-12-03/11_chapter_h200_run3). A
 * waiter that finds the report taken gives its writer a millisecond, then traps too: whichever
 * trap comes first ends the kernel. No `printf`, and only integers to store.
 * \param since       when the wait began (ns of %globaltimer)
 * \param wait        what it waited for (a pipeline_wait)
 * \param index       the barrier's stage or slot (0 for the look-ahead)
 * \param parity      the parity waited for (0 for the look-ahead)
 * \param tile        the look-ahead's tile (0 for a barrier)
 * \param waiting_for the look-ahead's nearest missing tile (0 for a barrier)
 */
__device__ STALL_FUNCTION void stall(unsigned long long since, unsigned wait, unsigned index,
                                     unsigned parity, unsigned long long tile,
                                     long long waiting_for)
{
#ifdef GAP_WATCHDOG_TRAP_ONLY
    __trap();
#endif
    const unsigned long long now = global_timer();
    stall_report *r = stall_note;
    if (r != NULL && atomicCAS(&stall_claimed, 0u, 1u) == 0u) {
        r->waited_ns = now - since;
        r->tile = tile;
        r->waiting_for = waiting_for;
        r->block = blockIdx.x;
        r->warp = threadIdx.x / WARP_THREADS;
        r->wait = wait;
        r->index = index;
        r->parity = parity;
        __threadfence_system();
        *(volatile unsigned *)&r->written = 1u;
        __threadfence_system();
    } else if (r != NULL) {
#ifdef GAP_STALL_RETURNS
        return; /* keep waiting until the writer's trap ends the kernel */
#else
        while (global_timer() - now < 1000000u) /* the writer's millisecond */
            __nanosleep(10000);
#endif
    }
    __trap();
}

/**
 * \brief Wait for the phase of parity `parity` of a barrier; after WATCHDOG_NS, report who
 *        waited for what and stop the kernel (exit 3): stall().
 *
 * A correct pipeline never trips it. A phase bug would otherwise hang the GPU: an arrival count
 * that the arrivers never reach, a group that is never told there is no more work, a parity off
 * by one. `try_wait` may suspend the thread for a while (PTX ISA), so the loop spins seldom.
 * \param bar    the barrier
 * \param parity the parity of the phase waited for: (waits of this role on `bar` before) & 1
 * \param wait   which barrier it is, for the report (a pipeline_wait)
 * \param index  its stage or slot
 */
__device__ __forceinline__ void wait_phase(uint64_t *bar, unsigned parity, unsigned wait,
                                           unsigned index)
{
    unsigned spins = 0;
    unsigned long long since = 0;
    while (!mbarrier_try_wait_parity(bar, parity))
        if (out_of_time(&spins, &since))
            stall(since, wait, index, parity, 0, 0);
}

/**
 * \brief The look-ahead (design §3.4, scheme B; CCCL's name): the sum of the aggregates of tiles
 *        `first` … `tile` − 1, all drawn by other blocks, read LOOKAHEAD_LOADS per lane at a time
 *        and re-read while one is still `TILE_INVALID`.
 *
 * No descriptor ever holds an inclusive prefix here (the reducer publishes aggregates only; tile
 * 0's, which publish_aggregate() marks `TILE_PREFIX`, is its aggregate too), so nothing stops the
 * walk early: it reads every tile between the block's two, about one per other block. In
 * exchange it waits only for aggregates, which every block publishes the moment a tile lands.
 * Each descriptor is one 64-bit word read whole (load_descriptor()): nothing else is read on the
 * strength of its state.
 * \param descriptors one word per tile
 * \param first       the first tile to add (the block's previous tile + 1, or 0)
 * \param tile        this block's tile
 * \return the sum (in every lane)
 * \pre One full warp calls it.
 */
__device__ __forceinline__ uint32_t look_ahead(const unsigned long long *descriptors,
                                               long long first, unsigned tile)
{
    const int lane = threadIdx.x % WARP_THREADS;
    uint32_t between = 0;
    for (long long base = first; base < (long long)tile;
         base += LOOKAHEAD_LOADS * WARP_THREADS) {
        unsigned long long word[LOOKAHEAD_LOADS];
#pragma unroll
        for (int j = 0; j < LOOKAHEAD_LOADS; ++j) { /* all loads in flight at once */
            const long long i = base + j * WARP_THREADS + lane;
            word[j] = i < (long long)tile ? load_descriptor(&descriptors[i])
                                          : pack_descriptor(TILE_AGGREGATE, 0);
        }
#pragma unroll
        for (int j = 0; j < LOOKAHEAD_LOADS; ++j) {
            const long long i = base + j * WARP_THREADS + lane;
            unsigned spins = 0;
            unsigned long long since = 0;
#ifdef GAP_LOOKAHEAD_PER_LANE /* the prototype's loop: each lane re-reads its own word */
            while ((unsigned)(word[j] >> 32) == TILE_INVALID) {
                if (out_of_time(&spins, &since))
                    stall(since, WAIT_DESCRIPTOR, 0, 0, tile, i);
                word[j] = load_descriptor(&descriptors[i]);
            }
#endif
            for (;;) {
                const unsigned invalid =
                    __ballot_sync(FULL_MASK, (unsigned)(word[j] >> 32) == TILE_INVALID);
                if (invalid == 0)
                    break;
                if (out_of_time(&spins, &since))
                    stall(since, WAIT_DESCRIPTOR, 0, 0, tile,
                          base + j * WARP_THREADS + __ffs(invalid) - 1);
                if (invalid >> lane & 1u)
                    word[j] = load_descriptor(&descriptors[i]);
            }
            between += (uint32_t)word[j];
        }
    }
    return warp_reduce(between);
}

/**
 * \brief Sum a tile in its stage: the tile's aggregate, for the reducer warp.
 *
 * Each warp instruction reads 512 consecutive bytes (32 lanes × 16), so no bank conflicts. The
 * ragged last tile: the bulk copy moved only whole 16-byte pieces, so the last 0–3 elements are
 * read from global memory (complete_ragged_tile() says why), by lane 0 alone. In place
 * (`out == in`), a group thread later stores those elements, and what orders the reads before
 * the store is the chain that starts at lane 0's release on `aggregate_ready` (the aggregate ->
 * the prefix warp -> `prefix_ready` -> the group): it carries lane 0's accesses only, so a read
 * by another lane would be ordered before the store by nothing (a shuffle is not a memory
 * operation).
 * \param stage      the tile in shared memory
 * \param in         the input (for the ragged tile's last elements)
 * \param n          element count
 * \param tile_first index of the tile's first element
 * \return the tile's aggregate (in every lane)
 * \pre One full warp calls it, after the stage's `full` phase completed.
 */
__device__ __forceinline__ uint32_t reduce_stage(const uint4 *stage, const int32_t *in, size_t n,
                                                 size_t tile_first)
{
    const int lane = threadIdx.x % WARP_THREADS;
    uint32_t sum = 0;
    if (tile_first + TILE_ITEMS <= n) {
#pragma unroll 8
        for (int v = 0; v < TILE_ITEMS / 4 / WARP_THREADS; ++v) {
            const uint4 q = stage[v * WARP_THREADS + lane];
            sum += (q.x + q.y) + (q.z + q.w);
        }
    } else {
        const size_t copied = tile_first + ((n - tile_first) & ~(size_t)3);
        const uint32_t *element = (const uint32_t *)stage;
        for (size_t e = tile_first + lane; e < copied; e += WARP_THREADS)
            sum += element[e - tile_first];
        if (lane == 0) /* lane 0 alone reads the last 0–3 elements: see above */
#pragma unroll
            for (int c = 0; c < 3; ++c)
                if (copied + c < n)
                    sum += (uint32_t)in[copied + c];
    }
    return warp_reduce(sum);
}

/**
 * \brief Copy this thread's 32 elements of a staged tile into registers, in chapter 08's layout:
 *        warp w of the group owns vectors w · WARP_VECTORS …, and each warp instruction reads 512
 *        consecutive bytes.
 * \param stage      the tile in shared memory
 * \param group_warp this warp's place in its group, 0 … GROUP_WARPS − 1
 * \param q          receives VECTORS_PER_THREAD vectors
 */
__device__ __forceinline__ void copy_stage_to_registers(const uint4 *stage, unsigned group_warp,
                                                        uint4 *q)
{
    const unsigned lane = threadIdx.x % WARP_THREADS;
#pragma unroll
    for (int v = 0; v < VECTORS_PER_THREAD; ++v)
        q[v] = stage[group_warp * WARP_VECTORS + v * WARP_THREADS + lane];
}

/**
 * \brief The ragged last tile, in registers: the elements the bulk copy did not move are read
 *        from global memory, and those past n become 0, the identity of the sum.
 *
 * `cp.async.bulk` copies multiples of 16 bytes, so the producer copies the tile's bytes rounded
 * down to 16, and the last 0–3 elements are read here by the thread that owns them. So nothing
 * but the TMA unit writes a stage: a warp's plain stores followed by one lane's arrive would be
 * ordered only by `__syncwarp`, on which we choose not to rest (EMPTY_ARRIVALS says why;
 * 11_design.md §0, item 3).
 * \param q          this thread's vectors (updated)
 * \param in         the input
 * \param n          element count
 * \param tile_first index of the tile's first element
 * \param group_warp this warp's place in its group
 */
__device__ __forceinline__ void complete_ragged_tile(uint4 *q, const int32_t *in, size_t n,
                                                     size_t tile_first, unsigned group_warp)
{
    const unsigned lane = threadIdx.x % WARP_THREADS;
    const size_t copied = tile_first + ((n - tile_first) & ~(size_t)3);
#pragma unroll
    for (int v = 0; v < VECTORS_PER_THREAD; ++v) {
        const size_t e =
            tile_first + (size_t)(group_warp * WARP_VECTORS + v * WARP_THREADS + lane) * 4;
        uint32_t r[4] = {q[v].x, q[v].y, q[v].z, q[v].w};
#pragma unroll
        for (int c = 0; c < 4; ++c)
            r[c] = e + c >= n ? 0u : e + c >= copied ? (uint32_t)in[e + c] : r[c];
        q[v] = make_uint4(r[0], r[1], r[2], r[3]);
    }
}

/**
 * \brief Scan this warp's part of the tile in registers: chapter 08's scan_warp_part_shared(),
 *        with the tile in registers instead of shared memory.
 *
 * Vector v of the warp's part is 128 consecutive elements, 4 per lane: a serial scan of the
 * lane's 4, a warp scan of the lane totals, and the total of vectors 0 … v − 1 carried in front.
 * \param q         this thread's vectors; out: each element's scan within its warp's part
 * \param exclusive 1 for exclusive, 0 for inclusive
 * \return the sum of the warp's part (in every lane)
 * \pre All 32 lanes of the warp call it together.
 */
__device__ __forceinline__ uint32_t scan_registers(uint4 *q, int exclusive)
{
    uint32_t carried = 0; /* the sum of vectors 0 … v−1 of the warp's part */
#pragma unroll
    for (int v = 0; v < VECTORS_PER_THREAD; ++v) {
        uint4 x = q[v];
        x.y += x.x;
        x.z += x.y;
        x.w += x.z;
        const uint32_t lane_inclusive = warp_inclusive_scan(x.w);
        const uint32_t before = carried + lane_inclusive - x.w;
        q[v] = exclusive ? make_uint4(before, before + x.x, before + x.y, before + x.z)
                         : make_uint4(before + x.x, before + x.y, before + x.z, before + x.w);
        carried += __shfl_sync(FULL_MASK, lane_inclusive, WARP_THREADS - 1);
    }
    return carried;
}

/**
 * \brief Store the scanned tile from registers: `prefix` plus each element's scan within its
 *        warp's part (chapter 08's store_tile_shared(), from registers).
 * \param out        output, 16-byte aligned
 * \param n          element count
 * \param tile_first index of the tile's first element
 * \param q          this thread's vectors, scanned by scan_registers()
 * \param prefix     what precedes this warp's part of the tile
 * \param group_warp this warp's place in its group
 */
__device__ __forceinline__ void store_registers(int32_t *out, size_t n, size_t tile_first,
                                                const uint4 *q, uint32_t prefix,
                                                unsigned group_warp)
{
    const unsigned lane = threadIdx.x % WARP_THREADS;
    const int whole = tile_first + TILE_ITEMS <= n;
#pragma unroll
    for (int v = 0; v < VECTORS_PER_THREAD; ++v) {
        const uint4 r = make_uint4(prefix + q[v].x, prefix + q[v].y, prefix + q[v].z,
                                   prefix + q[v].w);
        const size_t first =
            tile_first + (size_t)(group_warp * WARP_VECTORS + v * WARP_THREADS + lane) * 4;
        if (whole) {
            ((uint4 *)out)[first / 4] = r;
        } else {
            const uint32_t c4[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
            for (int c = 0; c < 4; ++c)
                if (first + c < n)
                    out[first + c] = (int32_t)c4[c];
        }
    }
}

/**
 * What the roles of one block share, beside the stages. Position k is the block's k-th tile:
 * it goes through stage k % RING_STAGES, slot k % SLOTS and group k % CONSUMER_GROUPS, and each
 * barrier completes one phase per use, so a role that has waited on a barrier j times before
 * waits for parity j & 1.
 */
typedef struct pipeline_shared {
    uint64_t full[RING_STAGES];       /**< the stage holds its tile (or NO_TILE): the producer's
                                           arrival and the copy's bytes */
    uint64_t empty[RING_STAGES];      /**< nobody reads the stage any more: EMPTY_ARRIVALS */
    unsigned tile_of[RING_STAGES];    /**< the stage's tile id, or NO_TILE */
    uint64_t aggregate_ready[SLOTS];  /**< the reducer filled the slot (tile, aggregate): 1 */
    uint64_t prefix_ready[SLOTS];     /**< the prefix warp filled in the tile's prefix: 1 */
    uint64_t slot_free[SLOTS];        /**< the group read the prefix: 1 */
    unsigned slot_tile[SLOTS];        /**< the slot's tile id, or NO_TILE */
    uint32_t slot_aggregate[SLOTS];   /**< its aggregate */
    uint32_t slot_prefix[SLOTS];      /**< its exclusive prefix */
    uint32_t warp_total[CONSUMER_GROUPS][GROUP_WARPS]; /**< each warp's part of a group's tile */
    uint32_t group_prefix[CONSUMER_GROUPS];            /**< a group's tile's exclusive prefix */
} pipeline_shared;
#ifdef GAP_STATE_IN_RING
static_assert(sizeof(pipeline_shared) <= 1024, "PIPELINE_DYNAMIC_BYTES leaves 1024 bytes for it");
#endif

/**
 * \brief Initialise every barrier (one thread, before the block's only `__syncthreads()`).
 *
 * Both fences follow the initialisation, as CUDA's TMA example and CUTLASS's
 * `PipelineTmaAsync` do (11_design.md §0, item 4), so that the TMA unit never sees a barrier
 * that is not initialised.
 * \param sh the block's shared state
 */
__device__ __forceinline__ void init_barriers(pipeline_shared *sh)
{
    for (unsigned s = 0; s < RING_STAGES; ++s) {
        mbarrier_init(&sh->full[s], 1);
        mbarrier_init(&sh->empty[s], EMPTY_ARRIVALS);
    }
    for (unsigned r = 0; r < SLOTS; ++r) {
        mbarrier_init(&sh->aggregate_ready[r], 1);
        mbarrier_init(&sh->prefix_ready[r], 1);
        mbarrier_init(&sh->slot_free[r], 1);
    }
    fence_mbarrier_init();
    fence_proxy_async_shared();
}

/**
 * \brief The end of the work, told to every group: the producer drew past the last tile at
 *        position k, so NO_TILE goes into positions k … k + CONSUMER_GROUPS − 1, one per group.
 *
 * Each group looks only at its own positions, so each needs its own NO_TILE; the prototype's first
 * run gave it to one group, and the others waited for stages that never filled (caught by the
 * watchdog: docs/experiments/11_scan_proto.md). The positions are CONSUMER_GROUPS ≤ RING_STAGES
 * different stages; each is written only after its previous tile's readers freed it. The reducer
 * stops at the first NO_TILE and hands it to the prefix warp through a slot.
 * \param sh the block's shared state
 * \param k  the position at which the producer drew past the end
 * \pre Called by the producer thread alone.
 */
__device__ __forceinline__ void hand_out_no_tile(pipeline_shared *sh, unsigned k)
{
    for (unsigned e = 0; e < CONSUMER_GROUPS; ++e) {
        const unsigned ke = k + e, s = ke % RING_STAGES;
        if (e > 0 && ke >= RING_STAGES) /* position k's stage was waited for by the caller */
            wait_phase(&sh->empty[s], (ke / RING_STAGES - 1) & 1u, WAIT_EMPTY, s);
        sh->tile_of[s] = NO_TILE;
        mbarrier_arrive(&sh->full[s]);
    }
}

/**
 * \brief The producer (one thread): for each free stage, draw the next tile id and start its
 *        bulk copy into the stage.
 *
 * Draws come from one counter, in the order the blocks ask, so a block that waits for a smaller
 * tile waits for one a running block holds (chapter 06's order). The block draws only when it
 * has a free stage, and starts the copy at once, so every drawn tile's bytes are on their way.
 * \param in       input, 16-byte aligned
 * \param n        element count
 * \param counter  the draw counter (0 before the launch)
 * \param sh       the block's shared state
 * \param stages   the ring
 */
__device__ __forceinline__ void produce_tiles(const int32_t *in, size_t n, unsigned *counter,
                                              pipeline_shared *sh, unsigned char *stages)
{
    const size_t tiles = (n + TILE_ITEMS - 1) / TILE_ITEMS;
    for (unsigned k = 0;; ++k) {
        const unsigned s = k % RING_STAGES;
        /* the first pass finds every stage free; later, wait until the stage's readers of
           position k − RING_STAGES have all arrived. Their arrivals are releases, and each reader
           fenced (fence.proxy.async) before its arrival. That this orders its reads of the stage
           before the copy below, an async-proxy write issued by this thread, is our reading of
           the PTX ISA, not a sentence of it (11_design.md §3.5, hand-off 7) */
        if (k >= RING_STAGES)
            wait_phase(&sh->empty[s], (k / RING_STAGES - 1) & 1u, WAIT_EMPTY, s);
        const unsigned tile = atomicAdd(counter, 1u);
        if (tile >= tiles) {
            hand_out_no_tile(sh, k);
            return;
        }
        sh->tile_of[s] = tile; /* released by the arrival below */
        const size_t first = (size_t)tile * TILE_ITEMS;
        const size_t count = n - first < TILE_ITEMS ? n - first : TILE_ITEMS;
        const unsigned bytes = (unsigned)(count * 4) & ~15u;
        if (bytes) {
            /* the copy first, then the arrival (11_design.md §3.5, hand-off 2; CCCL's order): an
               `.acquire` wait that sees the phase complete sees every bulk copy on the barrier
               "requested prior, in program order, to mbarrier.arrive having release semantics"
               (PTX ISA, mbarrier.test_wait/try_wait, item 3 of its ordering list), which this
               arrival is. A copy that lands before the arrival drives the tx-count below 0, which
               the mbarrier allows; the phase stays open until this arrival adds `bytes` back */
            bulk_copy_to_shared(stages + (size_t)s * TILE_BYTES, in + first, bytes, &sh->full[s]);
            mbarrier_arrive_expect_tx(&sh->full[s], bytes);
        } else {
            mbarrier_arrive(&sh->full[s]); /* fewer than 4 elements: all read from global */
        }
    }
}

/**
 * \brief The reducer warp: sum each tile the moment it lands, free the stage's share it holds,
 *        publish the aggregate, and hand tile and aggregate to the prefix warp through a slot.
 *
 * This is why the pipeline does not stall (docs/experiments/11_scan_proto.md, second build):
 * an aggregate that waited for a free consumer group would wait for that group's previous
 * prefix, which waits for other blocks' aggregates, and the chain the decoupled look-back breaks
 * would be back. Here a tile's aggregate waits only for its own bytes: the reducer waits on
 * `full` and, never in fact (static_assert on SLOTS), on `slot_free`.
 * \param in          input (the ragged tile's last elements)
 * \param n           element count
 * \param descriptors one word per tile (TILE_INVALID before the launch)
 * \param sh          the block's shared state
 * \param stages      the ring
 * \pre One full warp calls it.
 */
__device__ __forceinline__ void reduce_tiles(const int32_t *in, size_t n,
                                             unsigned long long *descriptors,
                                             pipeline_shared *sh, const unsigned char *stages)
{
    const int lane = threadIdx.x % WARP_THREADS;
    for (unsigned k = 0;; ++k) {
        const unsigned s = k % RING_STAGES, r = k % SLOTS;
        wait_phase(&sh->full[s], (k / RING_STAGES) & 1u, WAIT_FULL, s);
        const unsigned tile = sh->tile_of[s];
        uint32_t aggregate = 0;
        if (tile != NO_TILE) {
            aggregate = reduce_stage((const uint4 *)(stages + (size_t)s * TILE_BYTES), in, n,
                                     (size_t)tile * TILE_ITEMS);
            fence_proxy_async_shared(); /* these reads, before the next copy into the stage */
            mbarrier_arrive(&sh->empty[s]); /* every lane: 32 of the EMPTY_ARRIVALS */
#ifndef GAP_PUBLISH_AFTER_SLOT
            if (lane == 0)
                publish_aggregate(descriptors, tile, aggregate); /* at once */
#endif
        }
        if (k >= SLOTS)
            wait_phase(&sh->slot_free[r], (k / SLOTS - 1) & 1u, WAIT_SLOT_FREE, r);
        if (lane == 0) {
#ifdef GAP_PUBLISH_AFTER_SLOT /* the prototype's order, for docs/experiments/11_gap_h200.sh */
            if (tile != NO_TILE)
                publish_aggregate(descriptors, tile, aggregate);
#endif
            sh->slot_tile[r] = tile;
            sh->slot_aggregate[r] = aggregate;
            mbarrier_arrive(&sh->aggregate_ready[r]); /* releases the two words above */
        }
        if (tile == NO_TILE)
            return;
    }
}

/**
 * \brief The prefix warp: for each of the block's tiles, in order, its exclusive prefix, from the
 *        block's running prefix and a look-ahead over the tiles other blocks drew since.
 *
 * The block's tiles come in increasing order, so the exclusive prefix of tile t is the inclusive
 * prefix of the block's previous tile plus the aggregates of the tiles between the two. Forward
 * progress: the look-ahead waits only for aggregates of tiles that other blocks drew, and a
 * drawn tile's aggregate waits for nothing but its bytes (reduce_tiles()), so every wait ends,
 * provided every block that drew a tile keeps being scheduled: the paper's assumption (§4.2), as
 * in chapters 06–08.
 * \param descriptors one word per tile
 * \param sh          the block's shared state
 * \pre One full warp calls it.
 */
__device__ __forceinline__ void find_prefixes(const unsigned long long *descriptors,
                                              pipeline_shared *sh)
{
    const int lane = threadIdx.x % WARP_THREADS;
    long long last_own = -1; /* the block's previous tile: none yet */
    uint32_t running = 0;    /* its inclusive prefix */
    for (unsigned k = 0;; ++k) {
        const unsigned r = k % SLOTS;
        wait_phase(&sh->aggregate_ready[r], (k / SLOTS) & 1u, WAIT_AGGREGATE_READY, r);
        /* Lane 0 alone reads the slot and hands it on by shuffle (registers, not memory). The
           reducer rewrites the slot SLOTS tiles later, at the end of a chain that starts at lane
           0's arrive on prefix_ready below (prefix_ready -> the group's slot_free -> the
           reducer's wait): that release carries lane 0's reads, which precede it in program
           order, and no other lane's. Were every lane to read, as the first version did, lanes
           1-31's reads would be ordered before the rewrite by nothing (racecheck's 8 hazards on
           the 3-block build, docs/experiments/11_warp_specialised.md). `__syncwarp()` before the
           arrive would rest on bar.warp.sync, which the CUDA guide says orders memory among the
           lanes but the memory model does not list as synchronizing (PTX ISA §8.9.4): not resting
           on it is our conservative choice (EMPTY_ARRIVALS); the shuffle needs neither. */
        unsigned tile = 0;
        uint32_t aggregate = 0;
#ifdef GAP_SLOT_ALL_LANES /* the racy first version, for docs/experiments/11_gap_h200.sh only */
        tile = sh->slot_tile[r];
        aggregate = sh->slot_aggregate[r];
#else
        if (lane == 0) {
            tile = sh->slot_tile[r];
            aggregate = sh->slot_aggregate[r];
        }
        tile = __shfl_sync(FULL_MASK, tile, 0);
        aggregate = __shfl_sync(FULL_MASK, aggregate, 0);
#endif
        if (tile == NO_TILE)
            return;
        const uint32_t prefix = running + look_ahead(descriptors, last_own + 1, tile);
        running = prefix + aggregate;
        last_own = tile;
        if (lane == 0) {
            sh->slot_prefix[r] = prefix;
            mbarrier_arrive(&sh->prefix_ready[r]); /* releases slot_prefix[r] */
        }
    }
}

/**
 * \brief Consumer group g: copy each of its stages into registers, free the stage, scan in
 *        registers, wait for the tile's prefix, add it and store.
 *
 * The stage is freed before the prefix wait: that is the point of the pipeline (11_design.md
 * §0, item 1). While one group waits, the others copy and scan later tiles, and the producer
 * refills the freed stages. The group's 4 warps meet at their own named barrier, twice per tile.
 * \param in        input (the ragged tile's last elements)
 * \param out       output, 16-byte aligned (may be `in`: a tile is stored only after its bytes
 *                  landed, and after the reducer's lane 0 read its ragged end, since the prefix
 *                  comes after it: reduce_stage())
 * \param n         element count
 * \param exclusive 1 for exclusive, 0 for inclusive
 * \param sh        the block's shared state
 * \param stages    the ring
 * \param g         the group, 0 … CONSUMER_GROUPS − 1
 * \pre The group's 128 threads call it together.
 */
__device__ __forceinline__ void scan_tiles(const int32_t *in, int32_t *out, size_t n,
                                           int exclusive, pipeline_shared *sh,
                                           const unsigned char *stages, unsigned g)
{
    const unsigned lane = threadIdx.x % WARP_THREADS;
    const unsigned group_warp = threadIdx.x / WARP_THREADS % GROUP_WARPS;
    for (unsigned k = g;; k += CONSUMER_GROUPS) {
        const unsigned s = k % RING_STAGES, r = k % SLOTS;
        wait_phase(&sh->full[s], (k / RING_STAGES) & 1u, WAIT_FULL, s);
        const unsigned tile = sh->tile_of[s];
        if (tile == NO_TILE)
            return;
        const size_t tile_first = (size_t)tile * TILE_ITEMS;
        uint4 q[VECTORS_PER_THREAD];
        copy_stage_to_registers((const uint4 *)(stages + (size_t)s * TILE_BYTES), group_warp, q);
        fence_proxy_async_shared();     /* these reads, before the next copy into the stage */
        mbarrier_arrive(&sh->empty[s]); /* every thread: the stage is free, the tile in registers */
        if (tile_first + TILE_ITEMS > n)
            complete_ragged_tile(q, in, n, tile_first, group_warp);
        const uint32_t warp_sum = scan_registers(q, exclusive);
        if (lane == 0)
            sh->warp_total[g][group_warp] = warp_sum;
        group_barrier(g); /* the group's warp totals are written */
        uint32_t before = 0;
        for (unsigned w = 0; w < group_warp; ++w)
            before += sh->warp_total[g][w];
        /* Every thread waits, but one reads the slot and frees it (slot_free counts 1). The
           slot's next phase cannot complete under a slower thread of this group still waiting
           for this one: it needs the reducer at position k + SLOTS, so the producer's refill of
           position k + SLOTS − RING_STAGES ≥ k + CONSUMER_GROUPS, which this group copies out
           only after this tile. */
        wait_phase(&sh->prefix_ready[r], (k / SLOTS) & 1u, WAIT_PREFIX_READY, r);
        if (threadIdx.x % GROUP_THREADS == 0) {
            sh->group_prefix[g] = sh->slot_prefix[r];
            mbarrier_arrive(&sh->slot_free[r]); /* the prefix is read: the slot may be reused */
        }
        group_barrier(g); /* group_prefix[g] is written, and this tile's warp totals all read */
        store_registers(out, n, tile_first, q, sh->group_prefix[g] + before, group_warp);
    }
}

#endif /* compute capability 9.0 and later */

/**
 * \brief The warp-specialised scan: BLOCKS_PER_SM persistent blocks per SM, the warps of each
 *        in the roles of produce_tiles(), reduce_tiles(), find_prefixes() and scan_tiles().
 *
 * Warps 0 … 4 · CONSUMER_GROUPS − 1 are the consumer groups, then the producer, the reducer and
 * the prefix warp. One `__syncthreads()` (the barriers are initialised), then each role runs its
 * own loop until it meets NO_TILE; no block-wide barrier follows, so a role may leave whenever
 * it is done. Below compute capability 9.0 the kernel is empty but for a trap: the launcher never
 * launches it there (pipeline_here()).
 * \param in          input, 16-byte aligned
 * \param out         output, 16-byte aligned (may be `in`)
 * \param n           element count
 * \param exclusive   1 for exclusive, 0 for inclusive
 * \param counter     the draw counter: 0 before the launch
 * \param descriptors one word per tile: all 0 (TILE_INVALID) before the launch
 * \pre blockDim.x == PIPELINE_THREADS; RING_BYTES of dynamic shared memory; any number of
 *      blocks (a block that starts late finds the tiles drawn and leaves; one that never
 *      starts drew nothing, so no one waits for it).
 * \warning Two launches that share counter and descriptors must not run at the same time.
 */
__global__ void __launch_bounds__(PIPELINE_THREADS, PIPELINE_MIN_BLOCKS)
    warp_specialised_kernel(const int32_t *in, int32_t *out, size_t n, int exclusive,
                            unsigned *counter, unsigned long long *descriptors)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    /* the ring: 16-byte alignment is what cp.async.bulk needs, 128 what the prototype used. The
       alignment of an extern __shared__ array holds for every kernel of the file: chapter 08's
       static 16 416 bytes become 16 512 (its SASS is unchanged, and 13 blocks still fit an SM) */
    extern __shared__ __align__(128) unsigned char stages[];
#ifdef GAP_STATE_IN_RING /* docs/experiments/11_gap_h200.sh only: the prototype's place */
    pipeline_shared *const shp = (pipeline_shared *)(stages + RING_BYTES);
#else
    __shared__ pipeline_shared sh;
    pipeline_shared *const shp = &sh;
#endif
    const unsigned warp = threadIdx.x / WARP_THREADS;
    if (threadIdx.x == 0)
        init_barriers(shp);
    __syncthreads(); /* the barriers are initialised before any role uses them */
    if (warp < PRODUCER_WARP)
        scan_tiles(in, out, n, exclusive, shp, stages, warp / GROUP_WARPS);
    else if (warp == PRODUCER_WARP && threadIdx.x % WARP_THREADS == 0)
        produce_tiles(in, n, counter, shp, stages);
    else if (warp == REDUCER_WARP)
        reduce_tiles(in, n, descriptors, shp, stages);
    else if (warp == PREFIX_WARP)
        find_prefixes(descriptors, shp);
#elif defined(__CUDA_ARCH__)
    __trap(); /* never launched below compute capability 9.0 */
#endif
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

/** The ::gpu_traffic_fn: 2n elements, plus each tile's descriptor written three times (aggregate,
    prefix, and cleared by the next call): 24 bytes, the size of 6 elements. The look-backs' reads
    of descriptors, which L2 serves, are not counted. */
static double lookback_traffic(int variant, size_t n)
{
    (void)variant;
    return 2.0 * (double)n + 6.0 * (double)tile_count(n);
}

/* ------------------------------------------------------------------------------------------ */
/* New: the launchers of the pipeline and of the crossover                                   */
/* ------------------------------------------------------------------------------------------ */

#ifdef GAP_COUNTER_APART
/** Words before the descriptors: the counter alone in its 128-byte line. */
#define COUNTER_WORDS 16
#else
/** Words before the descriptors: the draw counter. */
#define COUNTER_WORDS 1
#endif

/** Scratch the pipeline needs for n elements: the draw counter (one 8-byte word) and one
    descriptor per tile, all cleared by the launcher in every call. */
static size_t pipeline_scratch_bytes(size_t n)
{
    return n ? (COUNTER_WORDS + tile_count(n)) * sizeof(unsigned long long) : 0;
}

/** Scratch of the `warp-specialised` variant: the pipeline's, or, where chapter 08's kernel runs
    instead (below compute capability 9.0), chapter 08's: the larger of the two. */
static size_t warp_specialised_scratch_bytes(size_t n)
{
    const size_t pipeline = pipeline_scratch_bytes(n), lookback = lookback_scratch_bytes(n);
    return pipeline > lookback ? pipeline : lookback;
}

/** The host's copy of the pipeline's stall_report (pinned and mapped; NULL until set up). */
static volatile stall_report *stall_host = NULL;

/** At exit: if a watchdog of the pipeline wrote its report before its trap, print it. The trap
    itself surfaces as a CUDA error at the host's next call, whose check prints it and exits 3;
    this runs then (atexit), after that line. */
static void print_stall_report(void)
{
    const volatile stall_report *r = stall_host;
    if (r == NULL || !r->written)
        return;
    const unsigned w = r->warp;
    const char *role = w < PRODUCER_WARP    ? "a consumer group"
                       : w == PRODUCER_WARP ? "the producer"
                       : w == REDUCER_WARP  ? "the reducer"
                                            : "the prefix warp";
    static const char *const wait_names[] = {"", "full", "empty", "slot_free",
                                             "aggregate_ready", "prefix_ready"};
    const unsigned wait = r->wait;
    if (wait != WAIT_DESCRIPTOR)
        fprintf(stderr, "watchdog: block %u, warp %u (%s) waited %.1f s for %s[%u] to complete "
                        "its phase of parity %u: the kernel was stopped\n",
                r->block, w, role, (double)r->waited_ns * 1e-9,
                wait < sizeof wait_names / sizeof *wait_names ? wait_names[wait] : "?", r->index,
                r->parity);
    else
        fprintf(stderr, "watchdog: block %u, warp %u (%s): tile %llu waited %.1f s for tile %lld "
                        "or one before it, which never published its aggregate: the kernel was "
                        "stopped\n",
                r->block, w, role, (unsigned long long)r->tile, (double)r->waited_ns * 1e-9,
                (long long)r->waiting_for);
}

/** Give the pipeline's watchdog somewhere to report: a stall_report in host memory of our own,
    page-locked and mapped so that the GPU writes through to it (it stays readable after a trap,
    when device memory no longer is, and after the CUDA runtime's own clean-up at exit, which
    may unregister it but does not free it), its device address in stall_note, and
    print_stall_report() at exit. */
static void set_up_stall_report(void)
{
    stall_report *host = (stall_report *)aligned_alloc(4096, 4096), *device;
    if (host == NULL)
        cuda_fail(cudaErrorMemoryAllocation, "the watchdog's report", __FILE__, __LINE__);
    memset(host, 0, 4096);
    CUDA_CHECK(cudaHostRegister(host, 4096, cudaHostRegisterMapped));
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&device, host, 0));
    CUDA_CHECK(cudaMemcpyToSymbol(stall_note, &device, sizeof device));
    stall_host = host;
    atexit(print_stall_report);
}

/** What the launcher learns about the GPU on its first call, once: no timed call pays for it. */
typedef struct pipeline_setup {
    int known;     /**< 1 once filled in */
    int runs;      /**< 1: the pipeline runs on this GPU; 0: chapter 08's kernel runs instead */
    unsigned grid; /**< blocks of the persistent grid: BLOCKS_PER_SM per SM, or as many as fit */
} pipeline_setup;

/**
 * \brief Does the pipeline run on this GPU, and with how many blocks? Asked once; where it does
 *        not run, says so on stderr, in one line, once.
 *
 * It runs where the kernel was compiled for compute capability 9.0 or later (the PTX of its
 * image says; a build for older GPUs only has the empty kernel) and its ring fits one block's
 * shared memory (RING_BYTES: 64 KB with 4 stages fit the GPUs with about 100 KB per SM, one
 * block each; 8 stages do not). Only sm_90 has been measured. The dynamic shared memory above
 * 48 KB is allowed here, once. The grid is BLOCKS_PER_SM blocks per SM (fewer if fewer fit, as
 * the occupancy API says), at most MAX_PIPELINE_BLOCKS if that is set.
 */
static pipeline_setup pipeline_here(void)
{
    static pipeline_setup setup = {0, 0, 0};
    if (setup.known)
        return setup;
    setup.known = 1;
    int device, major, minor, sms, optin;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    cudaFuncAttributes attributes;
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, warp_specialised_kernel));
    char why[160] = "";
    int per_sm = 0;
    if (major < 9)
        snprintf(why, sizeof why, "compute capability %d.%d, and the pipeline needs 9.0 (Hopper)",
                 major, minor);
    else if (attributes.ptxVersion < 90)
        snprintf(why, sizeof why, "this build has no code for compute capability 9.0 or later");
    else if (attributes.sharedSizeBytes + PIPELINE_DYNAMIC_BYTES > (size_t)optin)
        snprintf(why, sizeof why, "the ring (%zu bytes of shared memory) does not fit a block (%d)",
                 attributes.sharedSizeBytes + PIPELINE_DYNAMIC_BYTES, optin);
    if (why[0] == '\0') {
        CUDA_CHECK(cudaFuncSetAttribute(warp_specialised_kernel,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)PIPELINE_DYNAMIC_BYTES));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, warp_specialised_kernel,
                                                                 PIPELINE_THREADS,
                                                                 PIPELINE_DYNAMIC_BYTES));
        if (per_sm < 1)
            snprintf(why, sizeof why, "not one block of the pipeline fits an SM");
    }
    if (why[0] != '\0') {
        fprintf(stderr, "11_warp_specialised: %s: the warp-specialised variants run chapter 08's "
                        "kernel instead\n", why);
        return setup;
    }
    setup.runs = 1;
    set_up_stall_report();
    setup.grid = (unsigned)sms * (unsigned)(per_sm < BLOCKS_PER_SM ? per_sm : BLOCKS_PER_SM);
    if (MAX_PIPELINE_BLOCKS > 0 && setup.grid > (unsigned)MAX_PIPELINE_BLOCKS)
        setup.grid = (unsigned)MAX_PIPELINE_BLOCKS;
    return setup;
}

/**
 * \brief The warp-specialised scan, asynchronous on `stream`: clear the scratch, launch the
 *        persistent grid.
 *
 * The scratch contract (chapter 07's, docs/CONVENTIONS.md §9): its contents do not matter before
 * a call; this launcher clears what it uses with one `cudaMemsetAsync` on `stream` before the
 * kernel, so calls with their own scratch may run at once on different streams, and calls that
 * share one must be ordered (one stream, or events). The grid is BLOCKS_PER_SM blocks per SM
 * (pipeline_here()), or one per tile where there are fewer tiles. Below compute capability 9.0
 * chapter 08's kernel runs instead, on this scratch zeroed here: its own contract asks zeros
 * before a call, which a clear in every call keeps.
 * \param d_in       device input, n elements, 16-byte aligned
 * \param d_out      device output, n elements, 16-byte aligned (may equal `d_in`)
 * \param n          element count (0 launches nothing)
 * \param exclusive  1 for exclusive, 0 for inclusive
 * \param d_temp     the scratch
 * \param temp_bytes its size: at least warp_specialised_scratch_bytes(n)
 * \param stream     the stream to launch on
 */
static void warp_specialised_scan_async(const int32_t *d_in, int32_t *d_out, size_t n,
                                        int exclusive, void *d_temp, size_t temp_bytes,
                                        cudaStream_t stream)
{
    const size_t tiles = tile_count(n);
    if (tiles == 0)
        return;
    if (tiles > 0x7fffffffu || temp_bytes < warp_specialised_scratch_bytes(n))
        cuda_fail(cudaErrorInvalidValue, "scratch too small, or too many tiles", __FILE__,
                  __LINE__);
    const pipeline_setup setup = pipeline_here();
    if (!setup.runs) {
        CUDA_CHECK(cudaMemsetAsync(d_temp, 0, lookback_scratch_bytes(n), stream));
        lookback_scan_async(d_in, d_out, n, exclusive, d_temp, lookback_scratch_bytes(n), stream);
        return;
    }
    CUDA_CHECK(cudaMemsetAsync(d_temp, 0, pipeline_scratch_bytes(n), stream));
    unsigned *d_counter = (unsigned *)d_temp;
    unsigned long long *d_descriptors = (unsigned long long *)d_temp + COUNTER_WORDS;
#ifdef GAP_FULL_GRID /* the prototype's grid, for docs/experiments/11_gap_h200.sh only */
    const unsigned grid = setup.grid;
#else
    const unsigned grid = tiles < setup.grid ? (unsigned)tiles : setup.grid;
#endif
    warp_specialised_kernel<<<grid, PIPELINE_THREADS, PIPELINE_DYNAMIC_BYTES, stream>>>(
        d_in, d_out, n, exclusive, d_counter, d_descriptors);
    CUDA_CHECK_LAUNCH();
}

/** Bytes of the `crossover` variant's scratch kept for chapter 08's kernel: enough for any n
    below CROSSOVER_ITEMS, and always this size, as chapter 08's contract asks. */
static size_t crossover_lookback_bytes(void)
{
    return lookback_scratch_bytes(CROSSOVER_ITEMS);
}

/** Scratch of the `crossover` variant: chapter 08's part first, then, for n from
    CROSSOVER_ITEMS on, the pipeline's. */
static size_t crossover_scratch_bytes(size_t n)
{
    return crossover_lookback_bytes() +
           (n >= CROSSOVER_ITEMS ? warp_specialised_scratch_bytes(n) : 0);
}

/**
 * \brief What a caller would use: chapter 08's kernel below CROSSOVER_ITEMS, the pipeline from
 *        there on. Asynchronous on `stream`.
 *
 * The two kernels keep apart in one scratch. Its first crossover_lookback_bytes() are chapter
 * 08's, under chapter 08's contract (zeros before the first call, then only this launcher writes
 * them, always with the same size; the driver zeroes the scratch when it allocates it:
 * gpu_chapter::temp_is_state); the rest is the pipeline's, cleared in every call.
 * \param d_in       device input, n elements, 16-byte aligned
 * \param d_out      device output, n elements, 16-byte aligned (may equal `d_in`)
 * \param n          element count (0 launches nothing)
 * \param exclusive  1 for exclusive, 0 for inclusive
 * \param d_temp     the scratch, as above
 * \param temp_bytes its size: at least crossover_scratch_bytes(n)
 * \param stream     the stream to launch on
 */
static void crossover_scan_async(const int32_t *d_in, int32_t *d_out, size_t n, int exclusive,
                                 void *d_temp, size_t temp_bytes, cudaStream_t stream)
{
    const size_t kept = crossover_lookback_bytes();
    if (temp_bytes < crossover_scratch_bytes(n))
        cuda_fail(cudaErrorInvalidValue, "scratch too small", __FILE__, __LINE__);
    if (n < CROSSOVER_ITEMS)
        lookback_scan_async(d_in, d_out, n, exclusive, d_temp, kept, stream);
    else
        warp_specialised_scan_async(d_in, d_out, n, exclusive, (char *)d_temp + kept,
                                    temp_bytes - kept, stream);
}

/** The ::gpu_temp_fn: each variant's scratch (CUB's for `cub`). */
static size_t chapter_temp_bytes(int variant, size_t n)
{
    switch (variant) {
    case VARIANT_WARP_SPECIALISED:
        return warp_specialised_scratch_bytes(n);
    case VARIANT_CROSSOVER:
        return crossover_scratch_bytes(n);
    case VARIANT_LOOKBACK:
        return lookback_scratch_bytes(n);
    default:
        return n ? cub_scan_temp_bytes(n) : 0;
    }
}

/**
 * \brief The chapter's ::gpu_scan_fn: one of the four variants, on the default stream.
 * \param variant    VARIANT_WARP_SPECIALISED, VARIANT_CROSSOVER, VARIANT_LOOKBACK or VARIANT_CUB
 * \param d_in       device input, n elements, 16-byte aligned
 * \param d_out      device output, n elements, 16-byte aligned (may equal `d_in`)
 * \param n          element count (0 launches nothing)
 * \param exclusive  1 for exclusive, 0 for inclusive
 * \param d_temp     this variant's scratch (chapter_temp_bytes())
 * \param temp_bytes its size
 */
static void chapter_scan(int variant, const int32_t *d_in, int32_t *d_out, size_t n,
                         int exclusive, void *d_temp, size_t temp_bytes)
{
    if (n == 0)
        return;
    switch (variant) {
    case VARIANT_WARP_SPECIALISED:
        warp_specialised_scan_async(d_in, d_out, n, exclusive, d_temp, temp_bytes, 0);
        break;
    case VARIANT_CROSSOVER:
        crossover_scan_async(d_in, d_out, n, exclusive, d_temp, temp_bytes, 0);
        break;
    case VARIANT_LOOKBACK:
        lookback_scan_async(d_in, d_out, n, exclusive, d_temp, temp_bytes, 0);
        break;
    default:
        cub_scan(d_in, d_out, n, exclusive, d_temp, temp_bytes);
    }
}

/** The ::gpu_traffic_fn: chapter 08's model for its kernel (and CUB, as chapter 08 counts it);
    for the pipeline, 2n elements plus each tile's descriptor written twice (its aggregate, and
    cleared by the next call's memset): 16 bytes, the size of 4 elements. The look-ahead's reads
    of descriptors, which L2 serves, are not counted. */
static double chapter_traffic(int variant, size_t n)
{
    const int pipeline = variant == VARIANT_WARP_SPECIALISED ||
                         (variant == VARIANT_CROSSOVER && n >= CROSSOVER_ITEMS);
    if (pipeline && pipeline_here().runs)
        return 2.0 * (double)n + 4.0 * (double)tile_count(n);
    return lookback_traffic(variant, n);
}

/** The ::gpu_describe_fn: tiles, the pipeline's grid and ring, the crossover. */
static void describe_pipeline(size_t n, char *line, size_t len)
{
    const pipeline_setup setup = pipeline_here();
    if (!setup.runs) {
        snprintf(line, len, "n = %zu: %zu tiles of %d; no pipeline on this GPU: every variant but "
                            "cub runs chapter 08's kernel (CUB: %s)",
                 n, tile_count(n), TILE_ITEMS, cub_version());
        return;
    }
    const size_t tiles = tile_count(n);
    snprintf(line, len,
             "n = %zu: %zu tiles of %d; pipeline: %zu persistent blocks of %d warps, %d stages "
             "of 16 KB, %d groups; memset + 1 launch; crossover at %zu (CUB: %s)",
             n, tiles, TILE_ITEMS, tiles < setup.grid ? tiles : (size_t)setup.grid,
             PIPELINE_THREADS / WARP_THREADS, RING_STAGES, CONSUMER_GROUPS,
             (size_t)CROSSOVER_ITEMS, cub_version());
}

/** The default sweep: chapter 08's sizes and 2^22. */
static const size_t DEFAULT_SIZES[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                       (size_t)1 << 22, (size_t)1 << 24, (size_t)1 << 26,
                                       (size_t)1 << 28};

/** Lines printed above the table. */
static const char *const NOTES[] = {
    "warp-specialised: persistent blocks (each size's line says how many); producer (cp.async.bulk "
    "into a ring), reducer (aggregate at landing), prefix warp (look-ahead), consumer groups (scan "
    "in registers)",
    "crossover: chapter 08's kernel below the crossover n (CROSSOVER_ITEMS, measured on an H200; "
    "each size's line says it), the pipeline from there on",
    "decoupled-lookback: chapter 08's kernel, carried unchanged",
    "cub: cub::DeviceScan::InclusiveSum/ExclusiveSum from the CUDA toolkit, on the same buffers",
    NULL};

/** \brief Describe the chapter to the shared driver and run it. */
int main(int argc, char **argv)
{
    const gpu_chapter chapter = {
        .prog = {
            .name = "11_warp_specialised",
            .title = "a warp-specialised persistent scan on Hopper, beside chapter 08 and CUB",
            .variants = VARIANT_NAMES,
            .variant_count = VARIANT_COUNT,
            .default_sizes = DEFAULT_SIZES,
            .default_size_count = (int)(sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]),
            .default_reps = 20,
            .stress = 1,
        },
        .scan = chapter_scan,
        .tile = TILE_ITEMS,
        .repeats = 3,
        .notes = NOTES,
        .temp_bytes = chapter_temp_bytes,
        /* chapter 08's kernel keeps state in its scratch (the crossover's first part too); the
           pipeline's scratch is cleared in every call, so the driver poisons it before each run,
           which checks that the launcher clears it */
        .temp_is_state = 1u << VARIANT_CROSSOVER | 1u << VARIANT_LOOKBACK,
        .traffic = chapter_traffic,
        .describe = describe_pipeline,
    };
    return gpu_chapter_main(argc, argv, &chapter);
}
