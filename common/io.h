/**
 * \file io.h
 * \brief Raw int32 files for `--input` / `--output`, and host memory that fails clearly.
 *
 * The file format is the simplest possible: n little-endian int32 values, 4·n bytes, no header.
 * `--output` is written to a temporary file beside the target and renamed into place only when
 * the scan is complete and verified, so a failed run (wrong result, bad input, CUDA error, even a
 * crash) never leaves a half-written or wrong output file behind.
 */
#ifndef SCAN_IO_H
#define SCAN_IO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Read the whole of `path` as raw int32 values.
 * \param path  file to read
 * \param data  receives a malloc'ed array (NULL when n = 0); free() it
 * \param n     receives the element count
 * \param err   receives a one-line message naming the problem and the fix on failure
 * \param errlen size of `err`
 * \return 0 on success, ::EXIT_USAGE for a missing, unreadable or ill-sized file
 */
int io_read_int32(const char *path, int32_t **data, size_t *n, char *err, size_t errlen);

/**
 * \brief Check that `path` can be written, before any work is done, by creating the temporary
 *        file the result will go to. Only one output may be pending at a time.
 *
 * What `--output` may name: a new file, or an existing regular file, which is replaced when the
 * result is committed; a symbolic link is followed, and the file it names is replaced (the link
 * stays). A folder, a FIFO, a device or a socket is refused, as is a dangling link: renaming a
 * file over any of those would destroy it, not write to it. `--output` may name the `--input`
 * file, on purpose: the input is read whole before this is called, and replaced only when the
 * result is verified (a scan in place). An exit handler removes the temporary file if the program
 * ends without io_output_commit().
 * \param path   the `--output` path
 * \param err    receives a one-line message naming the problem and the fix on failure
 * \param errlen size of `err`
 * \return 0 on success, ::EXIT_USAGE if the path cannot or must not be written
 */
int io_output_begin(const char *path, char *err, size_t errlen);

/**
 * \brief Write `n` elements to the pending output and rename it to the path given to
 *        io_output_begin().
 * \return 0 on success, ::EXIT_USAGE if writing failed (message in `err`; nothing left behind)
 */
int io_output_commit(const int32_t *data, size_t n, char *err, size_t errlen);

/** \brief Drop the pending output, if any, leaving nothing behind. */
void io_output_abandon(void);

/** \brief Write `n` int32 values to `path` directly (tests and tools; chapters use io_output_*). */
int io_write_int32(const char *path, const int32_t *data, size_t n, char *err, size_t errlen);

/**
 * \brief malloc() that ends the program with a clear message (exit ::EXIT_USAGE: the size asked
 *        for does not fit this machine) instead of returning NULL. Returns NULL only for 0 bytes.
 */
void *xmalloc(size_t bytes, const char *what);

/** \brief Bytes of host memory available now (MemAvailable in /proc/meminfo), or 0 if unknown. */
size_t host_memory_available(void);

/**
 * \brief Before anything is printed, make sure `bytes` of host memory can be had for `what`
 *        (e.g. "-n 1099511627776"): if MemAvailable is known and smaller, print one line naming the
 *        size and the fix and exit ::EXIT_USAGE, as xmalloc() would, but before a table's header.
 */
void io_require_host_memory(double bytes, const char *what);

#ifdef __cplusplus
}
#endif

#endif /* SCAN_IO_H */
