/**
 * \file io.c
 * \brief Raw int32 file I/O with an all-or-nothing output, and checked host allocation.
 */
#define _XOPEN_SOURCE 700 /* realpath() */

#include "io.h"

#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/** Temporary file of the pending output ("" when none). Read by the exit and signal handlers. */
static char pending_tmp[4096];
/** Final path of the pending output. */
static char pending_path[4096];
/** Open descriptor of the pending temporary file, or -1. */
static int pending_fd = -1;

int io_read_int32(const char *path, int32_t **data, size_t *n, char *err, size_t errlen)
{
    struct stat st;
    *data = NULL;
    *n = 0;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "cannot read --input '%s': %s; check the path", path,
                 strerror(errno));
        return EXIT_USAGE;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "--input '%s' is a folder; give a file of raw int32 values", path);
        return EXIT_USAGE;
    }
    if (st.st_size % (off_t)sizeof(int32_t) != 0) {
        snprintf(err, errlen,
                 "--input '%s' has %lld bytes, not a multiple of 4; it must hold raw int32 "
                 "values, 4 bytes each, with no header",
                 path, (long long)st.st_size);
        return EXIT_USAGE;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read --input '%s': %s; check its permissions", path,
                 strerror(errno));
        return EXIT_USAGE;
    }
    size_t count = (size_t)st.st_size / sizeof(int32_t);
    int32_t *buf = (int32_t *)xmalloc(count * sizeof(int32_t), "the --input data");
    size_t got = count ? fread(buf, sizeof(int32_t), count, f) : 0;
    int failed = ferror(f);
    fclose(f);
    if (got != count || failed) {
        free(buf);
        snprintf(err, errlen, "cannot read --input '%s': read %zu of %zu values; is it changing?",
                 path, got, count);
        return EXIT_USAGE;
    }
    *data = buf;
    *n = count;
    return 0;
}

/** Remove the pending temporary file (exit handler; async-signal-safe). */
static void remove_pending(void)
{
    if (pending_tmp[0])
        unlink(pending_tmp);
}

/** On SIGINT or SIGTERM: remove the pending temporary file, then die of the same signal. */
static void on_signal(int sig)
{
    remove_pending();
    signal(sig, SIG_DFL);
    raise(sig);
}

/** What kind of file system object `st` is, for messages ("a FIFO", "a device", …). */
static const char *file_kind(const struct stat *st)
{
    if (S_ISDIR(st->st_mode))
        return "a folder";
    if (S_ISFIFO(st->st_mode))
        return "a FIFO";
    if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
        return "a device";
    if (S_ISSOCK(st->st_mode))
        return "a socket";
    return "not a regular file";
}

int io_output_begin(const char *path, char *err, size_t errlen)
{
    static int handlers_installed = 0;
    static char resolved[PATH_MAX];
    struct stat st;
    if (strlen(path) + 16 >= sizeof pending_tmp) {
        snprintf(err, errlen, "--output path is too long; use a shorter one");
        return EXIT_USAGE;
    }
    /* A symbolic link is written through: the file it names is replaced, the link stays. */
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        if (!realpath(path, resolved) || strlen(resolved) + 16 >= sizeof pending_tmp) {
            snprintf(err, errlen, "--output '%s' is a symbolic link to nothing that can be "
                     "written; give a file path", path);
            return EXIT_USAGE;
        }
        path = resolved;
    }
    if (stat(path, &st) == 0) {
        /* Only a regular file is replaced: renaming over a FIFO, a device or a socket would
           destroy what the path names, not write to it. */
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "--output '%s' is a folder; give a file name inside it", path);
            return EXIT_USAGE;
        }
        if (!S_ISREG(st.st_mode)) {
            snprintf(err, errlen, "--output '%s' is %s; give the path of a regular file, which "
                     "will be replaced", path, file_kind(&st));
            return EXIT_USAGE;
        }
        if (access(path, W_OK) != 0) {
            snprintf(err, errlen, "cannot write --output '%s': %s; choose a file you may write",
                     path, strerror(errno));
            return EXIT_USAGE;
        }
    }
    /* The temporary file lives in the target's folder, so rename() is atomic. */
    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path + 1) : 0;
    const int length = snprintf(pending_tmp, sizeof pending_tmp, "%.*s.%s.tmpXXXXXX", dir_len,
                                path, slash ? slash + 1 : path);
    if (length < 0 || (size_t)length >= sizeof pending_tmp) {
        pending_tmp[0] = '\0';
        snprintf(err, errlen, "--output path is too long; use a shorter one");
        return EXIT_USAGE;
    }
    if (!handlers_installed) {
        atexit(remove_pending);
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        handlers_installed = 1;
    }
    pending_fd = mkstemp(pending_tmp);
    if (pending_fd < 0) {
        int e = errno;
        pending_tmp[0] = '\0';
        snprintf(err, errlen, "cannot write --output '%s': %s; choose a path in a folder you may write",
                 path, strerror(e));
        return EXIT_USAGE;
    }
    snprintf(pending_path, sizeof pending_path, "%s", path);
    return 0;
}

void io_output_abandon(void)
{
    if (pending_fd >= 0)
        close(pending_fd);
    pending_fd = -1;
    remove_pending();
    pending_tmp[0] = '\0';
}

int io_output_commit(const int32_t *data, size_t n, char *err, size_t errlen)
{
    const char *p = (const char *)data;
    size_t left = n * sizeof(int32_t);
    while (left > 0) {
        ssize_t w = write(pending_fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(err, errlen, "cannot write --output '%s': %s; free some space or choose another place",
                     pending_path, w < 0 ? strerror(errno) : "no progress");
            io_output_abandon();
            return EXIT_USAGE;
        }
        p += w;
        left -= (size_t)w;
    }
    /* mkstemp() makes the file private (0600); give it the permissions a new file would get. */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(pending_fd, 0666 & ~mask) != 0 || close(pending_fd) != 0 ||
        rename(pending_tmp, pending_path) != 0) {
        snprintf(err, errlen, "cannot write --output '%s': %s", pending_path, strerror(errno));
        pending_fd = -1;
        io_output_abandon();
        return EXIT_USAGE;
    }
    pending_fd = -1;
    pending_tmp[0] = '\0';
    return 0;
}

int io_write_int32(const char *path, const int32_t *data, size_t n, char *err, size_t errlen)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        return EXIT_USAGE;
    }
    size_t put = n ? fwrite(data, sizeof(int32_t), n, f) : 0;
    if (fclose(f) != 0 || put != n) {
        snprintf(err, errlen, "cannot write '%s': wrote %zu of %zu values", path, put, n);
        return EXIT_USAGE;
    }
    return 0;
}

void *xmalloc(size_t bytes, const char *what)
{
    if (bytes == 0)
        return NULL;
    void *p = malloc(bytes);
    if (!p)
        cli_fail(EXIT_USAGE, "out of host memory: %s needs %.2f GiB; try a smaller -n", what,
                 (double)bytes / (1024.0 * 1024.0 * 1024.0));
    return p;
}

size_t host_memory_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kib = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    fclose(f);
    return (size_t)kib * 1024;
}

void io_require_host_memory(double bytes, const char *what)
{
    const size_t have = host_memory_available();
    if (have > 0 && bytes > (double)have)
        cli_fail(EXIT_USAGE,
                 "%s needs %.2f GiB of host memory; %.2f GiB are free: try a smaller -n", what,
                 bytes / (1024.0 * 1024.0 * 1024.0), (double)have / (1024.0 * 1024.0 * 1024.0));
}
