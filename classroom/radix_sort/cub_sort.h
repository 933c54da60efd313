/**
 * \file cub_sort.h
 * \brief The radix sort assignment's baseline, callable from C: `cub::DeviceRadixSort::SortPairs`
 *        of uint32 keys with uint32 values, the same sort the assignment asks for.
 */
#ifndef RADIX_CUB_SORT_H
#define RADIX_CUB_SORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Device scratch CUB asks for to sort n pairs, in bytes (asked once per n). */
size_t cub_sort_temp_bytes(size_t n);

/**
 * \brief `cub::DeviceRadixSort::SortPairs` of n pairs on the default stream, asynchronous; all 32
 *        bits of the keys, stable. Exits with status 3 if CUB reports an error.
 * \param d_keys       device keys (not changed)
 * \param d_keys_out   receives the sorted keys
 * \param d_values     device values (not changed)
 * \param d_values_out receives the values in the keys' new order
 * \param n            pairs
 * \param d_temp       cub_sort_temp_bytes(n) bytes of device scratch
 * \param temp_bytes   its size
 */
void cub_sort_pairs(const uint32_t *d_keys, uint32_t *d_keys_out, const uint32_t *d_values,
                    uint32_t *d_values_out, size_t n, void *d_temp, size_t temp_bytes);

#ifdef __cplusplus
}
#endif

#endif /* RADIX_CUB_SORT_H */
