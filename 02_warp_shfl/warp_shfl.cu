/**
 * \file warp_shfl.cu
 * \brief Chapter 02: a warp scans 32 elements in registers with `__shfl_up_sync`, beside the same
 *        scan in shared memory and the classic work-efficient (Blelloch) scan.
 *
 * What is new since chapter 01: the GPU. A warp's 32 lanes run the Kogge-Stone network
 * (log2 32 = 5 steps), each step one shuffle that reads a register of the lane `offset` below.
 * The program scans every 32-element segment on its own (a segmented scan): one warp per
 * segment, no communication between warps, so the lesson is the warp scan itself.
 * Variants: `shfl` (registers), `smem` (the same network through shared memory, with the
 * `__syncwarp()` each step needs), `blelloch` (up-sweep/down-sweep in shared memory on a
 * 256-thread block, the older work-efficient exclusive scan).
 *
 * Build and run: `make chapter-2 && ./run` from the top folder, or `make && ./run` here.
 * Follows Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back" (2016),
 * Fig 1 (the Kogge-Stone and Brent-Kung networks) and Fig 2 (warp-synchronous Kogge-Stone at the
 * bottom of every block scan).
 *
 * Sums are kept in `uint32_t`: unsigned overflow wraps by definition, signed overflow is
 * undefined in C and C++. The bits are the same as int32 addition that wraps.
 */
#include "cuda_util.h"
#include "gpu_driver.h"

#include <stdint.h>
#include <stdio.h>

/** Threads of one warp: the segment length of this chapter. */
#define WARP_THREADS 32
/** Every lane of the warp: the mask of a shuffle that all 32 lanes must execute. */
#define FULL_MASK 0xffffffffu
/** Threads per block of the `shfl` and `smem` variants (8 warps, 8 segments). */
#define BLOCK_THREADS 256
/** The `blelloch` variant: 256 threads, two elements each, so 16 segments per block. */
#define BLELLOCH_THREADS 256
/** Elements one `blelloch` block scans. */
#define BLELLOCH_ITEMS (2 * BLELLOCH_THREADS)

/** The variants, in table order. */
enum { VARIANT_SHFL, VARIANT_SMEM, VARIANT_BLELLOCH, VARIANT_COUNT };

/** Names for `--variant`. */
static const char *const VARIANT_NAMES[VARIANT_COUNT] = {"shfl", "smem", "blelloch"};

/** Synchronisations per 32-element segment (the table's last column; see each kernel). */
static const char *const VARIANT_SYNCS[VARIANT_COUNT] = {"0", "11 warp", "11 block"};

/* ------------------------------------------------------------------------------------------ */
/* The lesson: three ways to scan 32 elements                                                   */
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

/**
 * \brief `shfl`: one element per thread, one warp per 32-element segment, scanned in registers.
 *
 * A partial last segment (n not a multiple of 32) is handled by the lanes past the end taking
 * part with the identity, 0, and storing nothing. No thread returns early: every lane of every
 * warp reaches every shuffle, which is what FULL_MASK promises.
 * \param in        input, n elements
 * \param out       output, n elements; may not overlap `in` unless equal to it
 * \param n         element count
 * \param exclusive 1 for an exclusive scan of each segment, 0 for inclusive
 * \pre blockDim.x == BLOCK_THREADS; gridDim.x * BLOCK_THREADS >= n.
 */
__global__ void warp_scan_shfl_kernel(const int32_t *in, int32_t *out, size_t n, int exclusive)
{
    const size_t i = (size_t)blockIdx.x * BLOCK_THREADS + threadIdx.x;
    const uint32_t x = i < n ? (uint32_t)in[i] : 0;
    const uint32_t inclusive = warp_inclusive_scan(x);
    const uint32_t result = exclusive ? warp_exclusive_from_inclusive(inclusive) : inclusive;
    if (i < n)
        out[i] = (int32_t)result;
}

/**
 * \brief The same Kogge-Stone network through shared memory, one warp per 32 slots.
 *
 * Each step reads the slot `offset` below, then writes its own slot. Since Volta the lanes of a
 * warp are not guaranteed to run in lockstep, so two `__syncwarp()` per step are required: one
 * after the reads (no lane may overwrite a slot another lane has yet to read) and one after the
 * writes (no lane may read before the slot is written). With the one after the first store that
 * makes 1 + 2·5 = 11 per segment.
 * \param x    this lane's value
 * \param slot this warp's 32 slots of shared memory
 * \return the inclusive scan value of this lane
 * \pre All 32 lanes of the warp call it together.
 */
__device__ uint32_t warp_inclusive_scan_smem(uint32_t x, uint32_t *slot)
{
    const int lane = threadIdx.x % WARP_THREADS;
    slot[lane] = x;
    __syncwarp();
    for (int offset = 1; offset < WARP_THREADS; offset *= 2) {
        uint32_t below = lane >= offset ? slot[lane - offset] : 0;
        __syncwarp(); /* every read of this step is done before any write */
        x += below;
        slot[lane] = x;
        __syncwarp(); /* every write is done before the next step reads */
    }
    return x;
}

/**
 * \brief `smem`: like `shfl`, but the warp scan goes through shared memory.
 * \param in        input, n elements
 * \param out       output, n elements
 * \param n         element count
 * \param exclusive 1 for exclusive, 0 for inclusive
 * \pre blockDim.x == BLOCK_THREADS; gridDim.x * BLOCK_THREADS >= n.
 */
__global__ void warp_scan_smem_kernel(const int32_t *in, int32_t *out, size_t n, int exclusive)
{
    __shared__ uint32_t slots[BLOCK_THREADS];
    const size_t i = (size_t)blockIdx.x * BLOCK_THREADS + threadIdx.x;
    const uint32_t x = i < n ? (uint32_t)in[i] : 0;
    uint32_t *slot = slots + (threadIdx.x / WARP_THREADS) * WARP_THREADS;
    const uint32_t inclusive = warp_inclusive_scan_smem(x, slot);
    if (i < n)
        out[i] = (int32_t)(exclusive ? inclusive - x : inclusive);
}

/**
 * \brief `blelloch`: the work-efficient exclusive scan of each 32-element segment, 16 threads per
 *        segment, two elements per thread, in shared memory with block-wide barriers.
 *
 * Up-sweep: 5 levels build a reduction tree in place (16, 8, 4, 2, 1 additions: 31 in all).
 * The root is replaced by 0, then 5 down-sweep levels push prefixes down the tree (31 additions
 * and 31 swaps). Size 62 instead of Kogge-Stone's 129, depth 10 instead of 5, and every level is a
 * `__syncthreads()`: 5 in the up-sweep (the first also waits for the loads), 5 in the
 * down-sweep, 1 before the results are read = 11.
 * That is the trade this chapter measures: fewer additions, twice the depth, a barrier per step.
 * \param in        input, n elements
 * \param out       output, n elements
 * \param n         element count
 * \param exclusive 1 for exclusive (what the tree gives), 0 for inclusive (add the element back)
 * \pre blockDim.x == BLELLOCH_THREADS; gridDim.x * BLELLOCH_ITEMS >= n.
 */
__global__ void blelloch_scan_kernel(const int32_t *in, int32_t *out, size_t n, int exclusive)
{
    __shared__ uint32_t tree[BLELLOCH_ITEMS];
    const int t = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * BLELLOCH_ITEMS;
    /* Coalesced loads: element t and t + 256 of the block's 512. */
    const uint32_t x0 = base + t < n ? (uint32_t)in[base + t] : 0;
    const uint32_t x1 = base + t + BLELLOCH_THREADS < n ? (uint32_t)in[base + t + BLELLOCH_THREADS] : 0;
    tree[t] = x0;
    tree[t + BLELLOCH_THREADS] = x1;

    /* Thread t works on segment t / 16 as its thread number g = t % 16 there. */
    const int half = WARP_THREADS / 2;
    const int g = t % half;
    uint32_t *seg = tree + (t / half) * WARP_THREADS;
    int stride = 1;
    for (int active = half; active > 0; active /= 2) {
        __syncthreads(); /* the level below is complete */
        if (g < active)
            seg[stride * (2 * g + 2) - 1] += seg[stride * (2 * g + 1) - 1];
        stride *= 2;
    }
    if (g == 0)
        seg[WARP_THREADS - 1] = 0;
    for (int active = 1; active < WARP_THREADS; active *= 2) {
        stride /= 2;
        __syncthreads(); /* the level above is complete */
        if (g < active) {
            const int left = stride * (2 * g + 1) - 1, right = stride * (2 * g + 2) - 1;
            const uint32_t l = seg[left];
            seg[left] = seg[right];
            seg[right] += l;
        }
    }
    __syncthreads(); /* every slot holds its exclusive prefix */
    if (base + t < n)
        out[base + t] = (int32_t)(exclusive ? tree[t] : tree[t] + x0);
    if (base + t + BLELLOCH_THREADS < n)
        out[base + t + BLELLOCH_THREADS] =
            (int32_t)(exclusive ? tree[t + BLELLOCH_THREADS] : tree[t + BLELLOCH_THREADS] + x1);
}

/* ------------------------------------------------------------------------------------------ */
/* Host launcher                                                                                */
/* ------------------------------------------------------------------------------------------ */

/**
 * \brief Scan every 32-element segment of `d_in` into `d_out` with `variant` (a ::gpu_scan_fn).
 *        Asynchronous, on the default stream.
 * \param variant   VARIANT_SHFL, VARIANT_SMEM or VARIANT_BLELLOCH
 * \param d_in      device input, n elements
 * \param d_out     device output, n elements
 * \param n         element count (0 launches nothing)
 * \param exclusive 1 for exclusive, 0 for inclusive
 * \param d_temp     unused: this chapter needs no scratch (NULL)
 * \param temp_bytes unused (0)
 */
static void scan_warp_segments(int variant, const int32_t *d_in, int32_t *d_out, size_t n,
                               int exclusive, void *d_temp, size_t temp_bytes)
{
    (void)d_temp;
    (void)temp_bytes;
    if (n == 0)
        return;
    if (variant == VARIANT_BLELLOCH) {
        const size_t blocks = (n + BLELLOCH_ITEMS - 1) / BLELLOCH_ITEMS;
        blelloch_scan_kernel<<<(unsigned)blocks, BLELLOCH_THREADS>>>(d_in, d_out, n, exclusive);
    } else {
        const size_t blocks = (n + BLOCK_THREADS - 1) / BLOCK_THREADS;
        if (variant == VARIANT_SHFL)
            warp_scan_shfl_kernel<<<(unsigned)blocks, BLOCK_THREADS>>>(d_in, d_out, n, exclusive);
        else
            warp_scan_smem_kernel<<<(unsigned)blocks, BLOCK_THREADS>>>(d_in, d_out, n, exclusive);
    }
    CUDA_CHECK_LAUNCH();
}

/** The default sweep: one block's worth, in L2, and beyond the 60 MB L2 of an H200. */
static const size_t DEFAULT_SIZES[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                       (size_t)1 << 24, (size_t)1 << 26, (size_t)1 << 28};

/** Lines printed above the table. */
static const char *const NOTES[] = {
    "syncs: barriers per 32-element segment (shfl needs none: the shuffle synchronises the lanes)",
    NULL};

/** \brief Describe the chapter to the shared driver and run it. */
int main(int argc, char **argv)
{
    const gpu_chapter chapter = {
        .prog = {
            .name = "02_warp_shfl",
            .title = "one warp scans each 32-element segment: shuffles, shared memory, Blelloch",
            .variants = VARIANT_NAMES,
            .variant_count = VARIANT_COUNT,
            .segment = WARP_THREADS,
            .default_sizes = DEFAULT_SIZES,
            .default_size_count = (int)(sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]),
            .default_reps = 20,
        },
        .scan = scan_warp_segments,
        .tile = BLELLOCH_ITEMS,
        .repeats = 1,
        .extra_title = "syncs",
        .extra = VARIANT_SYNCS,
        .notes = NOTES,
    };
    return gpu_chapter_main(argc, argv, &chapter);
}
