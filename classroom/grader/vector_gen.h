/**
 * \file vector_gen.h
 * \brief The grader's hidden vectors: element i of the vector (SEED, n), from a counter-based
 *        generator, so that any element can be made again without the ones before it.
 *
 * check_output.c writes the vectors and checks outputs against them as a stream; harness_cpu.c
 * and harness_gpu.cu make the n > 2^31 vector in memory, in place, and check it the same way,
 * so the grader never needs the input again after a program overwrote it, nor a file of it.
 * The generator is SplitMix64's finaliser over a Weyl sequence (Steele, Lea and Flood, "Fast
 * splittable pseudorandom number generators", OOPSLA 2014): every bit pattern of an int32 is
 * drawn, so sums wrap.
 */
#ifndef GRADE_VECTOR_GEN_H
#define GRADE_VECTOR_GEN_H

#include <stdint.h>

/** SplitMix64's finaliser: a bijection of 64-bit words that mixes every bit. */
static inline uint64_t grade_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/** The key of the vector of n elements for `seed`: two seeds, or two sizes, give unrelated
    vectors. */
static inline uint64_t grade_vector_key(uint64_t seed, uint64_t n)
{
    return grade_mix(seed * 0x9e3779b97f4a7c15ull + grade_mix(n + 0x632be59bd9b4e019ull));
}

/** Element i of the vector whose key is `key`. */
static inline int32_t grade_vector_at(uint64_t key, uint64_t i)
{
    return (int32_t)(uint32_t)(grade_mix(key + (i + 1) * 0x9e3779b97f4a7c15ull) >> 32);
}

#endif /* GRADE_VECTOR_GEN_H */
