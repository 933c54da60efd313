/**
 * \file float_checks.c
 * \brief Chapter 09's float inputs, references and checks, in C and on the host only, so that
 *        `make test` can try them on host data without a GPU (tests/test_float_checks.c): the
 *        float sum's battery patterns, its exact references and its two checks (bit for bit
 *        where every order of additions gives the same float, within the bound elsewhere); the
 *        float recurrence's patterns, reference, bound and `--input` check. The notes derive the
 *        bounds (appendix, "The float bounds").
 */
#include "operator_modes.h"

#include "data.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/** The rounding unit of float, u = 2^-24: a rounded result is off by at most u of itself. */
#define FLOAT_UNIT 5.9604644775390625e-8
/** Half the smallest subnormal float, 2^-150: what a product that underflows may lose besides
    its relative rounding. */
#define FLOAT_UNDERFLOW 7.0064923216240862e-46
/** The smallest normal float, 2^-126. */
#define FLOAT_MIN_NORMAL 1.1754943508222875e-38
/** The largest float. */
#define FLOAT_MAX 3.4028234663852886e38
/** 2^23: the float sum's inputs are integers of 2^-23 (k · 2^-23). */
#define FLOAT_SCALE 8388608.0

double float_depth(int variant, size_t i, size_t tile)
{
    return variant == VARIANT_CUB ? (double)i + 1.0 : 7.0 * (double)(i / tile) + 29.0;
}

double recurrence_depth(int variant, size_t t, size_t tile)
{
    return variant == VARIANT_CUB ? (double)t + 1.0 : 7.0 * (double)(t / tile) + 21.0;
}

/** (1 + u)^k − 1, without cancellation: the growth of k roundings. */
static double rounding_growth(double k)
{
    return expm1(k * log1p(FLOAT_UNIT));
}

int float_sum_ok(const op_data *d, int variant, size_t i)
{
    uint32_t bits;
    float f;
    memcpy(&bits, &d->got[i], sizeof bits);
    memcpy(&f, &bits, sizeof f);
    if (isnan(f))
        return 0; /* unwritten: the float output is poisoned with NaN */
    if (d->bitwise[i]) /* every order of additions gives this float: CUB's ±0 not told apart */
        return variant == VARIANT_CUB ? (double)f == d->exact[i] : bits == (uint32_t)d->ref[i];
    const double bound = rounding_growth(float_depth(variant, i, d->tile)) * d->magnitude[i];
    return fabs((double)f - d->exact[i]) <= bound * (1.0 + 1e-12);
}

/** Float inputs: "random" k·2^-23 with k uniform in (−2^23, 2^23); "ones"; "signs" ±1 and ±0.0
    (whole numbers of magnitude at most 1, so every sum up to 2^24 elements is exact in float,
    whatever the order); "neg-zeros-first" −0.0 for a tile and 5 elements, then "signs" (the
    sum of −0.0s is −0.0, and an identity of +0.0 would turn it into +0.0). */
const char *const FLOAT_PATTERNS[] = {"random", "ones", "signs", "neg-zeros-first"};

void float_generate(op_data *d, int pattern, uint64_t seed)
{
    int32_t *w = (int32_t *)d->in;
    float *x = (float *)d->in;
    generate_input(w, d->n, PATTERN_RANDOM, seed);
    for (size_t i = 0; i < d->n; ++i) {
        const uint32_t r = (uint32_t)w[i];
        const float sign = r & 1u ? -1.0f : 1.0f;
        const float signs = (r >> 1) % 3u == 0 ? sign * 0.0f : sign; /* ±0 a third of the time */
        switch (pattern) {
        case 0: x[i] = (float)(w[i] / 256) * (float)(1.0 / FLOAT_SCALE); break;
        case 1: x[i] = 1.0f; break;
        case 2: x[i] = signs; break;
        default: x[i] = i < d->tile + 5 ? -0.0f : signs; break;
        }
    }
}

/**
 * \brief The float sum's references: the exact sums and the sums of |x| (in 64-bit integers of
 *        2^-23, exact, then in double), and where the float result is the same in every order of
 *        additions, its bits.
 *
 * Every input is k·2^-23. Let q be the largest power of two that divides every k so far, and
 * M = |k_0| + … + |k_i|. Any partial sum of x_0 … x_i, in any grouping, is then a multiple of q
 * no larger than M in magnitude; if M ≤ 2^24·q it has at most 24 significant bits, so every
 * addition on element i's way is exact, and the result is the exact sum. Its sign, if it is
 * zero, is then fixed too: −0.0 exactly when every input so far is −0.0 (−0 + −0 = −0; a sum
 * with a nonzero or a +0.0 in it that comes to zero is +0.0 in round-to-nearest).
 */
void float_reference(op_data *d)
{
    const float *x = (const float *)d->in;
    long long sum = 0, magnitude = 0, all_bits = 0;
    int all_negative_zero = 1;
    for (size_t i = 0; i < d->n; ++i) {
        const long long k = (long long)((double)x[i] * FLOAT_SCALE);
        sum += k;
        magnitude += k < 0 ? -k : k;
        all_bits |= k < 0 ? -k : k;
        all_negative_zero = all_negative_zero && x[i] == 0.0f && signbit(x[i]);
        d->exact[i] = (double)sum / FLOAT_SCALE;
        d->magnitude[i] = (double)magnitude / FLOAT_SCALE;
        const long long q = all_bits ? all_bits & -all_bits : 1; /* lowest set bit */
        d->bitwise[i] = (double)magnitude <= (double)q * 16777216.0; /* M ≤ 2^24·q, exactly */
        const float f = sum == 0 ? (all_negative_zero ? -0.0f : 0.0f) : (float)d->exact[i];
        memcpy(&d->ref[i], &f, sizeof f);
    }
}

int float_check_file(const int32_t *file, size_t words, char *err, size_t len)
{
    const float *x = (const float *)file;
    double magnitude = 0.0; /* the sum of |x| must stay below 2^30: the reference's 64-bit
                               integers of 2^-23, and doubles, then hold every sum exactly */
    for (size_t i = 0; i < words; ++i) {
        magnitude += fabs((double)x[i]);
        if (magnitude >= 1073741824.0) {
            snprintf(err, len, "--input: the sum of |x| reaches 2^30 at value %zu, beyond what the "
                     "exact check holds; give smaller values or fewer", i);
            return EXIT_USAGE;
        }
        const double k = (double)x[i] * FLOAT_SCALE;
        if (!(fabs(x[i]) < 2147483648.0f) || k != floor(k)) {
            snprintf(err, len, "--input: value %zu (%g) is not a multiple of 2^-23 below 2^31, "
                     "which the exact check needs; round the values to multiples of 2^-23",
                     i, (double)x[i]);
            return EXIT_USAGE;
        }
    }
    return 0;
}

/** Float recurrence inputs: "a-near-1" (a in [0.999, 1), b = k·2^-23 in (−1, 1): over a tile of
    2048 pairs the a's multiply to about e^-1, so earlier tiles still weigh in h), "a=1" (a float
    prefix sum of b). */
const char *const AFFINE_F32_PATTERNS[] = {"a-near-1", "a=1"};

void affine_f32_generate(op_data *d, int pattern, uint64_t seed)
{
    int32_t *w = (int32_t *)d->in;
    float *x = (float *)d->in;
    generate_input(w, 2 * d->n, PATTERN_RANDOM, seed);
    for (size_t i = 0; i < d->n; ++i) {
        const float r = (float)((uint32_t)w[2 * i] >> 8) * (1.0f / 16777216.0f); /* [0, 1) */
        x[2 * i] = pattern == 0 ? 0.999f + 0.001f * r : 1.0f;
        x[2 * i + 1] = (float)(w[2 * i + 1] / 256) * (float)(1.0 / FLOAT_SCALE);
    }
}

/** 1 if the float a is 0 or a power of two (up to sign): multiplying by it is exact. */
static int exact_factor(float a)
{
    int e;
    return a == 0.0f || fabs(frexp((double)a, &e)) == 0.5;
}

/** The serial sums behind the float recurrence's bound, one step t (see affine_f32_reference()). */
typedef struct recurrence_sums {
    double h;         /**< h_t in double */
    double size;      /**< S_t = |a_t|·S_{t−1} + |b_t| */
    double grown;     /**< P_t = g_t·|a_t|·P_{t−1} + |b_t|, g_t = 1 + u unless a_t is exact */
    double grown_max; /**< the largest P_s, s ≤ t */
    double log_run;   /**< log of the largest product of g_k·|a_k| over a range ending at t */
    double log_max;   /**< log of the largest such product over any range up to t (≥ 0) */
} recurrence_sums;

/** g_t: 1 + u, or 1 where multiplying by a is exact. */
static double growth_of(float a)
{
    return exact_factor(a) ? 1.0 : 1.0 + FLOAT_UNIT;
}

/** log(g_t·|a_t|): the one costly term of a step, which needs no earlier step. */
static double log_step(float a)
{
    return a == 0.0f ? -INFINITY : log(growth_of(a) * fabs((double)a));
}

/** Advance the sums by the pair (a, b), whose log_step() is `step`. */
static void recurrence_advance(recurrence_sums *s, float a, float b, double step)
{
    const double grow = growth_of(a);
    s->h = (double)a * s->h + (double)b;
    s->size = fabs((double)a) * s->size + fabs((double)b);
    s->grown = grow * fabs((double)a) * s->grown + fabs((double)b);
    s->grown_max = fmax(s->grown_max, s->grown);
    s->log_run = fmax(0.0, s->log_run + step);
    s->log_max = fmax(s->log_max, s->log_run);
}

/** Advance the sums by the pair (a, b). */
static void recurrence_step(recurrence_sums *s, float a, float b)
{
    recurrence_advance(s, a, b, log_step(a));
}

/**
 * \brief The float recurrence's reference and bound: h_t in double; S_t, the size of every term
 *        b_j·a_(j+1)···a_t of h_t; P_t, the same with each term grown by the roundings of its
 *        product of a's; and the absolute slack of products that underflow.
 */
void affine_f32_reference(op_data *d)
{
    const float *x = (const float *)d->in;
    /* The sums are a serial recurrence, but their logarithms need no earlier step: those first,
       on every core (into d->slack, which the serial loop then overwrites element by element),
       and e^log_max only when log_max grows. The n > 2^31 case has 2^31 steps. */
#pragma omp parallel for schedule(static)
    for (size_t t = 0; t < d->n; ++t)
        d->slack[t] = log_step(x[2 * t]);
    recurrence_sums s = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    double exp_of = 0.0, exp_max = 1.0; /* e^log_max, for log_max = exp_of */
    for (size_t t = 0; t < d->n; ++t) {
        recurrence_advance(&s, x[2 * t], x[2 * t + 1], d->slack[t]);
        if (s.log_max != exp_of)
            exp_of = s.log_max, exp_max = exp(s.log_max);
        d->exact[t] = s.h;
        d->magnitude[t] = s.size;
        d->growth[t] = s.grown;
        /* at most t combines on element t's way that are not with the identity, 2 products
           each; a product that underflows loses at most 2^-150 besides its rounding, and what it
           loses is then multiplied by products of a's (at most e^log_max) and, lost in an a, by
           a partial b (at most P_max); twice that, for the second-order terms. The check applies
           the rounding growth (1 + u)^{4d}. */
        d->slack[t] = 2.0 * 2.0 * ((double)t + 1.0) * FLOAT_UNDERFLOW * exp_max *
                      (1.0 + s.grown_max);
    }
}

int recurrence_bound_ok(const op_data *d, int variant, size_t t)
{
    float f;
    memcpy(&f, &d->got[t], sizeof f);
    if (isnan(f))
        return 0; /* unwritten: the float output is poisoned with NaN */
    /* term j of h_t is rounded at most 2 times per level of the pass's tree (a multiply and an
       add), and its product of a's once per factor that is not exact: |error| <=
       (1 + u)^{2d}·P_t − S_t, plus what underflows (the notes' appendix) */
    const double depth = recurrence_depth(variant, t, d->tile);
    const double bound = (rounding_growth(2.0 * depth) + 1.0) * d->growth[t] - d->magnitude[t] +
                         (rounding_growth(4.0 * depth) + 1.0) * d->slack[t];
    return fabs((double)f - d->exact[t]) <= bound * (1.0 + 1e-6) + 1e-300;
}

int affine_f32_check_file(const int32_t *file, size_t words, char *err, size_t len)
{
    const float *x = (const float *)file;
    for (size_t i = 0; i < words; ++i)
        if (!isfinite(x[i])) {
            snprintf(err, len, "--input: value %zu is not a finite float; give finite a and b", i);
            return EXIT_USAGE;
        }
    /* the check's model of rounding holds only while h, and every partial result the pass may
       form, stays inside float's range: partial results are at most P_max and products of a's
       at most e^log_max, each grown by at most (1 + u)^{4d} (this chapter's depth d; CUB's
       order is not modelled, and its bound says little beyond 2^24 pairs anyway) */
    recurrence_sums s = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    const size_t n = words / 2;
    for (size_t t = 0; t < n; ++t) {
        recurrence_step(&s, x[2 * t], x[2 * t + 1]);
        const double growth =
            rounding_growth(4.0 * recurrence_depth(VARIANT_LOOKBACK, t, AFFINE_TILE)) + 1.0;
        if (fabs(s.h) > FLOAT_MAX || s.grown_max * growth > FLOAT_MAX ||
            s.log_max + log(growth) > log(FLOAT_MAX)) {
            snprintf(err, len, "--input: h or a partial result overflows float at pair %zu "
                     "(h = %g in double), outside what the check models; give smaller a or b", t,
                     s.h);
            return EXIT_USAGE;
        }
        if (s.h != 0.0 && fabs(s.h) < FLOAT_MIN_NORMAL) {
            snprintf(err, len, "--input: h goes subnormal at pair %zu (h = %g in double), where "
                     "float keeps too few digits for the check's bound; give larger b", t, s.h);
            return EXIT_USAGE;
        }
    }
    return 0;
}
