/**
 * \file operators.cu
 * \brief Chapter 09: chapter 08's single pass with the operator as a parameter: int32 sums,
 *        float sums, a linear recurrence (affine maps, not commutative), segmented sums (the
 *        look-back stops at a segment's head) and in-place stream compaction.
 *
 * What is new since chapter 08: the pass no longer knows that it adds. Everything it does to a
 * value goes through an *operator*, a struct that says what one element is, how two values
 * combine (`combine(earlier, later)`, in that order), what leaves a value unchanged (its
 * identity), and how the result is stored. The pass is a template over the operator: the one
 * place in this course where C++ templates are the lesson. What the generality costs is in the
 * notes: two things chapter 08 did because a sum is commutative (add a thread's elements in any
 * order, add the look-back's window in any order) now follow the operator's order, and a value
 * wider than 32 bits needs a descriptor of several words.
 *
 * The operators, each a mode of `./run` with its own check and its CUB baseline beside it:
 *  - (no mode) int32 sum, wrapping: chapter 08's scan, through the generic pass;
 *  - `--float-sum`: float addition rounds, so the result depends on the order, and the order of
 *    the look-back depends on timing: results vary from run to run, within a bound;
 *  - `--recurrence`: h_t = a_t·h_{t−1} + b_t, the scan of affine maps (linear RNNs, state-space
 *    models), in int32 arithmetic mod 2^32;
 *  - `--segmented`: sums that start afresh at every head flag;
 *  - `--compact`: keep x > 0, in order, at the front of the same array (paper §4.4).
 *
 * Build and run: `make chapter-9 && ./run` from the top folder, or `make && ./run` here.
 * Follows Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back" (2016):
 * §2 (any associative operator), §4 (the look-back), §4.4 (compaction in place).
 */
#include "cub_operators.h"
#include "cub_scan.h"
#include "cuda_util.h"
#include "data.h"
#include "gpu_driver.h"
#include "io.h"
#include "report.h"
#include "selftest.h"

#include <math.h>
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

/** The variants of every mode: this chapter's pass, and CUB beside it. */
enum { VARIANT_LOOKBACK, VARIANT_CUB, VARIANT_COUNT };

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
 * morally strong (PTX memory model), so the load returns one whole store's value and sees other
 * SMs' stores; on today's GPUs such a load is served by L2, where those stores land, not by this
 * SM's L1 (an implementation fact, not a PTX rule). `asm volatile` with a "memory" clobber keeps
 * the compiler from hoisting it out of a spin loop.
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
     args, tile            the kernel's arguments; the tile's input in shared memory
     identity()            the value e with combine(e, x) == combine(x, e) == x
     combine(earlier, later)   the operator, its arguments in the order of the input
     absorbs(aggregate)    1 if combine(anything, aggregate) == aggregate: the tile's aggregate
                           is then already its inclusive prefix (a segment head)
     prefetch / load       ask L2 for a later tile; copy this tile to shared memory (cp.async)
     load4(tile, k, x)     elements k … k+3 of the tile, as values
     store4(args, n, first, tile, k, v, base)  write the results of elements k … k+3 (v: their
                           scans; base: what precedes the warp's quarter of the tile)
     finish_part(args, tile, start, base, end)  what a warp does after its last group (the
                           compaction writes out what it gathered)
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
    thread at a time; `valid` of them exist. A hint: it changes no result. */
__device__ __forceinline__ void prefetch_l2(const void *source, size_t valid, int bytes)
{
    for (int k = threadIdx.x * 128; k < bytes && (size_t)k < valid; k += BLOCK_THREADS * 128)
        asm volatile("prefetch.global.L2 [%0];" : : "l"((const char *)source + k));
}

/** Bytes of `array` (elements of `size` bytes) from element `first` on, of n: what a tile of
    `items` elements may read there. */
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
    enum { ITEMS_PER_THREAD = 32, COMMUTATIVE = 1 };
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

/** The float sum: rounded, so the order of the additions shows in the result. */
struct sum_f32 {
    typedef float value; /**< a partial sum */
    enum { ITEMS_PER_THREAD = 32, COMMUTATIVE = 1 };
    /** Kernel arguments. */
    struct args {
        const float *in; /**< input (16-byte aligned) */
        float *out;      /**< output (may be `in`) */
    };
    /** The tile in shared memory. */
    struct tile {
        float4 x[BLOCK_THREADS * ITEMS_PER_THREAD / 4]; /**< the elements, 4 per vector */
    };
    /** 0.0f */
    static __device__ value identity() { return 0.0f; }
    /** earlier + later, rounded to nearest */
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
        const float4 q = t.x[k / 4];
        x[0] = q.x, x[1] = q.y, x[2] = q.z, x[3] = q.w;
    }
    /** Write the sums. */
    static __device__ void store4(const args &a, size_t n, size_t first, tile &, int,
                                  const value v[LANE_ITEMS], value)
    {
        const uint32_t r[LANE_ITEMS] = {__float_as_uint(v[0]), __float_as_uint(v[1]),
                                        __float_as_uint(v[2]), __float_as_uint(v[3])};
        store4_contiguous((uint32_t *)a.out, n, first, r);
    }
    /** nothing more */
    static __device__ void finish_part(const args &, tile &, int, value, value) {}
    /** nothing more */
    static __device__ void last_tile(const args &, value) {}
};

/** One step of the recurrence, the map h ↦ a·h + b, in T: uint32_t (int32 arithmetic, modulo
    2^32) or float. */
template <typename T> struct affine_map {
    T a; /**< multiplier */
    T b; /**< addend */
};

/** A 32-bit word as T (uint32_t: itself; float: its bits read as a float). */
template <typename T> __device__ __forceinline__ T from_bits(uint32_t w)
{
    T x;
    memcpy(&x, &w, sizeof x);
    return x;
}

/** The bits of a 32-bit T. */
template <typename T> __device__ __forceinline__ uint32_t to_bits(T x)
{
    uint32_t w;
    memcpy(&w, &x, sizeof w);
    return w;
}

/**
 * The linear recurrence h_t = a_t·h_{t−1} + b_t (h_{−1} = 0) as a scan of affine maps, in T: the
 * scan composes maps, x ↦ later(earlier(x)), and element t's scan applied to h_{−1} = 0 is h_t,
 * its b. Composition is associative (exactly so modulo 2^32; up to rounding in float) but not
 * commutative.
 */
template <typename T> struct affine {
    typedef affine_map<T> value; /**< a composed map: 8 bytes, two descriptor words */
    enum { ITEMS_PER_THREAD = 16, COMMUTATIVE = 0 };
    /** Kernel arguments. */
    struct args {
        const value *in; /**< the pairs (a_t, b_t) (16-byte aligned) */
        T *out;          /**< h_t */
    };
    /** The tile in shared memory. */
    struct tile {
        uint4 x[BLOCK_THREADS * ITEMS_PER_THREAD / 2]; /**< the pairs, 2 per vector */
    };
    /** x ↦ x */
    static __device__ value identity() { return value{(T)1, (T)0}; }
    /** x ↦ later(earlier(x)) = later.a·(earlier.a·x + earlier.b) + later.b */
    static __device__ value combine(value earlier, value later)
    {
        return value{later.a * earlier.a, later.a * earlier.b + later.b};
    }
    /** a map that forgets its input (a = 0) would; the recurrence's are not looked for */
    static __device__ int absorbs(value) { return 0; }
    /** L2 prefetch of the tile at `first`. */
    static __device__ void prefetch(const args &a, size_t n, size_t first)
    {
        prefetch_l2(a.in + first, bytes_left(n, first, 8), sizeof(tile));
    }
    /** Copy the tile at `first` to shared memory. */
    static __device__ void load(const args &a, size_t n, size_t first, tile &t)
    {
        copy_tile_async(a.in + first, bytes_left(n, first, 8), &t, sizeof(tile));
    }
    /** Elements k … k+3: two vectors. */
    static __device__ void load4(const tile &t, int k, value x[LANE_ITEMS])
    {
        const uint4 p = t.x[k / 2], q = t.x[k / 2 + 1];
        x[0] = value{from_bits<T>(p.x), from_bits<T>(p.y)};
        x[1] = value{from_bits<T>(p.z), from_bits<T>(p.w)};
        x[2] = value{from_bits<T>(q.x), from_bits<T>(q.y)};
        x[3] = value{from_bits<T>(q.z), from_bits<T>(q.w)};
    }
    /** Write h_t = b of each scanned map. */
    static __device__ void store4(const args &a, size_t n, size_t first, tile &, int,
                                  const value v[LANE_ITEMS], value)
    {
        const uint32_t r[LANE_ITEMS] = {to_bits(v[0].b), to_bits(v[1].b), to_bits(v[2].b),
                                        to_bits(v[3].b)};
        store4_contiguous((uint32_t *)a.out, n, first, r);
    }
    /** nothing more */
    static __device__ void finish_part(const args &, tile &, int, value, value) {}
    /** nothing more */
    static __device__ void last_tile(const args &, value) {}
};

/** The recurrence modulo 2^32: exact. */
typedef affine<uint32_t> affine_i32;
/** The recurrence in float: rounded. */
typedef affine<float> affine_f32;

/** A segmented partial sum: whether a head lies in the range, and the sum since the last head. */
struct segment_sum {
    uint32_t head; /**< 1 if the range holds a head flag */
    uint32_t sum;  /**< the sum from the range's last head (or its start) to its end */
};

/**
 * Segmented sums: a head flag starts a new segment, whose sums start afresh. As an operator on
 * (head, sum) pairs: combine(e, l) = (e.head | l.head, l.head ? l.sum : e.sum + l.sum). A range
 * that holds a head does not depend on anything before it: its aggregate is its prefix.
 */
struct segmented_i32 {
    typedef segment_sum value; /**< 8 bytes: two descriptor words */
    enum { ITEMS_PER_THREAD = 32, COMMUTATIVE = 0 };
    /** Kernel arguments. */
    struct args {
        const int32_t *values; /**< the values (16-byte aligned) */
        const uint8_t *heads;  /**< one byte per value: nonzero starts a segment (16-byte aligned) */
        int32_t *out;          /**< the segmented sums */
    };
    /** The tile in shared memory: 16 KB of values, 4 KB of head flags. */
    struct tile {
        uint4 x[BLOCK_THREADS * ITEMS_PER_THREAD / 4];     /**< values, 4 per vector */
        uint32_t heads[BLOCK_THREADS * ITEMS_PER_THREAD / 4]; /**< head flags, 4 per word */
    };
    /** no head, sum 0 */
    static __device__ value identity() { return segment_sum{0u, 0u}; }
    /** a head in `later` discards everything before it */
    static __device__ value combine(value earlier, value later)
    {
        return segment_sum{earlier.head | later.head,
                           later.head ? later.sum : earlier.sum + later.sum};
    }
    /** a range that holds a head */
    static __device__ int absorbs(value v) { return v.head != 0; }
    /** L2 prefetch of the tile at `first`. */
    static __device__ void prefetch(const args &a, size_t n, size_t first)
    {
        prefetch_l2(a.values + first, bytes_left(n, first, 4), sizeof(tile::x));
        prefetch_l2(a.heads + first, bytes_left(n, first, 1), sizeof(tile::heads));
    }
    /** Copy the tile at `first` to shared memory. */
    static __device__ void load(const args &a, size_t n, size_t first, tile &t)
    {
        copy_tile_async(a.values + first, bytes_left(n, first, 4), t.x, sizeof(tile::x));
        copy_tile_async(a.heads + first, bytes_left(n, first, 1), t.heads, sizeof(tile::heads));
    }
    /** Elements k … k+3. */
    static __device__ void load4(const tile &t, int k, value x[LANE_ITEMS])
    {
        const uint4 q = t.x[k / 4];
        const uint32_t h = t.heads[k / 4];
        x[0] = segment_sum{(h & 0xffu) != 0, q.x}, x[1] = segment_sum{(h & 0xff00u) != 0, q.y};
        x[2] = segment_sum{(h & 0xff0000u) != 0, q.z}, x[3] = segment_sum{(h >> 24) != 0, q.w};
    }
    /** Write the sums. */
    static __device__ void store4(const args &a, size_t n, size_t first, tile &, int,
                                  const value v[LANE_ITEMS], value)
    {
        const uint32_t r[LANE_ITEMS] = {v[0].sum, v[1].sum, v[2].sum, v[3].sum};
        store4_contiguous((uint32_t *)a.out, n, first, r);
    }
    /** nothing more */
    static __device__ void finish_part(const args &, tile &, int, value, value) {}
    /** nothing more */
    static __device__ void last_tile(const args &, value) {}
};

/**
 * Stream compaction in place: keep the elements x > 0, in order, at the front of the array. The
 * scan counts kept elements (a sum of 0s and 1s); a kept element whose inclusive count is c goes
 * to position c − 1. That position may lie in an earlier tile's part of the array. What orders
 * that tile's reads of its input before this write, with relaxed descriptors and no fence: the
 * write's address is computed from the descriptors, which are computed from the earlier tiles'
 * inputs, so for an earlier tile to read this write, the write would have to cause itself. The
 * PTX memory model forbids that (PTX ISA, memory consistency model, axiom "No Thin Air"); the
 * notes give the argument in full.
 */
struct compact_i32 {
    typedef uint32_t value; /**< elements kept */
    enum { ITEMS_PER_THREAD = 32, COMMUTATIVE = 1 };
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
 * PREFIX and never back within a call, so words that agree on the state come from the same
 * publication: the value is whole. No fence is needed, and nothing wider than 64 bits must be
 * read in one piece.
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
    for (int i = 0; i < words; ++i)
        store_descriptor(&descriptors[(size_t)tile * words + i], pack_descriptor(state, w.w[i]));
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
        const unsigned long long word = load_descriptor(&descriptors[(size_t)tile * words + i]);
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
 * look-back never walks past the nearest tile that holds a head.
 * \pre Called by one thread.
 */
template <class Op>
__device__ __forceinline__ void publish_aggregate(unsigned long long *descriptors, unsigned tile,
                                                  typename Op::value aggregate)
{
    const int is_prefix = tile == 0 || Op::absorbs(aggregate);
    publish<Op>(descriptors, tile, is_prefix ? TILE_PREFIX : TILE_AGGREGATE, aggregate);
}

/**
 * \brief The look-back (paper §4.4), generic: chapter 07's look_back() with the operator in
 *        place of `+`, and the order kept.
 *
 * Lane i reads the descriptor of tile `window_last − i`, so the lowest lane holds the nearest
 * predecessor and the highest the farthest. The window is ready when every lane up to the
 * nearest prefix has published; its values are then combined farthest first
 * (warp_combine(…, 0)), and the window's result goes *in front of* what the windows nearer the
 * tile gave: `exclusive_prefix = combine(window, exclusive_prefix)`. (Chapter 07 wrote
 * `exclusive_prefix += …` in either order: for a sum it is the same.)

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
 * \param t         the tile (the compaction gathers its kept elements in it)
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
    clear_stale_descriptors(state + 1 + (1 - array) * capacity * words,
                            (size_t)(drawn >> 32 & STATE_STALE_MASK) * words, tile);
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
}

/** Blocks of the pass that one SM's shared memory holds: its tile, plus the 1 KB the driver
    reserves per block. */
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
/* The operators' modes: data, references and checks on the host                             */
/* ------------------------------------------------------------------------------------------ */

/** The data of one operator run, on the host and on the device. */
typedef struct op_data {
    size_t n;             /**< element count */
    size_t capacity;      /**< elements the device arrays hold */
    void *in;             /**< host input: n elements of the operator's input */
    uint8_t *heads;       /**< segmented: n head flags */
    int32_t *keys;        /**< segmented, for CUB: each element's segment number */
    int32_t *ref;         /**< the expected output (32-bit words) */
    double *exact;        /**< float sum: the exact sums */
    double *magnitude;    /**< float sum: the sums of |x|; float recurrence: S_t (the notes) */
    double *growth;       /**< float recurrence: P_t, S_t with rounding's growth (the notes) */
    size_t ref_count;     /**< compaction: elements kept */
    int32_t *got;         /**< the output copied back */
    uint32_t got_count;   /**< compaction: the count copied back */
    void *d_in;           /**< device input */
    void *d_pristine;     /**< compaction: a device copy of the input, to restore it */
    uint8_t *d_heads;     /**< device head flags */
    int32_t *d_keys;      /**< device keys (CUB) */
    int32_t *d_out;       /**< device output (the compaction in place: d_in) */
    uint32_t *d_count;    /**< device count (compaction) */
    void *d_temp[VARIANT_COUNT];        /**< each variant's scratch */
    size_t temp_bytes[VARIANT_COUNT];   /**< its size */
} op_data;

/** What a mode tells the shared harness about its operator. */
typedef struct operator_mode {
    const char *name;                      /**< the row name of this chapter's pass */
    const char *cub_name;                  /**< the row name of CUB's baseline */
    cub_operator cub;                      /**< which baseline */
    size_t in_bytes;                       /**< bytes of one input element (the heads not counted) */
    size_t tile;                           /**< elements of one tile of the pass */
    int state_scratch;                     /**< 1: the pass keeps state in its scratch */
    int pattern_count;                     /**< input patterns of the battery */
    const char *const *patterns;           /**< their names */
    const char *file_format;               /**< the `--input` format, for messages */
    size_t file_words;                     /**< int32 words of the file per element */
    /** Fill d->in (and d->heads) for d->n elements. */
    void (*generate)(op_data *d, int pattern, uint64_t seed);
    /** Compute the expected output from the host input. */
    void (*reference)(op_data *d);
    /** Launch `variant` on the device arrays (asynchronous). */
    void (*launch)(int variant, op_data *d);
    /** Bytes `variant` must move for this data (reads and writes). */
    double (*bytes)(int variant, const op_data *d);
    /** Scratch `variant` needs for n. */
    size_t (*temp_bytes)(int variant, size_t n);
    /** Set up d from an `--input` file of `words` int32 words; 0, or ::EXIT_USAGE with `err`. */
    int (*from_file)(op_data *d, const int32_t *file, size_t words, char *err, size_t len);
} operator_mode;

/** The float sum's check: each result within the bound of the notes. */
static int float_bound_ok(const op_data *d, int variant, size_t i);

/** The float recurrence's check: each result within the bound of the notes. */
static int recurrence_bound_ok(const op_data *d, int variant, size_t i);

/** Elements of the output to compare: n, or the count kept by a compaction. */
static size_t output_count(const operator_mode *op, const op_data *d)
{
    return op->cub == CUB_SELECT_IF ? d->ref_count : d->n;
}

/**
 * \brief Compare d->got with the reference: every element (the float sum: each within its bound)
 *        and, for a compaction, the count. Prints the first difference.
 * \return the number of elements that differ (a wrong count counts as one more)
 */
static size_t check_output(const operator_mode *op, const op_data *d, int variant,
                           const char *what)
{
    size_t bad = 0, first = 0;
    const size_t count = output_count(op, d);
    for (size_t i = 0; i < count; ++i) {
        const int wrong = op->cub == CUB_FLOAT_SUM    ? !float_bound_ok(d, variant, i)
                          : op->cub == CUB_AFFINE_F32 ? !recurrence_bound_ok(d, variant, i)
                                                      : d->got[i] != d->ref[i];
        if (wrong && bad++ == 0)
            first = i;
    }
    if (bad) {
        const size_t i = first;
        if (op->cub == CUB_FLOAT_SUM || op->cub == CUB_AFFINE_F32) {
            float f;
            memcpy(&f, &d->got[i], sizeof f);
            printf("  %s: %zu of %zu elements wrong; first at %zu: got %.9g, exact %.9g\n", what,
                   bad, count, i, (double)f, d->exact[i]);
        } else {
            printf("  %s: %zu of %zu elements wrong; first at %zu: got %d, expected %d\n", what,
                   bad, count, i, d->got[i], d->ref[i]);
        }
    }
    if (op->cub == CUB_SELECT_IF && d->got_count != d->ref_count) {
        printf("  %s: kept %u elements, expected %zu\n", what, d->got_count, d->ref_count);
        ++bad;
    }
    return bad;
}

/** The rounding unit of float: a float addition's result is off by at most 2^-24 of itself. */
#define FLOAT_UNIT 5.9604644775390625e-8

/**
 * \brief How many additions, at most, lie between element i and its result in this chapter's
 *        pass: 7 per tile before it, plus 29 (the count is derived in the notes). For CUB's
 *        scan, whose order this course does not model, i + 1: no order of additions puts more
 *        than i of them on one element's way (each one that rounds joins two nonempty sums).
 */
static double float_depth(int variant, size_t i, size_t tile)
{
    return variant == VARIANT_CUB ? (double)i + 1.0 : 7.0 * (double)(i / tile) + 29.0;
}

static int float_bound_ok(const op_data *d, int variant, size_t i)
{
    float f;
    memcpy(&f, &d->got[i], sizeof f);
    if (isnan(f))
        return 0; /* unwritten: the float output is poisoned with NaN */
    const double h = float_depth(variant, i, tile_items<sum_f32>()) * FLOAT_UNIT;
    if (h >= 1.0)
        return 1; /* the bound says nothing */
    const double bound = h / (1.0 - h) * d->magnitude[i];
    return fabs((double)f - d->exact[i]) <= bound * (1.0 + 1e-12);
}

/** Float inputs: "random" k·2^-23 with k uniform in (−2^23, 2^23), exact in float; "ones". */
static const char *const FLOAT_PATTERNS[] = {"random", "ones"};

/** Fill the float input. */
static void float_generate(op_data *d, int pattern, uint64_t seed)
{
    int32_t *w = (int32_t *)d->in;
    float *x = (float *)d->in;
    generate_input(w, d->n, PATTERN_RANDOM, seed);
    for (size_t i = 0; i < d->n; ++i)
        x[i] = pattern == 0 ? (float)(w[i] / 256) * (1.0f / 8388608.0f) : 1.0f;
}

/** The exact sums and the sums of |x|, in 64-bit integers of 2^-23 (every input is a multiple of
    2^-23, so they are exact), then in double. */
static void float_reference(op_data *d)
{
    const float *x = (const float *)d->in;
    long long sum = 0, magnitude = 0;
    for (size_t i = 0; i < d->n; ++i) {
        const long long k = (long long)((double)x[i] * 8388608.0);
        sum += k;
        magnitude += k < 0 ? -k : k;
        d->exact[i] = (double)sum / 8388608.0;
        d->magnitude[i] = (double)magnitude / 8388608.0;
    }
}

/** Launch the float sum. */
static void float_launch(int variant, op_data *d)
{
    if (variant == VARIANT_CUB)
        cub_operator_run(CUB_FLOAT_SUM, d->d_in, NULL, d->d_out, NULL, d->n,
                         d->d_temp[variant], d->temp_bytes[variant]);
    else
        pass_async<sum_f32>(sum_f32::args{(const float *)d->d_in, (float *)d->d_out}, d->n, 0,
                            d->d_temp[variant], d->temp_bytes[variant], 0);
}

/** Read n, write n floats. */
static double float_bytes(int variant, const op_data *d)
{
    (void)variant;
    return 8.0 * (double)d->n;
}

/** Scratch of the float sum. */
static size_t float_temp(int variant, size_t n)
{
    return variant == VARIANT_CUB ? cub_operator_temp_bytes(CUB_FLOAT_SUM, n)
                                  : pass_scratch_bytes<sum_f32>(n);
}

/** `--input` of the float sum: raw float32 values (little-endian), any count. The check needs
    exact references: every value must be a multiple of 2^-23 below 2^31 in magnitude. */
static int float_from_file(op_data *d, const int32_t *file, size_t words, char *err, size_t len)
{
    memcpy(d->in, file, words * sizeof(int32_t));
    const float *x = (const float *)d->in;
    for (size_t i = 0; i < words; ++i) {
        const double k = (double)x[i] * 8388608.0;
        if (!(fabs(x[i]) < 2147483648.0f) || k != floor(k)) {
            snprintf(err, len, "--input: value %zu (%g) is not a multiple of 2^-23 below 2^31, "
                     "which the exact check needs; round the values to multiples of 2^-23",
                     i, (double)x[i]);
            return EXIT_USAGE;
        }
    }
    return 0;
}

/** Recurrence inputs: "random" (a odd, b any), "sums" (a = 1: a prefix sum of b). */
static const char *const AFFINE_PATTERNS[] = {"random-odd-a", "a=1"};

/**
 * \brief Fill the pairs (a_t, b_t). Every a is odd: an even a halves what h_{t−1} contributes
 *        (modulo 2^32), and after 32 even ones nothing of the past is left, so a look-back that
 *        brought the wrong past would not show in h. Odd multipliers keep the whole past in h_t.
 */
static void affine_generate(op_data *d, int pattern, uint64_t seed)
{
    int32_t *w = (int32_t *)d->in;
    generate_input(w, 2 * d->n, PATTERN_RANDOM, seed);
    for (size_t i = 0; i < d->n; ++i)
        w[2 * i] = pattern == 0 ? (int32_t)((uint32_t)w[2 * i] | 1u) : 1;
}

/** The serial recurrence h_t = a_t·h_{t−1} + b_t, h_{−1} = 0, in uint32 arithmetic. */
static void affine_reference(op_data *d)
{
    const uint32_t *w = (const uint32_t *)d->in;
    uint32_t h = 0;
    for (size_t i = 0; i < d->n; ++i) {
        h = w[2 * i] * h + w[2 * i + 1];
        d->ref[i] = (int32_t)h;
    }
}

/** Launch the recurrence. */
static void affine_launch(int variant, op_data *d)
{
    if (variant == VARIANT_CUB)
        cub_operator_run(CUB_AFFINE, d->d_in, NULL, d->d_out, NULL, d->n, d->d_temp[variant],
                         d->temp_bytes[variant]);
    else
        pass_async<affine_i32>(affine_i32::args{(const affine_i32::value *)d->d_in,
                                                     (uint32_t *)d->d_out},
                               d->n, 0,
                               d->d_temp[variant], d->temp_bytes[variant], 0);
}

/** Read n pairs, write n values of h. */
static double affine_bytes(int variant, const op_data *d)
{
    (void)variant;
    return 12.0 * (double)d->n;
}

/** Scratch of the recurrence. */
static size_t affine_temp(int variant, size_t n)
{
    return variant == VARIANT_CUB ? cub_operator_temp_bytes(CUB_AFFINE, n)
                                  : pass_scratch_bytes<affine_i32>(n);
}

/** `--input` of the recurrence: int32 pairs a_0, b_0, a_1, b_1, … */
static int affine_from_file(op_data *d, const int32_t *file, size_t words, char *err, size_t len)
{
    (void)words;
    (void)err;
    (void)len;
    memcpy(d->in, file, 2 * d->n * sizeof(int32_t));
    return 0;
}

/** Float recurrence inputs: "random" (a in [0.999, 1), b = k·2^-23 in (−1, 1): h remembers
    about a thousand steps, across tiles), "a=1" (a float prefix sum of b). */
static const char *const AFFINE_F32_PATTERNS[] = {"a-near-1", "a=1"};

/** Fill the float pairs. */
static void affine_f32_generate(op_data *d, int pattern, uint64_t seed)
{
    int32_t *w = (int32_t *)d->in;
    float *x = (float *)d->in;
    generate_input(w, 2 * d->n, PATTERN_RANDOM, seed);
    for (size_t i = 0; i < d->n; ++i) {
        const float r = (float)((uint32_t)w[2 * i] >> 8) * (1.0f / 16777216.0f); /* [0, 1) */
        x[2 * i] = pattern == 0 ? 0.999f + 0.001f * r : 1.0f;
        x[2 * i + 1] = (float)(w[2 * i + 1] / 256) * (1.0f / 8388608.0f);
    }
}

/**
 * \brief The float recurrence's reference and bound: h_t in double, and the two sums the bound
 *        needs, S_t = |a_t|·S_{t−1} + |b_t| (the size of every term of h_t) and
 *        P_t = e^u·|a_t|·P_{t−1} + |b_t| (the same, each term grown by rounding's e^{u·k}).
 */
static void affine_f32_reference(op_data *d)
{
    const float *x = (const float *)d->in;
    const double grow = exp(FLOAT_UNIT);
    double h = 0.0, size = 0.0, grown = 0.0;
    for (size_t i = 0; i < d->n; ++i) {
        const double a = x[2 * i], b = x[2 * i + 1];
        h = a * h + b;
        size = fabs(a) * size + fabs(b);
        grown = grow * fabs(a) * grown + fabs(b);
        d->exact[i] = h;
        d->magnitude[i] = size;
        d->growth[i] = grown;
    }
}

static int recurrence_bound_ok(const op_data *d, int variant, size_t i)
{
    float f;
    memcpy(&f, &d->got[i], sizeof f);
    if (isnan(f))
        return 0; /* unwritten: the float output is poisoned with NaN */
    /* each term b_j·a_{j+1}···a_t is rounded at most 2 times per level of the pass's tree and
       once per factor a: |error| <= e^{2·depth·u}·P_t − S_t (the notes) */
    const double depth = float_depth(variant, i, tile_items<affine_f32>());
    const double bound = exp(2.0 * depth * FLOAT_UNIT) * d->growth[i] - d->magnitude[i];
    return fabs((double)f - d->exact[i]) <= bound * (1.0 + 1e-6) + 1e-300;
}

/** Launch the float recurrence. */
static void affine_f32_launch(int variant, op_data *d)
{
    if (variant == VARIANT_CUB)
        cub_operator_run(CUB_AFFINE_F32, d->d_in, NULL, d->d_out, NULL, d->n,
                         d->d_temp[variant], d->temp_bytes[variant]);
    else
        pass_async<affine_f32>(affine_f32::args{(const affine_f32::value *)d->d_in,
                                                (float *)d->d_out},
                               d->n, 0, d->d_temp[variant], d->temp_bytes[variant], 0);
}

/** Scratch of the float recurrence. */
static size_t affine_f32_temp(int variant, size_t n)
{
    return variant == VARIANT_CUB ? cub_operator_temp_bytes(CUB_AFFINE_F32, n)
                                  : pass_scratch_bytes<affine_f32>(n);
}

/** `--input` of the float recurrence: float32 pairs a_0, b_0, a_1, b_1, … */
static int affine_f32_from_file(op_data *d, const int32_t *file, size_t words, char *err,
                                size_t len)
{
    (void)words;
    const float *x = (const float *)file;
    for (size_t i = 0; i < 2 * d->n; ++i)
        if (!isfinite(x[i])) {
            snprintf(err, len, "--input: value %zu is not a finite float; give finite a and b", i);
            return EXIT_USAGE;
        }
    memcpy(d->in, file, 2 * d->n * sizeof(int32_t));
    return 0;
}

/** Segment patterns: fixed length 1000 (the benchmark's), length 1, one segment over everything,
    heads at every tile edge and one element either side, random heads (mean length 30). */
static const char *const SEGMENT_PATTERNS[] = {"length-1000", "length-1", "one-segment",
                                               "tile-edges+-1", "random-mean-30"};

/** Fill values, heads and CUB's keys (each element's segment number). */
static void segmented_generate(op_data *d, int pattern, uint64_t seed)
{
    const size_t t = tile_items<segmented_i32>();
    generate_input((int32_t *)d->in, d->n, PATTERN_RANDOM, seed);
    generate_input(d->keys, d->n, PATTERN_RANDOM, seed + 1); /* random bits for pattern 4 */
    for (size_t i = 0; i < d->n; ++i) {
        const size_t r = i % t;
        switch (pattern) {
        case 0: d->heads[i] = i % 1000 == 0; break;
        case 1: d->heads[i] = 1; break;
        case 2: d->heads[i] = 0; break;
        case 3: d->heads[i] = r == 0 || r == 1 || r == t - 1; break;
        default: d->heads[i] = (uint32_t)d->keys[i] % 30 == 0; break;
        }
    }
    int32_t key = 0;
    for (size_t i = 0; i < d->n; ++i)
        d->keys[i] = key += d->heads[i] != 0;
}

/** The serial segmented sum. */
static void segmented_reference(op_data *d)
{
    const int32_t *v = (const int32_t *)d->in;
    uint32_t sum = 0;
    for (size_t i = 0; i < d->n; ++i) {
        sum = d->heads[i] ? (uint32_t)v[i] : sum + (uint32_t)v[i];
        d->ref[i] = (int32_t)sum;
    }
}

/** Launch the segmented sum: the pass reads values and head bytes, CUB values and keys. */
static void segmented_launch(int variant, op_data *d)
{
    if (variant == VARIANT_CUB)
        cub_operator_run(CUB_SUM_BY_KEY, d->d_in, d->d_keys, d->d_out, NULL, d->n,
                         d->d_temp[variant], d->temp_bytes[variant]);
    else
        pass_async<segmented_i32>(
            segmented_i32::args{(const int32_t *)d->d_in, d->d_heads, d->d_out}, d->n, 0,
            d->d_temp[variant], d->temp_bytes[variant], 0);
}

/** The pass reads 4 + 1 bytes and writes 4; CUB reads 4 + 4 (keys) and writes 4. */
static double segmented_bytes(int variant, const op_data *d)
{
    return (variant == VARIANT_CUB ? 12.0 : 9.0) * (double)d->n;
}

/** Scratch of the segmented sum. */
static size_t segmented_temp(int variant, size_t n)
{
    return variant == VARIANT_CUB ? cub_operator_temp_bytes(CUB_SUM_BY_KEY, n)
                                  : pass_scratch_bytes<segmented_i32>(n);
}

/** `--input` of the segmented sum: int32 pairs head_0, value_0, head_1, value_1, … (a nonzero
    head starts a segment). */
static int segmented_from_file(op_data *d, const int32_t *file, size_t words, char *err,
                               size_t len)
{
    (void)words;
    (void)err;
    (void)len;
    int32_t key = 0;
    for (size_t i = 0; i < d->n; ++i) {
        d->heads[i] = file[2 * i] != 0;
        ((int32_t *)d->in)[i] = file[2 * i + 1];
        d->keys[i] = key += d->heads[i];
    }
    return 0;
}

/** Compaction inputs: the battery's patterns (data.h). */
static const char *const COMPACT_PATTERNS[] = {"random", "small", "ones", "alternating"};

/** Fill the compaction's input. */
static void compact_generate(op_data *d, int pattern, uint64_t seed)
{
    generate_input((int32_t *)d->in, d->n, (data_pattern)pattern, seed);
}

/** The kept elements, in order. */
static void compact_reference(op_data *d)
{
    const int32_t *x = (const int32_t *)d->in;
    size_t kept = 0;
    for (size_t i = 0; i < d->n; ++i)
        if (x[i] > 0)
            d->ref[kept++] = x[i];
    d->ref_count = kept;
}

/** Launch the compaction: this chapter's in place (on d_in), CUB's out of place. */
static void compact_launch(int variant, op_data *d)
{
    if (d->n > 0xffffffffu) /* the count, and every position, is a uint32 */
        cli_fail(EXIT_USAGE, "the compaction takes fewer than 2^32 elements; n is %zu", d->n);
    if (d->n == 0) /* nothing to launch: nothing kept */
        CUDA_CHECK(cudaMemsetAsync(d->d_count, 0, sizeof(uint32_t), 0));
    else if (variant == VARIANT_CUB)
        cub_operator_run(CUB_SELECT_IF, d->d_in, NULL, d->d_out, (int *)d->d_count, d->n,
                         d->d_temp[variant], d->temp_bytes[variant]);
    else
        pass_async<compact_i32>(
            compact_i32::args{(const int32_t *)d->d_in, (int32_t *)d->d_in, d->d_count}, d->n,
            0, d->d_temp[variant], d->temp_bytes[variant], 0);
}

/** Read n, write the kept ones and the count. */
static double compact_bytes(int variant, const op_data *d)
{
    (void)variant;
    return 4.0 * (double)d->n + 4.0 * (double)d->ref_count + 4.0;
}

/** Scratch of the compaction. */
static size_t compact_temp(int variant, size_t n)
{
    return variant == VARIANT_CUB ? cub_operator_temp_bytes(CUB_SELECT_IF, n)
                                  : pass_scratch_bytes<compact_i32>(n);
}

/** `--input` of the compaction: int32 values. */
static int compact_from_file(op_data *d, const int32_t *file, size_t words, char *err, size_t len)
{
    (void)err;
    (void)len;
    memcpy(d->in, file, words * sizeof(int32_t));
    return 0;
}

/** The four operators. */
static const operator_mode FLOAT_SUM = {
    "float-sum", "cub-float-sum", CUB_FLOAT_SUM, 4, tile_items<sum_f32>(), 1, 2, FLOAT_PATTERNS,
    "raw float32 values", 1, float_generate, float_reference, float_launch, float_bytes,
    float_temp, float_from_file};
/** See ::FLOAT_SUM. */
static const operator_mode RECURRENCE = {
    "recurrence-i32", "cub-affine-scan", CUB_AFFINE, 8, tile_items<affine_i32>(), 1, 2,
    AFFINE_PATTERNS, "int32 pairs a, b", 2, affine_generate, affine_reference, affine_launch,
    affine_bytes, affine_temp, affine_from_file};
/** See ::FLOAT_SUM. */
static const operator_mode RECURRENCE_F32 = {
    "recurrence-f32", "cub-affine-scan-f32", CUB_AFFINE_F32, 8, tile_items<affine_f32>(), 1, 2,
    AFFINE_F32_PATTERNS, "float32 pairs a, b", 2, affine_f32_generate, affine_f32_reference,
    affine_f32_launch, affine_bytes, affine_f32_temp, affine_f32_from_file};
/** See ::FLOAT_SUM. */
static const operator_mode SEGMENTED = {
    "segmented", "cub-sum-by-key", CUB_SUM_BY_KEY, 4, tile_items<segmented_i32>(), 1, 5,
    SEGMENT_PATTERNS, "int32 pairs head, value", 2, segmented_generate, segmented_reference,
    segmented_launch, segmented_bytes, segmented_temp, segmented_from_file};
/** See ::FLOAT_SUM. */
static const operator_mode COMPACT = {
    "compact-in-place", "cub-select-if", CUB_SELECT_IF, 4, tile_items<compact_i32>(), 1, 4,
    COMPACT_PATTERNS, "int32 values", 1, compact_generate, compact_reference, compact_launch,
    compact_bytes, compact_temp, compact_from_file};

/* ------------------------------------------------------------------------------------------ */
/* The operators' modes: battery, stress test, files, sweep                                   */
/* ------------------------------------------------------------------------------------------ */

/** Host bytes op_alloc_host() takes for n elements. */
static size_t host_bytes(const operator_mode *op, size_t n)
{
    const size_t per = op->in_bytes + 4 + 4 + (op->cub == CUB_FLOAT_SUM ? 16 : 0) +
                       (op->cub == CUB_AFFINE_F32 ? 24 : 0) +
                       (op->cub == CUB_SUM_BY_KEY ? 5 : 0);
    return per * n;
}

/** Device bytes op_reserve_device() takes for n elements, scratch of `variant` included. */
static size_t device_bytes(const operator_mode *op, size_t n, int variant)
{
    size_t per = op->in_bytes + 4;
    if (op->cub == CUB_SUM_BY_KEY)
        per += 5;
    if (op->cub == CUB_SELECT_IF)
        per += 4;
    return per * n + op->temp_bytes(variant, n);
}

/** Allocate the host arrays of d for n elements. */
static void op_alloc_host(const operator_mode *op, op_data *d, size_t n)
{
    memset(d, 0, sizeof *d);
    d->n = n;
    d->in = xmalloc(n * op->in_bytes, "the input");
    d->ref = (int32_t *)xmalloc(n * sizeof(int32_t), "the reference");
    d->got = (int32_t *)xmalloc(n * sizeof(int32_t), "the output");
    if (op->cub == CUB_SUM_BY_KEY) {
        d->heads = (uint8_t *)xmalloc(n, "the head flags");
        d->keys = (int32_t *)xmalloc(n * sizeof(int32_t), "the keys");
    }
    if (op->cub == CUB_FLOAT_SUM || op->cub == CUB_AFFINE_F32) {
        d->exact = (double *)xmalloc(n * sizeof(double), "the exact results");
        d->magnitude = (double *)xmalloc(n * sizeof(double), "the error bound's scale");
    }
    if (op->cub == CUB_AFFINE_F32)
        d->growth = (double *)xmalloc(n * sizeof(double), "the error bound's growth");
}

/** Allocate (or keep, if large enough) the device arrays of d. */
static void op_reserve_device(const operator_mode *op, op_data *d)
{
    if (d->n > d->capacity) {
        CUDA_CHECK(cudaFree(d->d_in));
        CUDA_CHECK(cudaFree(d->d_out));
        CUDA_CHECK(cudaFree(d->d_heads));
        CUDA_CHECK(cudaFree(d->d_keys));
        CUDA_CHECK(cudaFree(d->d_pristine));
        d->d_heads = NULL, d->d_keys = NULL, d->d_pristine = NULL;
        CUDA_CHECK(cudaMalloc(&d->d_in, d->n * op->in_bytes));
        CUDA_CHECK(cudaMalloc((void **)&d->d_out, d->n * sizeof(int32_t)));
        if (op->cub == CUB_SUM_BY_KEY) {
            CUDA_CHECK(cudaMalloc((void **)&d->d_heads, d->n));
            CUDA_CHECK(cudaMalloc((void **)&d->d_keys, d->n * sizeof(int32_t)));
        }
        if (op->cub == CUB_SELECT_IF)
            CUDA_CHECK(cudaMalloc(&d->d_pristine, d->n * op->in_bytes));
        d->capacity = d->n;
    }
    if (!d->d_count)
        CUDA_CHECK(cudaMalloc((void **)&d->d_count, sizeof(uint32_t)));
}

/** Copy the host input to the device. */
static void op_upload(const operator_mode *op, op_data *d)
{
    op_reserve_device(op, d);
    CUDA_CHECK(cudaMemcpy(d->d_in, d->in, d->n * op->in_bytes, cudaMemcpyHostToDevice));
    if (d->d_pristine)
        CUDA_CHECK(cudaMemcpy(d->d_pristine, d->in, d->n * op->in_bytes,
                              cudaMemcpyHostToDevice));
    if (d->d_heads) {
        CUDA_CHECK(cudaMemcpy(d->d_heads, d->heads, d->n, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d->d_keys, d->keys, d->n * sizeof(int32_t),
                              cudaMemcpyHostToDevice));
    }
}

/** Free the host arrays. */
static void op_free_host(op_data *d)
{
    free(d->in);
    free(d->ref);
    free(d->got);
    free(d->heads);
    free(d->keys);
    free(d->exact);
    free(d->magnitude);
    free(d->growth);
    d->in = d->ref = d->got = d->keys = NULL, d->heads = NULL, d->exact = d->magnitude = NULL;
    d->growth = NULL;
}

/** Free the device arrays and the scratch. */
static void op_free_device(op_data *d)
{
    CUDA_CHECK(cudaFree(d->d_in));
    CUDA_CHECK(cudaFree(d->d_out));
    CUDA_CHECK(cudaFree(d->d_heads));
    CUDA_CHECK(cudaFree(d->d_keys));
    CUDA_CHECK(cudaFree(d->d_pristine));
    CUDA_CHECK(cudaFree(d->d_count));
    for (int v = 0; v < VARIANT_COUNT; ++v)
        CUDA_CHECK(cudaFree(d->d_temp[v]));
    d->d_in = d->d_pristine = NULL, d->d_out = NULL, d->d_heads = NULL, d->d_keys = NULL;
    d->d_count = NULL, d->capacity = 0;
    for (int v = 0; v < VARIANT_COUNT; ++v)
        d->d_temp[v] = NULL, d->temp_bytes[v] = 0;
}

/** Where `variant` leaves its output: the compaction of this chapter works in place. */
static const void *op_output(const operator_mode *op, const op_data *d, int variant)
{
    return op->cub == CUB_SELECT_IF && variant == VARIANT_LOOKBACK ? d->d_in : d->d_out;
}

/** Prepare one run of `variant`: grow its scratch (the pass's: zeroed once, then left to it;
    CUB's: poisoned), restore the compaction's input, poison the output and the count. */
static void op_prepare(const operator_mode *op, op_data *d, int variant)
{
    const size_t need = op->temp_bytes(variant, d->n);
    const int state = variant == VARIANT_LOOKBACK && op->state_scratch;
    if (need > d->temp_bytes[variant]) {
        CUDA_CHECK(cudaFree(d->d_temp[variant]));
        d->d_temp[variant] = NULL;
        CUDA_CHECK(cudaMalloc(&d->d_temp[variant], need));
        d->temp_bytes[variant] = need;
        if (state)
            CUDA_CHECK(cudaMemset(d->d_temp[variant], 0, need)); /* the scratch contract */
    }
    if (!state && d->temp_bytes[variant])
        CUDA_CHECK(cudaMemset(d->d_temp[variant], POISON_BYTE, d->temp_bytes[variant]));
    if (d->d_pristine) /* the input as it was before the last in-place compaction */
        CUDA_CHECK(cudaMemcpy(d->d_in, d->d_pristine, d->n * op->in_bytes,
                              cudaMemcpyDeviceToDevice));
    /* floats are poisoned with NaN (0xFF bytes): an unwritten element fails any bound */
    const int is_float = op->cub == CUB_FLOAT_SUM || op->cub == CUB_AFFINE_F32;
    CUDA_CHECK(cudaMemset(d->d_out, is_float ? 0xFF : POISON_BYTE,
                          d->n * sizeof(int32_t)));
    CUDA_CHECK(cudaMemset(d->d_count, POISON_BYTE, sizeof(uint32_t)));
}

/** Copy a run's result back to d->got (and the count). */
static void op_fetch(const operator_mode *op, op_data *d, int variant)
{
    CUDA_CHECK(cudaMemcpy(d->got, op_output(op, d, variant), d->n * sizeof(int32_t),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&d->got_count, d->d_count, sizeof d->got_count,
                          cudaMemcpyDeviceToHost));
}

/** One checked run: prepare, launch, fetch, compare. Returns the elements wrong. */
static size_t op_run_checked(const operator_mode *op, op_data *d, int variant, const char *what)
{
    op_prepare(op, d, variant);
    op->launch(variant, d);
    CUDA_CHECK_LAUNCH();
    op_fetch(op, d, variant);
    return check_output(op, d, variant, what);
}

/** Sizes of the battery, as multiples of the tile where that matters. */
static size_t battery_size(size_t tile, int k)
{
    const size_t sizes[] = {0, 1, 31, 32, 33, 1000, tile - 1, tile, tile + 1, 3 * tile + 7,
                            33 * tile + 5, 300 * tile - 3, ((size_t)1 << 20) + 3,
                            ((size_t)1 << 24) + 1};
    return k < (int)(sizeof sizes / sizeof sizes[0]) ? sizes[k] : 0;
}

/** Sizes in the battery. */
#define BATTERY_SIZES 14

/**
 * \brief The battery of one operator: every size of battery_size() (up to `-n`), every pattern,
 *        every selected variant, several runs each (single-pass bugs are races), every element
 *        checked; then one n > 2^31 with this chapter's pass, where host and GPU have the memory.
 */
static int op_self_test(const operator_mode *op, const scan_options *opt)
{
    long cases = 0, failed = 0;
    op_data d;
    memset(&d, 0, sizeof d);
    report_note(stdout, opt->csv, "self-test of %s: %d sizes x %d patterns x variants, "
                "every element checked", op->name, BATTERY_SIZES, op->pattern_count);
    for (int k = 0; k < BATTERY_SIZES; ++k) {
        const size_t n = battery_size(op->tile, k);
        if (opt->n_given && n > opt->n)
            continue;
        op_data h;
        op_alloc_host(op, &h, n);
        h.d_in = d.d_in, h.d_out = d.d_out, h.d_heads = d.d_heads, h.d_keys = d.d_keys;
        h.d_pristine = d.d_pristine, h.d_count = d.d_count, h.capacity = d.capacity;
        memcpy(h.d_temp, d.d_temp, sizeof d.d_temp);
        memcpy(h.temp_bytes, d.temp_bytes, sizeof d.temp_bytes);
        long size_failed = 0, size_cases = 0;
        const int repeats = n <= ((size_t)1 << 20) ? 3 : 1;
        for (int p = 0; p < op->pattern_count; ++p) {
            op->generate(&h, p, opt->seed + (uint64_t)p);
            op->reference(&h);
            op_upload(op, &h);
            for (int v = 0; v < VARIANT_COUNT; ++v) {
                if (!cli_variant_selected(opt, v))
                    continue;
                for (int r = 0; r < repeats; ++r) {
                    char what[160];
                    snprintf(what, sizeof what, "n = %zu, %s, %s, run %d", n, op->patterns[p],
                             v == VARIANT_CUB ? op->cub_name : op->name, r);
                    ++size_cases;
                    if (op_run_checked(op, &h, v, what))
                        ++size_failed;
                }
            }
        }
        printf("n = %-10zu %3ld cases, %s\n", n, size_cases,
               size_failed ? "FAILED" : "all right");
        cases += size_cases, failed += size_failed;
        d = h; /* keep the device arrays for the next size */
        op_free_host(&d);
    }
    op_free_device(&d);

    const size_t big = SELF_TEST_BIG_N;
    if (!opt->n_given || opt->n >= big) {
        const size_t host_need = host_bytes(op, big), dev_need = device_bytes(op, big, 0);
        const size_t host_have = host_memory_available(), dev_have = cuda_free_bytes();
        if (!cli_variant_selected(opt, VARIANT_LOOKBACK)) {
            printf("n = %zu skipped: only this chapter's pass runs beyond 2^31\n", big);
        } else if (host_have < host_need + host_need / 4 || dev_have < dev_need + dev_need / 16) {
            printf("n = %zu skipped: needs %.1f GiB of host and %.1f GiB of GPU memory; %.1f and "
                   "%.1f GiB free\n", big, (double)(host_need + host_need / 4) / (1 << 30),
                   (double)(dev_need + dev_need / 16) / (1 << 30),
                   (double)host_have / (1 << 30), (double)dev_have / (1 << 30));
        } else {
            op_data b;
            op_alloc_host(op, &b, big);
            op->generate(&b, 0, opt->seed);
            op->reference(&b);
            op_upload(op, &b);
            char what[96];
            snprintf(what, sizeof what, "n = %zu, %s, %s", big, op->patterns[0], op->name);
            const size_t wrong = op_run_checked(op, &b, VARIANT_LOOKBACK, what);
            printf("n = %zu   1 case, %s\n", big, wrong ? "FAILED" : "all right");
            ++cases, failed += wrong != 0;
            op_free_host(&b);
            op_free_device(&b);
        }
    }
    printf("self-test of %s %s: %ld cases, %ld failed\n", op->name,
           failed ? "FAILED" : "passed", cases, failed);
    return failed ? EXIT_WRONG : EXIT_OK;
}

/** Largest grid of the stress test's small sizes, in tiles. */
#define STRESS_SMALL_TILES 300

/**
 * \brief `--stress R` with an operator: R runs of the first selected variant on each of a few
 *        grids and on 2^24 elements (or on `-n`), every element of every run checked. For the
 *        float sum it also counts the runs whose bits differ from the first run's: the spread.
 */
static int op_stress(const operator_mode *op, const scan_options *opt)
{
    const size_t t = op->tile;
    const size_t sizes[] = {1, t + 1, 33 * t + 5, STRESS_SMALL_TILES * t - 3, (size_t)1 << 24};
    const size_t *list = opt->n_given ? &opt->n : sizes;
    const int count = opt->n_given ? 1 : (int)(sizeof sizes / sizeof sizes[0]);
    const int variant = cli_variant_selected(opt, VARIANT_LOOKBACK) ? VARIANT_LOOKBACK
                                                                    : VARIANT_CUB;
    int status = EXIT_OK;
    report_note(stdout, opt->csv, "stress test of %s: %d runs per size, every element checked",
                variant == VARIANT_CUB ? op->cub_name : op->name, opt->stress);
    for (int s = 0; s < count; ++s) {
        op_data d;
        op_alloc_host(op, &d, list[s]);
        op->generate(&d, 0, opt->seed + (uint64_t)s);
        op->reference(&d);
        op_upload(op, &d);
        int32_t *first = (int32_t *)xmalloc(d.n * sizeof(int32_t), "the first run");
        long wrong = 0, differ = 0;
        size_t most_differ = 0;
        for (int r = 0; r < opt->stress; ++r) {
            char what[96];
            snprintf(what, sizeof what, "n = %zu, run %d", d.n, r);
            if (op_run_checked(op, &d, variant, wrong ? NULL : what) && wrong++ == 0)
                status = EXIT_WRONG;
            if (r == 0) {
                memcpy(first, d.got, d.n * sizeof(int32_t));
            } else if (memcmp(first, d.got, d.n * sizeof(int32_t)) != 0) {
                size_t bits = 0;
                for (size_t i = 0; i < d.n; ++i)
                    bits += first[i] != d.got[i];
                ++differ;
                most_differ = bits > most_differ ? bits : most_differ;
            }
        }
        if (op->cub == CUB_FLOAT_SUM)
            report_note(stdout, opt->csv, "n = %zu: %d runs, %ld wrong; %ld differ in their bits "
                        "from the first run (at most %zu of the %zu elements)", d.n, opt->stress,
                        wrong, differ, most_differ, d.n);
        else
            report_note(stdout, opt->csv, "n = %zu: %d runs, %ld wrong", d.n, opt->stress, wrong);
        free(first);
        op_free_host(&d);
        op_free_device(&d);
    }
    printf("stress test %s\n", status == EXIT_OK ? "passed: no run was wrong" : "FAILED");
    return status;
}

/** `--input F [--output G]` with an operator: read F in the operator's format, run every selected
    variant, check each, and write G only when all were right. */
static int op_file(const operator_mode *op, const scan_options *opt, const int32_t *file,
                   size_t words)
{
    char err[256];
    if (words % op->file_words)
        cli_fail(EXIT_USAGE, "--input %s holds %zu int32 words, an odd number; %s takes %s",
                 opt->input, words, op->name, op->file_format);
    op_data d;
    op_alloc_host(op, &d, words / op->file_words);
    if (op->from_file(&d, file, words, err, sizeof err))
        cli_fail(EXIT_USAGE, "%s", err);
    op->reference(&d);
    op_upload(op, &d);
    int status = EXIT_OK;
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        if (!cli_variant_selected(opt, v))
            continue;
        const char *name = v == VARIANT_CUB ? op->cub_name : op->name;
        const size_t wrong = op_run_checked(op, &d, v, name);
        printf("%s of %s (n = %zu): %s\n", name, opt->input, d.n, wrong ? "WRONG" : "right");
        if (wrong)
            status = EXIT_WRONG;
    }
    if (status == EXIT_OK && opt->output) {
        if (io_output_commit(d.got, output_count(op, &d), err, sizeof err))
            cli_fail(EXIT_USAGE, "%s", err);
        printf("wrote %zu int32 words to %s\n", output_count(op, &d), opt->output);
    }
    op_free_host(&d);
    op_free_device(&d);
    return status;
}

/** Median time of `variant` in ms, each run bracketed by events; the compaction's input is
    restored before each run, outside the events. */
static double op_time(const operator_mode *op, op_data *d, int variant, int reps)
{
    const int warmup = 3;
    double *times = (double *)xmalloc((size_t)reps * sizeof(double), "the timings");
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int r = 0; r < warmup + reps; ++r) {
        if (d->d_pristine && variant == VARIANT_LOOKBACK)
            CUDA_CHECK(cudaMemcpy(d->d_in, d->d_pristine, d->n * op->in_bytes,
                                  cudaMemcpyDeviceToDevice));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventRecord(start, 0));
        op->launch(variant, d);
        CUDA_CHECK(cudaEventRecord(stop, 0));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (r >= warmup)
            times[r - warmup] = ms;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    const double result = median(times, reps);
    free(times);
    return result;
}

/** Median time of a device-to-device cudaMemcpy that moves `bytes` in all (reads half, writes
    half), in ms. */
static double memcpy_moving_ms(double bytes, int reps)
{
    const size_t half = ((size_t)(bytes / 2.0) + 15) / 16 * 16;
    void *buffer = NULL;
    CUDA_CHECK(cudaMalloc(&buffer, 2 * half));
    const double ms = cuda_memcpy_ms((char *)buffer + half, buffer, half, reps);
    CUDA_CHECK(cudaFree(buffer));
    return ms;
}

/** Default sizes of an operator's sweep. */
static const size_t OP_SIZES[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                  (size_t)1 << 24, (size_t)1 << 26, (size_t)1 << 28};

/**
 * \brief The sweep of one operator: per size, a memcpy row, then this chapter's pass and CUB's
 *        baseline, each checked, timed, checked again. GB/s counts the bytes each really moves;
 *        pct_memcpy compares with a cudaMemcpy that moves as many bytes, timed in this run.
 */
static int op_sweep(const operator_mode *op, const scan_options *opt)
{
    report_column cols[] = {{"n", 10},   {"variant", -18}, {"time_us", 11},   {"bytes", 7},
                            {"GB/s", 8}, {"pct_memcpy", 10}, {"x_cub", 6}, {"check", -5}};
    const int ncols = (int)(sizeof cols / sizeof cols[0]);
    const size_t *sizes = opt->n_given ? &opt->n : OP_SIZES;
    const int count = opt->n_given ? 1 : (int)(sizeof OP_SIZES / sizeof OP_SIZES[0]);
    int status = EXIT_OK;
    report_note(stdout, opt->csv, "%s, seed %llu, median of %d runs after 3 warm-up runs",
                op->name, (unsigned long long)opt->seed, opt->reps);
    report_note(stdout, opt->csv, "bytes: what each variant reads and writes per element; GB/s "
                "counts those bytes; pct_memcpy: a cudaMemcpy moving as many bytes, timed in this "
                "run; x_cub: CUB's time / this time");
    report_header(stdout, cols, ncols, opt->csv);
    for (int s = 0; s < count; ++s) {
        op_data d;
        op_alloc_host(op, &d, sizes[s]);
        op->generate(&d, 0, opt->seed);
        op->reference(&d);
        op_upload(op, &d);
        double ms[VARIANT_COUNT] = {0, 0}, copy[VARIANT_COUNT] = {0, 0};
        double moved[VARIANT_COUNT] = {0, 0};
        int ok[VARIANT_COUNT] = {1, 1};
        for (int v = 0; v < VARIANT_COUNT; ++v) {
            if (!cli_variant_selected(opt, v) || d.n == 0)
                continue;
            const char *name = v == VARIANT_CUB ? op->cub_name : op->name;
            ok[v] = op_run_checked(op, &d, v, name) == 0;
            ms[v] = op_time(op, &d, v, opt->reps);
            CUDA_CHECK_LAUNCH();
            op_fetch(op, &d, v);
            ok[v] = ok[v] && check_output(op, &d, v, name) == 0;
            moved[v] = op->bytes(v, &d);
            copy[v] = memcpy_moving_ms(moved[v], opt->reps);
        }
        char nbuf[32], cells[VARIANT_COUNT + 1][5][32];
        format_size(d.n, nbuf, sizeof nbuf);
        const double copy8 = d.n ? memcpy_moving_ms(8.0 * (double)d.n, opt->reps) : 0.0;
        snprintf(cells[2][0], 32, "%.2f", copy8 * 1e3);
        snprintf(cells[2][1], 32, "8.0");
        snprintf(cells[2][2], 32, "%.1f", gb_per_s(8.0 * (double)d.n, copy8));
        const char *memcpy_row[] = {nbuf, "memcpy", cells[2][0], cells[2][1], cells[2][2],
                                    "100.0", "-", "-"};
        report_row(stdout, cols, ncols, opt->csv, memcpy_row);
        for (int v = 0; v < VARIANT_COUNT; ++v) {
            if (!cli_variant_selected(opt, v))
                continue;
            snprintf(cells[v][0], 32, "%.2f", ms[v] * 1e3);
            snprintf(cells[v][1], 32, "%.1f", d.n ? moved[v] / (double)d.n : 0.0);
            snprintf(cells[v][2], 32, "%.1f", gb_per_s(moved[v], ms[v]));
            snprintf(cells[v][3], 32, "%.1f", ms[v] > 0 ? 100.0 * copy[v] / ms[v] : 0.0);
            if (v == VARIANT_LOOKBACK && ms[0] > 0 && ms[1] > 0)
                snprintf(cells[v][4], 32, "%.2f", ms[1] / ms[0]);
            else
                snprintf(cells[v][4], 32, "-");
            const char *row[] = {nbuf,        v == VARIANT_CUB ? op->cub_name : op->name,
                                 cells[v][0], cells[v][1], cells[v][2], cells[v][3],
                                 cells[v][4], ok[v] ? "ok" : "WRONG"};
            report_row(stdout, cols, ncols, opt->csv, row);
            if (!ok[v])
                status = EXIT_WRONG;
        }
        op_free_host(&d);
        op_free_device(&d);
    }
    return status;
}

/** Run an operator's mode: the battery, the stress test, a file, or the sweep. */
static int op_main(const operator_mode *op, const scan_options *opt, const int32_t *file,
                   size_t words)
{
    if (opt->self_test)
        return op_self_test(op, opt);
    if (opt->stress)
        return op_stress(op, opt);
    if (opt->input)
        return op_file(op, opt, file, words);
    return op_sweep(op, opt);
}

/** `--float-sum`. */
static int float_sum_mode(const scan_options *opt, const int32_t *file, size_t words)
{
    return op_main(&FLOAT_SUM, opt, file, words);
}

/** `--recurrence`. */
static int recurrence_mode(const scan_options *opt, const int32_t *file, size_t words)
{
    return op_main(&RECURRENCE, opt, file, words);
}

/** `--recurrence-f32`. */
static int recurrence_f32_mode(const scan_options *opt, const int32_t *file, size_t words)
{
    return op_main(&RECURRENCE_F32, opt, file, words);
}

/** `--segmented`. */
static int segmented_mode(const scan_options *opt, const int32_t *file, size_t words)
{
    return op_main(&SEGMENTED, opt, file, words);
}

/** `--compact`. */
static int compact_mode(const scan_options *opt, const int32_t *file, size_t words)
{
    return op_main(&COMPACT, opt, file, words);
}

/** The chapter's modes: one per operator. */
static const scan_mode MODES[] = {
    {.option = "--float-sum",
     .help = "float sum (F: raw float32, multiples of 2^-23); checked within a bound",
     .test = "--float-sum --self-test | --float-sum --stress 100",
     .combines = 1,
     .run = float_sum_mode},
    {.option = "--recurrence",
     .help = "h_t = a_t*h_(t-1) + b_t mod 2^32 (F: int32 pairs a, b; G: h)",
     .test = "--recurrence --self-test | --recurrence --stress 100",
     .combines = 1,
     .run = recurrence_mode},
    {.option = "--recurrence-f32",
     .help = "the same in float (F: float32 pairs a, b; G: h); checked within a bound",
     .test = "--recurrence-f32 --self-test | --recurrence-f32 --stress 100",
     .combines = 1,
     .run = recurrence_f32_mode},
    {.option = "--segmented",
     .help = "sums restarting at head flags (F: int32 pairs head, value)",
     .test = "--segmented --self-test | --segmented --stress 100",
     .combines = 1,
     .run = segmented_mode},
    {.option = "--compact",
     .help = "keep x > 0 in order, in place (F: int32; G: the kept ones)",
     .test = "--compact --self-test | --compact --stress 100",
     .combines = 1,
     .run = compact_mode},
};

/** The default sweep of the int32 sum: chapter 08's. */
static const size_t DEFAULT_SIZES[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                       (size_t)1 << 24, (size_t)1 << 26, (size_t)1 << 28};

/** Lines printed above the int32 sum's table. */
static const char *const NOTES[] = {
    "the int32 sum through the generic pass (chapter 08's scan, the operator a template "
    "parameter); the other operators are modes: see --help",
    "cub: cub::DeviceScan::InclusiveSum/ExclusiveSum from the CUDA toolkit, on the same buffers",
    NULL};

/** \brief Describe the chapter to the shared driver and run it. */
int main(int argc, char **argv)
{
    const gpu_chapter chapter = {
        .prog = {
            .name = "09_operators",
            .title = "chapter 08's single pass with any associative operator, beside CUB",
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
