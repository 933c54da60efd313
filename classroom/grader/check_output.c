/**
 * \file check_output.c
 * \brief The grader's own check of a hidden vector's output: every element, read as a stream.
 *
 *     check_output gen SEED N FILE                          write the hidden vector (SEED, N)
 *     check_output scan-seed SEED N OUTPUT inclusive|exclusive [SEGMENT]
 *     check_output sort-seed SEED N OUTPUT
 *     check_output scan INPUT OUTPUT inclusive|exclusive [SEGMENT]
 *     check_output sort INPUT OUTPUT
 *
 * The vectors come from vector_gen.h; `scan-seed` and `sort-seed` check an output against the
 * vector made again as they read, so a program that changed its input file gains nothing (the
 * grader never reads that file back), and in place needs no copy of the input.
 * `scan`: OUTPUT must be the inclusive or exclusive scan of the int32 input, sums wrapping
 * modulo 2^32, every SEGMENT elements scanned on their own when SEGMENT is given (chapters 02 and
 * 03). The files are read in chunks, so memory stays a few MiB whatever n is.
 * `sort`: OUTPUT must be the radix sort assignment's: the n uint32 keys of the input sorted,
 * then n values, each the key's index in the input, equal keys in their input order. That
 * output is unique, and it is exactly what these checks accept: keys non-decreasing, each value
 * a new index below n with input[value] equal to its key, and values increasing along equal
 * keys. It holds the input and one bit per element in memory (4.125 bytes per key).
 *
 * Exit status: 0 right (or written); 1 wrong, with the first wrong element and the count on
 * stdout; 2 a file that cannot be read or written, or a bad command line (the grader counts it
 * as wrong too).
 * It is host C with no part of the course in it, so that a student's code and the grader's
 * check share nothing.
 */
#define _POSIX_C_SOURCE 200809L /* fseeko, ftello */
#define _FILE_OFFSET_BITS 64

#include "vector_gen.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

enum { CHUNK = 1 << 20 };

static int fail(const char *what, const char *path)
{
    printf("check_output: %s: %s\n", what, path);
    return 2;
}

/** The size of an open file in bytes, or -1. */
static long long file_size(FILE *f)
{
    if (fseeko(f, 0, SEEK_END) != 0)
        return -1;
    long long size = (long long)ftello(f);
    rewind(f);
    return size;
}

/** Where the input comes from: a file, or the generator (vector_gen.h). */
typedef struct input {
    FILE *file;   /**< the input file, or NULL */
    uint64_t key; /**< the vector's key when file is NULL */
    long long at; /**< the next element */
} input;

/** Read the next k elements of the input into a: 1 if they were there. */
static int input_read(input *in, int32_t *a, size_t k)
{
    if (in->file)
        return fread(a, 4, k, in->file) == k;
    for (size_t i = 0; i < k; ++i)
        a[i] = grade_vector_at(in->key, (uint64_t)in->at + i);
    in->at += (long long)k;
    return 1;
}

static int check_scan(input *in, FILE *out, long long n, int exclusive, long long segment)
{
    static int32_t a[CHUNK], b[CHUNK];
    uint32_t sum = 0;
    long long wrong = 0, first = -1;
    int32_t first_want = 0, first_got = 0;
    for (long long done = 0; done < n;) {
        size_t k = (size_t)(n - done < CHUNK ? n - done : CHUNK);
        if (!input_read(in, a, k) || fread(b, 4, k, out) != k) {
            printf("check_output: a read failed at element %lld\n", done);
            return 2;
        }
        for (size_t i = 0; i < k; ++i) {
            long long at = done + (long long)i;
            if (segment > 0 && at % segment == 0)
                sum = 0;
            uint32_t x = (uint32_t)a[i];
            int32_t want = (int32_t)(exclusive ? sum : sum + x);
            sum += x;
            if (b[i] != want) {
                if (first < 0) {
                    first = at;
                    first_want = want;
                    first_got = b[i];
                }
                ++wrong;
            }
        }
        done += (long long)k;
    }
    if (wrong == 0)
        return 0;
    printf("%lld of %lld elements wrong; the first at index %lld: expected %d, got %d\n", wrong, n,
           first, first_want, first_got);
    return 1;
}

static int check_sort(input *in, FILE *out, long long n)
{
    static uint32_t keys[CHUNK], values[CHUNK];
    uint32_t *input = malloc((size_t)(n ? n : 1) * 4);
    unsigned char *seen = calloc((size_t)(n / 8 + 1), 1);
    int status = 2;
    if (!input || !seen) {
        printf("check_output: out of memory for %lld keys\n", n);
        goto done;
    }
    if (!input_read(in, (int32_t *)input, (size_t)n)) {
        printf("check_output: the input could not be read\n");
        goto done;
    }
    long long wrong = 0, first = -1;
    char why[200] = "";
    uint32_t last_key = 0, last_value = 0;
    for (long long done = 0; done < n;) {
        size_t k = (size_t)(n - done < CHUNK ? n - done : CHUNK);
        if (fseeko(out, (off_t)(done * 4), SEEK_SET) != 0 || fread(keys, 4, k, out) != k ||
            fseeko(out, (off_t)((n + done) * 4), SEEK_SET) != 0 || fread(values, 4, k, out) != k) {
            printf("check_output: a read failed at element %lld\n", done);
            goto done;
        }
        for (size_t i = 0; i < k; ++i) {
            long long at = done + (long long)i;
            uint32_t key = keys[i], v = values[i];
            const char *bad = NULL;
            if ((long long)v >= n)
                bad = "its value is not an index of the input";
            else if (seen[v / 8] & (1u << (v % 8)))
                bad = "its value appears twice (the values are not a permutation)";
            else if (input[v] != key)
                bad = "its key is not input[value]";
            else if (at > 0 && key < last_key)
                bad = "its key is smaller than the one before (not sorted)";
            else if (at > 0 && key == last_key && v < last_value)
                bad = "equal keys out of their input order (not stable)";
            if ((long long)v < n)
                seen[v / 8] |= (unsigned char)(1u << (v % 8));
            if (bad) {
                if (first < 0) {
                    first = at;
                    snprintf(why, sizeof why, "key %u, value %u: %s", key, v, bad);
                }
                ++wrong;
            }
            last_key = key;
            last_value = v;
        }
        done += (long long)k;
    }
    if (wrong == 0) {
        status = 0;
    } else {
        printf("%lld of %lld elements wrong; the first at index %lld: %s\n", wrong, n, first, why);
        status = 1;
    }
done:
    free(input);
    free(seen);
    return status;
}

/** `gen SEED N FILE`: the hidden vector, written 1 Mi elements at a time. */
static int generate(uint64_t seed, long long n, const char *path)
{
    static int32_t a[CHUNK];
    FILE *f = fopen(path, "wb");
    if (!f)
        return fail("cannot write", path);
    input in = {NULL, grade_vector_key(seed, (uint64_t)n), 0};
    for (long long done = 0; done < n;) {
        size_t k = (size_t)(n - done < CHUNK ? n - done : CHUNK);
        input_read(&in, a, k);
        if (fwrite(a, 4, k, f) != k) {
            fclose(f);
            return fail("a write failed", path);
        }
        done += (long long)k;
    }
    return fclose(f) == 0 ? 0 : fail("a write failed", path);
}

/** A whole number argument, or -1. */
static long long whole(const char *text)
{
    char *end = NULL;
    long long v = strtoll(text, &end, 10);
    return text[0] && *end == '\0' && v >= 0 ? v : -1;
}

static int usage(void)
{
    fprintf(stderr, "usage: check_output gen SEED N FILE | scan-seed SEED N OUT inclusive|exclusive "
                    "[SEGMENT] | sort-seed SEED N OUT | scan IN OUT inclusive|exclusive [SEGMENT] "
                    "| sort IN OUT\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    const int seeded = strcmp(mode, "scan-seed") == 0 || strcmp(mode, "sort-seed") == 0;
    if (strcmp(mode, "gen") == 0) {
        if (argc != 5 || whole(argv[2]) < 0 || whole(argv[3]) < 0)
            return usage();
        return generate((uint64_t)whole(argv[2]), whole(argv[3]), argv[4]);
    }
    /* the arguments after the input: OUT [inclusive|exclusive [SEGMENT]] */
    const int first = seeded ? 4 : 3;
    const int sort = strcmp(mode, "sort") == 0 || strcmp(mode, "sort-seed") == 0;
    const int scan = strcmp(mode, "scan") == 0 || strcmp(mode, "scan-seed") == 0;
    if (!(sort && argc == first + 1) &&
        !(scan && (argc == first + 2 || argc == first + 3) &&
          (strcmp(argv[first + 1], "inclusive") == 0 || strcmp(argv[first + 1], "exclusive") == 0)))
        return usage();
    input in = {NULL, 0, 0};
    long long n;
    if (seeded) {
        n = whole(argv[3]);
        if (whole(argv[2]) < 0 || n < 0)
            return usage();
        in.key = grade_vector_key((uint64_t)whole(argv[2]), (uint64_t)n);
    } else {
        in.file = fopen(argv[2], "rb");
        if (!in.file)
            return fail("cannot open the input", argv[2]);
        long long in_bytes = file_size(in.file);
        if (in_bytes < 0 || in_bytes % 4 != 0)
            return fail("the input is not a whole number of int32", argv[2]);
        n = in_bytes / 4;
    }
    FILE *out = fopen(argv[first], "rb");
    if (!out)
        return fail("cannot open the output (was it written?)", argv[first]);
    long long out_bytes = file_size(out), want = sort ? 8 * n : 4 * n;
    if (out_bytes != want) {
        printf("the output has %lld bytes; %lld elements need %lld\n", out_bytes, n, want);
        return 1;
    }
    int status = sort ? check_sort(&in, out, n)
                      : check_scan(&in, out, n, strcmp(argv[first + 1], "exclusive") == 0,
                                   argc == first + 3 ? atoll(argv[first + 2]) : 0);
    if (in.file)
        fclose(in.file);
    fclose(out);
    return status;
}
