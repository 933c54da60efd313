/**
 * \file sort_driver.h
 * \brief The host side of the radix sort assignment: self-test, `--input/--output`, and a timed
 *        sweep beside `cub::DeviceRadixSort` (the sort's counterpart of common/gpu_driver.h).
 *
 * The assignment's file, radix_sort.cu, writes its kernels and one launcher that sorts device
 * arrays; its `main()` fills a ::sort_program and calls sort_program_main(). Nothing here sorts:
 * the driver only moves data, poisons, checks, times and prints. The command line is the
 * course's (common/cli.h); `--exclusive`, which means nothing for a sort, is refused.
 */
#ifndef RADIX_SORT_DRIVER_H
#define RADIX_SORT_DRIVER_H

#include "cli.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The launcher: sort n (key, value) pairs of device arrays by key, stably, with `variant`, on the
 * default stream, without waiting. `d_values` holds 0, 1, …, n − 1, so each value is the key's
 * original index. `d_temp` is temp_bytes ≥ sort_program::temp_bytes(variant, n) bytes of scratch,
 * poisoned before every call. The inputs must not change; n may be 0.
 */
typedef void (*gpu_sort_fn)(int variant, const uint32_t *d_keys, uint32_t *d_keys_out,
                            const uint32_t *d_values, uint32_t *d_values_out, size_t n,
                            void *d_temp, size_t temp_bytes);

/** What the sort tells the driver. */
typedef struct sort_program {
    scan_program prog;                       /**< name, variants, default sizes (cli.h) */
    gpu_sort_fn sort;                        /**< the launcher */
    size_t (*temp_bytes)(int variant, size_t n); /**< its scratch, in bytes */
    size_t tile;                             /**< keys one block sorts: the battery adds tile±1 */
} sort_program;

/**
 * \brief Parse the command line, print the GPU line, then run the self-test, sort a file, or time
 *        the sweep. Returns the exit status (docs/CONVENTIONS.md §4).
 *
 *  - `--self-test [-n N]`: sizes 0, 1, 2, 31, 32, 33, 255, 256, 257, tile−1, tile, tile+1,
 *    3·tile+7, 1 000 003, 2^24 + 1 (up to N), six key patterns (random, 16 distinct keys, all
 *    equal, sorted, reversed, only the top byte set), every selected variant; each output checked
 *    three ways: keys non-decreasing, values a permutation with key[i] == input[value[i]], equal
 *    keys in their original order. The last line: `self-test passed: P passed, 0 failed`.
 *  - `--input F --output G`: F's 32-bit words are the keys; G receives the n sorted keys, then
 *    their n values (original indices): 8n bytes, written only when checked.
 *  - otherwise, per size: rounds of the variant and CUB timed in turn; the CSV columns n, variant,
 *    time_us, Mkeys/s, pct_cub (CUB's time over the variant's, the same rounds), cub_spread_pct
 *    (how much CUB's medians varied across rounds), check.
 */
int sort_program_main(int argc, char **argv, const sort_program *p);

#ifdef __cplusplus
}
#endif

#endif /* RADIX_SORT_DRIVER_H */
