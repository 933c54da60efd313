/**
 * \file baselines.cu
 * \brief `make bench`'s baselines: CUB's and Thrust's device-wide scans, run by the same driver as
 *        the chapters (poisoned output, every element verified, median of event timings, the
 *        same-size `cudaMemcpy` in the same run).
 *
 * Build: `make bench` (or `make build/bench/baselines`). Run: `build/bench/baselines [--csv]
 * [-n N] [--exclusive] [--self-test]`, the command line of every chapter.
 */
#include "cub_scan.h"
#include "cuda_util.h"
#include "gpu_driver.h"
#include "thrust_scan.h"

#include <stdint.h>
#include <stdio.h>

/** The variants. */
enum { VARIANT_CUB, VARIANT_THRUST, VARIANT_COUNT };

/** Names for `--variant`. */
static const char *const VARIANT_NAMES[VARIANT_COUNT] = {"cub", "thrust"};

/** The ::gpu_temp_fn: CUB's scratch (Thrust allocates its own). */
static size_t baseline_temp_bytes(int variant, size_t n)
{
    return variant == VARIANT_CUB && n ? cub_scan_temp_bytes(n) : 0;
}

/** The ::gpu_scan_fn: CUB's or Thrust's scan. */
static void baseline_scan(int variant, const int32_t *d_in, int32_t *d_out, size_t n,
                          int exclusive, void *d_temp, size_t temp_bytes)
{
    if (n == 0)
        return;
    if (variant == VARIANT_CUB)
        cub_scan(d_in, d_out, n, exclusive, d_temp, temp_bytes);
    else
        thrust_scan(d_in, d_out, n, exclusive);
}

/** The ::gpu_describe_fn: which library versions run. */
static void describe_baselines(size_t n, char *line, size_t len)
{
    snprintf(line, len, "n = %zu: %s (DeviceScan), Thrust (inclusive_scan/exclusive_scan, "
             "thrust::device; it allocates its scratch inside the call)", n, cub_version());
}

/** The default sweep. */
static const size_t DEFAULT_SIZES[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                       (size_t)1 << 24, (size_t)1 << 26, (size_t)1 << 28};

/** \brief Describe the baselines to the shared driver and run them. */
int main(int argc, char **argv)
{
    const gpu_chapter baselines = {
        .prog = {
            .name = "bench/baselines",
            .title = "CUB and Thrust device-wide scans, the baselines of make bench",
            .variants = VARIANT_NAMES,
            .variant_count = VARIANT_COUNT,
            .default_sizes = DEFAULT_SIZES,
            .default_size_count = (int)(sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0]),
            .default_reps = 20,
        },
        .scan = baseline_scan,
        .tile = 1024,
        .repeats = 1,
        .temp_bytes = baseline_temp_bytes,
        .describe = describe_baselines,
    };
    return gpu_chapter_main(argc, argv, &baselines);
}
