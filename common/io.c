/**
 * \file io.c
 * \brief Raw int32 file I/O with an all-or-nothing output, and checked host allocation.
 */
#define _XOPEN_SOURCE 700 /* realpath(), sigaction() */

#include "io.h"

#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/** Temporary file of the pending output ("" when none). Read by the exit and signal handlers. */
static char pending_tmp[4096];
/** Final path of the pending output. */
static char pending_path[4096];
/** Open descriptor of the pending temporary file, or -1. */
static int pending_fd = -1;

/** Seconds a FIFO given as --input may wait for a writer before the program says it waits. */
#define FIFO_NOTICE_S 2

/** Bytes of memory this process may use: MemAvailable, or less where a resource limit (ulimit
    -v, -d) says so; 0 if unknown. */
static size_t usable_memory(void)
{
    size_t have = host_memory_available();
    const int limits[] = {RLIMIT_AS, RLIMIT_DATA};
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; ++i) {
        struct rlimit rl;
        if (getrlimit(limits[i], &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
            (have == 0 || (size_t)rl.rlim_cur < have))
            have = (size_t)rl.rlim_cur;
    }
    return have;
}

size_t io_input_limit(void)
{
    const size_t most = CLI_MAX_N * sizeof(int32_t);
    const size_t third = usable_memory() / 3 / sizeof(int32_t) * sizeof(int32_t);
    return third == 0 || third > most ? most : third;
}

/** The --input being opened, for the message of on_fifo_wait(). */
static char fifo_notice[600];

/** SIGALRM while open() waits for a FIFO's writer: say so once (async-signal-safe). */
static void on_fifo_wait(int sig)
{
    (void)sig;
    ssize_t ignored = write(STDERR_FILENO, fifo_notice, strlen(fifo_notice));
    (void)ignored;
}

/**
 * Open `path` for reading. A FIFO blocks in open() until something opens it for writing, as it
 * does for cat; if that takes more than FIFO_NOTICE_S seconds, one line on stderr says what the
 * program waits for, so that it never hangs without a word.
 */
static int open_input(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISFIFO(st.st_mode))
        return open(path, O_RDONLY);
    snprintf(fifo_notice, sizeof fifo_notice, "run: --input '%.400s' is a FIFO that nothing has "
             "opened for writing yet; waiting for a writer, as cat would (Ctrl-C stops)\n", path);
    struct sigaction wait_action, saved;
    memset(&wait_action, 0, sizeof wait_action);
    wait_action.sa_handler = on_fifo_wait;
    wait_action.sa_flags = SA_RESTART; /* open() of a FIFO resumes after the handler */
    sigemptyset(&wait_action.sa_mask);
    sigaction(SIGALRM, &wait_action, &saved);
    const unsigned saved_alarm = alarm(FIFO_NOTICE_S);
    const int fd = open(path, O_RDONLY);
    const int open_errno = errno;
    alarm(0);
    sigaction(SIGALRM, &saved, NULL);
    if (saved_alarm)
        alarm(saved_alarm);
    errno = open_errno;
    return fd;
}

/** GiB, for messages. */
static double gib(double bytes)
{
    return bytes / (1024.0 * 1024.0 * 1024.0);
}

/**
 * The checks every --input gets before a byte is read (`fd` open on it, `name` for messages):
 * not a folder, not a terminal, and a regular file's size a multiple of 4. Fills `st`.
 */
static int check_input(int fd, const char *name, struct stat *st, char *err, size_t errlen)
{
    if (fstat(fd, st) != 0) {
        snprintf(err, errlen, "cannot read --input '%s': %s", name, strerror(errno));
        return EXIT_USAGE;
    }
    if (S_ISDIR(st->st_mode)) {
        snprintf(err, errlen, "--input '%s' is a folder; give a file of raw int32 values", name);
        return EXIT_USAGE;
    }
    if (isatty(fd)) {
        snprintf(err, errlen, "--input '%s' is a terminal; raw int32 values come from a file or a "
                 "pipe: ./run --input - < data.bin", name);
        return EXIT_USAGE;
    }
    if (S_ISREG(st->st_mode) && st->st_size % (off_t)sizeof(int32_t) != 0) {
        snprintf(err, errlen, "--input '%s' has %lld bytes, not a multiple of 4; it must hold "
                 "raw int32 values, 4 bytes each, with no header", name, (long long)st->st_size);
        return EXIT_USAGE;
    }
    return 0;
}

/** Open `path` ("-": standard input) for reading, or say why not in `err`; -1 on failure. */
static int open_named_input(const char *path, char *err, size_t errlen)
{
    const int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open_input(path);
    if (fd < 0)
        snprintf(err, errlen, "cannot read --input '%s': %s; check the path and its permissions",
                 path, strerror(errno));
    return fd;
}

int io_read_int32(const char *path, int32_t **data, size_t *n, char *err, size_t errlen)
{
    const int from_stdin = strcmp(path, "-") == 0;
    const char *name = from_stdin ? "- (standard input)" : path;
    const size_t limit = io_input_limit();
    struct stat st;
    *data = NULL;
    *n = 0;
    const int fd = open_named_input(path, err, errlen);
    if (fd < 0)
        return EXIT_USAGE;
    int status = EXIT_USAGE;
    unsigned char *buf = NULL;
    size_t capacity = 0, got = 0, first = (size_t)1 << 20;
    if (check_input(fd, name, &st, err, errlen))
        goto done;
    if (S_ISREG(st.st_mode)) { /* its size is known: check it before reading a byte */
        if ((unsigned long long)st.st_size > limit) {
            snprintf(err, errlen, "--input '%s' has %.2f GiB; this program may hold %.2f GiB of "
                     "input (a third of the memory it may use: input, reference and result); "
                     "give a smaller file", name, gib((double)st.st_size), gib((double)limit));
            goto done;
        }
        first = (size_t)st.st_size + sizeof(int32_t); /* room to see it grow */
    }
    /* Read to end of file, whatever the file is: a pipe or a FIFO has no size to ask for. */
    for (;;) {
        if (got == capacity) {
            if (capacity > limit) {
                snprintf(err, errlen, "--input '%s' goes on past %.2f GiB, more than this program "
                         "may hold (a third of the memory it may use: input, reference and "
                         "result); give a smaller file (an endless device such as /dev/zero "
                         "never ends)", name, gib((double)limit));
                goto done;
            }
            size_t grown = capacity == 0 ? first : 2 * capacity;
            grown = grown > limit + 1 ? limit + 1 : grown;
            unsigned char *bigger = (unsigned char *)realloc(buf, grown);
            if (!bigger) {
                snprintf(err, errlen, "out of host memory reading --input '%s' after %.2f GiB; "
                         "give a smaller file", name, gib((double)got));
                goto done;
            }
            buf = bigger;
            capacity = grown;
        }
        const ssize_t r = read(fd, buf + got, capacity - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(err, errlen, "cannot read --input '%s' after %zu bytes: %s", name, got,
                     strerror(errno));
            goto done;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    if (got % sizeof(int32_t) != 0) {
        snprintf(err, errlen, "--input '%s' has %zu bytes, not a multiple of 4; it must hold raw "
                 "int32 values, 4 bytes each, with no header", name, got);
        goto done;
    }
    *n = got / sizeof(int32_t);
    if (got > 0) {
        *data = (int32_t *)buf;
        buf = NULL;
    }
    status = 0;
done:
    free(buf);
    if (!from_stdin)
        close(fd);
    return status;
}

int io_input_open(const char *path, io_input *in, char *err, size_t errlen)
{
    struct stat st;
    memset(in, 0, sizeof *in);
    in->from_stdin = strcmp(path, "-") == 0;
    snprintf(in->name, sizeof in->name, "%s", in->from_stdin ? "- (standard input)" : path);
    in->fd = open_named_input(path, err, errlen);
    if (in->fd < 0)
        return EXIT_USAGE;
    if (check_input(in->fd, in->name, &st, err, errlen)) {
        io_input_close(in);
        return EXIT_USAGE;
    }
    if (S_ISCHR(st.st_mode)) { /* not a terminal (refused above): /dev/zero, /dev/urandom */
        snprintf(err, errlen, "--input '%s' is a device, which may never end; give a file, or a "
                 "pipe (cat DEVICE | ./run --input -) to stream it for as long as it gives",
                 in->name);
        io_input_close(in);
        return EXIT_USAGE;
    }
    in->bytes = S_ISREG(st.st_mode) ? (long long)st.st_size : -1;
    return 0;
}

int io_input_read(io_input *in, int32_t *buf, size_t max, size_t *got, char *err, size_t errlen)
{
    unsigned char *bytes = (unsigned char *)buf;
    size_t have = 0;
    const size_t want = max * sizeof(int32_t);
    *got = 0;
    while (have < want) { /* a pipe may give fewer bytes than asked, even a partial element */
        const ssize_t r = read(in->fd, bytes + have, want - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(err, errlen, "cannot read --input '%s' after %zu elements: %s", in->name,
                     in->elements + have / sizeof(int32_t), strerror(errno));
            return EXIT_USAGE;
        }
        if (r == 0)
            break;
        have += (size_t)r;
    }
    if (have % sizeof(int32_t) != 0) {
        snprintf(err, errlen, "--input '%s' ends with a partial element (%zu bytes after %zu "
                 "elements); it must hold raw int32 values, 4 bytes each, with no header",
                 in->name, have % sizeof(int32_t), in->elements + have / sizeof(int32_t));
        return EXIT_USAGE;
    }
    *got = have / sizeof(int32_t);
    in->elements += *got;
    return 0;
}

void io_input_close(io_input *in)
{
    if (in->fd >= 0 && !in->from_stdin)
        close(in->fd);
    in->fd = -1;
}

/** Remove the pending temporary file (exit handler; async-signal-safe). */
static void remove_pending(void)
{
    if (pending_tmp[0])
        unlink(pending_tmp);
}

/** The signals that end a program by default and can be caught: each one removes the pending
    temporary file first. (SIGKILL cannot be caught; a crash leaves the empty temporary file.) */
static const int CLEANUP_SIGNALS[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGXCPU, SIGXFSZ};
/** How many. */
#define CLEANUP_SIGNAL_COUNT ((int)(sizeof CLEANUP_SIGNALS / sizeof CLEANUP_SIGNALS[0]))

/** On one of CLEANUP_SIGNALS: remove the pending temporary file, then die of the same signal
    (SA_RESETHAND has put back the default action; SA_NODEFER lets raise() deliver it now). */
static void on_signal(int sig)
{
    remove_pending();
    raise(sig);
}

/** Install on_signal() for CLEANUP_SIGNALS, once; a signal that was ignored when the program
    started stays ignored (nohup must keep working). */
static void install_cleanup(void)
{
    static int installed = 0;
    if (installed)
        return;
    installed = 1;
    atexit(remove_pending);
    for (int i = 0; i < CLEANUP_SIGNAL_COUNT; ++i) {
        struct sigaction action, old;
        memset(&action, 0, sizeof action);
        action.sa_handler = on_signal;
        action.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigemptyset(&action.sa_mask);
        if (sigaction(CLEANUP_SIGNALS[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(CLEANUP_SIGNALS[i], &action, NULL);
    }
}

/** Block CLEANUP_SIGNALS (`block` 1, saving the mask in `saved`) or restore `saved` (0), so that
    the handler never sees pending_tmp half-made or a name already renamed into place. */
static void cleanup_signals_blocked(int block, sigset_t *saved)
{
    if (block) {
        sigset_t set;
        sigemptyset(&set);
        for (int i = 0; i < CLEANUP_SIGNAL_COUNT; ++i)
            sigaddset(&set, CLEANUP_SIGNALS[i]);
        sigprocmask(SIG_BLOCK, &set, saved);
    } else {
        sigprocmask(SIG_SETMASK, saved, NULL);
    }
}

/** What kind of file system object `st` is, for messages ("a FIFO", "a device", …). */
static const char *file_kind(const struct stat *st)
{
    if (S_ISREG(st->st_mode))
        return "a regular file";
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

/** "standard output" or "standard error" when `st` is the file one of them writes to (the
    report and the messages would be lost when it is replaced), else NULL; `kind` then says what
    that stream is ("a pipe", "a terminal", "a regular file"). */
static const char *std_stream(const struct stat *st, const char **kind)
{
    static const int fds[] = {STDOUT_FILENO, STDERR_FILENO};
    static const char *const names[] = {"standard output", "standard error"};
    for (int i = 0; i < 2; ++i) {
        struct stat s;
        if (fstat(fds[i], &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino) {
            *kind = S_ISFIFO(s.st_mode) ? "a pipe" : isatty(fds[i]) ? "a terminal" : file_kind(&s);
            return names[i];
        }
    }
    return NULL;
}

/** 1 when the pending output replaces an existing file (which stays intact until the commit). */
static int pending_replaces = 0;

/**
 * The message for `path`, a symbolic link whose target does not exist (stat() failed with
 * `e`): where it points, and whether that file could be made. A dangling link is not written
 * through (as cp does not: it would make a file where the link's owner may not expect one).
 */
static void dangling_link(const char *path, int e, char *err, size_t errlen)
{
    char target[PATH_MAX], shown[2 * PATH_MAX];
    const ssize_t len = readlink(path, target, sizeof target - 1);
    if (e == ELOOP || len < 0) {
        snprintf(err, errlen, "--output '%s' is a symbolic link that leads nowhere (%s); give "
                 "a file path", path, strerror(e == ELOOP ? e : errno));
        return;
    }
    target[len] = '\0';
    /* a relative target is relative to the link's folder */
    const char *slash = strrchr(path, '/');
    snprintf(shown, sizeof shown, "%.*s%s", target[0] != '/' && slash ? (int)(slash - path + 1)
             : 0, path, target);
    char folder[2 * PATH_MAX];
    const char *last = strrchr(shown, '/');
    snprintf(folder, sizeof folder, "%.*s", last ? (int)(last - shown) + (last == shown) : 1,
             last ? shown : ".");
    struct stat st;
    if (stat(folder, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(err, errlen, "--output '%s' is a symbolic link to '%s', which does not exist; "
                 "a link is written through only to a file that exists: give '%s' itself, or "
                 "create it first", path, shown, shown);
    else
        snprintf(err, errlen, "--output '%s' is a symbolic link to '%s', in a folder that does "
                 "not exist; give a file path", path, shown);
}

int io_output_begin(const char *path, char *err, size_t errlen)
{
    static char resolved[PATH_MAX];
    struct stat st;
    const char *stream, *kind = "";
    if (strcmp(path, "-") == 0) {
        snprintf(err, errlen, "--output '-' would mix the scan with the report on standard output; "
                 "give a file name (./- for a file named '-')");
        return EXIT_USAGE;
    }
    if (strlen(path) + 16 >= sizeof pending_tmp) {
        snprintf(err, errlen, "--output path is too long; use a shorter one");
        return EXIT_USAGE;
    }
    const int is_link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
    pending_replaces = stat(path, &st) == 0;
    const int stat_errno = errno;
    /* The report goes to standard output, the messages to standard error: replacing the file
       either writes to (/dev/stdout, or `> G` and --output G) would lose them. */
    if (pending_replaces && (stream = std_stream(&st, &kind)) != NULL) {
        snprintf(err, errlen, "--output '%s' is %s (%s here), where %s; give another file",
                 path, stream, kind, strcmp(stream, "standard output") == 0 ? "the report goes"
                 : "the messages go");
        return EXIT_USAGE;
    }
    if (is_link) {
        /* A symbolic link is written through: the file it names is replaced, the link stays. */
        if (!pending_replaces) {
            dangling_link(path, stat_errno, err, errlen);
            return EXIT_USAGE;
        }
        if (!S_ISREG(st.st_mode)) {
            snprintf(err, errlen, "--output '%s' is a symbolic link to %s; give the path of a "
                     "regular file", path, file_kind(&st));
            return EXIT_USAGE;
        }
        if (!realpath(path, resolved) || strlen(resolved) + 16 >= sizeof pending_tmp) {
            snprintf(err, errlen, "--output '%s' is a symbolic link whose target's path cannot "
                     "be found (%s); give the target's path", path, strerror(errno));
            return EXIT_USAGE;
        }
        path = resolved;
    }
    if (pending_replaces) {
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
        /* Renaming over a hard link would cut this name off from the others, and writing into
           the shared file could leave it half-written: neither keeps the promise of io.h. */
        if (st.st_nlink > 1) {
            snprintf(err, errlen, "--output '%s' has %lu hard links; replacing it would cut it off "
                     "from the others: write a new file and copy it over (cp new.bin '%s')",
                     path, (unsigned long)st.st_nlink, path);
            return EXIT_USAGE;
        }
        if (access(path, W_OK) != 0) {
            snprintf(err, errlen, "cannot write --output '%s': %s; choose a file you may write",
                     path, strerror(errno));
            return EXIT_USAGE;
        }
    }
    /* The temporary file lives in the target's folder, so rename() is atomic. Its name,
       ".NAME.tmpXXXXXX", must itself be a name the file system accepts (NAME_MAX bytes): a
       long NAME is cut to fit. */
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const int dir_len = slash ? (int)(slash - path + 1) : 0;
    const int base_room = NAME_MAX - (int)strlen("..tmpXXXXXX");
    const int base_len = (int)strlen(base) < base_room ? (int)strlen(base) : base_room;
    install_cleanup();
    sigset_t saved;
    cleanup_signals_blocked(1, &saved);
    const int length = snprintf(pending_tmp, sizeof pending_tmp, "%.*s.%.*s.tmpXXXXXX", dir_len,
                                path, base_len, base);
    pending_fd = length > 0 && (size_t)length < sizeof pending_tmp ? mkstemp(pending_tmp) : -1;
    const int e = errno;
    if (pending_fd < 0)
        pending_tmp[0] = '\0';
    cleanup_signals_blocked(0, &saved);
    if (pending_fd < 0) {
        snprintf(err, errlen, "cannot write --output '%s': %s; choose a path in a folder you may "
                 "write", path, length > 0 && (size_t)length < sizeof pending_tmp ? strerror(e)
                 : "path too long");
        return EXIT_USAGE;
    }
    /* mkstemp() makes the file private (0600). A replaced file keeps its owner and group where
       this process may set them (root may; another user keeps at least the group if a member
       of it, else the file becomes theirs, as with sed -i), then its mode (after the owner:
       chown clears set-user-ID bits); a new file gets what open() would give it. */
    if (pending_replaces) {
        if (fchown(pending_fd, st.st_uid, st.st_gid) != 0 && fchown(pending_fd, (uid_t)-1,
                                                                    st.st_gid) != 0) {
            /* not permitted: the replaced file belongs to whoever runs this */
        }
        if (fchmod(pending_fd, st.st_mode & 07777) != 0) {
            snprintf(err, errlen, "cannot give --output '%s' the mode of the file it replaces: %s",
                     path, strerror(errno));
            io_output_abandon();
            return EXIT_USAGE;
        }
    } else {
        const mode_t mask = umask(0);
        umask(mask);
        if (fchmod(pending_fd, 0666 & ~mask) != 0) {
            snprintf(err, errlen, "cannot set the mode of --output '%s': %s", path,
                     strerror(errno));
            io_output_abandon();
            return EXIT_USAGE;
        }
    }
    snprintf(pending_path, sizeof pending_path, "%s", path);
    return 0;
}

void io_output_abandon(void)
{
    sigset_t saved;
    cleanup_signals_blocked(1, &saved);
    if (pending_fd >= 0)
        close(pending_fd);
    pending_fd = -1;
    remove_pending();
    pending_tmp[0] = '\0';
    cleanup_signals_blocked(0, &saved);
}

/** A write error: the message (which says the old file is intact), the pending file dropped. */
static int write_failed(const char *what, int e, char *err, size_t errlen)
{
    snprintf(err, errlen, "cannot write --output '%s' (%s): %s; %s: free some space or choose "
             "another place", pending_path, what, strerror(e),
             pending_replaces ? "the file there is unchanged" : "nothing was written");
    io_output_abandon();
    return EXIT_WRITE;
}

int io_output_append(const int32_t *data, size_t n, char *err, size_t errlen)
{
    const char *p = (const char *)data;
    size_t left = n * sizeof(int32_t);
    /* Past a file-size limit (ulimit -f), write() fails with EFBIG instead of killing us. */
    struct sigaction ignore, saved_xfsz;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGXFSZ, &ignore, &saved_xfsz);
    while (left > 0) {
        ssize_t w = write(pending_fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            sigaction(SIGXFSZ, &saved_xfsz, NULL);
            return write_failed("write", w < 0 ? errno : EIO, err, errlen);
        }
        p += w;
        left -= (size_t)w;
    }
    sigaction(SIGXFSZ, &saved_xfsz, NULL);
    return 0;
}

int io_output_write(const int32_t *data, size_t n, char *err, size_t errlen)
{
    const int status = io_output_append(data, n, err, errlen);
    if (status)
        return status;
    /* fsync: a file system may report a full disk or an I/O error only now; and the data is on
       disk before the name points at it, so a crash never leaves an empty file in its place. */
    if (fsync(pending_fd) != 0)
        return write_failed("fsync", errno, err, errlen);
    const int closed = close(pending_fd);
    pending_fd = -1;
    if (closed != 0)
        return write_failed("close", errno, err, errlen);
    return 0;
}

int io_output_publish(char *err, size_t errlen)
{
    /* Everything the run has printed must have reached standard output before the old file is
       replaced: an exit status 4 (a write failed) never follows a replacement. */
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        const int e = errno;
        snprintf(err, errlen, "cannot write standard output: %s; the report is incomplete, so "
                 "--output '%s' was not %s", e ? strerror(e) : "a write failed", pending_path,
                 pending_replaces ? "replaced: the file there is unchanged" : "written");
        io_output_abandon();
        return EXIT_WRITE;
    }
    sigset_t saved;
    cleanup_signals_blocked(1, &saved);
    const int renamed = rename(pending_tmp, pending_path);
    const int e = errno;
    if (renamed == 0)
        pending_tmp[0] = '\0';
    cleanup_signals_blocked(0, &saved);
    if (renamed != 0)
        return write_failed("rename", e, err, errlen);
    return 0;
}

int io_output_commit(const int32_t *data, size_t n, char *err, size_t errlen)
{
    const int status = io_output_write(data, n, err, errlen);
    return status ? status : io_output_publish(err, errlen);
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

/** The first number in the file at `path`, into `value`; 0 if there is none (a missing file,
    or cgroup v2's "max"). */
static int read_number(const char *path, unsigned long long *value)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    const int got = fscanf(f, "%llu", value) == 1;
    fclose(f);
    return got;
}

/** The value of `key` (e.g. "inactive_file") in the cgroup's memory.stat at `path`, or 0. */
static unsigned long long stat_value(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    char name[64];
    unsigned long long value = 0, v;
    if (!f)
        return 0;
    while (fscanf(f, "%63s %llu", name, &v) == 2)
        if (strcmp(name, key) == 0) {
            value = v;
            break;
        }
    fclose(f);
    return value;
}

/** What the group uses, less its inactive page cache, which the kernel takes back before it
    kills anything (as `docker stats` counts it). */
static unsigned long long less_cache(unsigned long long used, const char *stat, const char *key)
{
    const unsigned long long cache = stat_value(stat, key);
    return cache < used ? used - cache : 0;
}

/** Bytes the memory cgroup of this process lets it add (its limit less what the group uses
    now), or 0 if there is no limit or it cannot be read. A container (Docker, Gradescope's
    autograder) sets such a limit, and /proc/meminfo shows the whole machine's memory, not it:
    a program that trusted MemAvailable there would be killed by the kernel's OOM killer
    instead of saying the size does not fit. cgroup v2 (memory.max, memory.current in the
    process's own group, from /proc/self/cgroup) and v1 (memory.limit_in_bytes,
    memory.usage_in_bytes) are read. */
static size_t cgroup_memory_room(void)
{
    char group[600] = "", group_v1[600] = "", line[600], path[700];
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            const char *v1 = strstr(line, ":memory:");
            if (strncmp(line, "0::", 3) == 0)  /* cgroup v2: "0::/the/group" */
                memcpy(group, line + 3, strlen(line + 3) + 1);  /* fits: both 600 bytes */
            else if (v1)                       /* v1: "4:memory:/the/group" */
                memcpy(group_v1, v1 + 8, strlen(v1 + 8) + 1);
        }
        fclose(f);
        group[strcspn(group, "\n")] = '\0';
        group_v1[strcspn(group_v1, "\n")] = '\0';
    }
    /* Each version's files in the process's own group, else at the mount's root (a container
       with a cgroup namespace sees its own group there) */
    static const char *const v2_files[] = {"", "memory.max", "memory.current", "inactive_file"};
    static const char *const v1_files[] = {"/memory", "memory.limit_in_bytes",
                                           "memory.usage_in_bytes", "total_inactive_file"};
    const char *const *files[] = {v2_files, v1_files};
    const char *groups[] = {group, group_v1};
    for (size_t v = 0; v < 2; ++v)
        for (size_t at = 0; at < 2; ++at) {
            const char *g = at == 0 ? groups[v] : "";
            unsigned long long limit = 0, used = 0;
            snprintf(path, sizeof path, "/sys/fs/cgroup%s%s/%s", files[v][0], g, files[v][1]);
            if (!read_number(path, &limit))
                continue;  /* v2's "max" too: no limit in this group */
            if (limit >= (1ULL << 60))
                return 0;  /* v1's "no limit" (PAGE_COUNTER_MAX pages) */
            snprintf(path, sizeof path, "/sys/fs/cgroup%s%s/%s", files[v][0], g, files[v][2]);
            if (!read_number(path, &used))
                used = 0;
            snprintf(path, sizeof path, "/sys/fs/cgroup%s%s/memory.stat", files[v][0], g);
            used = less_cache(used, path, files[v][3]);
            return limit > used ? (size_t)(limit - used) : 1;
        }
    return 0;
}

size_t host_memory_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kib = 0;
    if (f) {
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
                break;
        fclose(f);
    }
    size_t have = (size_t)kib * 1024;
    const size_t room = cgroup_memory_room();
    if (room > 0 && (have == 0 || room < have))
        have = room;
    return have;
}

void io_require_host_memory(double bytes, const char *what)
{
    const size_t have = host_memory_available();
    if (have > 0 && bytes > (double)have)
        cli_fail(EXIT_USAGE,
                 "%s needs %.2f GiB of host memory; %.2f GiB are free: try a smaller -n", what,
                 bytes / (1024.0 * 1024.0 * 1024.0), (double)have / (1024.0 * 1024.0 * 1024.0));
}
