/**
 * \file radix_sort.cu
 * \brief The application assignment: an LSD radix sort of uint32 keys, each with its original
 *        index as its value, built on your own exclusive scan.
 *
 * What it uses from the course: an exclusive scan of a large array (chapters 04–07), tiles, and
 * warp-wide votes. Four passes of 8 bits each, least significant digit first; each pass
 * (GPU Gems 3, ch. 39, §39.3.3):
 *  1. `histogram_kernel`  each block counts the 256 digits of its tile of 2048 keys, and writes
 *                         the counts digit-major: counts[d · tiles + tile];
 *  2. digit_scan()        the exclusive scan of those 256 · tiles counts: entry d · tiles + tile
 *                         becomes where tile's first key of digit d goes in the output (every key
 *                         of a smaller digit, and of digit d in an earlier tile, comes first);
 *  3. `scatter_kernel`    each block moves its keys and values there, keeping equal digits in the
 *                         order they had (stable), so that the earlier passes' order survives.
 * Four stable passes over all 32 bits sort the keys; a stable sort keeps equal keys in input
 * order, so each value (the original index) is the unique right answer.
 *
 * Build and run: `make && ./run` here (after `make common` at the top); `./run --self-test`,
 * `./run --input F --output G` (G: the sorted keys, then their values). The timing sweep runs
 * `cub::DeviceRadixSort::SortPairs` beside it in the same rounds (sort_driver.h).
 */
#include "cub_sort.h"
#include "cuda_util.h"
#include "sort_driver.h"

#include <stdint.h>
#include <stdio.h>

/** Bits per pass, and the digits they make. */
#define RADIX_BITS 8
/** Digits per pass. */
#define RADIX (1 << RADIX_BITS)
/** Threads per block: one per digit, so that each thread owns one digit's counter. */
#define BLOCK_THREADS 256
/** Keys per thread and tile: the tile is read in rounds of BLOCK_THREADS consecutive keys. */
#define ROUNDS 8
/** Keys one block handles. */
#define TILE_KEYS (BLOCK_THREADS * ROUNDS)
/** Threads of one warp. */
#define WARP_THREADS 32
/** Warps per block. */
#define BLOCK_WARPS (BLOCK_THREADS / WARP_THREADS)
/** Every lane of the warp. */
#define FULL_MASK 0xffffffffu

/** The variants: yours, and CUB's beside it. */
enum { VARIANT_RADIX, VARIANT_CUB, VARIANT_COUNT };

/** Names for `--variant`. */
static const char *const VARIANT_NAMES[VARIANT_COUNT] = {"radix-sort", "cub"};

/** Digit `shift / RADIX_BITS` of a key. */
__device__ unsigned digit_of(uint32_t key, int shift)
{
    return (key >> shift) & (RADIX - 1);
}

/**
 * \brief Step 1: count the digits of this block's tile, and write the counts digit-major.
 * \param keys   the keys of this pass
 * \param n      key count
 * \param shift  the digit's lowest bit: 0, 8, 16 or 24
 * \param counts RADIX · tiles counters: counts[d · tiles + tile] receives tile's count of digit d
 * \param tiles  number of tiles, gridDim.x
 * \pre blockDim.x == BLOCK_THREADS == RADIX; gridDim.x == tiles.
 */
__global__ void histogram_kernel(const uint32_t *keys, size_t n, int shift, uint32_t *counts,
                                 size_t tiles)
{
    /* [student part: histogram; explained in classroom/radix_sort/README.md, "The sort"] */
    __shared__ uint32_t count[RADIX];
    count[threadIdx.x] = 0;
    __syncthreads(); /* every counter is cleared */
    const size_t tile_first = (size_t)blockIdx.x * TILE_KEYS;
    for (int r = 0; r < ROUNDS; ++r) {
        const size_t i = tile_first + (size_t)r * BLOCK_THREADS + threadIdx.x;
        if (i < n)
            atomicAdd(&count[digit_of(keys[i], shift)], 1u);
    }
    __syncthreads(); /* every key is counted */
    counts[(size_t)threadIdx.x * tiles + blockIdx.x] = count[threadIdx.x];
    /* [end of student part: histogram] */
}

/* [student part: digit-scan; explained in classroom/radix_sort/README.md, "Your scan"] */
/** Elements one block of the digit scan handles: 256 threads, 4 each. */
#define SCAN_TILE 1024

/** Inclusive scan across the warp (chapter 02's Kogge-Stone with shuffles). */
__device__ uint32_t scan_warp(uint32_t x)
{
    const int lane = threadIdx.x % WARP_THREADS;
    for (int offset = 1; offset < WARP_THREADS; offset *= 2) {
        const uint32_t below = __shfl_up_sync(FULL_MASK, x, offset);
        if (lane >= offset)
            x += below;
    }
    return x;
}

/**
 * \brief The exclusive scan of each SCAN_TILE elements in place; the tile's total to
 *        `tile_total[tile]` (unless it is NULL).
 * \pre blockDim.x == BLOCK_THREADS.
 */
__global__ void scan_tile_kernel(uint32_t *data, size_t m, uint32_t *tile_total)
{
    __shared__ uint32_t warp_total[BLOCK_WARPS];
    const int lane = threadIdx.x % WARP_THREADS, warp = threadIdx.x / WARP_THREADS;
    const size_t first = (size_t)blockIdx.x * SCAN_TILE + (size_t)threadIdx.x * 4;
    uint32_t x[4], sum = 0;
    for (int k = 0; k < 4; ++k) {
        x[k] = first + k < m ? data[first + k] : 0;
        sum += x[k];
    }
    const uint32_t inclusive = scan_warp(sum);
    if (lane == WARP_THREADS - 1)
        warp_total[warp] = inclusive;
    __syncthreads(); /* every warp total is written */
    uint32_t before = inclusive - sum, total = 0;
    for (int w = 0; w < BLOCK_WARPS; ++w) {
        if (w < warp)
            before += warp_total[w]; /* the warps before this one */
        total += warp_total[w];
    }
    for (int k = 0; k < 4; ++k) {
        if (first + k < m)
            data[first + k] = before;
        before += x[k];
    }
    if (tile_total && threadIdx.x == 0)
        tile_total[blockIdx.x] = total;
}

/** \brief Add `carry[tile]` to every element of each tile but the first. */
__global__ void add_carry_kernel(uint32_t *data, size_t m, const uint32_t *carry)
{
    const size_t tile = (size_t)blockIdx.x + 1;
    for (int k = threadIdx.x; k < SCAN_TILE; k += BLOCK_THREADS) {
        const size_t i = tile * SCAN_TILE + k;
        if (i < m)
            data[i] += carry[tile];
    }
}

/** Tiles of the digit scan for m elements. */
static size_t scan_tiles(size_t m)
{
    return (m + SCAN_TILE - 1) / SCAN_TILE;
}

/** \brief Device scratch digit_scan() needs for m elements: one total per tile, per level. */
static size_t digit_scan_temp_bytes(size_t m)
{
    size_t words = 0;
    for (size_t t = scan_tiles(m); t > 1; t = scan_tiles(t))
        words += t;
    return words * sizeof(uint32_t);
}

/**
 * \brief The exclusive scan of m counters in place, on the default stream: scan the tiles, scan
 *        their totals the same way, add each tile's carry (chapter 04's scan-then-fan).
 * \param d_counts the counters
 * \param m        how many
 * \param d_temp   digit_scan_temp_bytes(m) bytes
 */
static void digit_scan(uint32_t *d_counts, size_t m, void *d_temp)
{
    const size_t tiles = scan_tiles(m);
    if (tiles == 0)
        return;
    if (tiles == 1) {
        scan_tile_kernel<<<1, BLOCK_THREADS>>>(d_counts, m, NULL);
        CUDA_CHECK_LAUNCH();
        return;
    }
    uint32_t *d_totals = (uint32_t *)d_temp;
    scan_tile_kernel<<<(unsigned)tiles, BLOCK_THREADS>>>(d_counts, m, d_totals);
    CUDA_CHECK_LAUNCH();
    digit_scan(d_totals, tiles, d_totals + tiles);
    add_carry_kernel<<<(unsigned)(tiles - 1), BLOCK_THREADS>>>(d_counts, m, d_totals);
    CUDA_CHECK_LAUNCH();
}
/* [end of student part: digit-scan] */

/**
 * \brief Step 3: move this block's keys and values to where the scanned counts say, keeping
 *        equal digits in their order (stable).
 *
 * The tile is taken in ROUNDS rounds of BLOCK_THREADS consecutive keys. In a round, each warp
 * finds the lanes that share a digit with `__match_any_sync`; a key's rank among them is the
 * number of those lanes below it. Each warp's count per digit goes to shared memory, so a key's
 * place is: where the tile's next key of its digit goes, plus the keys of that digit in the
 * warps before its own this round, plus its rank. Then each thread, owning one digit, moves that
 * digit's place on by the round's count.
 * \param keys       this pass's keys
 * \param values     their values
 * \param keys_out   receives the keys in this pass's order
 * \param values_out receives the values
 * \param n          key count
 * \param shift      the digit's lowest bit
 * \param offsets    the scanned counts: offsets[d · tiles + tile]
 * \param tiles      number of tiles, gridDim.x
 * \pre blockDim.x == BLOCK_THREADS == RADIX; gridDim.x == tiles.
 */
__global__ void scatter_kernel(const uint32_t *keys, const uint32_t *values, uint32_t *keys_out,
                               uint32_t *values_out, size_t n, int shift, const uint32_t *offsets,
                               size_t tiles)
{
    /* [student part: scatter; explained in classroom/radix_sort/README.md, "The sort"] */
    __shared__ uint32_t next_place[RADIX];
    __shared__ uint32_t warp_count[BLOCK_WARPS][RADIX];
    const int lane = threadIdx.x % WARP_THREADS, warp = threadIdx.x / WARP_THREADS;
    const size_t tile_first = (size_t)blockIdx.x * TILE_KEYS;
    next_place[threadIdx.x] = offsets[(size_t)threadIdx.x * tiles + blockIdx.x];
    for (int r = 0; r < ROUNDS; ++r) {
        for (int d = lane; d < RADIX; d += WARP_THREADS)
            warp_count[warp][d] = 0;
        const size_t i = tile_first + (size_t)r * BLOCK_THREADS + threadIdx.x;
        const int valid = i < n;
        const uint32_t key = valid ? keys[i] : 0;
        const unsigned digit = digit_of(key, shift);
        /* keys past the end form a group of their own (RADIX is no digit) */
        const unsigned peers = __match_any_sync(FULL_MASK, valid ? digit : RADIX);
        const unsigned rank = __popc(peers & ((1u << lane) - 1));
        __syncwarp(); /* this warp's counters are cleared before any lane sets one */
        if (valid && rank == 0)
            warp_count[warp][digit] = __popc(peers);
        __syncthreads(); /* every warp's counts are written */
        if (valid) {
            uint32_t place = next_place[digit] + rank;
            for (int w = 0; w < warp; ++w)
                place += warp_count[w][digit];
            keys_out[place] = key;
            values_out[place] = values[i];
        }
        __syncthreads(); /* every place is read before it moves */
        uint32_t round_count = 0;
        for (int w = 0; w < BLOCK_WARPS; ++w)
            round_count += warp_count[w][threadIdx.x];
        next_place[threadIdx.x] += round_count;
        __syncthreads(); /* the counts are read before the next round clears them */
    }
    /* [end of student part: scatter] */
}

/* ------------------------------------------------------------------------------------------ */
/* Host launcher                                                                                */
/* ------------------------------------------------------------------------------------------ */

/** Tiles of n keys. */
static size_t tile_count(size_t n)
{
    return (n + TILE_KEYS - 1) / TILE_KEYS;
}

/** Bytes of a scratch section of `bytes`, rounded up to 256 (keeps every section aligned). */
static size_t aligned(size_t bytes)
{
    return (bytes + 255) / 256 * 256;
}

/** The scratch: two arrays of n keys and values for the passes in between, the counters, and
    the digit scan's own scratch. */
static size_t radix_temp_bytes(int variant, size_t n)
{
    if (variant == VARIANT_CUB)
        return n ? cub_sort_temp_bytes(n) : 0;
    const size_t m = RADIX * tile_count(n);
    return 2 * aligned(n * sizeof(uint32_t)) + aligned(m * sizeof(uint32_t)) +
           aligned(digit_scan_temp_bytes(m));
}

/**
 * \brief The sort (a ::gpu_sort_fn): four passes of histogram, digit scan and scatter, ping-pong
 *        between the output and the scratch, so that the fourth pass ends in the output.
 * \param variant      VARIANT_RADIX or VARIANT_CUB
 * \param d_keys       device keys (not changed)
 * \param d_keys_out   receives the sorted keys
 * \param d_values     device values, 0 … n − 1 (not changed)
 * \param d_values_out receives the values in the keys' order
 * \param n            key count (0 launches nothing)
 * \param d_temp       radix_temp_bytes(variant, n) bytes (contents do not matter)
 * \param temp_bytes   its size
 */
static void radix_sort(int variant, const uint32_t *d_keys, uint32_t *d_keys_out,
                       const uint32_t *d_values, uint32_t *d_values_out, size_t n, void *d_temp,
                       size_t temp_bytes)
{
    if (n == 0)
        return;
    if (variant == VARIANT_CUB) {
        cub_sort_pairs(d_keys, d_keys_out, d_values, d_values_out, n, d_temp, temp_bytes);
        return;
    }
    const size_t tiles = tile_count(n), m = RADIX * tiles;
    char *scratch = (char *)d_temp;
    uint32_t *tmp_keys = (uint32_t *)scratch;
    uint32_t *tmp_values = (uint32_t *)(scratch + aligned(n * sizeof(uint32_t)));
    uint32_t *counts = (uint32_t *)(scratch + 2 * aligned(n * sizeof(uint32_t)));
    void *scan_temp = scratch + 2 * aligned(n * sizeof(uint32_t)) + aligned(m * sizeof(uint32_t));
    const uint32_t *from_keys = d_keys, *from_values = d_values;
    for (int pass = 0; pass < 32 / RADIX_BITS; ++pass) {
        /* passes 0 and 2 write the scratch, 1 and 3 the output: the last lands in the output */
        uint32_t *to_keys = pass % 2 ? d_keys_out : tmp_keys;
        uint32_t *to_values = pass % 2 ? d_values_out : tmp_values;
        const int shift = pass * RADIX_BITS;
        histogram_kernel<<<(unsigned)tiles, BLOCK_THREADS>>>(from_keys, n, shift, counts, tiles);
        CUDA_CHECK_LAUNCH();
        digit_scan(counts, m, scan_temp);
        scatter_kernel<<<(unsigned)tiles, BLOCK_THREADS>>>(from_keys, from_values, to_keys,
                                                           to_values, n, shift, counts, tiles);
        CUDA_CHECK_LAUNCH();
        from_keys = to_keys;
        from_values = to_values;
    }
}

/** The default sweep: in L2, and beyond it. */
static const size_t DEFAULT_SIZES[] = {(size_t)1 << 16, (size_t)1 << 20, (size_t)1 << 24,
                                       (size_t)1 << 26};

/** \brief Describe the sort to the driver and run it. */
int main(int argc, char **argv)
{
    const sort_program program = {
        .prog = {
            .name = "radix_sort",
            .title = "LSD radix sort of uint32 keys with their indices, on your exclusive scan",
            .variants = VARIANT_NAMES,
            .variant_count = VARIANT_COUNT,
            .default_sizes = DEFAULT_SIZES,
            .default_size_count = (int)(sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]),
            .default_reps = 10,
        },
        .sort = radix_sort,
        .temp_bytes = radix_temp_bytes,
        .tile = TILE_KEYS,
    };
    return sort_program_main(argc, argv, &program);
}
