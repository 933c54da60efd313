/**
 * \file battery_sizes.h
 * \brief The sizes of the grader's in-place battery: the self-test's (docs/CONVENTIONS.md §5)
 *        below a limit, for harness_cpu.c and harness_gpu.cu.
 */
#ifndef GRADE_BATTERY_SIZES_H
#define GRADE_BATTERY_SIZES_H

#include <stddef.h>

/** Most sizes in_place_sizes() writes. */
#define IN_PLACE_MAX_SIZES 16

/** Fill `sizes` with the battery's sizes for `tile` that are at most `limit`; return how many. */
static inline int in_place_sizes(size_t tile, size_t limit, size_t *sizes)
{
    const size_t fixed[] = {0, 1, 2, 31, 32, 33, 1023, 1024, 1025, 1000003, ((size_t)1 << 24) + 1};
    const size_t extra[] = {tile - 1, tile, tile + 1, 3 * tile + 7};
    int count = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; ++i)
        if (fixed[i] <= limit)
            sizes[count++] = fixed[i];
    for (size_t i = 0; tile > 0 && i < sizeof extra / sizeof extra[0]; ++i)
        if (extra[i] <= limit)
            sizes[count++] = extra[i];
    return count;
}

#endif /* GRADE_BATTERY_SIZES_H */
