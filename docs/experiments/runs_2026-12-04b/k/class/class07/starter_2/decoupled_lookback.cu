/**
 * \file decoupled_lookback.cu
 * \brief Chapter 07: the single-pass scan with decoupled look-back (Merrill & Garland 2016). Each
 *        tile publishes its aggregate as soon as it has one, then finds its exclusive prefix by
 *        adding up its predecessors' descriptors, 32 at a time, back to the nearest one that
 *        already holds an inclusive prefix.
 *
 * What is new since chapter 06: there a block could publish nothing until the block before it had
 * published its inclusive prefix, so the prefixes crossed the grid one round trip through memory
 * per block. Here a descriptor has a third state (paper §4.1), and one warp reads 32 of them at once
 * (paper §4.4):
 *  - `TILE_INVALID`   nothing published yet;
 *  - `TILE_AGGREGATE` the tile's own sum is known: published as soon as the tile is scanned,
 *                     without waiting for anyone;
 *  - `TILE_PREFIX`    the sum of everything up to and including the tile is known.
 * A waiting tile no longer needs its predecessor's prefix: the aggregates of the tiles before it,
 * back to the nearest `TILE_PREFIX`, add up to the same number. The chain is gone; what is left
 * of it is a walk back over descriptors that are, most of the time, already published.
 * Kept from chapter 06: tile ids from an atomic counter, the descriptors and the counter in the
 * caller's scratch, cleared by one `cudaMemsetAsync` before each launch, and the watchdog. The
 * tile is chapter 03's coarsened one: 1024 elements per block, read once into registers and kept
 * there while warp 0 looks back.
 *
 * Build and run: `make chapter-7 && ./run` from the top folder, or `make && ./run` here.
 * Follows Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back" (2016),
 * §4.1–4.4 and Figs 5–6. Every index is a `size_t`; sums are kept in `uint32_t`, so overflow wraps.
 */
#include "cuda_util.h"
#include "gpu_driver.h"

#include <stdint.h>
#include <stdio.h>

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

/** The one variant. */
enum { VARIANT_LOOKBACK, VARIANT_COUNT };

/** Names for `--variant`. */
static const char *const VARIANT_NAMES[VARIANT_COUNT] = {"decoupled-lookback"};

/* ------------------------------------------------------------------------------------------ */
/* Carried over unchanged from chapter 02 (02_warp_shfl/warp_shfl.cu, via chapters 03-06)       */
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
    /* Your part: the inclusive scan of x across the warp's 32 lanes, in registers. Until it is
       written, each lane returns its own value, and the self-test says so. */
    static unsigned said; /* the message once per program, not once per call */
    if (!said && atomicExch(&said, 1u) == 0)
        printf("TODO warp-scan: warp_inclusive_scan() is yours to write (in 02_warp_shfl, then "
               "copied unchanged into the later chapters); read 02_warp_shfl/README.md, "
               "\"The idea\"\n");
    return x;
    /* [end of student part: warp-scan] */
}

/* ------------------------------------------------------------------------------------------ */
/* Carried over unchanged from chapter 03 (03_block_scan/block_scan.cu, via chapters 05-06)     */
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
        /* Your part: the elements of a tile cut short by the end of the array. Until it is
           written, every element of such a tile reads as 0, and the self-test says so. */
        static unsigned said; /* the message once per program, not once per call */
        if (!said && atomicExch(&said, 1u) == 0)
            printf("TODO ragged-load: the short tile of load_tile() is yours to write (in "
                   "03_block_scan, then copied unchanged); read 03_block_scan/README.md, "
                   "\"The code\"\n");
        for (int k = 0; k < ITEMS_PER_THREAD; ++k)
            item[k] = 0;
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
        /* Your part: the results of a tile cut short by the end of the array. Until it is
           written, nothing of such a tile is stored, and the self-test says so. */
        static unsigned said; /* the message once per program, not once per call */
        if (!said && atomicExch(&said, 1u) == 0)
            printf("TODO ragged-store: the short tile of store_tile() is yours to write (in "
                   "03_block_scan, then copied unchanged); read 03_block_scan/README.md, "
                   "\"The code\"\n");
        /* [end of student part: ragged-store] */
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Carried over unchanged from chapter 06 (06_chained_scan/chained_scan.cu)                     */
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
/* The lesson: descriptors with three states, and the look-back                                 */
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
    /* Your part: publish this tile's aggregate (tile 0's is already its inclusive prefix).
       Until it is written, every tile publishes an inclusive prefix of 0: wrong, but a
       look-back of yours then ends at once instead of waiting for a tile that never publishes. */
    static unsigned said; /* the message once per program, not once per call */
    if (!said && atomicExch(&said, 1u) == 0)
        printf("TODO publish-aggregate: publish_aggregate() is yours to write (in "
               "07_decoupled_lookback, then copied unchanged); read "
               "07_decoupled_lookback/README.md, \"The idea\"\n");
    store_descriptor(descriptors + tile, pack_descriptor(TILE_PREFIX, 0u));
    (void)aggregate;
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
    /* Your part: the look-back of one warp over its predecessors' descriptors, 32 at a time,
       back to the nearest inclusive prefix; publish this tile's inclusive prefix; return its
       exclusive prefix. Until it is written it returns 0 at once: nothing waits, so the stub
       cannot hang the kernel, and the self-test says what is wrong. */
    static unsigned said; /* the message once per program, not once per call */
    if (!said && atomicExch(&said, 1u) == 0)
        printf("TODO look-back: look_back() is yours to write (in 07_decoupled_lookback, then "
               "copied unchanged); read 07_decoupled_lookback/README.md, \"The idea\"\n");
    (void)descriptors;
    (void)tile;
    (void)aggregate;
    return 0;
    /* [end of student part: look-back] */
}

/**
 * \brief The single-pass scan: draw a tile id, load and scan the tile, publish its aggregate,
 *        look back for its exclusive prefix, store.
 *
 * The id comes from the counter, not from blockIdx.x (chapter 06): every smaller id then belongs
 * to a block that is already running, so every wait ends. The tile stays in registers while its
 * warp 0 looks back; the other warps wait at the barrier.
 * \param in          input, n elements, 16-byte aligned
 * \param out         output, n elements, 16-byte aligned (may be `in`: a block reads all of its
 *                    tile before it writes any of it, and writes only its own)
 * \param n           element count
 * \param descriptors one word per tile, all TILE_INVALID (0) at launch
 * \param next_tile   the tile counter, 0 at launch
 * \param exclusive   1 for exclusive, 0 for inclusive
 * \pre blockDim.x == COARSE_THREADS; gridDim.x == number of tiles.
 * \warning Two launches that share `descriptors` or `next_tile` must not run at the same time.
 */
__global__ void lookback_scan_kernel(const int32_t *in, int32_t *out, size_t n,
                                     unsigned long long *descriptors, unsigned *next_tile,
                                     int exclusive)
{
    __shared__ unsigned tile_id;
    __shared__ uint32_t tile_exclusive_prefix;
    /* [student part: tile-draw; explained in 07_decoupled_lookback/README.md, "The idea"] */
    /* Your part: give this block its tile id, so that every smaller id belongs to a block that
       is already running. Until it is written, the id is blockIdx.x, which the notes explain
       is not enough. */
    if (threadIdx.x == 0) {
        static unsigned said; /* the message once per program, not once per block */
        if (!said && atomicExch(&said, 1u) == 0)
            printf("TODO tile-draw: the tile id of lookback_scan_kernel() is yours to write; "
                   "read 07_decoupled_lookback/README.md, \"The idea\"\n");
        tile_id = blockIdx.x;
    }
    (void)next_tile;
    /* [end of student part: tile-draw] */
    __syncthreads(); /* tile_id is written */
    const size_t tile_first = (size_t)tile_id * TILE_ITEMS;

    uint32_t item[ITEMS_PER_THREAD], aggregate;
    load_tile(in, n, tile_first, item);
    const uint32_t thread_prefix = block_scan_tile(item, &aggregate);
    if (threadIdx.x < WARP_THREADS) {
        if (threadIdx.x == 0)
            publish_aggregate(descriptors, tile_id, aggregate);
        const uint32_t prefix = look_back(descriptors, tile_id, aggregate);
        if (threadIdx.x == 0)
            tile_exclusive_prefix = prefix;
    }
    __syncthreads(); /* tile_exclusive_prefix is written */
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

/** The ::gpu_temp_fn: one descriptor per tile, and the counter. */
static size_t lookback_temp_bytes(int variant, size_t n)
{
    (void)variant;
    return n ? (tile_count(n) + 1) * sizeof(unsigned long long) : 0;
}

/**
 * \brief The ::gpu_traffic_fn: each element read once and written once (2n), plus each tile's
 *        descriptor written twice (aggregate, then prefix): 16 bytes, the size of 4 elements.
 *        The look-backs' reads of descriptors are not counted.
 */
static double lookback_traffic(int variant, size_t n)
{
    (void)variant;
    return 2.0 * (double)n + 4.0 * (double)tile_count(n);
}

/**
 * \brief The chapter's ::gpu_scan_fn: clear the descriptors and the counter, launch one block per
 *        tile. Asynchronous, on the default stream.
 * \param variant    VARIANT_LOOKBACK
 * \param d_in       device input, n elements, 16-byte aligned
 * \param d_out      device output, n elements, 16-byte aligned (may equal `d_in`)
 * \param n          element count (0 launches nothing)
 * \param exclusive  1 for exclusive, 0 for inclusive
 * \param d_temp     lookback_temp_bytes(variant, n) bytes (contents do not matter: cleared here)
 * \param temp_bytes its size: at least lookback_temp_bytes(); only that much is cleared. A
 *                   smaller scratch, or more tiles than one grid may have (2^31 − 1), is a CUDA
 *                   error (exit 3) before anything is launched.
 */
static void lookback_scan(int variant, const int32_t *d_in, int32_t *d_out, size_t n,
                          int exclusive, void *d_temp, size_t temp_bytes)
{
    const size_t tiles = tile_count(n);
    if (tiles == 0)
        return;
    if (tiles > 0x7fffffffu || temp_bytes < lookback_temp_bytes(variant, n))
        cuda_fail(cudaErrorInvalidValue, "scratch too small, or too many tiles for one grid",
                  __FILE__, __LINE__);
    unsigned long long *d_descriptors = (unsigned long long *)d_temp;
    unsigned *d_next_tile = (unsigned *)(d_descriptors + tiles);
    CUDA_CHECK(cudaMemsetAsync(d_temp, 0, lookback_temp_bytes(variant, n), 0));
    lookback_scan_kernel<<<(unsigned)tiles, COARSE_THREADS>>>(d_in, d_out, n, d_descriptors,
                                                              d_next_tile, exclusive);
    CUDA_CHECK_LAUNCH();
}

/** The ::gpu_describe_fn: tiles, and how many of them the GPU runs at once. */
static void describe_tiles(size_t n, char *line, size_t len)
{
    int device, sms, per_sm;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, lookback_scan_kernel,
                                                             COARSE_THREADS, 0));
    snprintf(line, len,
             "n = %zu: %zu tiles of %d, one block each, %d resident per SM x %d SMs = %d at once; "
             "memset + 1 kernel launch",
             n, tile_count(n), TILE_ITEMS, per_sm, sms, per_sm * sms);
}

/** The default sweep: one tile, in L2, and beyond the H200's L2 (`L2 60 MiB`, the first line of
    `./run` says). */
static const size_t DEFAULT_SIZES[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                       (size_t)1 << 24, (size_t)1 << 26, (size_t)1 << 28};

/** Lines printed above the table. */
static const char *const NOTES[] = {
    "one pass: every tile publishes its aggregate at once; its warp 0 looks back 32 tiles at a time",
    NULL};

/** \brief Describe the chapter to the shared driver and run it. */
int main(int argc, char **argv)
{
    const gpu_chapter chapter = {
        .prog = {
            .name = "07_decoupled_lookback",
            .title = "single-pass scan with decoupled look-back (Merrill & Garland 2016)",
            .variants = VARIANT_NAMES,
            .variant_count = VARIANT_COUNT,
            .default_sizes = DEFAULT_SIZES,
            .default_size_count = (int)(sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]),
            .default_reps = 20,
            .stress = 1,
        },
        .scan = lookback_scan,
        .tile = TILE_ITEMS,
        .repeats = 3,
        .notes = NOTES,
        .temp_bytes = lookback_temp_bytes,
        .traffic = lookback_traffic,
        .describe = describe_tiles,
    };
    return gpu_chapter_main(argc, argv, &chapter);
}
