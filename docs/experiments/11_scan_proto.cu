/**
 * \file 11_scan_proto.cu
 * \brief Experiment for chapter 11, step 2 (issue 36): the first scan on the TMA ring of step 1,
 *        with the stage freed before the prefix wait (docs/experiments/11_design.md §0).
 *
 * One persistent block per SM (or B): a producer warp draws tiles of 4096 elements from an atomic
 * counter and copies each into a ring of S shared-memory stages with `cp.async.bulk`; G consumer
 * groups of 4 warps take the ring's stages in turn. A group copies its stage into registers (32
 * elements per thread), releases the stage, scans the tile in registers, publishes the tile's
 * aggregate, finds the tile's exclusive prefix with chapter 07's look-back (its first warp), adds
 * it and stores from registers. While one group waits for its prefix, the others scan later tiles,
 * and the producer keeps the ring full.
 *
 * A prototype, not the chapter: runtime knobs (S, G, B), descriptors cleared by a memset in every
 * call (chapter 07's contract), CUB as the reference (every element compared on the GPU) and as
 * the baseline. Mode `nolookback` replaces the look-back by 0 (wrong results, by design): the
 * scan's pipeline with no wait between tiles, the analogue of chapter 08's 97.4 % run.
 *
 * Build and run (compute capability 9.0; after `make SMS=90 all`):
 *     docs/experiments/11_steps.sh scan OUTDIR
 * The memory-order arguments are 11_ceiling.cu's, plus: a group's threads meet at a named barrier
 * (`bar.sync id, 128`, PTX ISA "bar, barrier"), which orders their shared-memory accesses
 * (a barrier synchronizes, PTX ISA §8.9.4); descriptors as in chapters 06-08.
 */
#include "cub_scan.h"
#include "cuda_util.h"
#include "11_ptx.cuh"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** Threads of a warp. */
#define WARP_THREADS 32
/** Every lane: the mask of a shuffle all 32 lanes execute. */
#define FULL_MASK 0xffffffffu
/** Elements of a tile: chapter 08's 16 KB. */
#define TILE_ITEMS 4096
/** Warps of a consumer group. */
#define GROUP_WARPS 4
/** Threads of a consumer group. */
#define GROUP_THREADS (GROUP_WARPS * WARP_THREADS)
/** 16-byte vectors each thread of a group holds: 8 (32 elements). */
#define VECTORS_PER_THREAD (TILE_ITEMS / 4 / GROUP_THREADS)
/** Vectors of a warp's part of the tile. */
#define WARP_VECTORS (VECTORS_PER_THREAD * WARP_THREADS)
/** Most consumer groups per block. */
#define MAX_GROUPS 4
/** Most threads per block: the groups, the producer, the reducer, the prefix warp. */
#define MAX_THREADS ((MAX_GROUPS * GROUP_WARPS + 3) * WARP_THREADS)
/** Slots between the reducer, the prefix warp and the groups (at least S + G). */
#define SLOTS 16
/** Descriptor state: nothing published. */
#define TILE_INVALID 0u
/** Descriptor state: the value is the tile's aggregate. */
#define TILE_AGGREGATE 1u
/** Descriptor state: the value is the tile's inclusive prefix. */
#define TILE_PREFIX 2u
/** A stage's or slot's tile when there is no more work. */
#define NO_TILE 0xffffffffu
/** Spins between two looks at the clock. */
#define WATCHDOG_SPINS 256u

/** How a group gets its tile's prefix: its own look-back, none (0, wrong by design), or the
    reducer at landing and the look-ahead warp. */
enum { MODE_LOOKBACK, MODE_NOLOOKBACK, MODE_LANDING };
/** Shared memory per stage: the tile, two mbarriers, one word. */
#define STAGE_BYTES (TILE_ITEMS * 4 + 2 * 8 + 4)

/* ---- the PTX wrappers are in 11_ptx.cuh (shared with 11_ceiling.cu); one more here ------ */

/** A barrier for one group's 128 threads: bar.sync with a thread count (id 1 + group). */
__device__ static void group_barrier(unsigned group)
{
    asm volatile("bar.sync %0, %1;" : : "r"(1u + group), "r"((unsigned)GROUP_THREADS) : "memory");
}

/* ---- chapters 02-07's warp scan, descriptors and look-back (the same logic; the look-back's
        watchdog raises the error flag and gives up instead of trapping) ---------------------- */

/** Chapter 02's warp scan (Kogge-Stone with shuffles): lanes 0 … this lane's sum. */
__device__ static uint32_t warp_inclusive_scan(uint32_t x)
{
    const int lane = threadIdx.x % WARP_THREADS;
    for (int offset = 1; offset < WARP_THREADS; offset *= 2) {
        uint32_t below = __shfl_up_sync(FULL_MASK, x, offset);
        if (lane >= offset)
            x += below;
    }
    return x;
}
/** Chapter 07's warp sum (a butterfly of `__shfl_xor_sync`), in every lane. */
__device__ static uint32_t warp_reduce(uint32_t x)
{
    for (int offset = WARP_THREADS / 2; offset > 0; offset /= 2)
        x += __shfl_xor_sync(FULL_MASK, x, offset);
    return x;
}
/** Chapter 06's descriptor load: one relaxed 64-bit load at GPU scope. */
__device__ static unsigned long long load_descriptor(const unsigned long long *descriptor)
{
    unsigned long long word;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(word) : "l"(descriptor) : "memory");
    return word;
}
/** Chapter 06's descriptor store: one relaxed 64-bit store at GPU scope. */
__device__ static void store_descriptor(unsigned long long *descriptor, unsigned long long word)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" : : "l"(descriptor), "l"(word) : "memory");
}
/** A descriptor: the state in the high 32 bits, the value in the low 32. */
__device__ static unsigned long long pack_descriptor(unsigned state, uint32_t value)
{
    return (unsigned long long)state << 32 | value;
}
/** Chapter 07's look-back by one warp; returns the exclusive prefix, or 0 with *error raised
    when a predecessor did not publish within WATCHDOG_NS. */
__device__ static uint32_t look_back(unsigned long long *descriptors, unsigned tile,
                                     uint32_t aggregate, unsigned *error)
{
    const int lane = threadIdx.x % WARP_THREADS;
    if (tile == 0)
        return 0;
    uint32_t exclusive_prefix = 0;
    long long window_last = (long long)tile - 1;
    unsigned spins = 0;
    unsigned long long since = 0;
    for (;;) {
        const long long predecessor = window_last - lane;
        const unsigned long long word = predecessor >= 0
                                            ? load_descriptor(&descriptors[predecessor])
                                            : pack_descriptor(TILE_PREFIX, 0);
        const unsigned state = (unsigned)(word >> 32);
        const unsigned prefix_lanes = __ballot_sync(FULL_MASK, state == TILE_PREFIX);
        const unsigned needed = prefix_lanes ? (prefix_lanes ^ (prefix_lanes - 1)) : FULL_MASK;
        if ((__ballot_sync(FULL_MASK, state == TILE_INVALID) & needed) != 0) {
            if (++spins % WATCHDOG_SPINS == 0) {
                const unsigned long long now = global_ns();
                if (since == 0)
                    since = now;
                else if (now - since > WATCHDOG_NS) {
                    atomicExch(error, 1u);
                    return 0;
                }
            }
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
}

/* ---- the pipeline ----------------------------------------------------------------------- */

/** What one launch is told. */
typedef struct scan_params {
    const int32_t *in;                /**< input, 16-byte aligned */
    int32_t *out;                     /**< output, 16-byte aligned (may be in) */
    size_t n;                         /**< elements */
    unsigned stages;                  /**< S */
    unsigned groups;                  /**< G, at most MAX_GROUPS */
    unsigned mode;                    /**< MODE_LOOKBACK, MODE_NOLOOKBACK or MODE_LANDING */
    unsigned draw_tiles;              /**< K: consecutive tiles per draw */
    unsigned exclusive;               /**< 1: exclusive scan */
    unsigned *counter;                /**< tile draws (zeroed before each launch) */
    unsigned long long *descriptors;  /**< one per tile (zeroed before each launch) */
    unsigned *error;                  /**< raised by a watchdog */
} scan_params;

/**
 * \brief The warp-specialised scan, prototype: warps 0 … 4G−1 are G consumer groups, warp 4G the
 *        producer (lane 0), warp 4G + 1 the reducer and warp 4G + 2 the prefix warp (both in
 *        mode `landing` only).
 *
 * Mode `landing` (the third build; design §3.4, scheme B, with §0's correction): the reducer
 * sums every tile as soon as it lands in its stage and publishes the aggregate (descriptors hold
 * aggregates only), so no aggregate waits for a free group; it hands tile and aggregate to the
 * prefix warp through a slot (SLOTS of them, used in turn). The prefix warp takes its block's
 * tiles in order and keeps the block's running inclusive prefix: the prefix of tile t is that of
 * the block's previous tile plus its aggregate, plus the aggregates of the tiles other blocks
 * drew in between (8 loads per lane in flight, re-read while one is `TILE_INVALID`). With K tiles
 * per draw, K − 1 of every K tiles need no read. A group waits on its slot for the prefix and
 * frees the slot after reading it; the reducer reuses a slot only after that.
 * \pre blockDim.x = (4G + 3) · 32; S a multiple of G, so that every position of stage s
 *      (s, s + S, s + 2S, …) belongs to the same group: a group then never waits on a stage
 *      more than one phase ahead of it, which `try_wait.parity` cannot tell apart (the first
 *      run's S = 4, G = 3 hung); dynamic shared memory = S · STAGE_BYTES; the
 *      grid is resident at once (persistent); counter and descriptors zero.
 */
__global__ void __launch_bounds__(MAX_THREADS, 1) ws_scan_kernel(scan_params p)
{
    extern __shared__ __align__(128) unsigned char smem[];
    __shared__ uint32_t warp_total[MAX_GROUPS][GROUP_WARPS];
    __shared__ uint32_t group_prefix[MAX_GROUPS];
    const unsigned S = p.stages, G = p.groups;
    const unsigned tile_bytes = TILE_ITEMS * 4;
    uint64_t *full = (uint64_t *)(smem + (size_t)S * tile_bytes);
    uint64_t *empty = full + S;
    unsigned *tile_of = (unsigned *)(empty + S);
    /* the slots: reducer → prefix warp → group → reducer, one phase per use */
    __shared__ uint64_t agg_ready[SLOTS], prefix_ready[SLOTS], slot_free[SLOTS];
    __shared__ unsigned slot_tile[SLOTS];
    __shared__ uint32_t slot_aggregate[SLOTS], slot_prefix[SLOTS];
    const unsigned warp = threadIdx.x / WARP_THREADS, lane = threadIdx.x % WARP_THREADS;
    const size_t tiles = (p.n + TILE_ITEMS - 1) / TILE_ITEMS;

    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < S; ++s) {
            mbarrier_init(&full[s], 1);
            mbarrier_init(&empty[s], GROUP_THREADS + (p.mode == MODE_LANDING ? WARP_THREADS : 0));
        }
        for (unsigned r = 0; r < SLOTS; ++r) {
            mbarrier_init(&agg_ready[r], 1);
            mbarrier_init(&prefix_ready[r], 1);
            mbarrier_init(&slot_free[r], 1);
        }
        fence_mbarrier_init();
        fence_proxy_async_shared();
    }
    __syncthreads(); /* the barriers are initialised before anyone uses them */

    if (warp == G * GROUP_WARPS) { /* the producer */
        if (lane != 0)
            return;
        size_t next = 0;
        unsigned left = 0;
        for (unsigned k = 0;; ++k) {
            const unsigned s = k % S;
            if (k >= S && !wait_parity(&empty[s], (k / S - 1) & 1u, p.error))
                return;
            if (left == 0) { /* K consecutive tiles per draw; still drawn in order */
                next = atomicAdd(p.counter, p.draw_tiles);
                left = p.draw_tiles;
            }
            const size_t tile = next++;
            --left;
            if (tile >= tiles) {
                /* every group must learn that there is no more work: NO_TILE in the next G
                   positions, one per group (G <= S, so they are G different stages) */
                for (unsigned e = 0; e < G; ++e) {
                    const unsigned ke = k + e, se = ke % S;
                    if (e > 0 && ke >= S && !wait_parity(&empty[se], (ke / S - 1) & 1u, p.error))
                        return;
                    tile_of[se] = NO_TILE;
                    mbarrier_arrive(&full[se]);
                }
                return;
            }
            tile_of[s] = (unsigned)tile;
            const size_t first = tile * TILE_ITEMS;
            const size_t count = p.n - first < TILE_ITEMS ? p.n - first : TILE_ITEMS;
            const unsigned bytes = (unsigned)(count * 4) & ~15u;
            if (bytes) {
                mbarrier_arrive_expect_tx(&full[s], bytes);
                bulk_copy_to_shared(smem + (size_t)s * tile_bytes, p.in + first, bytes, &full[s]);
            } else {
                mbarrier_arrive(&full[s]);
            }
        }
    }

    if (warp == G * GROUP_WARPS + 1) { /* the reducer (mode landing) */
        if (p.mode != MODE_LANDING)
            return;
        for (unsigned k = 0;; ++k) {
            const unsigned s = k % S, r = k % SLOTS;
            if (!wait_parity(&full[s], (k / S) & 1u, p.error))
                return;
            const unsigned tile = tile_of[s];
            uint32_t sum = 0;
            if (tile != NO_TILE) {
                const uint4 *stage = (const uint4 *)(smem + (size_t)s * tile_bytes);
                const size_t tile_first = (size_t)tile * TILE_ITEMS;
                if (tile_first + TILE_ITEMS <= p.n) {
#pragma unroll 8
                    for (int v = 0; v < TILE_ITEMS / 4 / WARP_THREADS; ++v) {
                        const uint4 q = stage[v * WARP_THREADS + lane];
                        sum += (q.x + q.y) + (q.z + q.w);
                    }
                } else { /* the ragged tile: whole 16 bytes from the stage, the rest from global */
                    const size_t copied = tile_first + (((p.n - tile_first) * 4) & ~(size_t)15) / 4;
                    for (size_t e = tile_first + lane; e < p.n; e += WARP_THREADS)
                        sum += e < copied ? ((const uint32_t *)stage)[e - tile_first]
                                          : (uint32_t)p.in[e];
                }
                sum = warp_reduce(sum);
                mbarrier_arrive(&empty[s]); /* this warp's reads of the stage are done */
            }
            if (k >= SLOTS && !wait_parity(&slot_free[r], (k / SLOTS - 1) & 1u, p.error))
                return;
            if (lane == 0) {
                if (tile != NO_TILE)
                    store_descriptor(&p.descriptors[tile], pack_descriptor(TILE_AGGREGATE, sum));
                slot_tile[r] = tile;
                slot_aggregate[r] = sum;
                mbarrier_arrive(&agg_ready[r]);
            }
            if (tile == NO_TILE)
                return;
        }
    }

    if (warp == G * GROUP_WARPS + 2) { /* the prefix warp (mode landing) */
        if (p.mode != MODE_LANDING)
            return;
        long long last_own = -1; /* the block's previous tile */
        uint32_t running = 0;    /* its inclusive prefix */
        for (unsigned k = 0;; ++k) {
            const unsigned r = k % SLOTS;
            if (!wait_parity(&agg_ready[r], (k / SLOTS) & 1u, p.error))
                return;
            const unsigned tile = slot_tile[r];
            if (tile == NO_TILE)
                return;
            uint32_t between = 0; /* the aggregates of other blocks' tiles since last_own */
            for (long long base = last_own + 1; base < (long long)tile; base += 8 * WARP_THREADS) {
                unsigned long long word[8];
#pragma unroll
                for (int j = 0; j < 8; ++j) {
                    const long long i = base + j * WARP_THREADS + lane;
                    word[j] = i < (long long)tile ? load_descriptor(&p.descriptors[i])
                                                  : pack_descriptor(TILE_AGGREGATE, 0);
                }
#pragma unroll
                for (int j = 0; j < 8; ++j) {
                    const long long i = base + j * WARP_THREADS + lane;
                    unsigned spins = 0;
                    unsigned long long since = 0;
                    while ((unsigned)(word[j] >> 32) == TILE_INVALID) {
                        if (++spins % WATCHDOG_SPINS == 0) {
                            const unsigned long long now = global_ns();
                            if (since == 0)
                                since = now;
                            else if (now - since > WATCHDOG_NS) {
                                atomicExch(p.error, 1u);
                                return;
                            }
                        }
                        word[j] = load_descriptor(&p.descriptors[i]);
                    }
                    between += (uint32_t)word[j];
                }
            }
            const uint32_t prefix = running + warp_reduce(between);
            running = prefix + slot_aggregate[r];
            last_own = tile;
            if (lane == 0) {
                slot_prefix[r] = prefix;
                mbarrier_arrive(&prefix_ready[r]);
            }
        }
    }

    /* consumer group g takes positions k = g, g + G, g + 2G, … of the ring */
    const unsigned g = warp / GROUP_WARPS, wg = warp % GROUP_WARPS;
    for (unsigned k = g;; k += G) {
        const unsigned s = k % S;
        if (!wait_parity(&full[s], (k / S) & 1u, p.error))
            return;
        const unsigned tile = tile_of[s];
        if (tile == NO_TILE)
            break;
        const size_t tile_first = (size_t)tile * TILE_ITEMS;
        const uint4 *stage = (const uint4 *)(smem + (size_t)s * tile_bytes);
        uint4 q[VECTORS_PER_THREAD];
#pragma unroll
        for (int v = 0; v < VECTORS_PER_THREAD; ++v)
            q[v] = stage[wg * WARP_VECTORS + v * WARP_THREADS + lane];
        mbarrier_arrive(&empty[s]); /* the stage is free: the tile is in registers */
        const int whole = tile_first + TILE_ITEMS <= p.n;
        if (!whole) { /* the ragged tile: the copy took whole 16 bytes; the rest from global */
            const size_t copied = tile_first + (((p.n - tile_first) * 4) & ~(size_t)15) / 4;
#pragma unroll
            for (int v = 0; v < VECTORS_PER_THREAD; ++v) {
                const size_t e = tile_first + (size_t)(wg * WARP_VECTORS + v * WARP_THREADS + lane) * 4;
                uint32_t r[4] = {q[v].x, q[v].y, q[v].z, q[v].w};
                for (int c = 0; c < 4; ++c)
                    r[c] = e + c >= p.n ? 0u : e + c >= copied ? (uint32_t)p.in[e + c] : r[c];
                q[v] = make_uint4(r[0], r[1], r[2], r[3]);
            }
        }
        /* scan in registers: chapter 08's scan_warp_part_shared(), on registers */
        uint32_t carried = 0;
#pragma unroll
        for (int v = 0; v < VECTORS_PER_THREAD; ++v) {
            uint4 x = q[v];
            x.y += x.x;
            x.z += x.y;
            x.w += x.z;
            const uint32_t lane_inclusive = warp_inclusive_scan(x.w);
            const uint32_t before = carried + lane_inclusive - x.w;
            q[v] = p.exclusive ? make_uint4(before, before + x.x, before + x.y, before + x.z)
                               : make_uint4(before + x.x, before + x.y, before + x.z, before + x.w);
            carried += __shfl_sync(FULL_MASK, lane_inclusive, WARP_THREADS - 1);
        }
        if (lane == 0)
            warp_total[g][wg] = carried;
        group_barrier(g); /* the group's warp totals are written */
        uint32_t before = 0, aggregate = 0;
        for (unsigned w = 0; w < GROUP_WARPS; ++w) {
            before += w < wg ? warp_total[g][w] : 0u;
            aggregate += warp_total[g][w];
        }
        if (p.mode == MODE_LANDING) {
            const unsigned r = k % SLOTS;
            if (!wait_parity(&prefix_ready[r], (k / SLOTS) & 1u, p.error))
                return;
            if (wg == 0 && lane == 0) {
                group_prefix[g] = slot_prefix[r];
                mbarrier_arrive(&slot_free[r]); /* the slot's prefix is read */
            }
        } else if (wg == 0) {
            uint32_t prefix = 0;
            if (p.mode == MODE_LOOKBACK) {
                if (lane == 0) {
                    if (tile == 0)
                        store_descriptor(&p.descriptors[0], pack_descriptor(TILE_PREFIX, aggregate));
                    else
                        store_descriptor(&p.descriptors[tile],
                                         pack_descriptor(TILE_AGGREGATE, aggregate));
                }
                prefix = look_back(p.descriptors, tile, aggregate, p.error);
            }
            if (lane == 0)
                group_prefix[g] = prefix;
        }
        group_barrier(g); /* group_prefix is written; warp_total read by all */
        const uint32_t add = group_prefix[g] + before;
#pragma unroll
        for (int v = 0; v < VECTORS_PER_THREAD; ++v) {
            const uint4 r = make_uint4(q[v].x + add, q[v].y + add, q[v].z + add, q[v].w + add);
            const size_t e = tile_first + (size_t)(wg * WARP_VECTORS + v * WARP_THREADS + lane) * 4;
            if (whole) {
                *(uint4 *)(p.out + e) = r;
            } else {
                const uint32_t c4[4] = {r.x, r.y, r.z, r.w};
                for (int c = 0; c < 4; ++c)
                    if (e + c < p.n)
                        p.out[e + c] = (int32_t)c4[c];
            }
        }
    }
}

/* ---- host ------------------------------------------------------------------------------- */

/** \brief Random full-range values (a hash of the index and seed). */
__global__ void fill_kernel(int32_t *a, size_t n, uint32_t seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull + seed;
        x ^= x >> 31;
        x *= 0xbf58476d1ce4e5b9ull;
        x ^= x >> 29;
        a[i] = (int32_t)(uint32_t)x;
    }
}

/** \brief Count the elements where `a` and `b` differ, into `*wrong`. */
__global__ void compare_kernel(const int32_t *a, const int32_t *b, size_t n,
                               unsigned long long *wrong)
{
    unsigned long long mine = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        mine += a[i] != b[i];
    if (mine)
        atomicAdd(wrong, mine);
}

/** What launch_ws() and launch_cub() need. */
typedef struct scan_job {
    scan_params p;    /**< the pipeline's parameters */
    unsigned grid;    /**< blocks */
    unsigned threads; /**< threads per block */
    size_t smem;      /**< dynamic shared memory per block */
    size_t tiles;     /**< tiles of n (descriptors to clear) */
    void *cub_temp;   /**< CUB's scratch */
    size_t cub_bytes; /**< its size */
    int32_t *cub_out; /**< the reference output */
} scan_job;

/** The ::gpu_work_fn of the pipeline: clear counter and descriptors (chapter 07's contract), launch. */
static void launch_ws(void *ctx)
{
    scan_job *j = (scan_job *)ctx;
    CUDA_CHECK(cudaMemsetAsync(j->p.counter, 0, sizeof(unsigned), 0));
    CUDA_CHECK(cudaMemsetAsync(j->p.descriptors, 0, j->tiles * 8, 0));
    ws_scan_kernel<<<j->grid, j->threads, j->smem>>>(j->p);
}

/** The ::gpu_work_fn of CUB's scan into the reference buffer. */
static void launch_cub(void *ctx)
{
    scan_job *j = (scan_job *)ctx;
    cub_scan(j->p.in, j->cub_out, j->p.n, (int)j->p.exclusive, j->cub_temp, j->cub_bytes);
}

/** A size: 2^K or decimal. */
static size_t parse_size(const char *s)
{
    if (s[0] == '2' && s[1] == '^')
        return (size_t)1 << atoi(s + 2);
    return (size_t)strtoull(s, NULL, 10);
}

/**
 * \brief `11_scan_proto [--reps R] [--only S,G,B,mode,exclusive[,K]] [--check-only] SIZE...`:
 *        for each size, CUB (reference and baseline) and the pipeline's configurations; one CSV
 *        row each with the memcpy of the same bytes timed beside it.
 */
int main(int argc, char **argv)
{
    cudaDeviceProp props;
    char line[256];
    cuda_init_device(&props);
    printf("# %s\n", cuda_device_line(&props, line, sizeof line));
    if (props.major < 9) {
        printf("# needs compute capability 9.0\n");
        return 3;
    }
    size_t sizes[16];
    int size_count = 0, reps = 20, check_only = 0;
    const char *only = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--check-only"))
            check_only = 1;
        else if (size_count < 16)
            sizes[size_count++] = parse_size(argv[i]);
    }
    if (!size_count)
        sizes[size_count++] = (size_t)1 << 28;
    size_t max_n = 0;
    for (int i = 0; i < size_count; ++i)
        max_n = sizes[i] > max_n ? sizes[i] : max_n;
    const size_t max_tiles = (max_n + TILE_ITEMS - 1) / TILE_ITEMS + 1;

    int32_t *d_in, *d_out, *d_ref;
    unsigned *d_counter, *d_error;
    unsigned long long *d_desc, *d_wrong;
    CUDA_CHECK(cudaMalloc((void **)&d_in, max_n * 4 + 16));
    CUDA_CHECK(cudaMalloc((void **)&d_out, max_n * 4 + 16));
    CUDA_CHECK(cudaMalloc((void **)&d_ref, max_n * 4 + 16));
    CUDA_CHECK(cudaMalloc((void **)&d_counter, sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&d_error, sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&d_desc, max_tiles * 8));
    CUDA_CHECK(cudaMalloc((void **)&d_wrong, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d_error, 0, sizeof(unsigned)));
    fill_kernel<<<1024, 256>>>(d_in, max_n, 777u);
    CUDA_CHECK_LAUNCH();
    cudaFuncAttributes attributes;
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, ws_scan_kernel));
    const size_t dynamic_max = props.sharedMemPerBlockOptin - attributes.sharedSizeBytes;
    CUDA_CHECK(cudaFuncSetAttribute(ws_scan_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)dynamic_max));
    const size_t cub_bytes = cub_scan_temp_bytes(max_n);
    void *d_cub;
    CUDA_CHECK(cudaMalloc(&d_cub, cub_bytes));

    /* S, G, B, mode, exclusive, K */
    unsigned configs[128][6];
    int count = 0;
    if (only) {
        configs[0][5] = 1;
        if (sscanf(only, "%u,%u,%u,%u,%u,%u", &configs[0][0], &configs[0][1], &configs[0][2],
                   &configs[0][3], &configs[0][4], &configs[0][5]) < 5 || configs[0][1] < 1 ||
            configs[0][1] > MAX_GROUPS || configs[0][5] < 1) {
            fprintf(stderr, "11_scan_proto: --only S,G,B,mode(0 lookback,1 none,2 landing),"
                            "exclusive[,K]\n");
            return 2;
        }
        count = 1;
    } else {
        /* the first build's configurations (K = 1), then the look-ahead's */
        static const unsigned SG[][3] = {{4, 1, 1}, {4, 2, 1}, {4, 4, 1}, {6, 3, 1}, {3, 3, 1},
                                         {2, 2, 2}};
        static const unsigned K[] = {1, 2, 4, 8};
        for (unsigned i = 0; i < sizeof SG / sizeof SG[0]; ++i)
            for (unsigned mode = 0; mode < 3; ++mode)
                for (unsigned kk = 0; kk < 4; ++kk) {
                    if (mode != MODE_LANDING && kk > 0)
                        continue; /* K matters only to the look-ahead's reads */
                    const unsigned c[6] = {SG[i][0], SG[i][1], SG[i][2], mode, 0, K[kk]};
                    memcpy(configs[count++], c, sizeof c);
                }
        /* the exclusive scan of the look-ahead with K = 4 */
        for (unsigned i = 0; i < sizeof SG / sizeof SG[0]; ++i) {
            const unsigned c[6] = {SG[i][0], SG[i][1], SG[i][2], MODE_LANDING, 1, 4};
            memcpy(configs[count++], c, sizeof c);
        }
    }
    static const char *const MODE_NAMES[] = {"lookback", "none", "landing"};

    printf("kernel,stages,groups,blocks_per_sm,mode,exclusive,n,us,spread_pct,memcpy_us,"
           "memcpy_spread_pct,pct_memcpy,x_cub,wrong,draw_tiles\n");
    for (int si = 0; si < size_count; ++si) {
        const size_t n = sizes[si];
        scan_job j;
        memset(&j, 0, sizeof j);
        j.p.in = d_in;
        j.p.out = d_out;
        j.p.n = n;
        j.p.counter = d_counter;
        j.p.descriptors = d_desc;
        j.p.error = d_error;
        j.tiles = (n + TILE_ITEMS - 1) / TILE_ITEMS;
        j.cub_temp = d_cub;
        j.cub_bytes = cub_bytes;
        j.cub_out = d_ref;
        timing cub_t[2] = {{0, 0}, {0, 0}};
        for (int x = 0; x < 2; ++x) {
            j.p.exclusive = (unsigned)x;
            if (!check_only) {
                cub_t[x] = cuda_timing_ms(launch_cub, &j, 3, reps);
                const timing m = cuda_memcpy_timing_ms(d_out, d_in, n * 4, reps);
                printf("cub,0,0,0,0,%d,%zu,%.2f,%.1f,%.2f,%.1f,%.1f,1.00,0,0\n", x, n,
                       cub_t[x].median * 1e3, cub_t[x].spread * 100, m.median * 1e3,
                       m.spread * 100, 100 * m.median / cub_t[x].median);
            }
        }
        for (int ci = 0; ci < count; ++ci) {
            const unsigned *c = configs[ci];
            j.p.stages = c[0];
            j.p.groups = c[1];
            j.p.mode = c[3];
            j.p.exclusive = c[4];
            j.p.draw_tiles = c[5];
            j.threads = (c[1] * GROUP_WARPS + 3) * WARP_THREADS;
            j.smem = (size_t)c[0] * STAGE_BYTES;
            if (j.smem > dynamic_max || c[0] % c[1] != 0)
                continue; /* does not fit, or S not a multiple of G (see the kernel's \pre) */
            int resident = 0;
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, ws_scan_kernel,
                                                                     (int)j.threads, j.smem));
            if ((unsigned)resident < c[2]) {
                printf("# S=%u G=%u B=%u: only %d blocks fit per SM, skipped\n", c[0], c[1], c[2],
                       resident);
                continue;
            }
            j.grid = props.multiProcessorCount * c[2];
            /* the reference of this exclusive-ness, then the checked run */
            launch_cub(&j);
            CUDA_CHECK(cudaMemset(d_out, 0xab, n * 4));
            CUDA_CHECK(cudaMemset(d_wrong, 0, sizeof(unsigned long long)));
            launch_ws(&j);
            CUDA_CHECK_LAUNCH();
            CUDA_CHECK(cudaDeviceSynchronize());
            unsigned error = 0;
            CUDA_CHECK(cudaMemcpy(&error, d_error, sizeof error, cudaMemcpyDeviceToHost));
            if (error) {
                fprintf(stderr, "11_scan_proto: watchdog (S=%u G=%u B=%u mode %s K=%u n %zu)\n",
                        c[0], c[1], c[2], MODE_NAMES[c[3]], c[5], n);
                return 3;
            }
            compare_kernel<<<1024, 256>>>(d_ref, d_out, n, d_wrong);
            CUDA_CHECK_LAUNCH();
            unsigned long long wrong = 0;
            CUDA_CHECK(cudaMemcpy(&wrong, d_wrong, sizeof wrong, cudaMemcpyDeviceToHost));
            if (check_only) {
                printf("check,%u,%u,%u,%s,%u,%zu,,,,,,,%llu,%u\n", c[0], c[1], c[2],
                       MODE_NAMES[c[3]], c[4], n, wrong, c[5]);
                continue;
            }
            const timing t = cuda_timing_ms(launch_ws, &j, 3, reps);
            const timing m = cuda_memcpy_timing_ms(d_out, d_in, n * 4, reps);
            printf("ws,%u,%u,%u,%s,%u,%zu,%.2f,%.1f,%.2f,%.1f,%.1f,%.2f,%llu,%u\n", c[0], c[1],
                   c[2], MODE_NAMES[c[3]], c[4], n, t.median * 1e3, t.spread * 100,
                   m.median * 1e3, m.spread * 100, 100 * m.median / t.median,
                   cub_t[c[4]].median / t.median, wrong, c[5]);
            fflush(stdout);
        }
    }
    return 0;
}
