/**
 * \file verdict.h
 * \brief The judge: a process forked before any of the student's code runs, that never runs it,
 *        checks every output the harness hands it, and alone holds the grader's token and prints
 *        the verdicts (docs/experiments/kit_verdicts_design.md; classroom/sandbox.py, harness()).
 *
 * The grader makes a pipe for each harness run, writes one line into it, `TOKEN SEED` (a fresh
 * random token of 32 hex digits, and this run's seed), closes its end, and names the descriptor in
 * GRADE_FD; and it opens a file of its own (unlinked, write-only for the harness) named in
 * GRADE_VERDICT_FD. Each verdict is one line `[grader TOKEN] text` in that file (and its text
 * alone on stdout, for the student); the grader believes only the file's lines with its token
 * and counts a missing verdict as a failure. The child closes both descriptors before any of the
 * student's code runs: the token and the verdicts never pass through anything it holds (the
 * third gaming review read them back from the shared stdout pipe).
 *
 * Before, the token lived in the one process that ran the student's code too, and a part could
 * find it in memory and forge verdicts (the second gaming review). Now the harness's first
 * constructor (priority 101: a part may hold no constructor, which the honesty gate checks, so
 * none of the student's code has run yet, and no CUDA call has been made) maps a shared box and
 * forks:
 *  - the **judge** (the parent) reads the grader's pipe itself, makes itself undumpable (the
 *    child, of the same uid and not root, can then neither ptrace it nor read its memory or
 *    its descriptors: classroom/tests/judge_cases.py tries), hands the child the
 *    run's seed (not the token), and from then on only answers the child's messages: for each
 *    output the child shows it (a *case*: n, the input's pattern or the hidden-vector generator,
 *    inclusive or exclusive, copied into the box a chunk at a time, small ones in batches), it
 *    makes the input again from its own seed, computes the reference in its own memory and
 *    compares every element. When the
 *    child has ended, the harness's judge_verdicts() (each harness has its own) reads the judge's
 *    log of cases, compares it with the plan of cases the run must hold, and prints the verdicts.
 *    The judge never calls the student's code, never returns from the constructor, and exits with
 *    the verdicts' status. Its wait ends when the child exits (a pidfd), not at the end of a
 *    pipe that a process the child started may hold open; a child killed by a signal, SIGKILL
 *    too, gives the verdicts of what it showed (the grader's "interrupted" is its own word);
 *  - the **child** closes the grader's pipe (it never had the token), waits for the seed, and runs
 *    main(): the harness's driver and the student's code. What it tells the judge are claims: its
 *    outputs (judged), its own witnesses' findings (believed only when they count against it:
 *    the box is writable by anything the child starts) and, on the GPU, its timings (its word;
 *    see the design note). The judge plans and checks from its own seed, never the box's.
 * A child that dies, skips a case, or leaves the plan short gives no passing verdict. Run by hand
 * (no GRADE_FD), the token is `none`, which the grader never accepts.
 */
#ifndef GRADER_VERDICT_H
#define GRADER_VERDICT_H

#include "vector_gen.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/** Elements a chunk of the box holds (16 MiB), and the box's two chunks (input and output of a
    run the judge times, harness_cpu.c). */
#define JUDGE_CHUNK ((size_t)1 << 22)

enum { JUDGE_BEGIN = 1, JUDGE_DATA, JUDGE_END, JUDGE_BATCH, JUDGE_CLAIM, JUDGE_SERVE, JUDGE_TIMED,
       JUDGE_DONE };

/** Small cases the child hands over at once (JUDGE_BATCH): each answer waits for a switch between
    the two processes, which a busy machine makes slow. */
#define JUDGE_BATCH_MAX 256

/** One case of a batch: its output at data + offset. */
typedef struct judge_head {
    size_t n, offset;
    int pattern, exclusive, variant, status;
    char label[160];
} judge_head;

/** The pattern of a case whose input is vector_gen.h's vector for (the run's seed, n). */
#define JUDGE_VECTOR (-1)

/** The box the judge and the child share (MAP_SHARED): what the child says, what the judge
    answers. The child can write all of it; the judge reads from it only claims and outputs. */
typedef struct judge_box {
    uint64_t seed;     /**< this run's seed, written by the judge before the child goes on */
    int skip;          /**< set by the judge: the run's case cannot be run here (harness_cpu.c) */
    int op;            /**< what this message is (JUDGE_...) */
    int pattern;       /**< BEGIN: a data_pattern, or JUDGE_VECTOR */
    int exclusive;     /**< BEGIN: 1 exclusive, 0 inclusive */
    int variant;       /**< BEGIN: the variant's index; TIMED: the variant to time */
    int status;        /**< END: what the scan returned; TIMED: the threads to time it on */
    size_t n;          /**< BEGIN: the case's size; TIMED: the size */
    size_t first;      /**< DATA: the index of data[0] in the output */
    size_t count;      /**< DATA: elements in data */
    char text[512];    /**< BEGIN: a label; CLAIM: the claim */
    size_t wrong;      /**< answer to END: elements wrong */
    size_t first_wrong; /**< answer to END: the first wrong index */
    int32_t want, got; /**< answer to END: at the first wrong index */
    int batch;         /**< BATCH: the cases in head[] */
    judge_head head[JUDGE_BATCH_MAX];
    int32_t data[2 * JUDGE_CHUNK];
} judge_box;

/** One case the judge checked (its own log, in its own memory). */
typedef struct judge_case {
    size_t n;
    int pattern, exclusive, variant, status;
    size_t covered;        /**< elements of the output checked (a case is whole when covered == n) */
    size_t wrong, first_wrong;
    int32_t want, got;
    char label[160];
} judge_case;

static char g_token[33] = "none";
static judge_box *g_box;
static int g_to_judge = -1, g_to_child = -1; /* each process's ends of the two pipes */
static pid_t g_judge_child;                  /* in the judge: the child */

/* Each harness defines what the judge prints at the end: its log against the run's plan. */
static int judge_verdicts(const judge_case *log, int cases, char claims[][512], int claim_count,
                          int child_status, const char *ended, int argc, char **argv);
/* ... what it answers to JUDGE_SERVE (harness_cpu.c times runs; harness_gpu.cu: nothing) ... */
static int judge_serve(judge_box *box, int argc, char **argv);
/* ... and what it tells the child before the child starts (box->skip). */
static void judge_before(judge_box *box, int argc, char **argv);

/** The seed of a run by hand (no grader): the judge and the child use the same. */
#define JUDGE_HAND_SEED 20261203ull

/** This run's seed: the grader's, given the child by the judge (JUDGE_HAND_SEED by hand). */
static uint64_t run_seed(void)
{
    return g_box ? g_box->seed : JUDGE_HAND_SEED;
}

/** In the judge: the grader's verdict file (GRADE_VERDICT_FD), which the child never has. */
static int g_verdict_fd = -1;

static void write_all(int fd, const char *p, size_t left)
{
    while (left) {
        const ssize_t k = write(fd, p, left);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        p += k;
        left -= (size_t)k;
    }
}

/** One verdict (the judge): `[grader TOKEN] text` in one write to the grader's verdict file,
    and the text alone on stdout, after what stdout holds, for the student to read. Run by hand
    (no verdict file), the line with the token `none` goes to stdout. */
static void verdict(const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    const int at = snprintf(text, sizeof text, "[grader %s] ", g_token);
    vsnprintf(text + at, sizeof text - (size_t)at - 1, fmt, ap);
    va_end(ap);
    strcat(text, "\n");
    fflush(stdout);
    if (g_verdict_fd >= 0) {
        write_all(g_verdict_fd, text, strlen(text));
        write_all(STDOUT_FILENO, text + at, strlen(text + at));
    } else {
        write_all(STDOUT_FILENO, text, strlen(text));
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The child's side                                                                             */
/* ------------------------------------------------------------------------------------------ */

static size_t g_batch_used; /* in the child: elements of data the pending batch holds */

/** Hand the box to the judge and wait for its answer: 0, or -1 when the judge is gone. */
static int judge_send(int op)
{
    if (!g_box || g_to_judge < 0)
        return -1;
    char c = 1;
    g_box->op = op;
    if (write(g_to_judge, &c, 1) != 1)
        return -1;
    ssize_t k;
    while ((k = read(g_to_child, &c, 1)) < 0 && errno == EINTR)
        ;
    return k == 1 ? 0 : -1;
}

/** Hand over the pending batch of small cases, if any. */
static int judge_flush(void)
{
    if (!g_box || !g_box->batch)
        return 0;
    const int r = judge_send(JUDGE_BATCH);
    g_box->batch = 0;
    g_batch_used = 0;
    return r;
}

static void judge_flush_at_exit(void)
{
    judge_flush();
}

/** Send one message (after the pending batch: every message but DATA, which follows a BEGIN,
    comes before the box's data is written). */
static int judge_call(int op)
{
    return judge_flush() ? -1 : judge_send(op);
}

/** What the judge found of one case. */
typedef struct judge_result {
    size_t wrong, first_wrong;
    int32_t want, got;
    int judged; /**< 0: no judge answered (the case counts as failed) */
} judge_result;

/** Begin showing the judge one case of n elements, made from `pattern` (or JUDGE_VECTOR) by the
    run's seed; 0, or -1 when the judge is gone. */
static int judge_out_begin(const char *label, int variant, int pattern, int exclusive, size_t n)
{
    if (!g_box)
        return -1;
    g_box->pattern = pattern;
    g_box->exclusive = exclusive;
    g_box->variant = variant;
    g_box->n = n;
    snprintf(g_box->text, sizeof g_box->text, "%s", label);
    return judge_call(JUDGE_BEGIN);
}

/** Show the judge the case's elements first .. first + k (any k; in order). */
static int judge_out_data(size_t first, size_t k, const int32_t *data)
{
    for (size_t done = 0; done < k; done += JUDGE_CHUNK) {
        const size_t m = k - done < JUDGE_CHUNK ? k - done : JUDGE_CHUNK;
        memcpy(g_box->data, data + done, m * sizeof(int32_t));
        g_box->first = first + done;
        g_box->count = m;
        if (judge_call(JUDGE_DATA))
            return -1;
    }
    return 0;
}

/** End the case (`status`: what the scan returned): what the judge found. */
static judge_result judge_out_end(int status)
{
    judge_result r = {0, 0, 0, 0, 0};
    g_box->status = status;
    if (judge_call(JUDGE_END))
        return r;
    r.wrong = g_box->wrong;
    r.first_wrong = g_box->first_wrong;
    r.want = g_box->want;
    r.got = g_box->got;
    r.judged = 1;
    return r;
}

/** Show the judge one whole case: its output out[0..n). */
static judge_result judge_case_out(const char *label, int variant, int pattern, int exclusive,
                                   const int32_t *out, size_t n, int status, int wait)
{
    const judge_result none = {0, 0, 0, 0, 0};
    if (!g_box)
        return none;
    if (!wait && n <= JUDGE_CHUNK) {
        /* into the batch: no answer (judged -1); the judge prints what it found at the end */
        if (g_box->batch == JUDGE_BATCH_MAX || g_batch_used + n > 2 * JUDGE_CHUNK)
            if (judge_flush())
                return none;
        judge_head *h = &g_box->head[g_box->batch];
        h->n = n;
        h->offset = g_batch_used;
        h->pattern = pattern;
        h->exclusive = exclusive;
        h->variant = variant;
        h->status = status;
        snprintf(h->label, sizeof h->label, "%s", label);
        if (n)
            memcpy(g_box->data + g_batch_used, out, n * sizeof(int32_t));
        g_batch_used += n;
        ++g_box->batch;
        judge_result r = none;
        r.judged = -1;
        return r;
    }
    if (judge_out_begin(label, variant, pattern, exclusive, n) || judge_out_data(0, n, out))
        return none;
    return judge_out_end(status);
}

/** Tell the judge something it may weigh (a witness's finding, a plan, a GPU timing). */
static void judge_claim(const char *fmt, ...)
{
    if (!g_box)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_box->text, sizeof g_box->text, fmt, ap);
    va_end(ap);
    judge_call(JUDGE_CLAIM);
}

/* ------------------------------------------------------------------------------------------ */
/* The judge's side                                                                             */
/* ------------------------------------------------------------------------------------------ */

/**
 * Check out[0..k), elements first .. first + k of the scan of vector_gen.h's vector `key`, given
 * the sum of the elements before them (`*carry`, moved on past them; for a segmented scan, of
 * those of its segment): in parallel, in 64 pieces. Counts the wrong elements into `*wrong` and
 * keeps the first wrong index, the value wanted and the value got.
 */
static void judge_vector_chunk(uint64_t key, size_t first, size_t k, int exclusive,
                               size_t segment, const int32_t *out, uint32_t *carry,
                               size_t *wrong, size_t *first_wrong, int32_t *want, int32_t *got)
{
    enum { PIECES = 64 };
    uint32_t sum[PIECES + 1] = {0};
    const size_t piece = (k + PIECES - 1) / PIECES;
    if (segment) {
        /* each piece starts from the sum of its segment's elements before it, made again */
#pragma omp parallel for schedule(static)
        for (int p = 0; p < PIECES; ++p) {
            const size_t at = first + (size_t)p * piece;
            uint32_t s = 0;
            for (size_t i = at - at % segment; i < at; ++i)
                s += (uint32_t)grade_vector_at(key, i);
            sum[p] = s;
        }
    } else {
#pragma omp parallel for schedule(static)
        for (int p = 0; p < PIECES; ++p) {
            uint32_t s = 0;
            for (size_t i = (size_t)p * piece; i < k && i < (size_t)(p + 1) * piece; ++i)
                s += (uint32_t)grade_vector_at(key, first + i);
            sum[p + 1] = s;
        }
        sum[0] = *carry;
        for (int p = 0; p < PIECES; ++p)
            sum[p + 1] += sum[p];
    }
    size_t bad = 0, at = (size_t)-1;
#pragma omp parallel for schedule(static) reduction(+ : bad) reduction(min : at)
    for (int p = 0; p < PIECES; ++p) {
        uint32_t s = sum[p];
        for (size_t i = (size_t)p * piece; i < k && i < (size_t)(p + 1) * piece; ++i) {
            if (segment && (first + i) % segment == 0)
                s = 0;
            const uint32_t x = (uint32_t)grade_vector_at(key, first + i);
            const int32_t expect = (int32_t)(exclusive ? s : s + x);
            s += x;
            if (out[i] != expect) {
                ++bad;
                at = i < at ? i : at;
            }
        }
    }
    if (bad && *wrong == 0) {
        uint32_t s = sum[at / piece];
        for (size_t i = at / piece * piece; i < at; ++i) {
            if (segment && (first + i) % segment == 0)
                s = 0;
            s += (uint32_t)grade_vector_at(key, first + i);
        }
        if (segment && (first + at) % segment == 0)
            s = 0;
        const uint32_t x = (uint32_t)grade_vector_at(key, first + at);
        *want = (int32_t)(exclusive ? s : s + x);
        *got = out[at];
        *first_wrong = first + at;
    }
    *wrong += bad;
    *carry = sum[PIECES];
}

/** The segment length the judge scans with: GRADE_SEGMENT from the grader (the chapter's
    table in classroom/items.py), never the child's word; 0: one scan over the whole array. */
static size_t judge_segment(void)
{
    const char *s = getenv("GRADE_SEGMENT");
    return s && *s ? (size_t)strtoull(s, NULL, 10) : 0;
}

/** The judge's log of cases, and what it needs to check the one being shown. */
static struct {
    judge_case *log;
    int cases, cap;
    judge_case *c;   /* the case being shown, or NULL */
    int32_t *ref;    /* a pattern case's reference, the judge's own (its input, scanned) */
    size_t ref_n;
    uint32_t carry;  /* a vector case's running sum */
    size_t segment;
    uint64_t seed;
} g_judge;

static void case_begin(size_t n, int pattern, int exclusive, int variant, const char *label)
{
    if (g_judge.cases == g_judge.cap) {
        g_judge.cap = g_judge.cap ? 2 * g_judge.cap : 256;
        g_judge.log = (judge_case *)realloc(g_judge.log, (size_t)g_judge.cap * sizeof(judge_case));
    }
    judge_case *c = g_judge.c = &g_judge.log[g_judge.cases++];
    const judge_case *prev = g_judge.cases > 1 ? c - 1 : NULL;
    memset(c, 0, sizeof *c);
    c->n = n;
    c->pattern = pattern;
    c->exclusive = exclusive != 0;
    c->variant = variant;
    c->status = -1;
    snprintf(c->label, sizeof c->label, "%.*s", (int)sizeof c->label - 1, label);
    g_judge.carry = 0;
    if (pattern == JUDGE_VECTOR)
        return;
    if (pattern < 0 || pattern >= PATTERN_COUNT || n > ((size_t)1 << 31)) {
        c->pattern = -2; /* not a case the judge knows: wrong */
        return;
    }
    if (prev && g_judge.ref_n >= n && prev->n == n && prev->pattern == pattern &&
        prev->exclusive == c->exclusive)
        return; /* the same input and reference as the case before (another variant) */
    if (n > g_judge.ref_n) {
        free(g_judge.ref);
        g_judge.ref = (int32_t *)malloc((n ? n : 1) * sizeof(int32_t));
        g_judge.ref_n = g_judge.ref ? n : 0;
    }
    if (n > g_judge.ref_n) {
        c->pattern = -2;
        return;
    }
    generate_input(g_judge.ref, n, (data_pattern)pattern, g_judge.seed);
    scan_reference(g_judge.ref, g_judge.ref, n, c->exclusive, g_judge.segment);
}

static void case_data(size_t first, size_t count, const int32_t *data)
{
    judge_case *c = g_judge.c;
    if (!c || !count)
        return;
    if (first != c->covered || count > c->n - c->covered || c->pattern == -2) {
        c->pattern = -2; /* out of order or out of bounds: the case is wrong */
    } else if (c->pattern == JUDGE_VECTOR) {
        judge_vector_chunk(grade_vector_key(g_judge.seed, c->n), first, count, c->exclusive,
                           g_judge.segment, data, &g_judge.carry, &c->wrong, &c->first_wrong,
                           &c->want, &c->got);
        c->covered += count;
    } else if (memcmp(data, g_judge.ref + first, count * sizeof(int32_t)) == 0) {
        c->covered += count;
    } else {
        for (size_t i = 0; i < count; ++i)
            if (data[i] != g_judge.ref[first + i] && c->wrong++ == 0) {
                c->first_wrong = first + i;
                c->want = g_judge.ref[first + i];
                c->got = data[i];
            }
        c->covered += count;
    }
}

static void case_end(int status)
{
    judge_case *c = g_judge.c;
    if (!c)
        return;
    c->status = status;
    if (c->pattern == -2 && c->wrong == 0)
        c->wrong = c->n ? c->n : 1;
    g_judge.c = NULL;
}

/** A case the judge saw whole and right. */
static int judge_right(const judge_case *c)
{
    return c->covered == c->n && c->wrong == 0 && c->status == 0;
}

/** Print (not as verdicts: for the student to read) the first four cases that were wrong. */
static void judge_print_failures(const judge_case *log, int cases)
{
    int shown = 0;
    for (int k = 0; k < cases && shown < 4; ++k) {
        const judge_case *c = &log[k];
        if (judge_right(c))
            continue;
        ++shown;
        if (c->wrong && c->pattern != -2)
            printf("  FAIL %s: %zu of %zu elements wrong; the first at index %zu: expected %d, "
                   "got %d\n", c->label, c->wrong, c->n, c->first_wrong, c->want, c->got);
        else if (c->covered != c->n || c->pattern == -2)
            printf("  FAIL %s: the output shown to the judge was incomplete or out of order\n",
                   c->label);
        else
            printf("  FAIL %s: the scan returned %d\n", c->label, c->status);
    }
}

/** The judge's loop: answer the child's messages until it ends, then print the verdicts and
    exit (never returns). */
static void judge_run(int argc, char **argv, uint64_t seed)
{
    static char claims[16][512];
    int claim_count = 0;
    g_judge.segment = judge_segment();
    g_judge.seed = seed;
    char byte;
    ssize_t k;
    int status = 0, reaped = 0;
    /* the child's end: a pidfd where the kernel has them, else a look every 100 ms (never the
       pipe's EOF, which a process the child started can hold off for ever) */
#ifdef SYS_pidfd_open
    const int pidfd = (int)syscall(SYS_pidfd_open, g_judge_child, 0);
#else
    const int pidfd = -1;
#endif
    for (;;) {
        struct pollfd watch[2] = {{g_to_judge, POLLIN, 0}, {pidfd, POLLIN, 0}};
        const int ready = poll(watch, pidfd >= 0 ? 2 : 1, pidfd >= 0 ? -1 : 100);
        if (ready < 0 && errno != EINTR)
            break;
        if (pidfd >= 0 ? (watch[1].revents != 0) :
                         waitpid(g_judge_child, &status, WNOHANG) == g_judge_child) {
            reaped = pidfd < 0;
            break; /* the child has ended: what it left running talks to no one */
        }
        if (ready <= 0 || !watch[0].revents)
            continue;
        while ((k = read(g_to_judge, &byte, 1)) < 0 && errno == EINTR)
            ;
        if (k != 1) {
            if (pidfd < 0)
                break; /* no writer left: the child has ended */
            close(g_to_judge); /* no writer left; wait for the child itself */
            g_to_judge = -1;
            while (poll(&watch[1], 1, -1) < 0 && errno == EINTR)
                ;
            break;
        }
        judge_box *b = g_box;
        const int op = b->op;
        if (op == JUDGE_BEGIN) {
            case_begin(b->n, b->pattern, b->exclusive, b->variant, b->text);
        } else if (op == JUDGE_DATA) {
            /* read once: anything the child started can change the box meanwhile */
            const size_t first = b->first, count = b->count;
            if (count <= JUDGE_CHUNK)
                case_data(first, count, b->data);
            else if (g_judge.c)
                g_judge.c->pattern = -2;
        } else if (op == JUDGE_END) {
            judge_case *c = g_judge.c;
            case_end(b->status);
            if (c) {
                b->wrong = c->wrong;
                b->first_wrong = c->first_wrong;
                b->want = c->want;
                b->got = c->got;
            }
        } else if (op == JUDGE_BATCH) {
            const int count = b->batch;
            for (int h = 0; h < count && h < JUDGE_BATCH_MAX; ++h) {
                const judge_head head = b->head[h]; /* the judge's copy */
                case_begin(head.n, head.pattern, head.exclusive, head.variant, head.label);
                if (head.offset > 2 * JUDGE_CHUNK || head.n > 2 * JUDGE_CHUNK - head.offset)
                    g_judge.c->pattern = -2;
                else
                    case_data(0, head.n, b->data + head.offset);
                case_end(head.status);
            }
        } else if (op == JUDGE_CLAIM) {
            if (claim_count < 16)
                snprintf(claims[claim_count++], 512, "%.*s", 511, b->text);
        } else if (op == JUDGE_SERVE) {
            if (!judge_serve(b, argc, argv))
                b->op = JUDGE_DONE;
        }
        byte = 1;
        if (write(g_to_child, &byte, 1) != 1)
            break;
    }
    while (!reaped && waitpid(g_judge_child, &status, 0) < 0 && errno == EINTR)
        ;
    /* a child killed by a signal, SIGKILL too, gives the verdicts of what it showed: it may
       have sent the signal itself, so it never makes the run "interrupted" (that is the
       grader's word alone: classroom/sandbox.py) */
    char ended[80];
    if (WIFEXITED(status))
        snprintf(ended, sizeof ended, "the program exited %d", WEXITSTATUS(status));
    else
        snprintf(ended, sizeof ended, "the program was killed by signal %d",
                 WTERMSIG(status));
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        verdict("killed: %s", ended); /* for the instructor's notes (classroom/sandbox.py) */
    judge_print_failures(g_judge.log, g_judge.cases);
    const int code = judge_verdicts(g_judge.log, g_judge.cases, claims, claim_count, status,
                                    ended, argc, argv);
    fflush(stdout);
    _exit(code);
}

/** In the child, before any of the student's code runs: the grader's variables out of the
    environment (the judge has read what it needs), but GRADE_BIG, which the n > 2^31 run's child
    reads, and GRADE_SHARE_DEBUG (by hand only): a part must not tell a graded run from its own
    by them (the fourth gaming review). */
static void judge_child_env(void)
{
    extern char **environ;
    for (int round = 0; round < 64; ++round) {
        char name[64] = "";
        for (char **e = environ; e && *e; ++e)
            if (strncmp(*e, "GRADE_", 6) == 0 && strncmp(*e, "GRADE_BIG=", 10) != 0 &&
                strncmp(*e, "GRADE_SHARE_DEBUG=", 18) != 0) {
                const char *eq = strchr(*e, '=');
                const size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
                if (len < sizeof name) {
                    memcpy(name, *e, len);
                    name[len] = '\0';
                    break;
                }
            }
        if (!name[0] || unsetenv(name) != 0)
            return;
    }
}

/** The harness's first constructor: the box, the fork, the judge (see the top of this file). */
__attribute__((constructor(101))) static void judge_start(int argc, char **argv)
{
    g_box = (judge_box *)mmap(NULL, sizeof(judge_box), PROT_READ | PROT_WRITE,
                              MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    int up[2], down[2];
    if (g_box == MAP_FAILED || pipe(up) || pipe(down)) {
        fprintf(stderr, "harness: cannot make the judge's box or pipes\n");
        _exit(3);
    }
    const char *fd_text = getenv("GRADE_FD"), *vfd_text = getenv("GRADE_VERDICT_FD");
    const int fd = fd_text && *fd_text ? atoi(fd_text) : -1;
    const int vfd = vfd_text && *vfd_text ? atoi(vfd_text) : -1;
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "harness: cannot fork the judge\n");
        _exit(3);
    }
    if (pid == 0) {
        /* the child: no token and no verdict file, ever; wait for the seed, then main() */
        if (fd >= 0)
            close(fd);
        if (vfd >= 0)
            close(vfd);
        close(up[0]);
        close(down[1]);
        g_to_judge = up[1];
        g_to_child = down[0];
        atexit(judge_flush_at_exit); /* the last batch, when main() returns */
        judge_child_env();
        char c;
        while (read(g_to_child, &c, 1) < 0 && errno == EINTR)
            ;
        return;
    }
    /* the judge */
    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_DUMPABLE, 0);
    close(up[1]);
    close(down[0]);
    g_to_judge = up[0];
    g_to_child = down[1];
    g_judge_child = pid;
    if (vfd >= 0 && vfd != fd && vfd > STDERR_FILENO)
        g_verdict_fd = vfd;
    uint64_t seed = JUDGE_HAND_SEED;
    if (fd >= 0) {
        char line[128];
        size_t got = 0;
        ssize_t k;
        while (got < sizeof line - 1 && (k = read(fd, line + got, sizeof line - 1 - got)) > 0)
            got += (size_t)k;
        close(fd);
        line[got] = '\0';
        char token[40];
        unsigned long long s;
        if (sscanf(line, "%39s %llu", token, &s) == 2 && strlen(token) == 32) {
            if (g_verdict_fd >= 0) /* the token goes nowhere but into the verdict file */
                memcpy(g_token, token, 33);
            seed = s;
        }
        memset(line, 0, sizeof line);
    }
    g_box->seed = seed;
    /* what the child can be told before it starts (harness_cpu.c: a case this machine cannot
       run); then the go */
    judge_before(g_box, argc, argv);
    char go = 1;
    if (write(g_to_child, &go, 1) != 1) {
        /* the child is gone already: the verdicts say so */
    }
    judge_run(argc, argv, seed);
}

#endif
