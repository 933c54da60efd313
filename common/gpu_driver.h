/**
 * \file gpu_driver.h
 * \brief The host side every GPU chapter shares: self-test, `--input/--output`, and the timed
 *        sweep against a same-size `cudaMemcpy` (docs/CONVENTIONS.md §4–§6).
 *
 * A GPU chapter writes its kernels and one launcher, `scan_…(variant, d_in, d_out, n, exclusive)`,
 * that works on device arrays; its `main()` fills a ::gpu_chapter and calls gpu_chapter_main().
 * Nothing here touches scan code on the device: the driver only moves data, poisons, verifies,
 * times and prints.
 */
#ifndef SCAN_GPU_DRIVER_H
#define SCAN_GPU_DRIVER_H

#include "cli.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A chapter's launcher: scan n elements of device array `d_in` into `d_out` with `variant`.
 * It launches on the default stream and returns without waiting; it must accept n = 0.
 * `d_temp` is device scratch of `temp_bytes` ≥ gpu_chapter::temp_bytes(variant, n) bytes (NULL
 * when that is 0). Like CUB's `d_temp_storage`, the caller owns it, so the launcher never
 * allocates inside a timed call; what it must hold before a call is the chapter's to say
 * (gpu_chapter::temp_is_state).
 */
typedef void (*gpu_scan_fn)(int variant, const int32_t *d_in, int32_t *d_out, size_t n,
                            int exclusive, void *d_temp, size_t temp_bytes);

/** Device scratch a chapter's launcher needs for `variant` and n elements, in bytes. */
typedef size_t (*gpu_temp_fn)(int variant, size_t n);

/** Elements a variant reads and writes in global memory for n elements, by its own model. */
typedef double (*gpu_traffic_fn)(int variant, size_t n);

/** Writes one line about how n elements are scanned (tiles, levels, blocks) into `line`. */
typedef void (*gpu_describe_fn)(size_t n, char *line, size_t len);

/** What a GPU chapter tells the driver. */
typedef struct gpu_chapter {
    scan_program prog;            /**< name, variants, segment, default sweep, own modes (see ::scan_program) */
    gpu_scan_fn scan;             /**< the chapter's launcher */
    size_t tile;                  /**< elements one block scans: the battery adds tile±1, 3·tile+7 */
    int repeats;                  /**< runs of every self-test case */
    const char *extra_title;      /**< title of one more table column per variant, or NULL */
    const char *const *extra;     /**< that column's cell for each variant (prog.variant_count) */
    const char *const *notes;     /**< lines printed above the table (NULL-terminated), or NULL */
    gpu_temp_fn temp_bytes;       /**< scratch the launcher needs, or NULL for none */
    unsigned temp_is_state;       /**< bit v clear: variant v writes its scratch before it reads
                                       it, so the driver poisons that scratch before every run, to
                                       prove it; bit v set: variant v keeps state in its scratch
                                       from call to call, which must hold zeros before the first
                                       call: the driver zeroes it once, when it allocates it, and
                                       never writes it again */
    gpu_traffic_fn traffic;       /**< the traffic model, shown beside GB/s; NULL: 2n, not shown */
    gpu_describe_fn describe;     /**< a note printed before each size of the sweep, or NULL */
} gpu_chapter;

/**
 * \brief Parse the command line, print the GPU line, then run the self-test, the stress test,
 *        one of the chapter's own modes (scan_program::modes), scan a file, or time the sweep.
 *        Returns the exit status (docs/CONVENTIONS.md §4).
 * \param argc as given to main()
 * \param argv as given to main()
 * \param ch   the chapter
 */
int gpu_chapter_main(int argc, char **argv, const gpu_chapter *ch);

#ifdef __cplusplus
}
#endif

#endif /* SCAN_GPU_DRIVER_H */
