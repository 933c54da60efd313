/**
 * \file data.c
 * \brief Input patterns, reference scans and verification.
 *
 * Generation, poisoning and verification run in parallel with OpenMP because the battery
 * includes one n > 2^31 (8 GiB per array); the reference scan stays a plain serial loop, the one
 * piece of code every chapter is judged against.
 */
#include "data.h"

#include <string.h>

/** A 64-bit mixing function (the finaliser of SplitMix64): a different, well-spread value for
 *  every input, which makes element i a pure function of (seed, pattern, i). */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

const char *pattern_name(data_pattern pattern)
{
    switch (pattern) {
    case PATTERN_RANDOM: return "random";
    case PATTERN_SMALL: return "small";
    case PATTERN_ONES: return "ones";
    case PATTERN_ALTERNATING: return "alternating";
    default: return "?";
    }
}

void generate_input(int32_t *a, size_t n, data_pattern pattern, uint64_t seed)
{
    const uint64_t key = mix64(seed * 0x9E3779B97F4A7C15ull + (uint64_t)pattern + 1);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) {
        uint32_t bits = (uint32_t)(mix64(key + 0x9E3779B97F4A7C15ull * (i + 1)) >> 32);
        switch (pattern) {
        case PATTERN_SMALL:
            a[i] = (int32_t)(bits % 201u) - 100;
            break;
        case PATTERN_ONES:
            a[i] = 1;
            break;
        case PATTERN_ALTERNATING: {
            int32_t magnitude = (int32_t)((1u << 30) | (bits >> 2));
            a[i] = (i & 1) ? -magnitude : magnitude;
            break;
        }
        default:
            /* uint32 -> int32 of values above INT32_MAX is implementation-defined in C;
               gcc, clang and nvcc all define it as wrap-around, which is what we want. */
            a[i] = (int32_t)bits;
            break;
        }
    }
}

void scan_reference(const int32_t *in, int32_t *out, size_t n, int exclusive, size_t segment)
{
    uint32_t sum = 0;
    for (size_t i = 0; i < n; ++i) {
        if (segment && i % segment == 0)
            sum = 0;
        uint32_t x = (uint32_t)in[i]; /* read before the write: in may equal out */
        if (exclusive) {
            out[i] = (int32_t)sum;
            sum += x;
        } else {
            sum += x;
            out[i] = (int32_t)sum;
        }
    }
}

void poison(int32_t *a, size_t n)
{
    /* in slices of 2^20 elements on every core: the n > 2^31 case poisons 8 GiB before each run */
    const size_t slice = (size_t)1 << 20, slices = (n + slice - 1) / slice;
#pragma omp parallel for schedule(static) if (slices > 1)
    for (size_t s = 0; s < slices; ++s) { /* none when n = 0: a may then be NULL (xmalloc(0)) */
        const size_t count = n - s * slice < slice ? n - s * slice : slice;
        memset(a + s * slice, POISON_BYTE, count * sizeof *a);
    }
}

verify_result verify_scan(const int32_t *expected, const int32_t *got, size_t n)
{
    verify_result r;
    size_t mismatches = 0, first_bad = n;
#pragma omp parallel for schedule(static) reduction(+ : mismatches) reduction(min : first_bad)
    for (size_t i = 0; i < n; ++i) {
        if (expected[i] != got[i]) {
            ++mismatches;
            if (i < first_bad)
                first_bad = i;
        }
    }
    r.checked = n;
    r.mismatches = mismatches;
    r.first_bad = mismatches ? first_bad : 0;
    return r;
}

void verify_report(FILE *f, const verify_result *r, const int32_t *expected, const int32_t *got,
                   size_t n)
{
    if (r->mismatches == 0) {
        fprintf(f, "    all %zu elements correct\n", r->checked);
        return;
    }
    size_t i = r->first_bad;
    size_t lo = i >= 2 ? i - 2 : 0;
    size_t hi = i + 3 <= n ? i + 3 : n;
    fprintf(f, "    %zu of %zu elements wrong; first at index %zu: expected %d, got %d\n",
            r->mismatches, r->checked, i, expected[i], got[i]);
    fprintf(f, "    %12s %12s %12s\n", "index", "expected", "got");
    for (size_t k = lo; k < hi; ++k)
        fprintf(f, "    %12zu %12d %12d%s\n", k, expected[k], got[k],
                expected[k] != got[k] ? "   <-- wrong" : "");
}
