/**
 * \file compaction.cu
 * \brief Chapter 10: in-place stream compaction on chapter 09's single pass: keep the elements
 *        x > 0, in order, at the front of the same array, in one pass over it.
 *
 * What is new since chapter 09: one operator, `compact_i32`. Its scan counts the kept elements
 * (a sum of 0s and 1s), and a kept element whose inclusive count is c goes to position c − 1 of
 * the *same* array. That position may lie in an earlier tile's part of the array, which that
 * tile read as its input: the one operator of this course whose tiles write where other tiles
 * read. So its descriptors carry an order (`ORDERED`: stored with release, read with acquire),
 * and the notes argue, from the PTX memory model, that no tile writes over input an earlier tile
 * has not finished reading. The pass itself is chapter 09's, carried over unchanged
 * (`tests/check_carried.sh` compares it, templates included): its `ORDERED`, `store4()`,
 * `finish_part()` and `last_tile()` hooks are what the compaction plugs into.
 *
 *  - (no mode) int32 sum, wrapping: chapter 09's default, through the same pass;
 *  - `--compact`: the compaction, beside CUB's in-place `cub::DeviceSelect::If`.
 *
 * Build and run: `make chapter-10 && ./run --compact` from the top folder, or
 * `make && ./run --compact` here.
 * Follows Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back" (2016),
 * §4.4 ("adaptations and optimizations", the paragraph on in-place compaction).
 */
#include "compaction_modes.h"
#include "cub_scan.h"
#include "cub_select.h"
#include "cuda_util.h"
#include "data.h"
#include "gpu_driver.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** Threads of one warp: also the look-back's window, one predecessor per lane. */
#define WARP_THREADS 32
/** Every lane of the warp: the mask of a shuffle or vote that all 32 lanes must execute. */
#define FULL_MASK 0xffffffffu
/** Threads of a block. */
#define BLOCK_THREADS 128
/** Warps per block. */
#define BLOCK_WARPS (BLOCK_THREADS / WARP_THREADS)
/** Consecutive elements a lane handles at a time: one 128-bit vector of 4-byte elements. */
#define LANE_ITEMS 4

/* Shared memory per SM, the budget that decides how many tiles wait on one SM (chapter 08's
   register budget, now computed per operator from its tile's size: min_blocks_per_sm()). */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000)
/** Hopper and datacenter Blackwell: 228 KB. */
#define SHARED_PER_SM (228 * 1024)
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 800
/** A100: 164 KB. */
#define SHARED_PER_SM (164 * 1024)
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
/** Turing: 64 KB. */
#define SHARED_PER_SM (64 * 1024)
#else
/** Consumer Ampere, Ada and Blackwell: at least 100 KB. */
#define SHARED_PER_SM (100 * 1024)
#endif

/** How far ahead, in tiles, each block asks L2 to fetch input (as in chapter 08). */
#define PREFETCH_TILES 256

/** Descriptor state: nothing published yet. */
#define TILE_INVALID 0u
/** Descriptor state: the value is the tile's aggregate. */
#define TILE_AGGREGATE 1u
/** Descriptor state: the value is the tile's inclusive prefix. */
#define TILE_PREFIX 2u

/** The scratch's first word, bit 63: which of the two descriptor arrays this call uses. */
#define STATE_ARRAY_BIT (1ull << 63)
/** The scratch's first word, bits 32–62: how many tiles the last call had (a mask). */
#define STATE_STALE_MASK 0x7fffffffull

/** How long a tile may wait for its predecessors before the watchdog stops the kernel. */
#define WATCHDOG_NS 5000000000ull
/** Spins between two looks at the clock. */
#define WATCHDOG_SPINS 256u

/** Names for `--variant`. */
static const char *const VARIANT_NAMES[VARIANT_COUNT] = {"decoupled-lookback", "cub"};

/* ------------------------------------------------------------------------------------------ */
/* Carried over unchanged from chapter 06 (06_chained_scan/chained_scan.cu, via 07 and 08)    */
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
/* Carried over unchanged from chapters 07 and 08                                             */
/* ------------------------------------------------------------------------------------------ */

/** Pack a descriptor: the state in the high 32 bits, the value in the low 32. */
__device__ unsigned long long pack_descriptor(unsigned state, uint32_t value)
{
    return (unsigned long long)state << 32 | value;
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

/* ------------------------------------------------------------------------------------------ */
/* The operators                                                                              */
/* ------------------------------------------------------------------------------------------ */

/* An operator is a struct of types, constants and static functions; the pass below calls only
   these. Its members:
     value                 what is scanned: 4 or 8 bytes (the descriptor holds it 32 bits a word)
     ITEMS_PER_THREAD      elements per thread per tile (a multiple of LANE_ITEMS)
     COMMUTATIVE           1 if combine(x, y) == combine(y, x): the reduction may then reorder
     ORDERED               1 if a tile writes where earlier tiles read (chapter 10's compaction):
                           the descriptors are then stored with release, read with acquire
     args, tile            the kernel's arguments; the tile's input in shared memory
     identity()            the value e with combine(e, x) == combine(x, e) == x (this pass's
                           convenience: the look-back needs only associativity)
     combine(earlier, later)   the operator, its arguments in the order of the input
     absorbs(aggregate)    1 only if combine(x, aggregate) is bitwise equal to aggregate for
                           every x: the tile's aggregate is then already its inclusive prefix
                           (a segment head)
     prefetch / load       ask L2 for a later tile; copy this tile to shared memory (cp.async)
     load4(tile, k, x)     elements k … k+3 of the tile, as values
     store4(args, n, first, tile, k, v, base)  write the results of elements k … k+3 (v: their
                           scans; base: what precedes the warp's quarter of the tile)
     finish_part(args, tile, start, base, end)  what a warp does after its last group (chapter
                           10's compaction writes out what it gathered)
     last_tile(args, v)    what the last tile does with its inclusive prefix (the count)
*/

/** Copy `valid` bytes of one tile from global to shared memory with `cp.async`, 16 bytes per
    instruction when the tile is whole, byte by byte with zeros past the end when it is not.
    Zeros past the end come after every real element, so they change no result that is stored
    (and none of the operators keeps a zero). The caller waits (wait_for_copies()). */
__device__ __forceinline__ void copy_tile_async(const void *source, size_t valid, void *target,
                                                int tile_bytes)
{
    if (valid >= (size_t)tile_bytes) {
        for (int k = threadIdx.x; k < tile_bytes / 16; k += BLOCK_THREADS) {
#if __CUDA_ARCH__ >= 800
            const unsigned to = (unsigned)__cvta_generic_to_shared((uint4 *)target + k);
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                         : : "r"(to), "l"((const uint4 *)source + k) : "memory");
#else
            ((uint4 *)target)[k] = ((const uint4 *)source)[k]; /* Turing: through a register */
#endif
        }
    } else {
        for (int k = threadIdx.x; k < tile_bytes; k += BLOCK_THREADS)
            ((unsigned char *)target)[k] =
                (size_t)k < valid ? ((const unsigned char *)source)[k] : 0;
    }
}

/** Wait for this thread's `cp.async` copies (a `__syncthreads()` must follow before other
    threads read them). */
__device__ __forceinline__ void wait_for_copies()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;" : : : "memory");
#endif
}

/** Ask L2 for `bytes` bytes at `source` (one tile of one input array), one 128-byte line per
    thread at a time, from the threads of warps 1 to 3; `valid` of them exist. A hint: it changes
    no result. Warp 0 issues none: its lanes publish the descriptors, and we guessed that a
    release store (chapter 10's compaction uses one: on sm_90 it compiles to a memory barrier,
    `MEMBAR.ALL.GPU`, then the store) might wait for its thread's prefetches (a guess: the timings did not change). */
__device__ __forceinline__ void prefetch_l2(const void *source, size_t valid, int bytes)
{
    const int prefetchers = BLOCK_THREADS - WARP_THREADS;
    for (int k = ((int)threadIdx.x - WARP_THREADS) * 128; k < bytes && (size_t)k < valid;
         k += prefetchers * 128)
        if (k >= 0)
            asm volatile("prefetch.global.L2 [%0];" : : "l"((const char *)source + k));
}

/** Bytes of an input array of n elements of `size` bytes from element `first` to its end (0 past
    the end): how much of a tile that starts there exists. */
__device__ __forceinline__ size_t bytes_left(size_t n, size_t first, int size)
{
    return first < n ? (n - first) * size : 0;
}

/** Store 4 consecutive 32-bit results: one 128-bit store in a whole tile, else one by one. */
__device__ __forceinline__ void store4_contiguous(uint32_t *out, size_t n, size_t first,
                                                  const uint32_t r[LANE_ITEMS])
{
    if (first + LANE_ITEMS <= n) {
        *(uint4 *)(out + first) = make_uint4(r[0], r[1], r[2], r[3]);
    } else {
        for (int c = 0; c < LANE_ITEMS; ++c)
            if (first + c < n)
                out[first + c] = r[c];
    }
}

/** The int32 sum, wrapping (modulo 2^32): chapter 08's operator. */
struct sum_i32 {
    typedef uint32_t value; /**< a partial sum */
    enum { ITEMS_PER_THREAD = 32, COMMUTATIVE = 1, ORDERED = 0 };
    /** Kernel arguments. */
    struct args {
        const int32_t *in; /**< input (16-byte aligned) */
        int32_t *out;      /**< output (may be `in`) */
    };
    /** The tile in shared memory. */
    struct tile {
        uint4 x[BLOCK_THREADS * ITEMS_PER_THREAD / 4]; /**< the elements, 4 per vector */
    };
    /** 0 */
    static __device__ value identity() { return 0u; }
    /** earlier + later */
    static __device__ value combine(value earlier, value later) { return earlier + later; }
    /** never */
    static __device__ int absorbs(value) { return 0; }
    /** L2 prefetch of the tile at `first`. */
    static __device__ void prefetch(const args &a, size_t n, size_t first)
    {
        prefetch_l2(a.in + first, bytes_left(n, first, 4), sizeof(tile));
    }
    /** Copy the tile at `first` to shared memory. */
    static __device__ void load(const args &a, size_t n, size_t first, tile &t)
    {
        copy_tile_async(a.in + first, bytes_left(n, first, 4), &t, sizeof(tile));
    }
    /** Elements k … k+3. */
    static __device__ void load4(const tile &t, int k, value x[LANE_ITEMS])
    {
        const uint4 q = t.x[k / 4];
        x[0] = q.x, x[1] = q.y, x[2] = q.z, x[3] = q.w;
    }
    /** Write the sums. */
    static __device__ void store4(const args &a, size_t n, size_t first, tile &, int,
                                  const value v[LANE_ITEMS], value)
    {
        store4_contiguous((uint32_t *)a.out, n, first, v);
    }
    /** nothing more */
    static __device__ void finish_part(const args &, tile &, int, value, value) {}
    /** nothing more */
    static __device__ void last_tile(const args &, value) {}
};

/**
 * Stream compaction in place: keep the elements x > 0, in order, at the front of the array. The
 * scan counts kept elements (a sum of 0s and 1s); a kept element whose inclusive count is c goes
 * to position c − 1. That position may lie in an earlier tile's part of the array, which that
 * tile read: the descriptors carry release and acquire order (ORDERED; the argument is in the
 * notes and at look_back()).
 */
struct compact_i32 {
    typedef uint32_t value; /**< elements kept */
    enum { ITEMS_PER_THREAD = 32, COMMUTATIVE = 1, ORDERED = 1 };
    /** Kernel arguments. */
    struct args {
        const int32_t *in; /**< input (16-byte aligned) */
        int32_t *out;      /**< the kept elements (may be, and usually is, `in`) */
        uint32_t *kept;    /**< receives how many were kept */
    };
    /** The tile in shared memory. */
    struct tile {
        int4 x[BLOCK_THREADS * ITEMS_PER_THREAD / 4]; /**< the elements, 4 per vector */
    };
    /** 0 */
    static __device__ value identity() { return 0u; }
    /** earlier + later */
    static __device__ value combine(value earlier, value later) { return earlier + later; }
    /** never */
    static __device__ int absorbs(value) { return 0; }
    /** L2 prefetch of the tile at `first`. */
    static __device__ void prefetch(const args &a, size_t n, size_t first)
    {
        prefetch_l2(a.in + first, bytes_left(n, first, 4), sizeof(tile));
    }
    /** Copy the tile at `first` to shared memory. */
    static __device__ void load(const args &a, size_t n, size_t first, tile &t)
    {
        copy_tile_async(a.in + first, bytes_left(n, first, 4), &t, sizeof(tile));
    }
    /** Elements k … k+3 as 1 (kept) or 0. */
    static __device__ void load4(const tile &t, int k, value x[LANE_ITEMS])
    {
        const int4 q = t.x[k / 4];
        x[0] = q.x > 0, x[1] = q.y > 0, x[2] = q.z > 0, x[3] = q.w > 0;
    }
    /** Gather the group's kept elements at the front of the warp's quarter of the tile, in
        shared memory: a kept element whose count is c goes to c − 1 − base there. That place is
        never after the element's own, so it lies in this group or an earlier one, which every
        lane has read (the `__syncwarp()`). */
    static __device__ void store4(const args &, size_t, size_t, tile &t, int k,
                                  const value v[LANE_ITEMS], value base)
    {
        const int4 q = t.x[k / 4];
        __syncwarp(); /* every lane has read its group before any lane writes into it */
        int32_t *part = (int32_t *)t.x + (k - k % (WARP_THREADS * ITEMS_PER_THREAD));
        const int32_t x[LANE_ITEMS] = {q.x, q.y, q.z, q.w};
        for (int c = 0; c < LANE_ITEMS; ++c)
            if (x[c] > 0)
                part[v[c] - 1 - base] = x[c];
    }
    /** Write the warp's kept elements, gathered at the start of its quarter, to positions
        base … end − 1 of the output: consecutive lanes, consecutive addresses. */
    static __device__ void finish_part(const args &a, tile &t, int start, value base, value end)
    {
        __syncwarp(); /* every lane's gathering is done */
        const int32_t *part = (const int32_t *)t.x + start;
        for (uint32_t j = threadIdx.x % WARP_THREADS; j < end - base; j += WARP_THREADS)
            a.out[(size_t)base + j] = part[j];
    }
    /** The last tile's inclusive prefix: how many were kept. */
    static __device__ void last_tile(const args &a, value inclusive) { *a.kept = inclusive; }
};

/* ------------------------------------------------------------------------------------------ */
/* The lesson: the pass, generic over the operator                                            */
/* ------------------------------------------------------------------------------------------ */

/** load_descriptor() as an acquire (`ld.acquire.gpu`): what the thread does after it in program
    order comes after the read, and after everything the store it reads from released. For
    operators whose tiles write where earlier tiles read (Op::ORDERED). */
__device__ __forceinline__ unsigned long long load_descriptor_acquire(
    const unsigned long long *descriptor)
{
    unsigned long long word;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(word) : "l"(descriptor) : "memory");
    return word;
}

/** store_descriptor() as a release (`st.release.gpu`): what comes before it in the thread's
    program order, and what a barrier or an acquire ordered before that, is ordered before the
    store for every thread whose acquire reads it. For Op::ORDERED, as above. */
__device__ __forceinline__ void store_descriptor_release(unsigned long long *descriptor,
                                                         unsigned long long word)
{
    asm volatile("st.release.gpu.global.u64 [%0], %1;" : : "l"(descriptor), "l"(word) : "memory");
}

/** A value as 32-bit words: what shuffles and descriptors move. */
template <typename V> struct value_words {
    uint32_t w[sizeof(V) / 4]; /**< the words */
};

/** `__shfl_sync` of a value of any size, word by word. */
template <typename V> __device__ __forceinline__ V shfl_value(V x, int source_lane)
{
    value_words<V> w;
    memcpy(&w, &x, sizeof x);
    for (int i = 0; i < (int)(sizeof(V) / 4); ++i)
        w.w[i] = __shfl_sync(FULL_MASK, w.w[i], source_lane);
    memcpy(&x, &w, sizeof x);
    return x;
}

/** `__shfl_up_sync` of a value of any size, word by word. */
template <typename V> __device__ __forceinline__ V shfl_up_value(V x, int delta)
{
    value_words<V> w;
    memcpy(&w, &x, sizeof x);
    for (int i = 0; i < (int)(sizeof(V) / 4); ++i)
        w.w[i] = __shfl_up_sync(FULL_MASK, w.w[i], delta);
    memcpy(&x, &w, sizeof x);
    return x;
}

/** `__shfl_xor_sync` of a value of any size, word by word. */
template <typename V> __device__ __forceinline__ V shfl_xor_value(V x, int mask)
{
    value_words<V> w;
    memcpy(&w, &x, sizeof x);
    for (int i = 0; i < (int)(sizeof(V) / 4); ++i)
        w.w[i] = __shfl_xor_sync(FULL_MASK, w.w[i], mask);
    memcpy(&x, &w, sizeof x);
    return x;
}

/**
 * \brief Combine one value per lane over the warp, in lane order, and return it to every lane:
 *        a butterfly in which the lane whose range comes first in the input goes first.
 *
 * At step `offset`, lanes i and i XOR offset hold neighbouring ranges; the one with the bit set
 * holds the higher lanes. With `lane_zero_first` the lowest lane is the earliest element (a
 * tile's part), without it the highest (the look-back's window, whose lane 0 is the nearest
 * predecessor). Chapter 07's warp_reduce() added in any order: a sum does not mind, a map does.
 * \pre All 32 lanes call it together.
 */
template <class Op>
__device__ __forceinline__ typename Op::value warp_combine(typename Op::value x,
                                                           int lane_zero_first)
{
    const int lane = threadIdx.x % WARP_THREADS;
    for (int offset = 1; offset < WARP_THREADS; offset *= 2) {
        const typename Op::value other = shfl_xor_value(x, offset);
        const int mine_is_later = ((lane & offset) != 0) == (lane_zero_first != 0);
        x = mine_is_later ? Op::combine(other, x) : Op::combine(x, other);
    }
    return x;
}

/**
 * \brief Inclusive scan of one value per lane across the warp, lane 0 first: Kogge-Stone with
 *        shuffles (chapter 02's warp_inclusive_scan(), with the operator in place of `+`).
 * \pre All 32 lanes call it together.
 */
template <class Op> __device__ __forceinline__ typename Op::value warp_scan(typename Op::value x)
{
    const int lane = threadIdx.x % WARP_THREADS;
    for (int offset = 1; offset < WARP_THREADS; offset *= 2) {
        const typename Op::value below = shfl_up_value(x, offset);
        if (lane >= offset)
            x = Op::combine(below, x); /* the lower lane's range comes first */
    }
    return x;
}

/**
 * \brief Publish a tile's descriptor: one 64-bit word per 32 bits of the value, each word
 *        carrying the state beside its part of the value.
 *
 * A value wider than 32 bits cannot travel with its state in one 64-bit store. Each of its
 * words travels with a copy of the state instead, and a reader accepts the value only when every
 * word shows the same state (read_descriptor()). A word's state goes from INVALID to AGGREGATE to
 * PREFIX and never back within a call, and a tile that publishes a prefix twice (one whose
 * aggregate absorbs) publishes the same value both times; so words that agree on the state come
 * from publications of one value: the value is whole. No fence is needed, and nothing wider
 * than 64 bits must be read in one piece.
 * \param descriptors the words of the descriptors, sizeof(value) / 4 per tile
 * \param tile        the tile
 * \param state       TILE_AGGREGATE or TILE_PREFIX
 * \param v           the value
 */
template <class Op>
__device__ __forceinline__ void publish(unsigned long long *descriptors, unsigned tile,
                                        unsigned state, typename Op::value v)
{
    const int words = (int)(sizeof(v) / 4);
    value_words<typename Op::value> w;
    memcpy(&w, &v, sizeof v);
    for (int i = 0; i < words; ++i) {
        unsigned long long *word = &descriptors[(size_t)tile * words + i];
        if (Op::ORDERED)
            store_descriptor_release(word, pack_descriptor(state, w.w[i]));
        else
            store_descriptor(word, pack_descriptor(state, w.w[i]));
    }
}

/**
 * \brief Read a tile's descriptor (see publish()): its state if all its words agree on one, else
 *        TILE_INVALID (a publication under way: read it again).
 * \param descriptors the words of the descriptors
 * \param tile        the tile
 * \param v           receives the value (meaningful when the state is not TILE_INVALID)
 */
template <class Op>
__device__ __forceinline__ unsigned read_descriptor(const unsigned long long *descriptors,
                                                    long long tile, typename Op::value *v)
{
    const int words = (int)(sizeof(*v) / 4);
    value_words<typename Op::value> w;
    unsigned state = 0;
    for (int i = 0; i < words; ++i) {
        const unsigned long long *at = &descriptors[(size_t)tile * words + i];
        const unsigned long long word = Op::ORDERED ? load_descriptor_acquire(at)
                                                    : load_descriptor(at);
        const unsigned s = (unsigned)(word >> 32);
        state = i == 0 ? s : (s == state ? state : TILE_INVALID);
        w.w[i] = (uint32_t)word;
    }
    memcpy(v, &w, sizeof *v);
    return state;
}

/**
 * \brief Publish the tile's aggregate: as a prefix when it already is one (tile 0, or an
 *        aggregate that absorbs everything before it: a segment head), else as an aggregate.
 *
 * An aggregate published as a prefix is where every later look-back stops: the segmented scan's
 * look-back never walks past the nearest tile that holds a head. For Op::ORDERED the store is
 * a release, after the barrier that follows the tile's copy: the whole block's reads of its input
 * come before it.
 * \pre Called by one thread, after a barrier.
 */
template <class Op>
__device__ __forceinline__ void publish_aggregate(unsigned long long *descriptors, unsigned tile,
                                                  typename Op::value aggregate)
{
    const int is_prefix = tile == 0 || Op::absorbs(aggregate);
    publish<Op>(descriptors, tile, is_prefix ? TILE_PREFIX : TILE_AGGREGATE, aggregate);
}

/**
 * \brief The look-back (paper §4.4, "adaptations and optimizations", its paragraph on the
 *        parallelized look-back), generic: chapter 07's look_back() with the operator in place
 *        of `+`, and the order kept.
 *
 * Lane i reads the descriptor of tile `window_last − i`, so the lowest lane holds the nearest
 * predecessor and the highest the farthest. The window is ready when every lane up to the
 * nearest prefix has published; its values are then combined farthest first
 * (warp_combine(…, 0)), and the window's result goes *in front of* what the windows nearer the
 * tile gave: `exclusive_prefix = combine(window, exclusive_prefix)`. (Chapter 07 wrote
 * `exclusive_prefix += …` in either order: for a sum it is the same.)
 *
 * When the operator's tiles write where earlier tiles read (Op::ORDERED), each lane's reads are
 * acquires of what the tiles it read released, `__syncwarp()` orders every lane's reads before
 * lane 0's store (by its own description, not by the memory model's rules: chapter 10's notes),
 * and that store, a release, passes all of it on to the tiles that will read this one.
 * \return the tile's exclusive prefix (in every lane)
 * \pre One full warp calls it; every tile below `tile` was handed to a block that is running.
 */
template <class Op>
__device__ typename Op::value look_back(unsigned long long *descriptors, unsigned tile,
                                        typename Op::value aggregate)
{
    typedef typename Op::value V;
    const int lane = threadIdx.x % WARP_THREADS;
    if (tile == 0)
        return Op::identity();
    V exclusive_prefix = Op::identity();
    long long window_last = (long long)tile - 1;
    unsigned spins = 0;
    unsigned long long since = 0;
    for (;;) {
        const long long predecessor = window_last - lane;
        V v = Op::identity();
        /* before tile 0: only in a window that holds tile 0, whose prefix lies nearer */
        const unsigned state = predecessor >= 0
                                   ? read_descriptor<Op>(descriptors, predecessor, &v)
                                   : TILE_PREFIX;
        const unsigned prefix_lanes = __ballot_sync(FULL_MASK, state == TILE_PREFIX);
        const unsigned needed = prefix_lanes ? (prefix_lanes ^ (prefix_lanes - 1)) : FULL_MASK;
        if ((__ballot_sync(FULL_MASK, state == TILE_INVALID) & needed) != 0) {
            watchdog(&spins, &since, tile, window_last);
            continue;
        }
        const V window = warp_combine<Op>((needed >> lane) & 1u ? v : Op::identity(), 0);
        exclusive_prefix = Op::combine(window, exclusive_prefix);
        if (prefix_lanes)
            break;
        window_last -= WARP_THREADS;
    }
    if (Op::ORDERED)
        __syncwarp(); /* every lane's acquires before lane 0's release: by bar.warp.sync's
                         description, not the memory model's rules (chapter 10's notes) */
    if (lane == 0)
        publish<Op>(descriptors, tile, TILE_PREFIX, Op::combine(exclusive_prefix, aggregate));
    return exclusive_prefix;
}

/** Where element k of this lane's v-th group of 4 lies in the tile: warp w owns the w-th
    quarter of the tile, and its groups of 4 follow each other lane by lane. */
template <class Op> __device__ __forceinline__ int tile_index(int v)
{
    const int lane = threadIdx.x % WARP_THREADS, warp = threadIdx.x / WARP_THREADS;
    return warp * WARP_THREADS * Op::ITEMS_PER_THREAD + (v * WARP_THREADS + lane) * LANE_ITEMS;
}

/**
 * \brief Reduce the tile in shared memory: the tile's aggregate, and what precedes each warp's
 *        quarter.
 *
 * For a commutative operator each thread combines its elements in any order and the warp
 * combines its lanes once (chapter 08's way); otherwise each group of 128 elements is combined
 * across the warp in order, and the groups follow each other.
 * \param t           the tile
 * \param warp_before receives the combination of the warps before this one
 * \return the tile's aggregate (in every thread)
 * \pre Every thread calls it.
 */
template <class Op>
__device__ __forceinline__ typename Op::value reduce_tile(const typename Op::tile &t,
                                                          typename Op::value *warp_before)
{
    typedef typename Op::value V;
    __shared__ V warp_total[BLOCK_WARPS];
    const int lane = threadIdx.x % WARP_THREADS, warp = threadIdx.x / WARP_THREADS;
    V total = Op::identity();
    for (int v = 0; v < Op::ITEMS_PER_THREAD / LANE_ITEMS; ++v) {
        V x[LANE_ITEMS];
        Op::load4(t, tile_index<Op>(v), x);
        const V group = Op::combine(Op::combine(x[0], x[1]), Op::combine(x[2], x[3]));
        total = Op::combine(total, Op::COMMUTATIVE ? group : warp_combine<Op>(group, 1));
    }
    if (Op::COMMUTATIVE)
        total = warp_combine<Op>(total, 1);
    if (lane == 0)
        warp_total[warp] = total;
    __syncthreads(); /* every warp total is written */
    V before = Op::identity();
    total = Op::identity();
    for (int w = 0; w < BLOCK_WARPS; ++w) {
        if (w == warp)
            before = total;
        total = Op::combine(total, warp_total[w]);
    }
    *warp_before = before;
    return total;
}

/**
 * \brief Scan this warp's quarter of the tile and store it: group by group of 128 elements, a
 *        serial scan of the lane's 4, a warp scan of the lane totals, and `carried` (all that
 *        precedes the group) in front.
 * \param a         the kernel's arguments
 * \param n         element count
 * \param first     index of the tile's first element
 * \param t         the tile (chapter 10's compaction gathers its kept elements in it)
 * \param carried   all that precedes this warp's quarter: the tile's exclusive prefix, then the
 *                  warps before
 * \param exclusive 1 for an exclusive scan (the int32 sum only)
 * \pre All 32 lanes of the warp call it together.
 */
template <class Op>
__device__ __forceinline__ void scan_and_store(const typename Op::args &a, size_t n, size_t first,
                                               typename Op::tile &t, typename Op::value carried,
                                               int exclusive)
{
    typedef typename Op::value V;
    const V part_base = carried; /* what precedes the warp's quarter */
    for (int v = 0; v < Op::ITEMS_PER_THREAD / LANE_ITEMS; ++v) {
        const int k = tile_index<Op>(v);
        V x[LANE_ITEMS];
        Op::load4(t, k, x);
        for (int c = 1; c < LANE_ITEMS; ++c)
            x[c] = Op::combine(x[c - 1], x[c]); /* the lane's inclusive scan */
        const V lane_inclusive = warp_scan<Op>(x[LANE_ITEMS - 1]);
        V lane_exclusive = shfl_up_value(lane_inclusive, 1);
        if (threadIdx.x % WARP_THREADS == 0)
            lane_exclusive = Op::identity();
        const V base = Op::combine(carried, lane_exclusive);
        V result[LANE_ITEMS];
        for (int c = 0; c < LANE_ITEMS; ++c)
            result[c] = exclusive ? (c == 0 ? base : Op::combine(base, x[c - 1]))
                                  : Op::combine(base, x[c]);
        Op::store4(a, n, first + k, t, k, result, part_base);
        carried = Op::combine(carried, shfl_value(lane_inclusive, WARP_THREADS - 1));
    }
    Op::finish_part(a, t, tile_index<Op>(0) - (threadIdx.x % WARP_THREADS) * LANE_ITEMS,
                    part_base, carried);
}

/**
 * \brief One tile of the single pass: draw a tile id, prefetch a later tile into L2, copy this
 *        tile to shared memory, reduce it and publish the aggregate, look back, scan and store.
 *
 * Chapter 08 scanned the tile before its look-back and kept the scan in shared memory; here the
 * tile's input stays there as it came (an operator's value may be wider than its input: a
 * segment's (head, sum) from a value and a byte), and the scan runs after the look-back, with the
 * prefix already known.
 * \param a         the kernel's arguments
 * \param n         element count
 * \param state     the scratch: the state word, then two arrays of `capacity` descriptors
 * \param capacity  descriptors per array
 * \param exclusive 1 for an exclusive scan
 */
template <class Op>
__device__ __forceinline__ void single_pass_tile(const typename Op::args &a,
                                                 size_t n, unsigned long long *state,
                                                 size_t capacity, int exclusive)
{
    typedef typename Op::value V;
    const int words = (int)(sizeof(V) / 4);
    const int tile_items = BLOCK_THREADS * Op::ITEMS_PER_THREAD;
    __shared__ unsigned long long drawn;
    __shared__ V tile_exclusive_prefix;
    __shared__ typename Op::tile data;
    if (threadIdx.x == 0)
        drawn = draw_tile(state);
    __syncthreads(); /* drawn is written */
    const unsigned tile = (unsigned)drawn;
    const size_t array = drawn & STATE_ARRAY_BIT ? 1 : 0;
    unsigned long long *descriptors = state + 1 + array * capacity * words;
    const size_t first = (size_t)tile * tile_items;
    Op::prefetch(a, n, first + (size_t)PREFETCH_TILES * tile_items);
    Op::load(a, n, first, data);
    wait_for_copies();
    __syncthreads(); /* the whole tile is in shared memory: this tile has read its input */
    V warp_before;
    const V aggregate = reduce_tile<Op>(data, &warp_before);
    if (threadIdx.x == 0)
        publish_aggregate<Op>(descriptors, tile, aggregate);
    if (threadIdx.x < WARP_THREADS) {
        const V prefix = look_back<Op>(descriptors, tile, aggregate);
        if (threadIdx.x == 0)
            tile_exclusive_prefix = prefix;
    }
    __syncthreads(); /* tile_exclusive_prefix is written */
    scan_and_store<Op>(a, n, first, data, Op::combine(tile_exclusive_prefix, warp_before),
                       exclusive);
    if (threadIdx.x == 0 && tile == gridDim.x - 1)
        Op::last_tile(a, Op::combine(tile_exclusive_prefix, aggregate));
    /* last, in case a release store of this tile would wait for these stores (a guess, as above) */
    clear_stale_descriptors(state + 1 + (1 - array) * capacity * words,
                            (size_t)(drawn >> 32 & STATE_STALE_MASK) * words, tile);
}

/** Blocks of the pass that one SM's shared memory holds: its tile, plus the 1 KB the driver
    reserves per block, plus 256 bytes for the pass's own shared variables (the drawn tile id,
    the warp totals, the tile's prefix: under 100 bytes) with room to spare. */
template <class Op> constexpr int min_blocks_per_sm()
{
    return SHARED_PER_SM / ((int)sizeof(typename Op::tile) + 1024 + 256) > 0
               ? SHARED_PER_SM / ((int)sizeof(typename Op::tile) + 1024 + 256)
               : 1;
}

/**
 * \brief The single pass with operator `Op`: one launch, one tile per block.
 * \param a         the operator's arguments (input, output)
 * \param n         element count
 * \param state     the scratch (operator_pass_async() says what it must hold)
 * \param capacity  descriptors per array of the scratch
 * \param exclusive 1 for exclusive (the int32 sum only), 0 for inclusive
 */
template <class Op>
__global__ void __launch_bounds__(BLOCK_THREADS, min_blocks_per_sm<Op>())
    single_pass_kernel(typename Op::args a, size_t n, unsigned long long *state, size_t capacity,
                       int exclusive)
{
    /* two copies of the pass, each with `exclusive` a constant (chapter 08) */
    if (exclusive)
        single_pass_tile<Op>(a, n, state, capacity, 1);
    else
        single_pass_tile<Op>(a, n, state, capacity, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Host launchers                                                                             */
/* ------------------------------------------------------------------------------------------ */

/** Elements of one tile of operator `Op`. */
template <class Op> constexpr size_t tile_items()
{
    return (size_t)BLOCK_THREADS * Op::ITEMS_PER_THREAD;
}

/** Tiles of n elements. */
template <class Op> static size_t tile_count(size_t n)
{
    return (n + tile_items<Op>() - 1) / tile_items<Op>();
}

/** Scratch the pass needs for n elements: the state word and two descriptor arrays, one word
    per 32 bits of the operator's value per tile. */
template <class Op> static size_t pass_scratch_bytes(size_t n)
{
    const size_t words = sizeof(typename Op::value) / 4;
    return n ? (1 + 2 * words * tile_count<Op>(n)) * sizeof(unsigned long long) : 0;
}

/**
 * \brief The single pass with operator `Op`, asynchronous on `stream`: one kernel launch.
 *
 * The scratch contract is chapter 08's (lookback_scan_async() there): zeros before the first call,
 * then only this launcher writes it, always with the same `temp_bytes`; calls that share it do
 * not overlap. Each operator needs its own scratch (its descriptors have its own width).
 * \param a          the operator's arguments (device arrays, 16-byte aligned)
 * \param n          element count (0 launches nothing)
 * \param exclusive  1 for exclusive (the int32 sum only)
 * \param d_temp     the scratch
 * \param temp_bytes its size: at least pass_scratch_bytes<Op>(n)
 * \param stream     the stream to launch on
 */
template <class Op>
static void pass_async(const typename Op::args &a, size_t n, int exclusive, void *d_temp,
                       size_t temp_bytes, cudaStream_t stream)
{
    const size_t tiles = tile_count<Op>(n), words = sizeof(typename Op::value) / 4;
    if (tiles == 0)
        return;
    if (tiles > 0x7fffffffu || temp_bytes < pass_scratch_bytes<Op>(n))
        cuda_fail(cudaErrorInvalidValue, "scratch too small, or too many tiles for one grid",
                  __FILE__, __LINE__);
    const size_t capacity = (temp_bytes / sizeof(unsigned long long) - 1) / (2 * words);
    single_pass_kernel<Op><<<(unsigned)tiles, BLOCK_THREADS, 0, stream>>>(
        a, n, (unsigned long long *)d_temp, capacity, exclusive);
    CUDA_CHECK_LAUNCH();
}

/* ------------------------------------------------------------------------------------------ */
/* The int32 sum: the shared driver's battery, stress test, files and sweep                   */
/* ------------------------------------------------------------------------------------------ */

/** The ::gpu_temp_fn of the int32 sum: the pass's scratch, or CUB's. */
static size_t sum_temp_bytes(int variant, size_t n)
{
    return variant == VARIANT_CUB ? (n ? cub_scan_temp_bytes(n) : 0)
                                  : pass_scratch_bytes<sum_i32>(n);
}

/** The ::gpu_scan_fn of the int32 sum: the generic pass with sum_i32, or CUB's scan. */
static void sum_scan(int variant, const int32_t *d_in, int32_t *d_out, size_t n, int exclusive,
                     void *d_temp, size_t temp_bytes)
{
    if (n == 0)
        return;
    if (variant == VARIANT_CUB)
        cub_scan(d_in, d_out, n, exclusive, d_temp, temp_bytes);
    else
        pass_async<sum_i32>(sum_i32::args{d_in, d_out}, n, exclusive, d_temp, temp_bytes, 0);
}

/** The ::gpu_traffic_fn: 2n elements and three writes of each tile's 8-byte descriptor. */
static double sum_traffic(int variant, size_t n)
{
    (void)variant;
    return 2.0 * (double)n + 6.0 * (double)tile_count<sum_i32>(n);
}

/* ------------------------------------------------------------------------------------------ */
/* The compaction's mode: its launch and scratch; the rest is in compaction_modes.cu          */
/* ------------------------------------------------------------------------------------------ */

/** Launch the compaction: both variants in place, on d_in. */
static void compact_launch(int variant, compact_data *d)
{
    if (d->n > 0xffffffffu) /* the count, and every position, is a uint32 */
        cli_fail(EXIT_USAGE, "the compaction takes fewer than 2^32 elements; n is %zu", d->n);
    if (d->n == 0) /* nothing to launch: nothing kept */
        CUDA_CHECK(cudaMemsetAsync(d->d_count, 0, sizeof(uint32_t), 0));
    else if (variant == VARIANT_CUB)
        cub_select_run(d->d_in, (int *)d->d_count, d->n, d->d_temp[variant],
                       d->temp_bytes[variant]);
    else
        pass_async<compact_i32>(
            compact_i32::args{(const int32_t *)d->d_in, (int32_t *)d->d_in, d->d_count}, d->n,
            0, d->d_temp[variant], d->temp_bytes[variant], 0);
}

/** Scratch of the compaction. */
static size_t compact_temp(int variant, size_t n)
{
    return variant == VARIANT_CUB ? cub_select_temp_bytes(n) : pass_scratch_bytes<compact_i32>(n);
}

/** The compaction, as the harness sees it. */
static const compact_mode COMPACT = {"compact-in-place", "cub-select-if-in-place",
                                     tile_items<compact_i32>(), compact_launch, compact_temp};

/** The ::scan_mode run of the compaction: `ctx` is its ::compact_mode. */
static int compact_run(const void *ctx, const scan_options *opt, const int32_t *file,
                       size_t words)
{
    return compact_main((const compact_mode *)ctx, opt, file, words);
}

/** The chapter's mode: the compaction. */
static const scan_mode MODES[] = {
    {.option = "--compact",
     .help = "keep x > 0 in order, in place (F: int32; G: the kept ones only, in order)",
     .test = "--compact --self-test | --compact --stress 100",
     .combines = 1,
     .ctx = &COMPACT,
     .run = compact_run},
};

/** The default sweep of the int32 sum: chapter 08's. */
static const size_t DEFAULT_SIZES[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                       (size_t)1 << 24, (size_t)1 << 26, (size_t)1 << 28};

/** Lines printed above the int32 sum's table. */
static const char *const NOTES[] = {
    "the int32 sum through chapter 09's generic pass; this chapter's lesson is the compaction: "
    "./run --compact (see --help)",
    "cub: cub::DeviceScan::InclusiveSum/ExclusiveSum from the CUDA toolkit, on the same buffers",
    NULL};

/** \brief Describe the chapter to the shared driver and run it. */
int main(int argc, char **argv)
{
    const gpu_chapter chapter = {
        .prog = {
            .name = "10_compaction",
            .title = "in-place stream compaction on chapter 09's single pass, beside CUB",
            .variants = VARIANT_NAMES,
            .variant_count = VARIANT_COUNT,
            .default_sizes = DEFAULT_SIZES,
            .default_size_count = (int)(sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]),
            .default_reps = 20,
            .stress = 1,
            .modes = MODES,
            .mode_count = (int)(sizeof MODES / sizeof MODES[0]),
        },
        .scan = sum_scan,
        .tile = tile_items<sum_i32>(),
        .repeats = 3,
        .notes = NOTES,
        .temp_bytes = sum_temp_bytes,
        .temp_is_state = 1u << VARIANT_LOOKBACK, /* CUB's scratch is poisoned before every run */
        .traffic = sum_traffic,
    };
    return gpu_chapter_main(argc, argv, &chapter);
}
