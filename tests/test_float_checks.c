/**
 * \file test_float_checks.c
 * \brief Host unit tests of chapter 09's float checks (09_operators/float_checks.c), on host data:
 *        for the float sum and the float recurrence, a right result passes, one with an element
 *        dropped fails, and (float sum) one with +0.0 where −0.0 belongs fails; `--input` files of
 *        the float recurrence whose h overflows or goes subnormal are refused with exit status 2.
 *
 * "Right results" are computed here in float, in orders the GPU's pass does not use (left to
 * right; blocks of 64 scanned apart, then carried). The bound for CUB's depth, i + 1, covers any
 * order; the pass's bound covers the pass's tree, shallower than these orders, so that these
 * results pass it too says that their errors are far below the worst case, as they should be.
 * Prints one line per failed check and a summary; exits 1 if any check failed.
 */
#include "operator_modes.h"

#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** The float recurrence's tile (the float sum's is 4096: tile_items<sum_f32>()). */
#define SUM_TILE 4096

/** Host arrays of `d` for n elements of the float sum or the float recurrence. */
static void alloc(op_data *d, size_t n, size_t tile, int recurrence)
{
    memset(d, 0, sizeof *d);
    d->n = n;
    d->tile = tile;
    d->in = calloc(n, recurrence ? 8 : 4);
    d->ref = calloc(n, 4);
    d->got = calloc(n, 4);
    d->exact = calloc(n, sizeof(double));
    d->magnitude = calloc(n, sizeof(double));
    d->growth = calloc(n, sizeof(double));
    d->slack = calloc(n, sizeof(double));
    d->bitwise = calloc(n, 1);
    if (!d->in || !d->ref || !d->got || !d->exact || !d->magnitude || !d->growth || !d->slack ||
        !d->bitwise) {
        printf("out of memory\n");
        exit(1);
    }
}

/** Free them. */
static void release(op_data *d)
{
    free(d->in), free(d->ref), free(d->got), free(d->exact), free(d->magnitude);
    free(d->growth), free(d->slack), free(d->bitwise);
}

/** d->got = the float prefix sums of d->in, element `skip` left out (SIZE_MAX: none); `blocked`:
    blocks of 64 scanned on their own, each carried in from the sum of the blocks before it;
    `positive_identity`: the sum starts from +0.0 (the bug of a +0 identity). */
static void float_sums(op_data *d, size_t skip, int blocked, int positive_identity)
{
    const float *x = (const float *)d->in;
    float carry = 0.0f, local = 0.0f;
    for (size_t i = 0; i < d->n; ++i) {
        const float xi = i == skip ? -0.0f : x[i]; /* adding −0.0 leaves any sum as it was */
        const size_t start = blocked ? i - i % 64 : 0;
        local = i != start ? local + xi : positive_identity ? 0.0f + xi : xi;
        const float r = start > 0 ? carry + local : local;
        if (blocked && (i % 64 == 63 || i + 1 == d->n))
            carry = start > 0 ? carry + local : local;
        memcpy(&d->got[i], &r, sizeof r);
    }
}

/** The first element the float sum's check rejects for `variant`, or SIZE_MAX. */
static size_t first_wrong_sum(const op_data *d, int variant)
{
    for (size_t i = 0; i < d->n; ++i)
        if (!float_sum_ok(d, variant, i))
            return i;
    return SIZE_MAX;
}

/** The float sum's checks. */
static void test_float_sum(void)
{
    op_data d;
    /* "signs": every element is exact in every order, so checked bit for bit */
    alloc(&d, 20000, SUM_TILE, 0);
    float_generate(&d, 2, 7);
    float_reference(&d);
    size_t exact = 0;
    for (size_t i = 0; i < d.n; ++i)
        exact += d.bitwise[i];
    CHECK(exact == d.n);
    float_sums(&d, SIZE_MAX, 0, 0);
    CHECK(first_wrong_sum(&d, VARIANT_LOOKBACK) == SIZE_MAX);
    float_sums(&d, SIZE_MAX, 1, 0);
    CHECK(first_wrong_sum(&d, VARIANT_LOOKBACK) == SIZE_MAX);
    CHECK(first_wrong_sum(&d, VARIANT_CUB) == SIZE_MAX);
    size_t drop = 12345;
    while (((const float *)d.in)[drop] == 0.0f)
        ++drop;
    float_sums(&d, drop, 1, 0);
    CHECK(first_wrong_sum(&d, VARIANT_LOOKBACK) == drop);
    CHECK(first_wrong_sum(&d, VARIANT_CUB) == drop);
    release(&d);

    /* "neg-zeros-first": −0.0 for a tile and 5, whose sums are −0.0; a +0.0 there is wrong */
    alloc(&d, 3 * SUM_TILE, SUM_TILE, 0);
    float_generate(&d, 3, 8);
    float_reference(&d);
    CHECK((uint32_t)d.ref[0] == 0x80000000u && (uint32_t)d.ref[SUM_TILE + 4] == 0x80000000u);
    float_sums(&d, SIZE_MAX, 1, 0);
    CHECK(first_wrong_sum(&d, VARIANT_LOOKBACK) == SIZE_MAX);
    const float plus_zero = 0.0f;
    memcpy(&d.got[SUM_TILE + 2], &plus_zero, sizeof plus_zero); /* one +0.0 for a −0.0 */
    CHECK(first_wrong_sum(&d, VARIANT_LOOKBACK) == SUM_TILE + 2);
    CHECK(first_wrong_sum(&d, VARIANT_CUB) == SIZE_MAX); /* CUB's zeros' signs: not checked */
    float_sums(&d, SIZE_MAX, 0, 1); /* the sums of a +0.0 identity */
    CHECK(first_wrong_sum(&d, VARIANT_LOOKBACK) == 0);
    release(&d);

    /* "ones": exact up to 2^24 elements; a dropped 1.0 the bound alone let through is caught */
    alloc(&d, 100000, SUM_TILE, 0);
    float_generate(&d, 1, 9);
    float_reference(&d);
    CHECK(d.bitwise[d.n - 1]);
    float_sums(&d, 91678, 0, 0);
    CHECK(first_wrong_sum(&d, VARIANT_LOOKBACK) == 91678);
    release(&d);

    /* "random": within the bound (exact only for the first few elements) */
    alloc(&d, 50000, SUM_TILE, 0);
    float_generate(&d, 0, 10);
    float_reference(&d);
    CHECK(!d.bitwise[d.n - 1]);
    float_sums(&d, SIZE_MAX, 0, 0);
    CHECK(first_wrong_sum(&d, VARIANT_LOOKBACK) == SIZE_MAX);
    float_sums(&d, SIZE_MAX, 1, 0);
    CHECK(first_wrong_sum(&d, VARIANT_LOOKBACK) == SIZE_MAX);
    CHECK(first_wrong_sum(&d, VARIANT_CUB) == SIZE_MAX);
    drop = 100;
    while (fabsf(((const float *)d.in)[drop]) < 0.25f)
        ++drop;
    float_sums(&d, drop, 0, 0);
    CHECK(first_wrong_sum(&d, VARIANT_LOOKBACK) == drop);
    release(&d);
}

/** d->got = h_t of the float recurrence in float, pair `skip` left out (SIZE_MAX: none). */
static void float_recurrence(op_data *d, size_t skip)
{
    const float *x = (const float *)d->in;
    float h = 0.0f;
    for (size_t t = 0; t < d->n; ++t) {
        if (t != skip)
            h = x[2 * t] * h + x[2 * t + 1];
        memcpy(&d->got[t], &h, sizeof h);
    }
}

/** The first element the float recurrence's check rejects for `variant`, or SIZE_MAX. */
static size_t first_wrong_recurrence(const op_data *d, int variant)
{
    for (size_t t = 0; t < d->n; ++t)
        if (!recurrence_bound_ok(d, variant, t))
            return t;
    return SIZE_MAX;
}

/** An `--input` file of n float pairs (a, b) = (a, b0) for the first, (a, b) for the rest. */
static int32_t *pairs(size_t n, float a, float b0, float b)
{
    float *x = calloc(2 * n, sizeof(float));
    for (size_t t = 0; t < n; ++t)
        x[2 * t] = a, x[2 * t + 1] = t == 0 ? b0 : b;
    return (int32_t *)x;
}

/** The float recurrence's checks, and its `--input` check. */
static void test_float_recurrence(void)
{
    for (int pattern = 0; pattern < 2; ++pattern) {
        op_data d;
        alloc(&d, 300000, AFFINE_TILE, 1); /* long enough for products of a to underflow */
        affine_f32_generate(&d, pattern, 11);
        affine_f32_reference(&d);
        float_recurrence(&d, SIZE_MAX);
        CHECK(first_wrong_recurrence(&d, VARIANT_LOOKBACK) == SIZE_MAX);
        CHECK(first_wrong_recurrence(&d, VARIANT_CUB) == SIZE_MAX);
        size_t drop = 4321;
        while (fabsf(((const float *)d.in)[2 * drop + 1]) < 0.25f)
            ++drop;
        float_recurrence(&d, drop);
        CHECK(first_wrong_recurrence(&d, VARIANT_LOOKBACK) == drop);
        release(&d);
    }

    char err[256];
    int32_t *file = pairs(1000, 0.999f, 0.5f, 0.25f); /* a file the check can model */
    CHECK(affine_f32_check_file(file, 2000, err, sizeof err) == 0);
    free(file);
    file = pairs(200, 2.0f, 1.0f, 1.0f); /* h doubles: 2^128 at pair 127 */
    CHECK(affine_f32_check_file(file, 400, err, sizeof err) == EXIT_USAGE &&
          strstr(err, "overflows") != NULL);
    free(file);
    file = pairs(20, 0.5f, 0x1p-120f, 0.0f); /* h halves from 2^-120: below 2^-126 at pair 7 */
    CHECK(affine_f32_check_file(file, 40, err, sizeof err) == EXIT_USAGE &&
          strstr(err, "subnormal at pair 7") != NULL);
    free(file);
    file = pairs(20, 0.0f, 1.0f, 0.0f); /* h = 1, then exactly 0: not subnormal */
    CHECK(affine_f32_check_file(file, 40, err, sizeof err) == 0);
    free(file);
}

/** \brief Run every test; print the summary. */
int main(void)
{
    test_float_sum();
    test_float_recurrence();
    printf("float checks: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
