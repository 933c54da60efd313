/**
 * \file scan_networks.c
 * \brief Scan networks as data: build the serial, Kogge-Stone, Sklansky, Brent-Kung,
 *        scan-then-propagate and reduce-then-scan networks, run them on arrays step by step,
 *        measure depth and size, check Snir's bound, and draw them as SVG. Five of them are
 *        Merrill & Garland's Fig 1a–e; scan-then-propagate is added by the course.
 *
 *     scan_networks               unit tests (part of `make test`)
 *     scan_networks --table       depth and size at n = 16, and the shared-memory bank table
 *     scan_networks --svg DIR     write DIR/network_NAME.svg for n = 16, and the dataflow figures
 *                                 of chapters 01, 04, 05, 06 and 09 (`make figures`)
 *
 * A network is a list of operations `x[dst] = x[src] + x[dst]`, in an order that a single thread
 * may apply one after another, on the n element wires and, for reduce-then-scan, a few extra wires
 * that hold the parts' totals (a copy `x[dst] = x[src]` starts each: no addition, no step). Its
 * *size* is the number of additions; its *depth* is the longest chain of additions that depend on
 * each other, found by giving every addition the step right after the later of its two inputs (as
 * soon as possible). Snir (1986) proved that
 * every prefix network on n inputs has depth + size ≥ 2n − 2: a network can be shallow or small,
 * not both.
 *
 * The same file checks the bank arithmetic behind chapter 03's CONFLICT_FREE_INDEX: for the
 * shared-memory access patterns of its block scans, how many different words of one bank a warp
 * asks for at once, with and without the padding; models chapters 01, 04 and 05's
 * decompositions; runs the look-back of chapter 07 (carried unchanged into 08) and the chain of
 * chapter 06 under random interleavings of their tiles; and runs chapter 09's segmented sum, an
 * operator that is associative but not commutative, with the look-back's grouping.
 */
#include "check.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** The most operations any network built here has (Kogge-Stone at the largest n tested). */
#define MAX_OPS (1 << 16)
/** Largest n the tests build. */
#define MAX_N 300
/** Most wires: the elements and up to 4 parts' totals. */
#define MAX_WIRES (MAX_N + 4)
/** Shared memory banks of 4-byte words. */
#define NUM_BANKS 32
/** log2(NUM_BANKS). */
#define LOG_NUM_BANKS 5
/** Chapter 03's padding: one spare word after every 32. */
#define CONFLICT_FREE_INDEX(i) ((i) + ((i) >> LOG_NUM_BANKS))

/** One operation: x[dst] = x[src] + x[dst] (an addition), or x[dst] = x[src] (a copy). */
typedef struct op {
    int dst;  /**< the wire that is updated */
    int src;  /**< the wire whose value is added to it, or copied */
    int copy; /**< 1 for a copy */
} op;

/** A network on n element wires, and `wires − n` wires for parts' totals after them. */
typedef struct network {
    const char *name;   /**< file name part, e.g. "kogge_stone" */
    const char *title;  /**< for tables and figures */
    int n;              /**< element wires (inputs and outputs) */
    int wires;          /**< all wires: n, plus the totals' */
    int count;          /**< operations */
    int size;           /**< additions (operations that are not copies) */
    op ops[MAX_OPS];    /**< in an order that may be applied one at a time */
} network;

/** Append x[dst] += x[src], or x[dst] = x[src] with `copy`. */
static void append(network *net, int dst, int src, int copy)
{
    if (net->count >= MAX_OPS) {
        fprintf(stderr, "scan_networks: more than %d operations\n", MAX_OPS);
        exit(2);
    }
    net->ops[net->count].dst = dst;
    net->ops[net->count].src = src;
    net->ops[net->count].copy = copy;
    ++net->count;
    net->size += !copy;
}

/** Append x[dst] += x[src]. */
static void add_op(network *net, int dst, int src)
{
    append(net, dst, src, 0);
}

/** Empty `net` and name it. */
static void start(network *net, const char *name, const char *title, int n)
{
    net->name = name;
    net->title = title;
    net->n = n;
    net->wires = n;
    net->count = 0;
    net->size = 0;
}

/** The loop of chapter 01: x[i] += x[i-1], n − 1 steps. */
static void build_serial(network *net, int n)
{
    start(net, "serial", "serial", n);
    for (int i = 1; i < n; ++i)
        add_op(net, i, i - 1);
}

/** Kogge-Stone (chapter 02): at step d every i ≥ 2^d adds x[i − 2^d]. Descending i within a
    step, so that applying them one at a time reads the values of the step before. */
static void build_kogge_stone(network *net, int n)
{
    start(net, "kogge_stone", "Kogge-Stone", n);
    for (int d = 1; d < n; d *= 2)
        for (int i = n - 1; i >= d; --i)
            add_op(net, i, i - d);
}

/** Sklansky: at step d every i whose bit d is set adds the last element of the block of 2^d
    just below its own (i with its low d bits cleared, minus one): one value fans out to 2^d. */
static void build_sklansky(network *net, int n)
{
    start(net, "sklansky", "Sklansky", n);
    for (int d = 1; d < n; d *= 2)
        for (int i = 0; i < n; ++i)
            if (i & d)
                add_op(net, i, (i & ~(2 * d - 1)) + d - 1);
}

/** Brent-Kung: an up-sweep builds sums of blocks of 2, 4, 8, … at their last element; a
    down-sweep adds each block's prefix into the middle element of the block after it. */
static void build_brent_kung(network *net, int n)
{
    start(net, "brent_kung", "Brent-Kung", n);
    int top = 1;
    for (int s = 1; s < n; s *= 2) {
        for (int i = 2 * s - 1; i < n; i += 2 * s)
            add_op(net, i, i - s);
        top = s;
    }
    for (int s = top / 2; s >= 1; s /= 2)
        for (int i = 3 * s - 1; i < n; i += 2 * s)
            add_op(net, i, i - s);
}

/** Scan-then-propagate over `parts` contiguous parts: each part is scanned serially (its running
    sums stay on its wires), the part totals are chained, and every element but a part's last
    adds the total of the parts before. It sits on Snir's bound (test_networks() checks it). */
static void build_scan_then_propagate(network *net, int n, int parts)
{
    start(net, "scan_then_propagate", "scan-then-propagate, 4 parts", n);
    int len = (n + parts - 1) / parts;
    for (int b = 0; b < n; b += len)
        for (int i = b + 1; i < b + len && i < n; ++i)
            add_op(net, i, i - 1);
    for (int b = len; b < n; b += len) {
        int last = (b + len < n ? b + len : n) - 1;
        add_op(net, last, b - 1);
    }
    for (int b = len; b < n; b += len) {
        int last = (b + len < n ? b + len : n) - 1;
        for (int i = b; i < last; ++i)
            add_op(net, i, b - 1);
    }
}

/** Reduce-then-scan over `parts` contiguous parts (Merrill & Garland Fig 1e; chapter 05's three
    passes): each part is reduced serially into a wire of its own (its running sums are not kept),
    the totals are scanned serially, and each part is scanned again, serially, its first element
    seeded with the totals of the parts before it. The second scan repeats the reduction's
    additions, and nothing reads the last part's total (a global scan keeps it only for the total
    of everything): redundant work, above Snir's bound. */
static void build_reduce_then_scan(network *net, int n, int parts)
{
    start(net, "reduce_then_scan", "reduce-then-scan, 4 parts", n);
    int len = (n + parts - 1) / parts;
    int held = (n + len - 1) / len; /* parts that hold an element */
    net->wires = n + held;
    for (int p = 0; p < held; ++p) { /* reduce: totals on wires n … n + held − 1 */
        int b = p * len, end = b + len < n ? b + len : n;
        append(net, n + p, b, 1);
        for (int i = b + 1; i < end; ++i)
            add_op(net, n + p, i);
    }
    for (int p = 1; p + 1 < held; ++p) /* scan the totals a part after it needs */
        add_op(net, n + p, n + p - 1);
    for (int p = 0; p < held; ++p) { /* scan each part again, seeded */
        int b = p * len, end = b + len < n ? b + len : n;
        if (p > 0)
            add_op(net, b, n + p - 1);
        for (int i = b + 1; i < end; ++i)
            add_op(net, i, i - 1);
    }
}

/** How many networks build() knows. */
enum { NETWORK_KINDS = 6 };
/** Build network `which` (0 … NETWORK_KINDS−1) on n wires. */
static void build(network *net, int which, int n)
{
    switch (which) {
    case 0: build_serial(net, n); break;
    case 1: build_kogge_stone(net, n); break;
    case 2: build_sklansky(net, n); break;
    case 3: build_brent_kung(net, n); break;
    case 4: build_scan_then_propagate(net, n, 4); break;
    default: build_reduce_then_scan(net, n, 4); break;
    }
}

/** Give every operation its step (1-based, as soon as its inputs are ready; a copy takes the
    step of its source and adds none); return the depth. */
static int schedule(const network *net, int *step)
{
    int ready[MAX_WIRES]; /* per wire: the step after which its current value exists */
    int depth = 0;
    for (int i = 0; i < net->wires; ++i)
        ready[i] = 0;
    for (int k = 0; k < net->count; ++k) {
        const op *o = &net->ops[k];
        int s = o->copy ? ready[o->src]
                        : (ready[o->dst] > ready[o->src] ? ready[o->dst] : ready[o->src]) + 1;
        ready[o->dst] = s;
        if (step)
            step[k] = s;
        if (s > depth)
            depth = s;
    }
    return depth;
}

/** Apply the network to x (net->wires values: the elements, then the totals' wires, whose
    starting values the network must not use), one operation at a time, with wrap-around
    addition. */
static void apply(const network *net, uint32_t *x)
{
    for (int k = 0; k < net->count; ++k)
        x[net->ops[k].dst] = net->ops[k].copy ? x[net->ops[k].src]
                                              : x[net->ops[k].dst] + x[net->ops[k].src];
}

/** Operations stay on the wires; between element wires they point backwards; a totals' wire is
    copied into before anything is added to it or read from it. */
static int well_formed(const network *net)
{
    int started[MAX_WIRES];
    for (int i = 0; i < net->wires; ++i)
        started[i] = i < net->n;
    for (int k = 0; k < net->count; ++k) {
        const op *o = &net->ops[k];
        if (o->src < 0 || o->dst < 0 || o->src >= net->wires || o->dst >= net->wires ||
            o->src == o->dst || !started[o->src] || (!o->copy && !started[o->dst]))
            return 0;
        if (o->src < net->n && o->dst < net->n && o->src > o->dst)
            return 0;
        started[o->dst] = 1;
    }
    return 1;
}

/** floor(log2(n)) for n ≥ 1. */
static int log2_floor(int n)
{
    int k = 0;
    while ((1 << (k + 1)) <= n)
        ++k;
    return k;
}

/** Every network, every n in 1 … MAX_N: correct on random data, Snir's bound, known formulas. */
static void test_networks(void)
{
    static network net;
    uint32_t x[MAX_WIRES], ref[MAX_N];
    uint64_t state = 0x2016110112345ull;
    for (int which = 0; which < NETWORK_KINDS; ++which) {
        for (int n = 1; n <= MAX_N; ++n) {
            build(&net, which, n);
            CHECK(well_formed(&net));
            uint32_t sum = 0;
            for (int i = 0; i < n; ++i) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                x[i] = (uint32_t)(state >> 32);
                sum += x[i];
                ref[i] = sum;
            }
            for (int i = n; i < net.wires; ++i)
                x[i] = 0xdeadbeefu; /* a totals' wire: no network may use what it held */
            apply(&net, x);
            int wrong = memcmp(x, ref, (size_t)n * sizeof x[0]) != 0;
            CHECK(!wrong);
            if (wrong)
                printf("  %s is not a scan at n = %d\n", net.title, n);
            int depth = schedule(&net, NULL);
            CHECK(depth + net.size >= 2 * n - 2); /* Snir's bound */
            if ((n & (n - 1)) == 0 && n >= 4) {   /* powers of two: the textbook formulas */
                int lg = log2_floor(n);
                if (which == 0) CHECK(depth == n - 1 && net.size == n - 1);
                if (which == 1) CHECK(depth == lg && net.size == n * lg - (n - 1));
                if (which == 2) CHECK(depth == lg && net.size == n / 2 * lg);
                if (which == 3) CHECK(depth == 2 * lg - 2 && net.size == 2 * n - lg - 2);
            }
            if (which == 4 && n >= 4 && n % 4 == 0) /* scan-then-propagate: on the bound */
                CHECK(depth + net.size == 2 * n - 2);
            if (which == 5 && n % 4 == 0) /* reduce-then-scan: n/2 above it */
                CHECK(depth + net.size == 2 * n - 2 + n / 2);
        }
    }
    /* The figures' numbers, n = 16. */
    int want[NETWORK_KINDS][2] = {{15, 15}, {4, 49}, {4, 32}, {6, 26}, {6, 24}, {9, 29}};
    for (int which = 0; which < NETWORK_KINDS; ++which) {
        build(&net, which, 16);
        CHECK(schedule(&net, NULL) == want[which][0]);
        CHECK(net.size == want[which][1]);
    }
}

/** A network with one operation missing, or one pointing at the wrong wire, must be caught:
    the checks above are only worth something if they can fail. */
static void test_planted_bugs(void)
{
    static network net;
    uint32_t x[MAX_WIRES], ref[16];
    int caught = 0;
    for (int which = 0; which < NETWORK_KINDS; ++which) {
        for (int bug = 0; bug < 2; ++bug) {
            build(&net, which, 16);
            op *middle = &net.ops[net.count / 2];
            if (bug == 0)
                --net.count; /* drop the last operation */
            else            /* point the middle operation at another wire */
                middle->src = middle->src == middle->dst - 1 ? 0 : middle->dst - 1;
            uint32_t sum = 0;
            for (int i = 0; i < 16; ++i) {
                x[i] = (uint32_t)(i * 2654435761u + 12345u);
                sum += x[i];
                ref[i] = sum;
            }
            apply(&net, x);
            caught += memcmp(x, ref, sizeof ref) != 0;
        }
    }
    CHECK(caught == 2 * NETWORK_KINDS);
}

/* ---- shared-memory banks ------------------------------------------------------------------- */

/** Worst bank conflict of one warp-wide access: the most different words asked of one bank
    (the same word read by several lanes is a broadcast, not a conflict). 0 if no lane is active. */
static int conflict_ways(const int *word, int lanes)
{
    int worst = 0;
    for (int bank = 0; bank < NUM_BANKS; ++bank) {
        int distinct = 0;
        for (int a = 0; a < lanes; ++a) {
            if (word[a] % NUM_BANKS != bank)
                continue;
            int seen = 0;
            for (int b = 0; b < a; ++b)
                seen |= word[b] == word[a];
            distinct += !seen;
        }
        if (distinct > worst)
            worst = distinct;
    }
    return worst;
}

/** The access patterns of chapter 03 whose banks matter. */
enum { PATTERN_BLELLOCH, PATTERN_BRENT_KUNG_WARP, PATTERN_RAKING, BANK_PATTERNS };
/** Labels of the patterns. */
static const char *const BANK_PATTERN_NAMES[BANK_PATTERNS] = {
    "blelloch: worst level of the sweeps", "brent-kung: warp 0 reads slot 32t+31",
    "raking: lane r reads slot 32r+j"};

/** Worst conflict of `pattern` over every warp and step, padded or not (1 = conflict-free). */
static int worst_conflict(int pattern, int padded)
{
    int word[32], worst = 0;
    if (pattern == PATTERN_BLELLOCH) {
        /* 512 threads; at stride s, thread t < 512/s reads slot s(2t+1)−1 and slot s(2t+2)−1 */
        for (int s = 1; s < 1024; s *= 2)
            for (int w = 0; w < 16; ++w)
                for (int which = 1; which <= 2; ++which) {
                    int lanes = 0;
                    for (int t = 32 * w; t < 32 * w + 32 && t < 512 / s; ++t) {
                        int i = s * (2 * t + which) - 1;
                        word[lanes++] = padded ? CONFLICT_FREE_INDEX(i) : i;
                    }
                    int c = conflict_ways(word, lanes);
                    worst = c > worst ? c : worst;
                }
    } else {
        for (int j = 0; j < 32; ++j) {
            for (int t = 0; t < 32; ++t) {
                int i = pattern == PATTERN_RAKING ? 32 * t + j : 32 * t + 31;
                word[t] = padded ? CONFLICT_FREE_INDEX(i) : i;
            }
            int c = conflict_ways(word, 32);
            worst = c > worst ? c : worst;
        }
    }
    return worst;
}

/** The bank counter on known cases, then the patterns of chapter 03 with and without padding. */
static void test_banks(void)
{
    int same[32], spread[32];
    for (int t = 0; t < 32; ++t) {
        same[t] = 7;        /* one word: a broadcast */
        spread[t] = 32 * t; /* 32 words of one bank */
    }
    CHECK(conflict_ways(same, 32) == 1);
    CHECK(conflict_ways(spread, 32) == 32);
    CHECK(worst_conflict(PATTERN_BLELLOCH, 0) == 32);
    CHECK(worst_conflict(PATTERN_BRENT_KUNG_WARP, 0) == 32);
    CHECK(worst_conflict(PATTERN_RAKING, 0) == 32);
    for (int p = 0; p < BANK_PATTERNS; ++p)
        CHECK(worst_conflict(p, 1) == 1);
}

/* ---- chapter 01: the threaded scan, on slices that differ by at most one ------------------- */

/** Chapter 01's slice_of(): slice t of `threads` over n elements, [begin, end). */
static void slice_bounds(int n, int t, int threads, int *begin, int *end)
{
    *begin = n / threads * t + (t < n % threads ? t : n % threads);
    *end = *begin + n / threads + (t < n % threads ? 1 : 0);
}

/**
 * Chapter 01's scan_threads(), serially: each of `threads` slices is reduced into
 * `aggregate[t]`, the aggregates are scanned into exclusive prefixes (`prefix[t]`), and each
 * slice is scanned again from its prefix. `aggregate` and `prefix` hold `threads` entries.
 */
static void model_threads(uint32_t *x, int n, int threads, int exclusive, uint32_t *aggregate,
                          uint32_t *prefix)
{
    /* [model of student part: three-steps] */
    int begin, end;
    for (int t = 0; t < threads; ++t) {
        slice_bounds(n, t, threads, &begin, &end);
        aggregate[t] = 0;
        for (int i = begin; i < end; ++i)
            aggregate[t] += x[i];
    }
    uint32_t running = 0;
    for (int t = 0; t < threads; ++t) {
        prefix[t] = running;
        running += aggregate[t];
    }
    for (int t = 0; t < threads; ++t) {
        slice_bounds(n, t, threads, &begin, &end);
        uint32_t carry = prefix[t];
        for (int i = begin; i < end; ++i) {
            uint32_t v = x[i];
            carry += v;
            x[i] = exclusive ? carry - v : carry;
        }
    }
    /* [end of model of student part: three-steps] */
}

/** The threaded scan against the serial one for every n up to MAX_N and 1 … 17 threads (more
    threads than elements included), inclusive and exclusive; the slices cover [0, n) in order,
    their sizes differ by at most one. (Planted by hand: seeding every slice with 0 fails.) */
static void test_threads(void)
{
    static uint32_t x[MAX_N], y[MAX_N], ref[MAX_N];
    uint32_t aggregate[17], prefix[17];
    uint64_t state = 0x0101ull;
    int wrong = 0, slices_bad = 0;
    for (int n = 0; n <= MAX_N; ++n) {
        for (int i = 0; i < n; ++i) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            x[i] = (uint32_t)(state >> 32);
        }
        for (int threads = 1; threads <= 17; ++threads) {
            int expect = 0, begin, end, smallest = n, largest = 0;
            for (int t = 0; t < threads; ++t) {
                slice_bounds(n, t, threads, &begin, &end);
                slices_bad += begin != expect || end < begin;
                expect = end;
                smallest = end - begin < smallest ? end - begin : smallest;
                largest = end - begin > largest ? end - begin : largest;
            }
            slices_bad += expect != n || largest - smallest > 1;
            for (int exclusive = 0; exclusive < 2; ++exclusive) {
                uint32_t sum = 0;
                for (int i = 0; i < n; ++i) {
                    ref[i] = exclusive ? sum : sum + x[i];
                    sum += x[i];
                }
                memcpy(y, x, (size_t)n * sizeof y[0]);
                model_threads(y, n, threads, exclusive, aggregate, prefix);
                wrong += memcmp(y, ref, (size_t)n * sizeof y[0]) != 0;
            }
        }
    }
    CHECK(wrong == 0);
    CHECK(slices_bad == 0);
}

/* ---- chapters 04 and 05: the device-wide decompositions, on the host ------------------------ */

/**
 * Chapter 04's recursion, serially: scan every tile of x in place (inclusive or exclusive),
 * write each tile's aggregate to `scratch`, turn the aggregates into carries by the same
 * algorithm (exclusive, with the rest of `scratch` for its own levels), add each tile's carry.
 * `scratch` needs the sum of the tile counts of every level with more than one tile (< n).
 */
static void model_scan_then_fan(uint32_t *x, int n, int tile, int exclusive, uint32_t *scratch)
{
    int tiles = (n + tile - 1) / tile;
    for (int t = 0; t < tiles; ++t) {
        uint32_t sum = 0;
        for (int i = t * tile; i < n && i < (t + 1) * tile; ++i) {
            uint32_t v = x[i];
            sum += v;
            x[i] = exclusive ? sum - v : sum;
        }
        if (tiles > 1)
            scratch[t] = sum;
    }
    if (tiles <= 1)
        return;
    model_scan_then_fan(scratch, tiles, tile, 1, scratch + tiles);
    for (int i = tile; i < n; ++i)
        x[i] += scratch[i / tile];
}

/** Chapter 05's split: tiles per block, ceil(tiles / g), and the blocks that then have work. */
static void chunking(int n, int tile, int g, int *tiles_per_block, int *blocks)
{
    int tiles = (n + tile - 1) / tile;
    *tiles_per_block = tiles ? (tiles + g - 1) / g : 0;
    *blocks = tiles ? (tiles + *tiles_per_block - 1) / *tiles_per_block : 0;
}

/**
 * Chapter 05, serially: block b reduces its chunk into `aggregate[b]`; the aggregates are
 * scanned (exclusive); block b scans its chunk tile by tile, seeded with its prefix.
 * `aggregate` receives the prefixes (at most g entries).
 */
static void model_reduce_then_scan(uint32_t *x, int n, int tile, int g, int exclusive,
                                   uint32_t *aggregate)
{
    int per, blocks;
    chunking(n, tile, g, &per, &blocks);
    for (int b = 0; b < blocks; ++b) {
        aggregate[b] = 0;
        for (int i = b * per * tile; i < n && i < (b + 1) * per * tile; ++i)
            aggregate[b] += x[i];
    }
    uint32_t running = 0;
    for (int b = 0; b < blocks; ++b) {
        uint32_t a = aggregate[b];
        aggregate[b] = running;
        running += a;
    }
    for (int b = 0; b < blocks; ++b) {
        uint32_t carry = aggregate[b];
        for (int i = b * per * tile; i < n && i < (b + 1) * per * tile; ++i) {
            uint32_t v = x[i];
            carry += v;
            x[i] = exclusive ? carry - v : carry;
        }
    }
}

/** Both decompositions against the serial scan, for every n up to MAX_N and several tiles and
    block counts, inclusive and exclusive. (Planted by hand: dropping the carries of either model,
    or splitting with floor(tiles / g), makes these checks fail.) */
static void test_decompositions(void)
{
    static uint32_t x[MAX_N], y[MAX_N], ref[MAX_N], scratch[MAX_N];
    uint64_t state = 0x0405ull;
    int wrong = 0, chunks_bad = 0;
    for (int n = 0; n <= MAX_N; ++n) {
        for (int i = 0; i < n; ++i) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            x[i] = (uint32_t)(state >> 32);
        }
        for (int exclusive = 0; exclusive < 2; ++exclusive) {
            uint32_t sum = 0;
            for (int i = 0; i < n; ++i) {
                ref[i] = exclusive ? sum : sum + x[i];
                sum += x[i];
            }
            for (int tile = 2; tile <= 9; ++tile) {
                memcpy(y, x, (size_t)n * sizeof y[0]);
                model_scan_then_fan(y, n, tile, exclusive, scratch);
                wrong += memcmp(y, ref, (size_t)n * sizeof y[0]) != 0;
                for (int g = 1; g <= 7; ++g) {
                    int per, blocks;
                    memcpy(y, x, (size_t)n * sizeof y[0]);
                    model_reduce_then_scan(y, n, tile, g, exclusive, scratch);
                    wrong += memcmp(y, ref, (size_t)n * sizeof y[0]) != 0;
                    chunking(n, tile, g, &per, &blocks);
                    /* at most g blocks, none without work, every tile covered */
                    chunks_bad += blocks > g || (n && (blocks - 1) * per * tile >= n) ||
                                  blocks * per * tile < n;
                }
            }
        }
    }
    CHECK(wrong == 0);
    CHECK(chunks_bad == 0);
}

/* ---- chapter 07: the look-back, under random interleavings --------------------------------- */

/** Most tiles of a look-back model run. */
#define LB_MAX_TILES 64
/** Descriptor states, as in chapter 07. */
enum { LB_INVALID, LB_AGGREGATE, LB_PREFIX };
/** What a model tile is doing. */
enum { LB_LOADING, LB_LOOKING, LB_DONE };

/** The next number of a 64-bit LCG. */
static uint32_t lb_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*state >> 33);
}

/**
 * Chapter 07's look-back run by `tiles` model tiles whose steps interleave at random: a tile
 * publishes its aggregate (tile 0: its prefix) when its load ends, then reads a window of `window`
 * predecessors at a time (one snapshot of the descriptors per read, as one warp's loads), and adds
 * the values up to the nearest TILE_PREFIX, or, with `double_count`, the whole window (the bug).
 * Writes each tile's exclusive prefix; returns the steps taken, or -1 if it did not finish.
 */
static int model_look_back(const uint32_t *aggregate, int tiles, int window, int double_count,
                           uint64_t *rng, uint32_t *exclusive)
{
    int state[LB_MAX_TILES], phase[LB_MAX_TILES], window_last[LB_MAX_TILES];
    uint32_t value[LB_MAX_TILES];
    int done = 0, steps = 0;
    for (int t = 0; t < tiles; ++t) {
        state[t] = LB_INVALID;
        phase[t] = LB_LOADING;
        window_last[t] = t - 1;
        exclusive[t] = 0;
    }
    while (done < tiles && steps < 1000000) {
        const int t = (int)(lb_random(rng) % (uint32_t)tiles);
        ++steps;
        if (phase[t] == LB_LOADING) {
            state[t] = t == 0 ? LB_PREFIX : LB_AGGREGATE;
            value[t] = aggregate[t];
            phase[t] = t == 0 ? LB_DONE : LB_LOOKING;
            done += t == 0;
        } else if (phase[t] == LB_LOOKING) {
            int nearest = -1, ready = 1;
            uint32_t sum = 0;
            for (int lane = 0; lane < window && nearest < 0; ++lane) {
                const int p = window_last[t] - lane;
                const int st = p >= 0 ? state[p] : LB_PREFIX;
                if (st == LB_INVALID)
                    ready = 0;
                if (st == LB_PREFIX)
                    nearest = lane;
            }
            if (!ready)
                continue; /* a needed predecessor has not published: read again later */
            const int last_lane = nearest >= 0 && !double_count ? nearest : window - 1;
            for (int lane = 0; lane <= last_lane; ++lane) {
                const int p = window_last[t] - lane;
                sum += p >= 0 ? value[p] : 0;
            }
            exclusive[t] += sum;
            if (nearest >= 0) {
                state[t] = LB_PREFIX;
                value[t] = exclusive[t] + aggregate[t];
                phase[t] = LB_DONE;
                ++done;
            } else {
                window_last[t] -= window;
            }
        }
    }
    return done == tiles ? steps : -1;
}

/** The look-back model gives every tile its exclusive prefix, whatever the interleaving, and
    always finishes; and the double-counting bug is caught. */
static void test_look_back(void)
{
    uint32_t aggregate[LB_MAX_TILES], exclusive[LB_MAX_TILES];
    uint64_t rng = 0x0707ull;
    int wrong = 0, stuck = 0, runs = 0, bug_caught = 0;
    for (int tiles = 1; tiles <= LB_MAX_TILES; ++tiles)
        for (int window = 1; window <= 5; ++window)
            for (int repeat = 0; repeat < 20; ++repeat) {
                for (int t = 0; t < tiles; ++t)
                    aggregate[t] = lb_random(&rng) * 2654435761u;
                for (int bug = 0; bug < 2; ++bug) {
                    const int steps = model_look_back(aggregate, tiles, window, bug, &rng, exclusive);
                    uint32_t sum = 0;
                    int bad = 0;
                    for (int t = 0; t < tiles; ++t) {
                        bad += exclusive[t] != sum;
                        sum += aggregate[t];
                    }
                    if (bug) {
                        bug_caught += bad > 0;
                    } else {
                        ++runs;
                        stuck += steps < 0;
                        wrong += bad > 0;
                    }
                }
            }
    CHECK(stuck == 0);
    CHECK(wrong == 0);
    CHECK(runs == LB_MAX_TILES * 5 * 20);
    /* the model must be able to fail: adding past the nearest prefix is caught, often */
    CHECK(bug_caught > runs / 4);
}

/* ---- chapter 06: the chained scan, under random interleavings ------------------------------ */

/** A model block of chapter 06 that has stored its state but not yet its value (the bug). */
enum { CH_STORING_VALUE = LB_DONE + 1 };

/**
 * Chapter 06's chain run by `chunks` model blocks whose steps interleave at random. A block
 * reduces its chunk (one step), then reads its predecessor's descriptor until it shows
 * TILE_PREFIX, and publishes its own inclusive prefix. With `two_words`, the bug the chapter
 * plants: the state and the value are two stores, the state first, and a reader can come in
 * between. Writes each chunk's inclusive prefix; returns the steps taken, or -1 if it did not
 * finish.
 */
static int model_chained(const uint32_t *aggregate, int chunks, int two_words, uint64_t *rng,
                         uint32_t *inclusive)
{
    int state[LB_MAX_TILES], phase[LB_MAX_TILES];
    uint32_t value[LB_MAX_TILES];
    int done = 0, steps = 0;
    for (int c = 0; c < chunks; ++c) {
        state[c] = LB_INVALID;
        phase[c] = LB_LOADING;
        value[c] = 0xA5A5A5A5u; /* what a never-written descriptor holds */
    }
    while (done < chunks && steps < 1000000) {
        const int c = (int)(lb_random(rng) % (uint32_t)chunks);
        ++steps;
        if (phase[c] == LB_LOADING) {
            phase[c] = LB_LOOKING;
        } else if (phase[c] == LB_LOOKING) {
            const int ready = c == 0 || state[c - 1] == LB_PREFIX;
            if (!ready)
                continue; /* spin: read the predecessor's word again later */
            inclusive[c] = (c == 0 ? 0 : value[c - 1]) + aggregate[c];
            state[c] = LB_PREFIX;
            if (two_words) {
                phase[c] = CH_STORING_VALUE;
                continue;
            }
            value[c] = inclusive[c];
            phase[c] = LB_DONE;
            ++done;
        } else if (phase[c] == CH_STORING_VALUE) {
            value[c] = inclusive[c];
            phase[c] = LB_DONE;
            ++done;
        }
    }
    return done == chunks ? steps : -1;
}

/** The chain gives every chunk its inclusive prefix whatever the interleaving, and always
    finishes; storing the state before the value (two words) is caught. */
static void test_chained(void)
{
    uint32_t aggregate[LB_MAX_TILES], inclusive[LB_MAX_TILES];
    uint64_t rng = 0x0606ull;
    int wrong = 0, stuck = 0, runs = 0, bug_caught = 0;
    for (int chunks = 1; chunks <= LB_MAX_TILES; ++chunks)
        for (int repeat = 0; repeat < 40; ++repeat) {
            for (int c = 0; c < chunks; ++c)
                aggregate[c] = lb_random(&rng) * 2654435761u;
            for (int bug = 0; bug < 2; ++bug) {
                const int steps = model_chained(aggregate, chunks, bug, &rng, inclusive);
                uint32_t sum = 0;
                int bad = 0;
                for (int c = 0; c < chunks; ++c) {
                    sum += aggregate[c];
                    bad += inclusive[c] != sum;
                }
                if (bug) {
                    bug_caught += bad > 0;
                } else {
                    ++runs;
                    stuck += steps < 0;
                    wrong += bad > 0;
                }
            }
        }
    CHECK(stuck == 0);
    CHECK(wrong == 0);
    CHECK(runs == LB_MAX_TILES * 40);
    /* the model must be able to fail: a reader between the two stores is caught, often */
    CHECK(bug_caught > runs / 4);
}

/* ---- chapter 09: an operator that is associative and not commutative ----------------------- */

/** Chapter 09's segmented sum: a head flag and a sum (`segment_sum` in operators.cu). */
typedef struct {
    uint32_t head; /**< 1 if a segment starts here (or in what this pair summarises) */
    uint32_t sum;  /**< the sum since the last head */
} segment;

/** earlier ⊕ later: a head in `later` discards what is on its left. */
static segment seg_combine(segment earlier, segment later)
{
    segment r = {earlier.head | later.head, later.head ? later.sum : earlier.sum + later.sum};
    return r;
}

/**
 * Chapter 09's pass for the segmented sum, serially: each tile of `tile` elements combines its
 * elements in order into `aggregate[t]`; tile t's exclusive prefix is built as the look-back
 * does, from the nearest predecessor back, `window` tiles at a time, each window combined in
 * order and put in front of what is already there (`prefix = window ⊕ prefix`; with `swapped`,
 * the bug: `prefix ⊕ window`, right only for a commutative operator); each element is its
 * tile's prefix ⊕ the tile's elements up to it. `aggregate` and `prefix` hold a slot per tile.
 */
static void model_segmented(const segment *in, uint32_t *out, int n, int tile, int window,
                            int swapped, segment *aggregate, segment *prefix)
{
    const segment identity = {0, 0};
    int tiles = (n + tile - 1) / tile;
    for (int t = 0; t < tiles; ++t) {
        aggregate[t] = identity;
        for (int i = t * tile; i < n && i < (t + 1) * tile; ++i)
            aggregate[t] = seg_combine(aggregate[t], in[i]);
    }
    for (int t = 0; t < tiles; ++t) {
        prefix[t] = identity;
        for (int last = t - 1; last >= 0; last -= window) {
            segment w = identity;
            for (int p = last - window + 1 < 0 ? 0 : last - window + 1; p <= last; ++p)
                w = seg_combine(w, aggregate[p]);
            prefix[t] = swapped ? seg_combine(prefix[t], w) : seg_combine(w, prefix[t]);
        }
        segment running = prefix[t];
        for (int i = t * tile; i < n && i < (t + 1) * tile; ++i) {
            running = seg_combine(running, in[i]);
            out[i] = running.sum;
        }
    }
}

/** The segmented pass against a serial segmented scan, for every n up to MAX_N, several tiles
    and windows (any grouping gives the same result: associativity); putting the window on the
    wrong side (what a commutative operator allows) is caught. */
static void test_segmented(void)
{
    static segment in[MAX_N], aggregate[MAX_N], prefix[MAX_N];
    static uint32_t out[MAX_N], ref[MAX_N];
    uint64_t state = 0x0909ull;
    int wrong = 0, bug_caught = 0, bug_runs = 0;
    for (int n = 0; n <= MAX_N; ++n) {
        uint32_t sum = 0;
        for (int i = 0; i < n; ++i) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            in[i].sum = (uint32_t)(state >> 40);
            in[i].head = (state >> 33) % 5 == 0;
            sum = in[i].head ? in[i].sum : sum + in[i].sum;
            ref[i] = sum;
        }
        for (int tile = 1; tile <= 9; tile += 2)
            for (int window = 1; window <= 4; ++window)
                for (int swapped = 0; swapped < 2; ++swapped) {
                    model_segmented(in, out, n, tile, window, swapped, aggregate, prefix);
                    int bad = memcmp(out, ref, (size_t)n * sizeof out[0]) != 0;
                    if (swapped) {
                        bug_runs += n > 4 * tile;
                        bug_caught += n > 4 * tile && bad;
                    } else {
                        wrong += bad;
                    }
                }
    }
    CHECK(wrong == 0);
    /* the model must be able to fail: the window on the wrong side is caught, nearly always */
    CHECK(bug_caught > bug_runs * 3 / 4);
}

/* ---- output -------------------------------------------------------------------------------- */

/** `--table`: depth and size at n = 16, and the bank conflicts of chapter 03's patterns. */
static void print_tables(void)
{
    static network net;
    printf("%-28s %6s %6s %12s\n", "network (n = 16)", "depth", "size", "depth+size");
    for (int which = 0; which < NETWORK_KINDS; ++which) {
        build(&net, which, 16);
        int depth = schedule(&net, NULL);
        printf("%-28s %6d %6d %12d\n", net.title, depth, net.size, depth + net.size);
    }
    printf("Snir's bound: depth + size >= 2n - 2 = 30\n\n");
    printf("%-40s %9s %7s\n", "chapter 03 shared-memory access", "unpadded", "padded");
    for (int p = 0; p < BANK_PATTERNS; ++p)
        printf("%-40s %8d-way %5d-way\n", BANK_PATTERN_NAMES[p], worst_conflict(p, 0),
               worst_conflict(p, 1));
}

/** Figure geometry (SVG pixels): distance between wires. */
#define SVG_DX 30
/** Distance between steps. */
#define SVG_DY 26
/** Left margin, room for the step labels. */
#define SVG_LEFT 64
/** Top margin, room for the title and the wire numbers. */
#define SVG_TOP 58

/** Draw one network: wires run down, one row per step; each addition is a line from its
    source wire (at the row above) to a dot on the wire it updates; a copy is a dashed line
    across, to a ring. The totals' wires, if any, are drawn after a gap and named t0, t1, … */
static int write_svg(const network *net, const char *dir)
{
    static int step[MAX_OPS];
    char path[512];
    int depth = schedule(net, step);
    int gap = net->wires > net->n ? SVG_DX : 0;
    int width = SVG_LEFT + net->wires * SVG_DX + gap + 10;
    int height = SVG_TOP + (depth + 1) * SVG_DY + 10;
    snprintf(path, sizeof path, "%s/network_%s.svg", dir, net->name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "scan_networks: cannot write %s: %s\n", path, strerror(errno));
        return 2;
    }
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
            width, height, width, height);
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
    fprintf(f, "<text x=\"8\" y=\"20\" font-size=\"15\" font-weight=\"bold\">%s, n = %d: "
               "depth %d, size %d</text>\n", net->title, net->n, depth, net->size);
    fprintf(f, "<text x=\"8\" y=\"38\" fill=\"#555\">each dot: x[i] = x[j] + x[i], j on the line "
               "from above; rows are steps%s</text>\n",
            gap ? "; ring: a copy (no addition); t: a part's total" : "");
    for (int i = 0; i < net->wires; ++i) {
        int x = SVG_LEFT + i * SVG_DX + (i >= net->n ? gap : 0);
        if (i < net->n)
            fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%d</text>\n",
                    x, SVG_TOP - 4, i);
        else
            fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">t%d</text>\n",
                    x, SVG_TOP - 4, i - net->n);
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#bbb\"%s/>\n", x,
                SVG_TOP, x, SVG_TOP + depth * SVG_DY + 12,
                i >= net->n ? " stroke-dasharray=\"4 3\"" : "");
    }
    for (int s = 1; s <= depth; ++s)
        fprintf(f, "<text x=\"8\" y=\"%d\" fill=\"#555\">step %d</text>\n",
                SVG_TOP + s * SVG_DY + 4, s);
    for (int k = 0; k < net->count; ++k) {
        const op *o = &net->ops[k];
        int xs = SVG_LEFT + o->src * SVG_DX + (o->src >= net->n ? gap : 0);
        int xd = SVG_LEFT + o->dst * SVG_DX + (o->dst >= net->n ? gap : 0);
        int y = SVG_TOP + step[k] * SVG_DY;
        if (o->copy) { /* below the row where its source's value exists, one height per wire */
            int yc = y + 5 + 4 * (o->dst >= net->n ? o->dst - net->n : 0);
            fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\" "
                       "stroke-dasharray=\"3 3\"/>\n", xs, yc, xd, yc);
            fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"2.5\" fill=\"#888\"/>\n", xs, yc);
            fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"white\" stroke=\"#888\" "
                       "stroke-width=\"1.5\"/>\n", xd, yc);
            continue;
        }
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#1f5fa8\" "
                   "stroke-width=\"1.5\"/>\n", xs, y - SVG_DY + 6, xd, y);
        fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"2.5\" fill=\"#1f5fa8\"/>\n", xs, y - SVG_DY + 6);
        fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"5\" fill=\"#d9480f\"/>\n", xd, y);
    }
    fprintf(f, "</svg>\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "scan_networks: cannot write %s: %s\n", path, strerror(errno));
        return 2;
    }
    return 0;
}

/** Dataflow figures: width of one element's cell. */
#define CELL_W 30
/** Height of one cell. */
#define CELL_H 22
/** Vertical distance between rows of cells. */
#define ROW_DY 62
/** Width of the column of captions, left of the cells: no line of the figure crosses it. */
#define CAPTION_W 290
/** Characters per line of a caption (about 6.6 pixels each at 12 px). */
#define CAPTION_CHARS 40
/** Gap between tiles (ch04) or between chunks (ch05). */
#define GROUP_GAP 10
/** Pale fills, one per tile or block (the first four, in turn), and grey (NEUTRAL). */
static const char *const FILLS[] = {"#dbe8f7", "#fde2cc", "#d9f0d3", "#eadcf2", "#eeeeee"};
/** The grey of FILLS: a cell that belongs to no tile. */
#define NEUTRAL 4

/** Left edge of element i when every `group` elements are followed by a gap. */
static int cell_x(int i, int group)
{
    return 16 + CAPTION_W + i * CELL_W + (i / group) * GROUP_GAP;
}

/** A caption in the left column, broken into lines of at most CAPTION_CHARS at spaces, and
    centred on the row at y: the lines between rows never cross it. */
static void svg_caption(FILE *f, int y, const char *caption)
{
    char lines[4][CAPTION_CHARS + 1];
    int nlines = 0;
    const char *p = caption;
    while (*p && nlines < 4) {
        int len = (int)strlen(p), cut = len;
        if (len > CAPTION_CHARS) {
            cut = CAPTION_CHARS;
            while (cut > 0 && p[cut] != ' ')
                --cut;
            if (cut == 0)
                cut = CAPTION_CHARS;
        }
        snprintf(lines[nlines++], sizeof lines[0], "%.*s", cut, p);
        p += cut;
        while (*p == ' ')
            ++p;
    }
    for (int l = 0; l < nlines; ++l)
        fprintf(f, "<text x=\"16\" y=\"%d\" fill=\"#333\">%s</text>\n",
                y + CELL_H / 2 + 4 + (2 * l - (nlines - 1)) * 7, lines[l]);
}

/** One cell: a box `width` wide at (x, y), filled with FILLS[color] (0 … NEUTRAL), with `text`
    centred. */
static void svg_cell(FILE *f, int x, int y, int width, int color, const char *text)
{
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
               "stroke=\"#777\"/>\n", x, y, width, CELL_H, FILLS[color]);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x + width / 2,
            y + 16, text);
}

/** A caption and a row of cells: value i at cell_x(i, group), filled by its color group. */
static void svg_row(FILE *f, int y, const char *caption, const uint32_t *v, int count, int group,
                    int color_group, int left_of)
{
    svg_caption(f, y, caption);
    for (int i = 0; i < count; ++i) {
        int x = left_of >= 0 ? cell_x(i * left_of, left_of) + (left_of * CELL_W - CELL_W) / 2
                             : cell_x(i, group);
        int c = (left_of >= 0 ? i : i / color_group) % 4;
        char text[16];
        snprintf(text, sizeof text, "%u", v[i]);
        svg_cell(f, x, y, CELL_W, c, text);
    }
}

/** Open DIR/NAME.svg and write the header and the title. */
static FILE *svg_open(const char *dir, const char *name, int width, int height, const char *title)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.svg", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "scan_networks: cannot write %s: %s\n", path, strerror(errno));
        return NULL;
    }
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
            width, height, width, height);
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
    fprintf(f, "<text x=\"16\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>\n", title);
    return f;
}

/** Close a figure; 0 on success. */
static int svg_close(FILE *f, const char *name)
{
    fprintf(f, "</svg>\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "scan_networks: cannot write %s.svg\n", name);
        return 2;
    }
    return 0;
}

/** A line from the bottom of one row to the top of the next. */
static void svg_arrow(FILE *f, int x1, int y1, int x2, int y2)
{
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#1f5fa8\" "
               "stroke-width=\"1.2\"/>\n", x1, y1, x2, y2);
    fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"2.5\" fill=\"#1f5fa8\"/>\n", x2, y2);
}

/** The first digits of pi: small numbers that are easy to add up by hand. */
static const uint32_t PI_DIGITS[24] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8,
                                       9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4};

/** Chapter 04's figure: n = 16, tiles of 4, the values computed by model_scan_then_fan(). */
static int write_scan_then_fan_svg(const char *dir)
{
    enum { N = 16, TILE = 4, TILES = N / TILE };
    uint32_t scanned[N], aggregate[TILES], carry[TILES], out[N], scratch[TILES];
    for (int i = 0; i < N; ++i) {
        scanned[i] = PI_DIGITS[i];
        out[i] = PI_DIGITS[i];
    }
    for (int t = 0; t < TILES; ++t) { /* step 1 alone, to show its result */
        uint32_t sum = 0;
        for (int i = t * TILE; i < (t + 1) * TILE; ++i)
            scanned[i] = sum += scanned[i];
        aggregate[t] = carry[t] = sum;
    }
    model_scan_then_fan(carry, TILES, TILE, 1, scratch); /* step 2 */
    model_scan_then_fan(out, N, TILE, 0, scratch);       /* all three steps */
    const char *name = "dataflow_scan_then_fan";
    int width = cell_x(N - 1, TILE) + CELL_W + 16, y = 64;
    FILE *f = svg_open(dir, name, width, y + 4 * ROW_DY + CELL_H + 24,
                       "Chapter 04, scan-then-fan: n = 16, tiles of 4");
    if (!f)
        return 2;
    for (int t = 0; t < TILES; ++t) {
        int last = cell_x(t * TILE + TILE - 1, TILE) + CELL_W / 2;
        int mid = cell_x(t * TILE, TILE) + TILE * CELL_W / 2;
        svg_arrow(f, last, y + ROW_DY + CELL_H, mid, y + 2 * ROW_DY);
        svg_arrow(f, mid, y + 2 * ROW_DY + CELL_H, mid, y + 3 * ROW_DY);
        for (int i = t * TILE; i < (t + 1) * TILE; ++i)
            svg_arrow(f, mid, y + 3 * ROW_DY + CELL_H, cell_x(i, TILE) + CELL_W / 2,
                      y + 4 * ROW_DY);
    }
    svg_row(f, y, "input", PI_DIGITS, N, TILE, TILE, -1);
    svg_row(f, y + ROW_DY, "1. each block scans its tile (reads n, writes n) ...", scanned, N,
            TILE, TILE, -1);
    svg_row(f, y + 2 * ROW_DY, "... and writes the tile's aggregate", aggregate, TILES, TILE,
            TILE, TILE);
    svg_row(f, y + 3 * ROW_DY, "2. the aggregates, scanned (exclusive, same algorithm): carries",
            carry, TILES, TILE, TILE, TILE);
    svg_row(f, y + 4 * ROW_DY, "3. each block adds its tile's carry (reads n, writes n)", out, N,
            TILE, TILE, -1);
    return svg_close(f, name);
}

/** Chapter 05's figure, after Merrill & Garland Fig 3: n = 24, G = 3 blocks, tiles of 4. */
static int write_reduce_then_scan_svg(const char *dir)
{
    enum { N = 24, TILE = 4, G = 3, CHUNK = N / G };
    uint32_t aggregate[G], prefix[G], out[N], scratch[G];
    for (int i = 0; i < N; ++i)
        out[i] = PI_DIGITS[i];
    for (int b = 0; b < G; ++b) { /* pass 1 alone, to show its result */
        aggregate[b] = 0;
        for (int i = b * CHUNK; i < (b + 1) * CHUNK; ++i)
            aggregate[b] += PI_DIGITS[i];
    }
    model_reduce_then_scan(out, N, TILE, G, 0, scratch); /* all three passes */
    for (int b = 0; b < G; ++b)
        prefix[b] = scratch[b];
    const char *name = "dataflow_reduce_then_scan";
    int width = cell_x(N - 1, CHUNK) + CELL_W + 16, y = 64;
    FILE *f = svg_open(dir, name, width, y + 3 * ROW_DY + CELL_H + 24,
                       "Chapter 05, reduce-then-scan: n = 24, G = 3 blocks, 2 tiles of 4 each");
    if (!f)
        return 2;
    for (int b = 0; b < G; ++b) {
        int mid = cell_x(b * CHUNK, CHUNK) + CHUNK * CELL_W / 2;
        for (int i = b * CHUNK; i < (b + 1) * CHUNK; ++i)
            svg_arrow(f, cell_x(i, CHUNK) + CELL_W / 2, y + CELL_H, mid, y + ROW_DY);
        svg_arrow(f, mid, y + ROW_DY + CELL_H, mid, y + 2 * ROW_DY);
        svg_arrow(f, mid, y + 2 * ROW_DY + CELL_H, cell_x(b * CHUNK, CHUNK) + CELL_W / 2,
                  y + 3 * ROW_DY);
    }
    svg_row(f, y, "input: block b owns one contiguous chunk", PI_DIGITS, N, CHUNK, CHUNK, -1);
    svg_row(f, y + ROW_DY, "pass 1: each block reduces its chunk (reads n)", aggregate, G, CHUNK,
            CHUNK, CHUNK);
    svg_row(f, y + 2 * ROW_DY, "pass 2: one block scans the G aggregates (exclusive): prefixes",
            prefix, G, CHUNK, CHUNK, CHUNK);
    svg_row(f, y + 3 * ROW_DY,
            "pass 3: each block scans its chunk, tile by tile, from its prefix (reads n, writes n)",
            out, N, CHUNK, CHUNK, -1);
    for (int b = 0; b < G; ++b) {
        /* the tile boundary inside the chunk: the running carry passes from tile to tile */
        int edge = cell_x(b * CHUNK + TILE, CHUNK) - 1;
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#d9480f\" "
                   "stroke-width=\"2\"/>\n", edge, y + 3 * ROW_DY - 4, edge,
                y + 3 * ROW_DY + CELL_H + 4);
    }
    return svg_close(f, name);
}

/** Chapter 01's figure: the serial chain, then the threaded scan, n = 18 on 4 threads (slices of
    5, 5, 4 and 4, as slice_of() cuts them), the values computed by model_threads(). */
static int write_threads_svg(const char *dir)
{
    enum { N = 18, T = 4 };
    uint32_t serial[N], out[N], aggregate[T], prefix[T];
    int x[N], slice[N], begin, end;
    uint32_t sum = 0;
    for (int i = 0; i < N; ++i) {
        serial[i] = sum += PI_DIGITS[i];
        out[i] = PI_DIGITS[i];
    }
    model_threads(out, N, T, 0, aggregate, prefix);
    for (int t = 0; t < T; ++t) {
        slice_bounds(N, t, T, &begin, &end);
        for (int i = begin; i < end; ++i) {
            slice[i] = t;
            x[i] = 16 + CAPTION_W + i * CELL_W + t * GROUP_GAP;
        }
    }
    const char *name = "dataflow_threads";
    int width = x[N - 1] + CELL_W + 16, y = 64;
    FILE *f = svg_open(dir, name, width, y + 4 * ROW_DY + CELL_H + 24,
                       "Chapter 01: the serial loop, and the threaded scan (n = 18, T = 4 slices)");
    if (!f)
        return 2;
    char text[16];
    /* the serial loop: each sum needs the one before it */
    svg_caption(f, y, "the serial loop: each sum needs the one before (a chain of n additions)");
    for (int i = 0; i < N; ++i) {
        snprintf(text, sizeof text, "%u", serial[i]);
        svg_cell(f, 16 + CAPTION_W + i * CELL_W, y, CELL_W, NEUTRAL, text);
        if (i > 0)
            fprintf(f, "<path d=\"M%d,%d q%d,-14 %d,0\" fill=\"none\" stroke=\"#d9480f\" "
                       "stroke-width=\"1.2\"/>\n", 16 + CAPTION_W + (i - 1) * CELL_W + CELL_W / 2,
                    y, CELL_W / 2, CELL_W);
    }
    y += ROW_DY;
    for (int t = 0; t < T; ++t) {
        slice_bounds(N, t, T, &begin, &end);
        int mid = (x[begin] + x[end - 1] + CELL_W) / 2;
        for (int i = begin; i < end; ++i)
            svg_arrow(f, x[i] + CELL_W / 2, y + CELL_H, mid, y + ROW_DY);
        if (t + 1 < T) { /* slice t + 1's prefix: slice t's prefix plus slice t's aggregate */
            int b1, e1;
            slice_bounds(N, t + 1, T, &b1, &e1);
            int next = (x[b1] + x[e1 - 1] + CELL_W) / 2;
            svg_arrow(f, mid, y + ROW_DY + CELL_H, next, y + 2 * ROW_DY);
            svg_arrow(f, mid + CELL_W / 2, y + 2 * ROW_DY + CELL_H / 2, next - CELL_W / 2 - 3,
                      y + 2 * ROW_DY + CELL_H / 2);
        }
        svg_arrow(f, mid, y + 2 * ROW_DY + CELL_H, x[begin] + CELL_W / 2, y + 3 * ROW_DY);
    }
    svg_caption(f, y, "input: thread t owns slice t (sizes differ by at most one)");
    for (int i = 0; i < N; ++i) {
        snprintf(text, sizeof text, "%u", PI_DIGITS[i]);
        svg_cell(f, x[i], y, CELL_W, slice[i], text);
    }
    const char *steps[3] = {"1. every thread reduces its slice: its aggregate (reads n)",
                            "2. one thread scans the T aggregates (exclusive): prefixes",
                            "3. every thread scans its slice from its prefix (reads n, writes n)"};
    for (int row = 0; row < 3; ++row) {
        int yr = y + (row + 1) * ROW_DY;
        svg_caption(f, yr, steps[row]);
        if (row == 2) {
            for (int i = 0; i < N; ++i) {
                snprintf(text, sizeof text, "%u", out[i]);
                svg_cell(f, x[i], yr, CELL_W, slice[i], text);
            }
            continue;
        }
        for (int t = 0; t < T; ++t) {
            slice_bounds(N, t, T, &begin, &end);
            snprintf(text, sizeof text, "%u", row == 0 ? aggregate[t] : prefix[t]);
            svg_cell(f, (x[begin] + x[end - 1]) / 2, yr, CELL_W, t, text);
        }
    }
    return svg_close(f, name);
}

/** Chapter 06's figure: n = 16 in chunks of 4, the chain of inclusive prefixes from chunk to
    chunk, the values computed by model_chained(). */
static int write_chained_svg(const char *dir)
{
    enum { N = 16, CHUNK = 4, CHUNKS = N / CHUNK };
    uint32_t aggregate[CHUNKS], inclusive[CHUNKS], out[N];
    uint64_t rng = 0x0606ull;
    for (int c = 0; c < CHUNKS; ++c) {
        aggregate[c] = 0;
        for (int i = c * CHUNK; i < (c + 1) * CHUNK; ++i)
            aggregate[c] += PI_DIGITS[i];
    }
    if (model_chained(aggregate, CHUNKS, 0, &rng, inclusive) < 0)
        return 2;
    for (int c = 0; c < CHUNKS; ++c) {
        uint32_t carry = c ? inclusive[c - 1] : 0;
        for (int i = c * CHUNK; i < (c + 1) * CHUNK; ++i)
            out[i] = carry += PI_DIGITS[i];
    }
    const char *name = "dataflow_chained";
    int width = cell_x(N - 1, CHUNK) + CELL_W + 16, y = 64;
    FILE *f = svg_open(dir, name, width, y + 3 * ROW_DY + CELL_H + 24,
                       "Chapter 06, the chained scan: n = 16, chunks of 4, one pass");
    if (!f)
        return 2;
    for (int c = 0; c < CHUNKS; ++c) {
        int mid = cell_x(c * CHUNK, CHUNK) + CHUNK * CELL_W / 2;
        for (int i = c * CHUNK; i < (c + 1) * CHUNK; ++i)
            svg_arrow(f, cell_x(i, CHUNK) + CELL_W / 2, y + CELL_H, mid, y + ROW_DY);
        svg_arrow(f, mid, y + ROW_DY + CELL_H, mid, y + 2 * ROW_DY);
        if (c + 1 < CHUNKS) { /* the chain: chunk c's prefix is what chunk c + 1 waits for */
            int next = cell_x((c + 1) * CHUNK, CHUNK) + CHUNK * CELL_W / 2;
            fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#d9480f\" "
                       "stroke-width=\"2\"/>\n", mid + CELL_W / 2, y + 2 * ROW_DY + CELL_H / 2,
                    next - CELL_W / 2 - 4, y + 2 * ROW_DY + CELL_H / 2);
            fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"#d9480f\"/>\n",
                    next - CELL_W / 2 - 4, y + 2 * ROW_DY + CELL_H / 2);
            svg_arrow(f, mid, y + 2 * ROW_DY + CELL_H, cell_x((c + 1) * CHUNK, CHUNK) + CELL_W / 2,
                      y + 3 * ROW_DY);
        }
    }
    svg_row(f, y, "input: the block that draws chunk number c from the counter owns chunk c",
            PI_DIGITS, N, CHUNK, CHUNK, -1);
    svg_row(f, y + ROW_DY, "each block reduces its chunk: its aggregate (reads n)", aggregate,
            CHUNKS, CHUNK, CHUNK, CHUNK);
    svg_row(f, y + 2 * ROW_DY,
            "waits for chunk c−1's inclusive prefix, adds its aggregate, publishes: the chain",
            inclusive, CHUNKS, CHUNK, CHUNK, CHUNK);
    svg_row(f, y + 3 * ROW_DY, "scans its chunk from chunk c−1's prefix (reads n, writes n)",
            out, N, CHUNK, CHUNK, -1);
    return svg_close(f, name);
}

/** Chapter 09's figure: the segmented sum, n = 12 in tiles of 4, heads at 0, 5 and 10; each
    tile's (head, sum), the prefixes combined in order, and the same two aggregates combined the
    other way round: the values computed by model_segmented() and seg_combine(). */
static int write_segmented_svg(const char *dir)
{
    enum { N = 12, TILE = 4, TILES = N / TILE, WIDE = 2 * CELL_W };
    segment in[N], aggregate[TILES], prefix[TILES];
    uint32_t out[N], wrong[N];
    for (int i = 0; i < N; ++i) {
        in[i].sum = PI_DIGITS[i];
        in[i].head = i == 0 || i == 5 || i == 10;
    }
    model_segmented(in, wrong, N, TILE, 1, 1, aggregate, prefix); /* the window on the right */
    segment swapped = prefix[2];
    model_segmented(in, out, N, TILE, 1, 0, aggregate, prefix);
    const char *name = "dataflow_segmented";
    int width = cell_x(N - 1, TILE) + CELL_W + 16, y = 64;
    FILE *f = svg_open(dir, name, width, y + 3 * ROW_DY + CELL_H + 76,
                       "Chapter 09, a segmented sum: (head, sum) pairs, the earlier on the left");
    if (!f)
        return 2;
    char text[24];
    for (int t = 0; t < TILES; ++t) {
        int mid = cell_x(t * TILE, TILE) + TILE * CELL_W / 2;
        for (int i = t * TILE; i < (t + 1) * TILE; ++i)
            svg_arrow(f, cell_x(i, TILE) + CELL_W / 2, y + CELL_H, mid, y + ROW_DY);
        if (t + 1 < TILES) { /* tile t + 1's prefix: tile t's prefix, then tile t's aggregate */
            int next = cell_x((t + 1) * TILE, TILE) + TILE * CELL_W / 2;
            svg_arrow(f, mid, y + ROW_DY + CELL_H, next, y + 2 * ROW_DY);
            fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#d9480f\" "
                       "stroke-width=\"2\"/>\n", mid + WIDE / 2, y + 2 * ROW_DY + CELL_H / 2,
                    next - WIDE / 2 - 4, y + 2 * ROW_DY + CELL_H / 2);
            fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"#d9480f\"/>\n",
                    next - WIDE / 2 - 4, y + 2 * ROW_DY + CELL_H / 2);
        }
        svg_arrow(f, mid, y + 2 * ROW_DY + CELL_H, cell_x(t * TILE, TILE) + CELL_W / 2,
                  y + 3 * ROW_DY);
    }
    svg_caption(f, y, "input: values; a head (thick left edge) starts a segment");
    for (int i = 0; i < N; ++i) {
        snprintf(text, sizeof text, "%u", in[i].sum);
        svg_cell(f, cell_x(i, TILE), y, CELL_W, i / TILE, text);
        if (in[i].head)
            fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#d9480f\" "
                       "stroke-width=\"4\"/>\n", cell_x(i, TILE) + 1, y - 3, cell_x(i, TILE) + 1,
                    y + CELL_H + 3);
    }
    svg_caption(f, y + ROW_DY, "each tile combines its elements in order: (head, sum)");
    svg_caption(f, y + 2 * ROW_DY, "prefixes: tile t's prefix, then tile t's aggregate, gives tile t + 1's");
    for (int t = 0; t < TILES; ++t) {
        int x = cell_x(t * TILE, TILE) + (TILE * CELL_W - WIDE) / 2;
        snprintf(text, sizeof text, "(%u, %u)", aggregate[t].head, aggregate[t].sum);
        svg_cell(f, x, y + ROW_DY, WIDE, t, text);
        snprintf(text, sizeof text, "(%u, %u)", prefix[t].head, prefix[t].sum);
        svg_cell(f, x, y + 2 * ROW_DY, WIDE, t, text);
    }
    svg_caption(f, y + 3 * ROW_DY, "each element: its tile's prefix, then its tile up to it");
    for (int i = 0; i < N; ++i) {
        snprintf(text, sizeof text, "%u", out[i]);
        svg_cell(f, cell_x(i, TILE), y + 3 * ROW_DY, CELL_W, i / TILE, text);
    }
    fprintf(f, "<text x=\"16\" y=\"%d\" fill=\"#d9480f\">Not commutative: tile 2's prefix is "
               "(%u, %u) then (%u, %u) = (%u, %u). The other way round, (%u, %u) then (%u, %u),"
               "</text>\n", y + 3 * ROW_DY + CELL_H + 32, aggregate[0].head, aggregate[0].sum,
            aggregate[1].head, aggregate[1].sum, prefix[2].head, prefix[2].sum, aggregate[1].head,
            aggregate[1].sum, aggregate[0].head, aggregate[0].sum);
    fprintf(f, "<text x=\"16\" y=\"%d\" fill=\"#d9480f\">gives (%u, %u), and tile 2 would "
               "begin %u, %u instead of %u, %u.</text>\n", y + 3 * ROW_DY + CELL_H + 50,
            swapped.head, swapped.sum, wrong[2 * TILE], wrong[2 * TILE + 1], out[2 * TILE],
            out[2 * TILE + 1]);
    return svg_close(f, name);
}

/** Unit tests, or `--table`, or `--svg DIR`. */
int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--table") == 0) {
        print_tables();
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--svg") == 0) {
        static network net;
        for (int which = 0; which < NETWORK_KINDS; ++which) {
            build(&net, which, 16);
            if (write_svg(&net, argv[2]))
                return 2;
        }
        if (write_threads_svg(argv[2]) || write_scan_then_fan_svg(argv[2]) ||
            write_reduce_then_scan_svg(argv[2]) || write_chained_svg(argv[2]) ||
            write_segmented_svg(argv[2]))
            return 2;
        printf("wrote %d figures to %s\n", NETWORK_KINDS + 5, argv[2]);
        return 0;
    }
    if (argc != 1) {
        fprintf(stderr, "usage: scan_networks [--table | --svg DIR]\n");
        return 2;
    }
    test_networks();
    test_planted_bugs();
    test_banks();
    test_threads();
    test_decompositions();
    test_look_back();
    test_chained();
    test_segmented();
    printf("scan networks: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
