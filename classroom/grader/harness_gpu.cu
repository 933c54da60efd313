/**
 * \file harness_gpu.cu
 * \brief The grader's harness for a GPU chapter: the in-place battery, and the speed of the
 *        student's launcher against the instructor's, measured interleaved in one process.
 *
 * How it is linked (classroom/grade.py). The student's chapter object, with its `main` renamed
 * `student_main`; the instructor's object of the same chapter, with every symbol it defines
 * renamed `ref_…` (its kernels' host stubs, its device functions' host symbols, its `main`:
 * `ref_main`), so that the two chapters' fat binaries are two separate modules in one process;
 * this file; common/'s objects but gpu_driver.o. Both chapters' `main()` only fill a
 * ::gpu_chapter and call gpu_chapter_main(), so the one below receives each chapter's launcher,
 * scratch sizes and variant names: the student's first, then, from inside that call, the
 * reference's (the structures live on the chapters' stacks, so both calls are still open while
 * the harness uses them).
 *
 *   harness --in-place [-n N]             every variant of the student's chapter scans in place
 *                                         (d_out == d_in): the battery's sizes up to N, four
 *                                         patterns, inclusive and exclusive, every element checked
 *   harness --speed VARIANT [-n N] [--rounds R] [--reps K] [--warmup W]
 *                                         R rounds; each times a cudaMemcpy device-to-device of
 *                                         n elements (cuda_memcpy_ms(): median of K after 2
 *                                         untimed), the student's VARIANT and the reference's
 *                                         (median of K launches each after W untimed ones, the
 *                                         order of the two alternating from round to round), then
 *                                         both outputs once more. Before every launch the output
 *                                         is poisoned, and after it (outside the timing) a kernel
 *                                         of this file checks every element against the input
 *                                         (scan_check.h: no reference array exists in this
 *                                         process) and counts the launches that were wrong:
 *                                         a launcher that skips its work on some calls (a call
 *                                         counter) is seen, whichever calls it skips. grade.py
 *                                         draws n, R, K and W from a secret for each run.
 *                                         Says one verdict `speed: key=value ...`.
 *   harness --big N [--variant A,B]       the n > 2^31 case: every variant (or those) scans N
 *                                         elements in place on the GPU (inclusive for the first,
 *                                         exclusive for the next, and so on), the input from
 *                                         vector_gen.h made and copied up 64 MiB at a time, the
 *                                         output copied back and checked as a stream against
 *                                         the vector made again: the host holds 64 MiB, not n.
 *                                         Says `big: ...` per variant; `big: not run here:
 *                                         ...` (exit 0) when the GPU lacks the memory.
 * The verdicts are lines only the grader's token makes believable, and the seed is this run's,
 * from the grader (verdict.h). Exit status: 0 passed (or measured and
 * right), 1 a result was wrong, 2 bad usage, 3 CUDA trouble (docs/CONVENTIONS.md §4).
 */
#include "battery_sizes.h"
#include "scan_check.h"
#include "cli.h"
#include "cuda_util.h"
#include "data.h"
#include "gpu_driver.h"
#include "io.h"
#include "report.h"
#include "vector_gen.h"
#include "verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" int student_main(int argc, char **argv);
extern "C" int ref_main(int argc, char **argv);

/** What the harness was asked to do. */
typedef struct harness_request {
    int speed;               /**< 1: --speed, 0: --in-place */
    size_t big;              /**< --big N: the n > 2^31 case (0: not asked) */
    const char *variant;     /**< --speed's variant, or --big's (NULL: every variant) */
    size_t n;                /**< -n (0: the default) */
    int rounds;              /**< --rounds */
    int reps;                /**< --reps */
    int warmup;              /**< --warmup */
    uint64_t seed;           /**< this run's seed from the grader, or the course's default */
    const gpu_chapter *student; /**< the student's chapter, once its main() has called in */
} harness_request;

static harness_request g_request;

/** One variant's scratch: zeroed once if the variant keeps state there, else poisoned before
    every run (gpu_chapter::temp_is_state). */
typedef struct scratch {
    void *d;       /**< device scratch, or NULL */
    size_t bytes;  /**< its size */
} scratch;

static scratch scratch_for(const gpu_chapter *ch, int v, size_t n)
{
    scratch s = {NULL, ch->temp_bytes ? ch->temp_bytes(v, n) : 0};
    if (s.bytes) {
        CUDA_CHECK(cudaMalloc(&s.d, s.bytes));
        CUDA_CHECK(cudaMemset(s.d, 0, s.bytes));
    }
    return s;
}

static void scratch_before_run(const gpu_chapter *ch, int v, const scratch *s)
{
    if (s->bytes && !(ch->temp_is_state >> v & 1u))
        CUDA_CHECK(cudaMemset(s->d, POISON_BYTE, s->bytes));
}

/** `--in-place`: every variant with d_out == d_in. */
static int in_place(const gpu_chapter *ch, const harness_request *rq)
{
    size_t sizes[IN_PLACE_MAX_SIZES], largest = 0;
    const size_t limit = rq->n ? rq->n : (size_t)-1;
    const int count = in_place_sizes(ch->tile, limit, sizes);
    for (int i = 0; i < count; ++i)
        largest = sizes[i] > largest ? sizes[i] : largest;
    int32_t *in = (int32_t *)xmalloc(largest * sizeof(int32_t), "the input");
    int32_t *out = (int32_t *)xmalloc(largest * sizeof(int32_t), "the output");
    int32_t *d_buf = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_buf, (largest ? largest : 1) * sizeof(int32_t)));
    printf("in-place battery of %s: %d sizes up to %zu, 4 patterns, inclusive and exclusive, "
           "every variant\n", ch->prog.name, count, largest);
    /* the plan the judge holds the run to (its sizes from the tile, as here) */
    judge_claim("plan tile=%zu variants=%d repeats=%d", ch->tile, ch->prog.variant_count,
                ch->repeats);
    for (int v = 0; v < ch->prog.variant_count; ++v) {
        scratch s = scratch_for(ch, v, largest);
        for (int i = 0; i < count; ++i) {
            const size_t n = sizes[i];
            for (int p = 0; p < PATTERN_COUNT; ++p) {
                generate_input(in, n, (data_pattern)p, rq->seed);
                for (int exclusive = 0; exclusive <= 1; ++exclusive) {
                    for (int r = 0; r < ch->repeats; ++r) {
                        CUDA_CHECK(cudaMemcpy(d_buf, in, n * sizeof(int32_t),
                                              cudaMemcpyHostToDevice));
                        scratch_before_run(ch, v, &s);
                        ch->scan(v, d_buf, d_buf, n, exclusive, s.d, s.bytes);
                        CUDA_CHECK_LAUNCH();
                        CUDA_CHECK(cudaMemcpy(out, d_buf, n * sizeof(int32_t),
                                              cudaMemcpyDeviceToHost));
                        /* to the judge, which prints what was wrong at the end */
                        char what[160];
                        snprintf(what, sizeof what, "in place: n=%zu pattern=%s variant=%s %s", n,
                                 pattern_name((data_pattern)p), ch->prog.variants[v],
                                 exclusive ? "exclusive" : "inclusive");
                        judge_case_out(what, v, p, exclusive, out, n, 0, 0);
                    }
                }
            }
        }
        CUDA_CHECK(cudaFree(s.d));
    }
    CUDA_CHECK(cudaFree(d_buf));
    free(in);
    free(out);
    return EXIT_OK; /* the judge's verdict decides */
}

/** Elements made, copied and checked at a time in the n > 2^31 case (64 MiB). */
#define BIG_CHUNK ((size_t)1 << 24)

/** 1 if `name` is one of the comma-separated names of `list`. */
static int in_list(const char *list, const char *name)
{
    const size_t len = strlen(name);
    for (const char *at = list; (at = strstr(at, name)) != NULL; at += len)
        if ((at == list || at[-1] == ',') && (at[len] == ',' || at[len] == '\0'))
            return 1;
    return 0;
}

/** `--big N`: the n > 2^31 case, in place, every variant (or those --variant names, comma
    separated), checked as a stream; the host holds BIG_CHUNK elements at a time. */
static int big_case(const gpu_chapter *ch, const harness_request *rq)
{
    const size_t n = rq->big;
    const uint64_t key = grade_vector_key(rq->seed, n);
    int32_t *host = (int32_t *)xmalloc(BIG_CHUNK * sizeof(int32_t), "the chunk");
    int32_t *d_buf = NULL;
    int status = EXIT_OK, ran = 0;
    for (int v = 0; v < ch->prog.variant_count; ++v) {
        if (rq->variant && !in_list(rq->variant, ch->prog.variants[v]))
            continue;
        const int exclusive = ran++ % 2;
        const size_t scratch_bytes = ch->temp_bytes ? ch->temp_bytes(v, n) : 0;
        const double need = (double)n * sizeof(int32_t) + (double)scratch_bytes;
        if (!d_buf && need > 0.95 * (double)cuda_free_bytes()) {
            judge_claim("big: not run here: n = %zu needs %.1f GiB of GPU memory, %.1f GiB free",
                        n, need / (1 << 30), (double)cuda_free_bytes() / (1 << 30));
            free(host);
            return EXIT_OK;
        }
        if (!d_buf)
            CUDA_CHECK(cudaMalloc((void **)&d_buf, n * sizeof(int32_t)));
        for (size_t first = 0; first < n; first += BIG_CHUNK) {
            const size_t k = n - first < BIG_CHUNK ? n - first : BIG_CHUNK;
#pragma omp parallel for schedule(static)
            for (long long i = 0; i < (long long)k; ++i)
                host[i] = grade_vector_at(key, first + (size_t)i);
            CUDA_CHECK(cudaMemcpy(d_buf + first, host, k * sizeof(int32_t),
                                  cudaMemcpyHostToDevice));
        }
        scratch s = scratch_for(ch, v, n);
        scratch_before_run(ch, v, &s);
        ch->scan(v, d_buf, d_buf, n, exclusive, s.d, s.bytes);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaFree(s.d));
        /* the output, a chunk at a time, to the judge (verdict.h), which checks it as a stream */
        judge_out_begin(ch->prog.variants[v], v, JUDGE_VECTOR, exclusive, n);
        for (size_t first = 0; first < n; first += BIG_CHUNK) {
            const size_t k = n - first < BIG_CHUNK ? n - first : BIG_CHUNK;
            CUDA_CHECK(cudaMemcpy(host, d_buf + first, k * sizeof(int32_t),
                                  cudaMemcpyDeviceToHost));
            judge_out_data(first, k, host);
        }
        const judge_result r = judge_out_end(0);
        printf("big: n = %zu, variant %s, %s, in place: %zu elements wrong (the judge's verdict "
               "follows)\n", n, ch->prog.variants[v], exclusive ? "exclusive" : "inclusive",
               r.wrong);
        if (!r.judged || r.wrong)
            status = EXIT_WRONG;
    }
    if (d_buf)
        CUDA_CHECK(cudaFree(d_buf));
    free(host);
    if (!ran)
        cli_fail(EXIT_USAGE, "--big: no variant %s in %s", rq->variant ? rq->variant : "",
                 ch->prog.name);
    return status;
}

/** The index of variant `name` in `ch`, or -1. */
static int variant_index(const gpu_chapter *ch, const char *name)
{
    for (int v = 0; v < ch->prog.variant_count; ++v)
        if (strcmp(ch->prog.variants[v], name) == 0)
            return v;
    return -1;
}

/** One launcher to time: a chapter, its variant, its own scratch. */
typedef struct timed {
    const gpu_chapter *ch; /**< the chapter */
    int v;                 /**< its variant */
    scratch s;             /**< its scratch */
} timed;

/**
 * Check every element of `out` against `in` (scan_element_right(): no reference array, which a
 * student's kernel in this process could read): each block that finds a wrong element adds 1
 * to `*wrong`, so `*wrong` stays 0 only while every launch checked was right in every element.
 */
__global__ void count_wrong(const int32_t *out, const int32_t *in, size_t n, size_t segment,
                            unsigned long long *wrong)
{
    int differs = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        differs |= !scan_element_right(in, out, i, segment);
    if (__syncthreads_or(differs) && threadIdx.x == 0)
        atomicAdd(wrong, 1ull);
}

/** Blocks of count_wrong(): enough to read the output at full speed, few enough to be cheap. */
#define CHECK_BLOCKS 1024
#define CHECK_THREADS 256

/**
 * Median ms of `reps` launches of `t` (after `warmup` untimed ones), each between two events.
 * The output is poisoned before every launch (outside the events), and every launch's output,
 * the untimed ones too, is checked against the input on the GPU after the stop event (outside
 * the timing): `*d_wrong` counts the blocks of count_wrong() that saw a wrong element. A launcher
 * that skipped its work on some calls, because the output already held the answer or because a
 * counter said so, is timed doing nothing on those calls and is caught here, not scored.
 */
static double time_launch(const timed *t, const int32_t *d_in, int32_t *d_out, size_t n,
                          int warmup, int reps, size_t segment, unsigned long long *d_wrong)
{
    cudaEvent_t start, stop;
    double *ms = (double *)xmalloc((size_t)reps * sizeof(double), "the timings");
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int r = -warmup; r < reps; ++r) {
        CUDA_CHECK(cudaMemsetAsync(d_out, POISON_BYTE, n * sizeof(int32_t), 0));
        CUDA_CHECK(cudaEventRecord(start, 0));
        t->ch->scan(t->v, d_in, d_out, n, 0, t->s.d, t->s.bytes);
        CUDA_CHECK(cudaEventRecord(stop, 0));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK_LAUNCH();
        count_wrong<<<CHECK_BLOCKS, CHECK_THREADS>>>(d_out, d_in, n, segment, d_wrong);
        CUDA_CHECK_LAUNCH();
        float f;
        CUDA_CHECK(cudaEventElapsedTime(&f, start, stop));
        if (r >= 0)
            ms[r] = f;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    const double m = median(ms, reps);
    free(ms);
    return m;
}

/** Run `t` once on a poisoned output and show every element to the judge: 1 if right. */
static int output_right(const timed *t, const int32_t *d_in, int32_t *d_out, int32_t *out,
                        size_t n, const char *who)
{
    CUDA_CHECK(cudaMemset(d_out, POISON_BYTE, n * sizeof(int32_t)));
    scratch_before_run(t->ch, t->v, &t->s);
    t->ch->scan(t->v, d_in, d_out, n, 0, t->s.d, t->s.bytes);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(out, d_out, n * sizeof(int32_t), cudaMemcpyDeviceToHost));
    const judge_result r = judge_case_out(who, t->v, PATTERN_RANDOM, 0, out, n, 0, 1);
    return r.judged && r.wrong == 0;
}

/** `--speed`: R interleaved rounds of memcpy, student and reference, then a check of both. */
static int speed(const gpu_chapter *student, const gpu_chapter *reference,
                 const harness_request *rq)
{
    const int vs = variant_index(student, rq->variant), vr = variant_index(reference, rq->variant);
    if (vs < 0 || vr < 0)
        cli_fail(EXIT_USAGE, "--speed %s: no such variant in %s", rq->variant, student->prog.name);
    size_t n = rq->n ? rq->n : (size_t)1 << 26;
    const double need = 2.0 * (double)n * sizeof(int32_t) +
                        (double)(student->temp_bytes ? student->temp_bytes(vs, n) : 0) +
                        (double)(reference->temp_bytes ? reference->temp_bytes(vr, n) : 0);
    if (need > 0.9 * (double)cuda_free_bytes())
        cli_fail(EXIT_USAGE, "--speed -n %zu needs %.2f GiB of GPU memory; try a smaller -n", n,
                 need / (1 << 30));
    int32_t *in = (int32_t *)xmalloc(n * sizeof(int32_t), "the input");
    int32_t *out = (int32_t *)xmalloc(n * sizeof(int32_t), "the output");
    generate_input(in, n, PATTERN_RANDOM, rq->seed);
    int32_t *d_in = NULL, *d_out = NULL;
    unsigned long long *d_wrong = NULL; /* [0]: the student's launches, [1]: the reference's */
    CUDA_CHECK(cudaMalloc((void **)&d_in, n * sizeof(int32_t)));
    CUDA_CHECK(cudaMalloc((void **)&d_out, n * sizeof(int32_t)));
    CUDA_CHECK(cudaMalloc((void **)&d_wrong, 2 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemcpy(d_in, in, n * sizeof(int32_t), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_wrong, 0, 2 * sizeof(unsigned long long)));
    timed t[2] = {{student, vs, scratch_for(student, vs, n)},
                  {reference, vr, scratch_for(reference, vr, n)}};
    scratch_before_run(t[0].ch, t[0].v, &t[0].s);
    scratch_before_run(t[1].ch, t[1].v, &t[1].s);
    double *copy = (double *)xmalloc((size_t)rq->rounds * sizeof(double), "the timings");
    double *ratio = (double *)xmalloc((size_t)rq->rounds * sizeof(double), "the timings");
    double *share_s = (double *)xmalloc((size_t)rq->rounds * sizeof(double), "the timings");
    double *share_r = (double *)xmalloc((size_t)rq->rounds * sizeof(double), "the timings");
    for (int round = 0; round < rq->rounds; ++round) {
        double ms[2];
        copy[round] = cuda_memcpy_ms(d_out, d_in, n * sizeof(int32_t), rq->reps);
        for (int k = 0; k < 2; ++k) {
            const int which = (round + k) % 2; /* the student first in even rounds */
            ms[which] = time_launch(&t[which], d_in, d_out, n, rq->warmup, rq->reps,
                                    student->prog.segment, d_wrong + which);
        }
        share_s[round] = 100.0 * copy[round] / ms[0];
        share_r[round] = 100.0 * copy[round] / ms[1];
        ratio[round] = share_s[round] / share_r[round];
        printf("round %d: memcpy %.2f us, student %.2f us (%.1f %% of memcpy), reference %.2f us "
               "(%.1f %%)\n", round, copy[round] * 1e3, ms[0] * 1e3, share_s[round],
               ms[1] * 1e3, share_r[round]);
    }
    unsigned long long wrong[2];
    CUDA_CHECK(cudaMemcpy(wrong, d_wrong, sizeof wrong, cudaMemcpyDeviceToHost));
    const int right_s = output_right(&t[0], d_in, d_out, out, n, "speed/student") && wrong[0] == 0;
    const int right_r = output_right(&t[1], d_in, d_out, out, n, "speed/reference") &&
                        wrong[1] == 0;
    const long checked = (long)rq->rounds * (rq->warmup + rq->reps);
    double lo = copy[0], hi = copy[0];
    for (int r = 1; r < rq->rounds; ++r) {
        lo = copy[r] < lo ? copy[r] : lo;
        hi = copy[r] > hi ? copy[r] : hi;
    }
    const double copy_median = median(copy, rq->rounds);
    /* the timings and the launch counts are this process's word; the judge adds whether the
       outputs it checked were right (judge_verdicts()) */
    judge_claim("speed: n=%zu variant=%s rounds=%d reps=%d warmup=%d student_pct=%.2f "
            "reference_pct=%.2f ratio=%.4f memcpy_us=%.2f memcpy_spread_pct=%.2f claimed_right=%d,"
            "%d launches_checked=%ld student_wrong_blocks=%llu reference_wrong_blocks=%llu",
           n, rq->variant, rq->rounds, rq->reps, rq->warmup, median(share_s, rq->rounds),
           median(share_r, rq->rounds), median(ratio, rq->rounds), copy_median * 1e3,
           100.0 * (hi - lo) / copy_median, right_s, right_r, checked, wrong[0], wrong[1]);
    CUDA_CHECK(cudaFree(t[0].s.d));
    CUDA_CHECK(cudaFree(t[1].s.d));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_wrong));
    free(in);
    free(out);
    free(copy);
    free(ratio);
    free(share_s);
    free(share_r);
    return right_s && right_r ? EXIT_OK : EXIT_WRONG;
}

/** Called by each chapter's main(): the student's first, then (for --speed) the reference's. */
extern "C" int gpu_chapter_main(int argc, char **argv, const gpu_chapter *ch)
{
    (void)argc;
    (void)argv;
    if (!g_request.student) {
        g_request.student = ch;
        cudaDeviceProp props;
        char line[256];
        cuda_init_device(&props);
        printf("%s\n", cuda_device_line(&props, line, sizeof line));
        if (g_request.big)
            return big_case(ch, &g_request);
        if (!g_request.speed)
            return in_place(ch, &g_request);
        char name[] = "run";
        char *args[] = {name, NULL};
        return ref_main(1, args); /* calls back with the reference chapter */
    }
    return speed(g_request.student, ch, &g_request);
}

/** Parse a whole number option, or fail with exit 2. */
static size_t whole(const char *option, const char *text)
{
    char err[256];
    size_t v = 0;
    if (cli_parse_size(text, &v, err, sizeof err))
        cli_fail(EXIT_USAGE, "%s: %s", option, err);
    return v;
}

int main(int argc, char **argv)
{
    g_request.rounds = 7;
    g_request.reps = 20;
    g_request.warmup = 3;
    g_request.seed = run_seed();
    int mode_given = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--in-place") == 0) {
            mode_given = 1;
        } else if (strcmp(argv[i], "--speed") == 0 && i + 1 < argc) {
            g_request.speed = mode_given = 1;
            g_request.variant = argv[++i];
        } else if (strcmp(argv[i], "--big") == 0 && i + 1 < argc) {
            g_request.big = whole("--big", argv[++i]);
            mode_given = g_request.big > 0;
        } else if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc) {
            g_request.variant = argv[++i];
        } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            g_request.n = whole("-n", argv[++i]);
        } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
            g_request.rounds = (int)whole("--rounds", argv[++i]);
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            g_request.reps = (int)whole("--reps", argv[++i]);
        } else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc) {
            g_request.warmup = (int)whole("--warmup", argv[++i]);
        } else {
            cli_fail(EXIT_USAGE, "usage: harness --in-place [-n N] | --speed VARIANT [-n N] "
                     "[--rounds R] [--reps K] [--warmup W] | --big N [--variant NAME]");
        }
    }
    if (!mode_given || g_request.rounds < 1 || g_request.reps < 1 || g_request.warmup < 0 ||
        g_request.rounds > 1000 || g_request.reps > 1000 || g_request.warmup > 1000)
        cli_fail(EXIT_USAGE, "usage: harness --in-place [-n N] | --speed VARIANT [-n N] "
                 "[--rounds R] [--reps K] [--warmup W] (R, K from 1, W from 0, each at most 1000)");
    char name[] = "run";
    char *args[] = {name, NULL};
    return student_main(1, args);
}

/* ------------------------------------------------------------------------------------------ */
/* The judge (verdict.h): never initialises CUDA; checks what the child shows it, then says     */
/* ------------------------------------------------------------------------------------------ */

static void judge_before(judge_box *box, int argc, char **argv)
{
    (void)box;
    (void)argc;
    (void)argv;
}

static int judge_serve(judge_box *box, int argc, char **argv)
{
    (void)box;
    (void)argc;
    (void)argv;
    return 0;
}

/** The value of option `name` in argv, or NULL. */
static const char *judge_option(int argc, char **argv, const char *name)
{
    for (int i = 1; i + 1 < argc; ++i)
        if (strcmp(argv[i], name) == 0)
            return argv[i + 1];
    return NULL;
}

static int judge_verdicts(const judge_case *log, int cases, char claims[][512], int claim_count,
                          int child_status, const char *ended, int argc, char **argv)
{
    /* usage and CUDA trouble keep their exit status (docs/CONVENTIONS.md §4) */
    const int trouble = WIFEXITED(child_status) && (WEXITSTATUS(child_status) == EXIT_USAGE ||
                                                   WEXITSTATUS(child_status) == EXIT_CUDA)
                            ? WEXITSTATUS(child_status) : 0;
    const char *big = judge_option(argc, argv, "--big");
    const char *speed = judge_option(argc, argv, "--speed");
    if (big) {
        const size_t n = (size_t)strtoull(big, NULL, 10);
        for (int k = 0; k < claim_count; ++k)
            if (strncmp(claims[k], "big: not run here: ", 19) == 0) {
                verdict("%s", claims[k]); /* the program's word: the judge cannot ask the GPU */
                return trouble ? trouble : EXIT_OK;
            }
        const char *list = judge_option(argc, argv, "--variant");
        int asked = 0;
        for (const char *p = list; p && *p; ++p)
            asked += p == list || p[-1] == ',';
        int status = EXIT_OK;
        for (int k = 0; k < cases; ++k) {
            const judge_case *c = &log[k];
            const char *how = c->exclusive ? "exclusive" : "inclusive";
            if (c->n == n && c->pattern == JUDGE_VECTOR && c->exclusive == k % 2 &&
                judge_right(c)) {
                verdict("big: n = %zu, variant %s, %s, in place: right", n, c->label, how);
                continue;
            }
            status = EXIT_WRONG;
            if (c->wrong && c->covered == c->n)
                verdict("big: n = %zu, variant %s, %s, in place: WRONG: %zu of %zu elements "
                        "wrong; the first at index %zu: expected %d, got %d", n, c->label, how,
                        c->wrong, n, c->first_wrong, c->want, c->got);
            else
                verdict("big: n = %zu, variant %s, %s, in place: WRONG: the judge saw an "
                        "incomplete output or one not asked for (%s)", n, c->label, how, ended);
        }
        if (!cases || (asked && cases != asked)) {
            verdict("big: n = %zu: WRONG: the judge saw %d outputs, not the %d asked for (%s)", n,
                    cases, asked ? asked : 1, ended);
            status = EXIT_WRONG;
        }
        return trouble ? trouble : status;
    }
    if (speed) {
        const char *claim = NULL;
        for (int k = 0; k < claim_count; ++k)
            if (strncmp(claims[k], "speed: ", 7) == 0)
                claim = claim ? "" : claims[k];
        if (!claim || !*claim || cases != 2)
            return trouble ? trouble : EXIT_WRONG; /* no verdict: the grader scores none */
        const char *said = strstr(claim, " claimed_right=");
        int cs = 0, cr = 0;
        if (said)
            sscanf(said, " claimed_right=%d,%d", &cs, &cr);
        const size_t n = (size_t)strtoull(claim + 9, NULL, 10); /* "speed: n=" */
        const int right_s = cs == 1 && log[0].n == n && log[0].pattern == PATTERN_RANDOM &&
                            strcmp(log[0].label, "speed/student") == 0 && judge_right(&log[0]);
        const int right_r = cr == 1 && log[1].n == n && log[1].pattern == PATTERN_RANDOM &&
                            strcmp(log[1].label, "speed/reference") == 0 && judge_right(&log[1]);
        char text[512];
        snprintf(text, sizeof text, "%.*s%s", said ? (int)(said - claim) : (int)strlen(claim),
                 claim, said ? strchr(said + 1, ' ') ? strchr(said + 1, ' ') : "" : "");
        verdict("%s student_right=%d reference_right=%d", text, right_s, right_r);
        return trouble ? trouble : right_s && right_r ? EXIT_OK : EXIT_WRONG;
    }
    /* --in-place: the plan the program announced (its tile, variants and repeats: its word),
       every case of it, in order, checked against the judge's own reference */
    size_t tile = 0;
    int variants = 0, repeats = 0;
    for (int k = 0; k < claim_count; ++k)
        sscanf(claims[k], "plan tile=%zu variants=%d repeats=%d", &tile, &variants, &repeats);
    const char *lim = judge_option(argc, argv, "-n");
    const size_t limit = lim ? (size_t)strtoull(lim, NULL, 10) : (size_t)-1;
    size_t sizes[IN_PLACE_MAX_SIZES];
    const int count = in_place_sizes(tile, limit, sizes);
    long passed = 0, failed = 0;
    int at = 0;
    if (variants < 1 || variants > 64 || repeats < 1 || repeats > 100)
        failed = 1;
    for (int v = 0; !failed && v < variants; ++v)
        for (int i = 0; i < count; ++i)
            for (int p = 0; p < PATTERN_COUNT; ++p)
                for (int e = 0; e <= 1; ++e)
                    for (int r = 0; r < repeats; ++r, ++at) {
                        const judge_case *c = at < cases ? &log[at] : NULL;
                        if (c && c->n == sizes[i] && c->pattern == p && c->exclusive == e &&
                            c->variant == v && judge_right(c))
                            ++passed;
                        else
                            ++failed;
                    }
    if (cases > at)
        failed += cases - at;
    verdict("in place %s: %ld passed, %ld failed", failed ? "FAILED" : "passed", passed, failed);
    return trouble ? trouble : failed ? EXIT_WRONG : EXIT_OK;
}
