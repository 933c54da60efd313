/**
 * \file io.h
 * \brief Raw int32 files for `--input` / `--output`, and host memory that fails clearly.
 *
 * The file format is the simplest possible: n little-endian int32 values, 4·n bytes, no header.
 * `--input` is read like any Unix tool reads a file (a pipe, a FIFO, `-` for standard input).
 * `--output` is written to a temporary file beside the target and renamed into place only when
 * the scan is complete and verified and the run's report has reached standard output, so a
 * failed run (wrong result, bad input, CUDA error, a full disk or standard output, even a crash)
 * never leaves a half-written or wrong output file behind, and the file it would replace stays
 * as it was.
 */
#ifndef SCAN_IO_H
#define SCAN_IO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Read `path` to its end as raw int32 values, as any Unix tool reads a file.
 *
 * `path` may be a regular file, a pipe or FIFO (`<(cat f)`, `mkfifo`), `/dev/stdin`, or `-` for
 * standard input; it is read until end of file, so nothing is taken for empty because it has no
 * size to ask for. A FIFO that nothing has opened for writing makes open() wait, as it does for
 * cat; after 2 s one line on stderr says what the program waits for. A terminal is refused (raw
 * int32 values are not typed), and so is anything larger than io_input_limit(): an endless device
 * such as /dev/zero stops with a message instead of filling the memory. A byte count that is not
 * a multiple of 4 (a partial last element) is refused.
 * \param path  file to read, or "-"
 * \param data  receives a malloc'ed array (NULL when n = 0); free() it
 * \param n     receives the element count
 * \param err   receives a one-line message naming the problem and the fix on failure
 * \param errlen size of `err`
 * \return 0 on success, ::EXIT_USAGE for a missing, unreadable, ill-sized or too large input
 */
int io_read_int32(const char *path, int32_t **data, size_t *n, char *err, size_t errlen);

/**
 * \brief The most bytes io_read_int32() accepts: a third of the memory this process may use
 *        (MemAvailable, or a smaller `ulimit -v`/`-d`), since the input, its reference and the
 *        result each need as much; at most ::CLI_MAX_N elements.
 */
size_t io_input_limit(void);

/** A `--input` read piece by piece, for a program that streams a file of any size the disk
    holds (io_input_open(), io_input_read() until it gives 0 elements, io_input_close()). */
typedef struct io_input {
    int fd;             /**< the open descriptor */
    int from_stdin;     /**< 1 for `-` (not closed by io_input_close()) */
    long long bytes;    /**< a regular file's size, else -1 (a pipe: unknown until its end) */
    size_t elements;    /**< elements read so far */
    char name[512];     /**< the path, for messages */
} io_input;

/**
 * \brief Open `path` for io_input_read(), with io_read_int32()'s checks but without its size
 *        limit: `-`, a pipe or FIFO (waited for as cat would), a regular file; a folder, a
 *        terminal or another device (/dev/zero would never end), and a regular file whose size
 *        is not a multiple of 4 are refused. A pipe's partial last element is found only at
 *        its end, by io_input_read().
 * \return 0 on success, ::EXIT_USAGE with one line in `err`
 */
int io_input_open(const char *path, io_input *in, char *err, size_t errlen);

/**
 * \brief Read the next `max` elements (fewer only at the end of the input) into `buf`.
 * \param in     what io_input_open() opened
 * \param buf    receives the elements
 * \param max    the most elements to read (`buf` holds at least as many)
 * \param got    receives how many were read: 0 at the end
 * \param err    receives a one-line message naming the problem on failure
 * \param errlen size of `err`
 * \return 0 on success, ::EXIT_USAGE with one line in `err` (a read error, or a partial last
 *         element at the end of a pipe)
 */
int io_input_read(io_input *in, int32_t *buf, size_t max, size_t *got, char *err, size_t errlen);

/** \brief Close what io_input_open() opened. */
void io_input_close(io_input *in);

/**
 * \brief Check that `path` can be written, before any work is done, by creating the temporary
 *        file the result will go to. Only one output may be pending at a time.
 *
 * What `--output` may name: a new file, or an existing regular file, which is replaced when the
 * result is committed. The replacement keeps the replaced file's mode, and its owner and group
 * where the process may set them (root may; anyone else keeps the group if a member of it, and
 * otherwise the new file is theirs, as with `sed -i`); ACLs and extended attributes are not
 * carried over. A symbolic link is followed, and the file it names is replaced (the link stays).
 * Refused: a folder, a FIFO, a device or a socket, and a dangling link (renaming a file over any
 * of those would destroy it, not write to it); the file standard output or standard error
 * writes to (the report or the messages would be lost); a file with more than one hard link
 * (renaming would cut it off from its other names, and writing into it could leave it
 * half-written); and `-` (standard output carries the report). `--output` may name the
 * `--input` file, on purpose:
 * the input is read whole before this is called (or, streamed, through the descriptor
 * io_input_open() opened, which keeps reading the old file after the rename), and replaced
 * only when the result is verified (a scan in place). An exit handler, and a handler of SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE,
 * SIGXCPU and SIGXFSZ (unless the signal was ignored at start, as under nohup), remove the
 * temporary file if the program ends without io_output_publish(); only SIGKILL or a crash can
 * leave it behind (empty, and hidden: `.NAME.tmpXXXXXX`, NAME cut so that the whole fits the
 * file system's 255 bytes). Each refusal says what the path is: standard output or standard
 * error (`/dev/stdout`, or the file `>` sends the report to), a folder, a FIFO, a
 * device, a socket, a link to one of those, or a link to a file that does not exist (not
 * written through, as cp does not).
 * \param path   the `--output` path
 * \param err    receives a one-line message naming the problem and the fix on failure
 * \param errlen size of `err`
 * \return 0 on success, ::EXIT_USAGE if the path cannot or must not be written
 */
int io_output_begin(const char *path, char *err, size_t errlen);

/**
 * \brief Write `n` elements to the pending output's temporary file and flush them to disk
 *        (fsync); the path given to io_output_begin() is not touched yet.
 * \return 0 on success, ::EXIT_WRITE if writing failed (disk full, I/O error, a file-size limit;
 *         message in `err`): the temporary file is removed and a file that was there is intact
 */
int io_output_write(const int32_t *data, size_t n, char *err, size_t errlen);

/**
 * \brief Write `n` more elements to the pending output's temporary file, for a result that
 *        arrives in pieces; io_output_write() (with n = 0, or the last piece) then flushes and
 *        closes it.
 * \return 0 on success, ::EXIT_WRITE as io_output_write()
 */
int io_output_append(const int32_t *data, size_t n, char *err, size_t errlen);

/**
 * \brief After io_output_write() and the last line of the report: check that everything printed
 *        reached standard output (fflush), then rename the file into place. So the file is
 *        replaced only when the whole report was written: a full or closed standard output
 *        leaves the old file as it was (exit ::EXIT_WRITE), never a new file and a failure.
 * \return 0 on success, ::EXIT_WRITE (message in `err`, the temporary file removed)
 */
int io_output_publish(char *err, size_t errlen);

/** \brief io_output_write(), then io_output_publish(): for a program with nothing to print in
           between. */
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

/** \brief Bytes of host memory available now: MemAvailable in /proc/meminfo, or less where the
 *         process's memory cgroup (a container's limit) leaves less; 0 if unknown. */
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
