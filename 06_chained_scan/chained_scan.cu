/**
 * \file chained_scan.cu
 * \brief Chapter 06: the chained scan, one kernel: each block reads its chunk once into shared
 *        memory and reduces it, waits for the block before it to publish its inclusive prefix,
 *        publishes its own, then scans the chunk it holds and writes it.
 *
 * What is new since chapter 05: the aggregates no longer go through a second kernel, and the data
 * is read once, not twice. Block b hands its prefix to block b+1 directly, through a *descriptor*
 * in global memory: one 64-bit word holding a state (`TILE_INVALID` until published, then
 * `TILE_PREFIX`) and the inclusive prefix itself. While it waits, the block keeps its chunk on
 * chip, so every element is read once and written once: 2n, the traffic of a copy (paper §3).
 * Three things make the hand-over safe:
 *  - block order: a block takes its chunk number from an atomic counter, not from blockIdx.x.
 *    CUDA does not promise to start blocks in blockIdx order; a block that spins waiting for a
 *    chunk whose block has not started can keep that block from ever starting (it holds the SM
 *    slot). Numbers drawn in order always belong to blocks that are already running.
 *  - memory order: state and value are one aligned 64-bit word, stored and loaded with one
 *    relaxed GPU-scope instruction each: morally strong accesses of the same 8 bytes, so
 *    single-copy atomic (PTX ISA §8.7, §8.10.3), and a reader sees both or neither. Nothing else
 *    is read on the strength of the state, so no fence is needed.
 *  - a watchdog: a block that waits more than 5 s stops the kernel with a message (exit 3)
 *    instead of hanging the GPU.
 * The price is the chain itself: block b+1 cannot publish before block b has, so the prefixes
 * cross the grid one round trip through global memory per chunk, and a chunk can be no larger
 * than one block's shared memory. The `held-` variants measure that latency bound against the
 * chunk size, up to the largest chunk this GPU's shared memory holds; `reread-256tiles` shows
 * the trade that escapes it: chunks larger than shared memory holds, each read twice (3n).
 * Chapter 07 breaks the chain.
 *
 * Build and run: `make chapter-6 && ./run` from the top folder, or `make && ./run` here.
 * Follows Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back" (2016),
 * §3 and Fig 4 (the chained scan, after Yan, Long & Zhang's StreamScan, 2013). Every index is a
 * `size_t`; sums are kept in `uint32_t`, so overflow wraps.
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
/** Bytes of one tile in shared memory. */
#define TILE_BYTES (TILE_ITEMS * sizeof(int32_t))
/** 16-byte vectors per thread and tile (two). */
#define VECTORS_PER_THREAD (ITEMS_PER_THREAD / 4)

/** Descriptor state: nothing published yet (the launcher clears every descriptor to 0). */
#define TILE_INVALID 0u
/** Descriptor state: the value is the chunk's inclusive prefix. (Chapter 07 adds a third.) */
#define TILE_PREFIX 2u

/** How long a block may wait for its predecessor before the watchdog stops the kernel. */
#define WATCHDOG_NS 5000000000ull
/** Spins between two looks at the clock. */
#define WATCHDOG_SPINS 256u

/**
 * The variants: the chained scan with chunks of 1, 4 and 16 tiles and the largest chunk the
 * GPU's shared memory holds, each read once (2n); and chunks of 256 tiles, read twice (3n).
 */
enum {
    VARIANT_HELD_1,
    VARIANT_HELD_4,
    VARIANT_HELD_16,
    VARIANT_HELD_MAX,
    VARIANT_REREAD_256,
    VARIANT_COUNT
};

/** Names for `--variant`. */
static const char *const VARIANT_NAMES[VARIANT_COUNT] = {
    "held-1tile", "held-4tiles", "held-16tiles", "held-max", "reread-256tiles"};
/** Tiles per chunk of each variant; 0: as many as one block's shared memory holds. */
static const size_t CHUNK_TILES[VARIANT_COUNT] = {1, 4, 16, 0, 256};

/* ------------------------------------------------------------------------------------------ */
/* Carried over unchanged from chapter 02 (02_warp_shfl/warp_shfl.cu, via chapters 03-05)       */
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
/* Carried over unchanged from chapter 03 (03_block_scan/block_scan.cu, via chapter 05)         */
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
/* Carried over unchanged from chapter 05 (05_reduce_then_scan/reduce_then_scan.cu)             */
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

/* ------------------------------------------------------------------------------------------ */
/* The lesson: descriptors, a spin with a watchdog, the chain, the chunk held on chip           */
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

/**
 * \brief Wait for chunk `chunk − 1` to publish its inclusive prefix, then publish this chunk's
 *        (that prefix plus `aggregate`). Returns this chunk's exclusive prefix.
 * \param descriptors one word per chunk: TILE_PREFIX in the high half, the value in the low
 * \param chunk       this chunk's number
 * \param aggregate   this chunk's sum
 * \pre Called by one thread.
 */
__device__ uint32_t wait_and_publish(unsigned long long *descriptors, unsigned long long chunk,
                                     uint32_t aggregate)
{
    /* [student part: wait-and-publish; explained in 06_chained_scan/README.md, "The idea"] */
    uint32_t exclusive = 0;
    if (chunk > 0) {
        unsigned long long word;
        unsigned spins = 0;
        unsigned long long since = 0;
        /* the chain: nothing to do but wait for one word from the block before (the watchdog,
           carried over to chapters where a block owns one tile, calls these chunks "tile") */
        while ((word = load_descriptor(&descriptors[chunk - 1])) >> 32 != TILE_PREFIX)
            watchdog(&spins, &since, chunk, (long long)chunk - 1);
        exclusive = (uint32_t)word;
    }
    store_descriptor(&descriptors[chunk],
                     (unsigned long long)TILE_PREFIX << 32 | (uint32_t)(exclusive + aggregate));
    return exclusive;
    /* [end of student part: wait-and-publish] */
}

/**
 * \brief Keep this thread's elements of tile `tile` of the chunk in shared memory, for
 *        unstash_tile() to give back after the wait.
 *
 * Each thread reads back only what it wrote, so no barrier is needed between the two. The two
 * 16-byte vectors of a thread lie COARSE_THREADS vectors apart, so that consecutive threads store
 * consecutive vectors: 512 contiguous bytes per warp instruction.
 * \param held the chunk in shared memory: TILE_ITEMS elements per tile
 * \param tile the tile's number within the chunk
 * \param item the thread's elements, as load_tile() gives them
 */
__device__ void stash_tile(uint4 *held, size_t tile, const uint32_t item[ITEMS_PER_THREAD])
{
    for (int v = 0; v < VECTORS_PER_THREAD; ++v)
        held[(tile * VECTORS_PER_THREAD + v) * COARSE_THREADS + threadIdx.x] =
            make_uint4(item[4 * v], item[4 * v + 1], item[4 * v + 2], item[4 * v + 3]);
}

/**
 * \brief Give back this thread's elements of tile `tile`, as stash_tile() kept them.
 * \param held the chunk in shared memory
 * \param tile the tile's number within the chunk
 * \param item receives the thread's elements
 */
__device__ void unstash_tile(const uint4 *held, size_t tile, uint32_t item[ITEMS_PER_THREAD])
{
    for (int v = 0; v < VECTORS_PER_THREAD; ++v) {
        const uint4 q = held[(tile * VECTORS_PER_THREAD + v) * COARSE_THREADS + threadIdx.x];
        item[4 * v] = q.x;
        item[4 * v + 1] = q.y;
        item[4 * v + 2] = q.z;
        item[4 * v + 3] = q.w;
    }
}

/**
 * \brief The chained scan (paper §3, Fig 4): draw a chunk number; read the chunk into shared
 *        memory and reduce it; wait for the predecessor's inclusive prefix and publish this one;
 *        scan the chunk held on chip, seeded with that prefix, and write it.
 *
 * Each element is read once and written once (2n). The chunk is at most what one block's shared
 * memory holds, so the chain has at least n / (that many elements) links, one round trip through
 * global memory each.
 * \param in              input, n elements, 16-byte aligned
 * \param out             output, n elements, 16-byte aligned (may be `in`: a block reads all of
 *                        its chunk before it writes any of it, and writes only its own)
 * \param n               element count
 * \param tiles_per_chunk tiles in every chunk (the last may have fewer); the launch gives the
 *                        block tiles_per_chunk × TILE_BYTES bytes of dynamic shared memory
 * \param descriptors     one word per chunk, all TILE_INVALID (0) at launch
 * \param next_chunk      the chunk counter, 0 at launch
 * \param exclusive       1 for exclusive, 0 for inclusive
 * \pre blockDim.x == COARSE_THREADS; gridDim.x == number of chunks.
 * \warning Drawing the chunk from blockIdx.x instead of `next_chunk` can deadlock (see the notes).
 */
__global__ void chained_scan_kernel(const int32_t *in, int32_t *out, size_t n,
                                    size_t tiles_per_chunk, unsigned long long *descriptors,
                                    unsigned *next_chunk, int exclusive)
{
    extern __shared__ uint4 held[]; /* the chunk, on chip while the block waits */
    __shared__ unsigned chunk_id;
    __shared__ uint32_t chunk_prefix;
    if (threadIdx.x == 0)
        chunk_id = atomicAdd(next_chunk, 1u);
    __syncthreads(); /* chunk_id is written */
    const size_t chunk_first = (size_t)chunk_id * tiles_per_chunk * TILE_ITEMS;
    const size_t tiles_left = (n - chunk_first + TILE_ITEMS - 1) / TILE_ITEMS;
    const size_t tiles = tiles_left < tiles_per_chunk ? tiles_left : tiles_per_chunk;

    /* 1. read the chunk once, keep it, and reduce it (unrolled by four: four tiles' loads can be
          in flight at once) */
    uint32_t sum = 0;
#pragma unroll 4
    for (size_t t = 0; t < tiles; ++t) {
        uint32_t item[ITEMS_PER_THREAD];
        load_tile(in, n, chunk_first + t * TILE_ITEMS, item);
        for (int k = 0; k < ITEMS_PER_THREAD; ++k)
            sum += item[k];
        stash_tile(held, t, item);
    }
    const uint32_t aggregate = block_reduce(sum);

    /* 2. the chain: the one serial step */
    if (threadIdx.x == 0)
        chunk_prefix = wait_and_publish(descriptors, chunk_id, aggregate);
    __syncthreads(); /* chunk_prefix is written; block_reduce()'s totals are read */

    /* 3. scan the chunk held on chip, tile by tile, and write it */
    uint32_t carry = chunk_prefix;
    for (size_t t = 0; t < tiles; ++t) {
        uint32_t item[ITEMS_PER_THREAD], tile_aggregate;
        unstash_tile(held, t, item);
        const uint32_t prefix = block_scan_tile(item, &tile_aggregate);
        store_tile(out, n, chunk_first + t * TILE_ITEMS, item, carry + prefix, exclusive);
        carry += tile_aggregate;
        __syncthreads(); /* block_scan_tile()'s shared totals are rewritten by the next tile */
    }
}

/**
 * \brief The trade (variant `reread-256tiles`): the chained scan with a chunk larger than shared
 *        memory holds, so it reads the chunk twice: to reduce it before the wait, and again to
 *        scan it after (3n, as chapter 05). Fewer, larger chunks make a shorter chain.
 *
 * The traffic model counts both reads from DRAM; a cache may serve part of the second one (not
 * measured).
 * \param in              input, n elements, 16-byte aligned
 * \param out             output, n elements, 16-byte aligned (may be `in`: a block reads each
 *                        element before writing it, and only its own)
 * \param n               element count
 * \param tiles_per_chunk tiles in every chunk (the last may be shorter)
 * \param descriptors     one word per chunk, all TILE_INVALID (0) at launch
 * \param next_chunk      the chunk counter, 0 at launch
 * \param exclusive       1 for exclusive, 0 for inclusive
 * \pre blockDim.x == COARSE_THREADS; gridDim.x == number of chunks.
 * \warning Drawing the chunk from blockIdx.x instead of `next_chunk` can deadlock (see the notes).
 */
__global__ void reread_scan_kernel(const int32_t *in, int32_t *out, size_t n,
                                   size_t tiles_per_chunk, unsigned long long *descriptors,
                                   unsigned *next_chunk, int exclusive)
{
    __shared__ unsigned chunk_id;
    __shared__ uint32_t chunk_prefix;
    if (threadIdx.x == 0)
        chunk_id = atomicAdd(next_chunk, 1u);
    __syncthreads(); /* chunk_id is written */
    const size_t chunk_first = (size_t)chunk_id * tiles_per_chunk * TILE_ITEMS;
    const size_t chunk_end = chunk_first + tiles_per_chunk * TILE_ITEMS;

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
        chunk_prefix = wait_and_publish(descriptors, chunk_id, aggregate);
    __syncthreads(); /* chunk_prefix is written; block_reduce()'s totals are read */

    uint32_t carry = chunk_prefix;
    for (size_t tile_first = chunk_first; tile_first < chunk_end && tile_first < n;
         tile_first += TILE_ITEMS) {
        uint32_t item[ITEMS_PER_THREAD], tile_aggregate;
        load_tile(in, n, tile_first, item);
        const uint32_t prefix = block_scan_tile(item, &tile_aggregate);
        store_tile(out, n, tile_first, item, carry + prefix, exclusive);
        carry += tile_aggregate;
        __syncthreads(); /* block_scan_tile()'s shared totals are rewritten by the next tile */
    }
}


/* ------------------------------------------------------------------------------------------ */
/* Host launcher                                                                                */
/* ------------------------------------------------------------------------------------------ */

/** The largest chunk, in tiles, one block's shared memory holds on this GPU (0: not asked yet). */
static size_t g_max_held_tiles;
/** The table's chunk column: elements per chunk of each variant, written by chunk_tiles(). */
static char g_chunk_text[VARIANT_COUNT][24];
/** The cells of the chunk column (gpu_chapter::extra), pointing into g_chunk_text. */
static const char *g_chunk_column[VARIANT_COUNT];

/**
 * \brief Tiles per chunk of a variant on this GPU: CHUNK_TILES, but a held chunk no larger than
 *        the shared memory one block may have (the opt-in limit, less the kernel's own static
 *        shared memory). Asked once; the first call also raises the kernel's dynamic shared
 *        memory limit to that size (above 48 KB it must be asked for) and fills the chunk column.
 */
static size_t chunk_tiles(int variant)
{
    if (g_max_held_tiles == 0) {
        int device, optin;
        cudaFuncAttributes kernel;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        CUDA_CHECK(cudaFuncGetAttributes(&kernel, chained_scan_kernel));
        g_max_held_tiles = ((size_t)optin - kernel.sharedSizeBytes) / TILE_BYTES;
        CUDA_CHECK(cudaFuncSetAttribute(chained_scan_kernel,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)(g_max_held_tiles * TILE_BYTES)));
        for (int v = 0; v < VARIANT_COUNT; ++v) {
            snprintf(g_chunk_text[v], sizeof g_chunk_text[v], "%zu", chunk_tiles(v) * TILE_ITEMS);
            g_chunk_column[v] = g_chunk_text[v];
        }
    }
    if (variant == VARIANT_REREAD_256)
        return CHUNK_TILES[variant];
    const size_t wanted = CHUNK_TILES[variant];
    return wanted != 0 && wanted < g_max_held_tiles ? wanted : g_max_held_tiles;
}

/** Chunks of n elements for a variant: the links of its chain. */
static size_t chunk_count(int variant, size_t n)
{
    const size_t chunk_items = chunk_tiles(variant) * TILE_ITEMS;
    return (n + chunk_items - 1) / chunk_items;
}

/**
 * \brief The ::gpu_temp_fn: one descriptor per chunk, and the counter. The driver asks it before
 *        it prints any row, so it also fills the chunk column (through chunk_tiles()), n = 0 too.
 */
static size_t chained_temp_bytes(int variant, size_t n)
{
    const size_t chunks = chunk_count(variant, n);
    return n ? (chunks + 1) * sizeof(unsigned long long) : 0;
}

/**
 * \brief The ::gpu_traffic_fn: each element read once and written once (2n), or read twice by
 *        `reread-256tiles` (3n), plus a descriptor written and read per chunk (16 bytes, the
 *        size of 4 elements).
 */
static double chained_traffic(int variant, size_t n)
{
    const double reads = variant == VARIANT_REREAD_256 ? 2.0 : 1.0;
    return (reads + 1.0) * (double)n + 4.0 * (double)chunk_count(variant, n);
}

/**
 * \brief The chapter's ::gpu_scan_fn: clear the descriptors and the counter, launch one block
 *        per chunk. Asynchronous, on the default stream.
 * \param variant   a `held-` variant (chained_scan_kernel), or VARIANT_REREAD_256
 *                  (reread_scan_kernel)
 * \param d_in      device input, n elements, 16-byte aligned
 * \param d_out     device output, n elements, 16-byte aligned (may equal `d_in`)
 * \param n         element count (0 launches nothing)
 * \param exclusive 1 for exclusive, 0 for inclusive
 * \param d_temp    chained_temp_bytes(variant, n) bytes (contents do not matter: cleared here)
 * \param temp_bytes its size: at least chained_temp_bytes() (only that much is cleared)
 */
static void chained_scan(int variant, const int32_t *d_in, int32_t *d_out, size_t n,
                         int exclusive, void *d_temp, size_t temp_bytes)
{
    const size_t tiles_per_chunk = chunk_tiles(variant);
    const size_t chunks = chunk_count(variant, n);
    if (chunks == 0)
        return;
    if (chunks > 0x7fffffffu || temp_bytes < chained_temp_bytes(variant, n))
        cuda_fail(cudaErrorInvalidValue, "scratch too small, or too many chunks for one grid",
                  __FILE__, __LINE__);
    unsigned long long *d_descriptors = (unsigned long long *)d_temp;
    unsigned *d_next_chunk = (unsigned *)(d_descriptors + chunks);
    /* a second operation per call, only to clear: chapter 08 does without it */
    CUDA_CHECK(cudaMemsetAsync(d_temp, 0, chained_temp_bytes(variant, n), 0));
    if (variant == VARIANT_REREAD_256)
        reread_scan_kernel<<<(unsigned)chunks, COARSE_THREADS>>>(
            d_in, d_out, n, tiles_per_chunk, d_descriptors, d_next_chunk, exclusive);
    else
        chained_scan_kernel<<<(unsigned)chunks, COARSE_THREADS, tiles_per_chunk * TILE_BYTES>>>(
            d_in, d_out, n, tiles_per_chunk, d_descriptors, d_next_chunk, exclusive);
    CUDA_CHECK_LAUNCH();
}

/** The ::gpu_describe_fn: each variant's links (chunks), and its blocks resident per SM. */
static void describe_chain(size_t n, char *line, size_t len)
{
    int device, sms;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    int used = snprintf(line, len, "n = %zu on %d SMs, chunks (links of the chain) / resident "
                                   "blocks per SM:", n, sms);
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        int per_sm;
        if (v == VARIANT_REREAD_256)
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reread_scan_kernel,
                                                                     COARSE_THREADS, 0));
        else
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm, chained_scan_kernel, COARSE_THREADS, chunk_tiles(v) * TILE_BYTES));
        used += snprintf(line + used, used < (int)len ? len - used : 0, " %s %zu/%d",
                         VARIANT_NAMES[v], chunk_count(v, n), per_sm);
    }
    snprintf(line + used, used < (int)len ? len - used : 0, "; memset + 1 kernel launch");
}

/** The default sweep: one tile, in L2, and beyond the 60 MB L2 of an H200. */
static const size_t DEFAULT_SIZES[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                       (size_t)1 << 24, (size_t)1 << 26, (size_t)1 << 28};

/** Lines printed above the table. */
static const char *const NOTES[] = {
    "a chain: every chunk waits for the one before, so time >= chunks x (one round trip through "
    "global memory)",
    "chunk: elements per block and per link; held-: read once and held in shared memory (2n), "
    "reread-: read twice (3n)",
    NULL};

/** \brief Describe the chapter to the shared driver and run it. */
int main(int argc, char **argv)
{
    const gpu_chapter chapter = {
        .prog = {
            .name = "06_chained_scan",
            .title = "chained scan: one kernel, each chunk held on chip while it waits for its "
                     "predecessor's inclusive prefix",
            .variants = VARIANT_NAMES,
            .variant_count = VARIANT_COUNT,
            .default_sizes = DEFAULT_SIZES,
            .default_size_count = (int)(sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]),
            .default_reps = 5,
            .stress = 1,
            .test_big_case = 1, /* make test's n > 2^31 case of the chained scans */
        },
        .scan = chained_scan,
        .tile = TILE_ITEMS,
        .repeats = 3,
        .extra_title = "chunk",
        .extra = g_chunk_column,
        .notes = NOTES,
        .temp_bytes = chained_temp_bytes,
        .traffic = chained_traffic,
        .describe = describe_chain,
    };
    return gpu_chapter_main(argc, argv, &chapter);
}
