/**
 * \file test_common.c
 * \brief Host unit tests of every common/ helper: the command line (good and bad input), sizes,
 *        references on hand-checked vectors, input patterns, the verifier (with planted wrong
 *        elements), file I/O, reporting arithmetic, and the self-test driver run against
 *        deliberately broken scans, and the `--input/--output` mode against them.
 *
 * Prints one line per failed check and a summary; exits 1 if any check failed.
 */
#define _POSIX_C_SOURCE 200809L /* setenv(); flock() comes with sys/file.h */

#include "cli.h"
#include "data.h"
#include "io.h"
#include "report.h"
#include "selftest.h"
#include "check.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/** Folder for the file tests (made by main). */
static char tmpdir[256];

/* ---- command line ---------------------------------------------------------------------------- */

/** Variants of the test program. */
static const char *const TEST_VARIANTS[] = {"alpha", "beta"};
/** Sizes of the test program. */
static const size_t TEST_SIZES[] = {1024};
/** A program description like a chapter's. */
static const scan_program TEST_PROG = {
    .name = "00_test",
    .title = "a test program",
    .variants = TEST_VARIANTS,
    .variant_count = 2,
    .default_sizes = TEST_SIZES,
    .default_size_count = 1,
    .default_reps = 7,
};

/** Parse a NULL-terminated argument list; return cli_parse()'s status, message in err. */
static int parse(scan_options *opt, char *err, const scan_program *prog, const char **args)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)"./run";
    while (*args)
        argv[argc++] = (char *)*args++;
    err[0] = '\0';
    return cli_parse(argc, argv, prog, opt, err, 512);
}

/** 1 if parsing `args` fails with EXIT_USAGE and a message containing `needle`. */
static int parse_fails_with(const char *needle, const char **args)
{
    scan_options opt;
    char err[512];
    int status = parse(&opt, err, &TEST_PROG, args);
    if (status != EXIT_USAGE || !strstr(err, needle)) {
        printf("  parse of '%s ...' gave status %d, message '%s' (wanted '%s')\n", args[0], status,
               err, needle);
        return 0;
    }
    return strchr(err, '\n') == NULL; /* one line */
}

/** cli_parse_size() on good and bad sizes. */
static void test_sizes(void)
{
    size_t v = 0;
    char err[512];
    CHECK(cli_parse_size("0", &v, err, sizeof err) == 0 && v == 0);
    CHECK(cli_parse_size("1000003", &v, err, sizeof err) == 0 && v == 1000003);
    CHECK(cli_parse_size("2^0", &v, err, sizeof err) == 0 && v == 1);
    CHECK(cli_parse_size("2^20", &v, err, sizeof err) == 0 && v == 1048576);
    CHECK(cli_parse_size("2^40", &v, err, sizeof err) == 0 && v == ((size_t)1 << 40));
    CHECK(cli_parse_size("1099511627776", &v, err, sizeof err) == 0 && v == ((size_t)1 << 40));
    CHECK(cli_parse_size("1099511627777", &v, err, sizeof err) == EXIT_USAGE &&
          strstr(err, "too large"));
    CHECK(cli_parse_size("99999999999999999999999", &v, err, sizeof err) == EXIT_USAGE &&
          strstr(err, "too large"));
    CHECK(cli_parse_size("2^41", &v, err, sizeof err) == EXIT_USAGE && strstr(err, "out of range"));
    CHECK(cli_parse_size("2^99999999999999999999", &v, err, sizeof err) == EXIT_USAGE &&
          strstr(err, "out of range"));
    CHECK(cli_parse_size("2^-1", &v, err, sizeof err) == EXIT_USAGE && strstr(err, "out of range"));
    CHECK(cli_parse_size("2^", &v, err, sizeof err) == EXIT_USAGE && strstr(err, "not a size"));
    CHECK(cli_parse_size("2^x", &v, err, sizeof err) == EXIT_USAGE && strstr(err, "not a size"));
    CHECK(cli_parse_size("-5", &v, err, sizeof err) == EXIT_USAGE && strstr(err, "negative"));
    CHECK(cli_parse_size("abc", &v, err, sizeof err) == EXIT_USAGE && strstr(err, "not a size"));
    CHECK(cli_parse_size("12abc", &v, err, sizeof err) == EXIT_USAGE && strstr(err, "not a size"));
    CHECK(cli_parse_size("", &v, err, sizeof err) == EXIT_USAGE && strstr(err, "not a size"));
    CHECK(cli_parse_size(" 12", &v, err, sizeof err) == EXIT_USAGE);
    CHECK(cli_parse_size("+12", &v, err, sizeof err) == EXIT_USAGE);
    CHECK(cli_parse_size("1e6", &v, err, sizeof err) == EXIT_USAGE);
}

/** cli_parse_bytes(), the value of `--device-memory`. */
static void test_bytes(void)
{
    size_t v = 0;
    char err[512];
    CHECK(cli_parse_bytes("--device-memory", "1", &v, err, sizeof err) == 0 && v == 1);
    CHECK(cli_parse_bytes("--device-memory", "1GiB", &v, err, sizeof err) == 0 &&
          v == ((size_t)1 << 30));
    CHECK(cli_parse_bytes("--device-memory", "512MiB", &v, err, sizeof err) == 0 &&
          v == ((size_t)512 << 20));
    CHECK(cli_parse_bytes("--device-memory", "3KiB", &v, err, sizeof err) == 0 && v == 3072);
    CHECK(cli_parse_bytes("--device-memory", "1024TiB", &v, err, sizeof err) == 0 &&
          v == ((size_t)1 << 50));
    CHECK(cli_parse_bytes("--device-memory", "2^30", &v, err, sizeof err) == 0 &&
          v == ((size_t)1 << 30));
    CHECK(cli_parse_bytes("--device-memory", "1025TiB", &v, err, sizeof err) == EXIT_USAGE &&
          strstr(err, "too large") && strstr(err, "--device-memory"));
    CHECK(cli_parse_bytes("--device-memory", "2^51", &v, err, sizeof err) == EXIT_USAGE &&
          strstr(err, "out of range"));
    CHECK(cli_parse_bytes("--device-memory", "0", &v, err, sizeof err) == EXIT_USAGE &&
          strstr(err, "not a size"));
    CHECK(cli_parse_bytes("--device-memory", "1GB", &v, err, sizeof err) == EXIT_USAGE);
    CHECK(cli_parse_bytes("--device-memory", "GiB", &v, err, sizeof err) == EXIT_USAGE);
    CHECK(cli_parse_bytes("--device-memory", "1MiBKiB", &v, err, sizeof err) == EXIT_USAGE);
    CHECK(cli_parse_bytes("--device-memory", "-1GiB", &v, err, sizeof err) == EXIT_USAGE);
    CHECK(cli_parse_bytes("--device-memory", "", &v, err, sizeof err) == EXIT_USAGE);
}

/** cli_parse() on good command lines. */
static void test_cli_good(void)
{
    scan_options opt;
    char err[512];
    const char *none[] = {NULL};
    CHECK(parse(&opt, err, &TEST_PROG, none) == 0);
    CHECK(!opt.n_given && opt.reps == 7 && opt.seed == CLI_DEFAULT_SEED && opt.variant == -1);
    CHECK(!opt.self_test && !opt.exclusive && !opt.csv && !opt.input && !opt.output);

    const char *all[] = {"-n",      "2^10",     "--reps",   "3",        "--seed",     "42",
                         "--csv",   "--exclusive", "--variant", "beta", "--self-test", NULL};
    CHECK(parse(&opt, err, &TEST_PROG, all) == 0);
    CHECK(opt.n_given && opt.n == 1024 && opt.reps == 3 && opt.seed == 42 && opt.csv);
    CHECK(opt.exclusive && opt.variant == 1 && opt.self_test);
    CHECK(cli_variant_selected(&opt, 1) && !cli_variant_selected(&opt, 0));

    const char *eq[] = {"--reps=5", "--variant=all", "--seed=18446744073709551615", NULL};
    CHECK(parse(&opt, err, &TEST_PROG, eq) == 0);
    CHECK(opt.reps == 5 && opt.variant == -1 && opt.seed == UINT64_MAX);
    CHECK(cli_variant_selected(&opt, 0) && cli_variant_selected(&opt, 1));

    const char *files[] = {"--input", "a.bin", "--output", "b.bin", NULL};
    CHECK(parse(&opt, err, &TEST_PROG, files) == 0);
    CHECK(strcmp(opt.input, "a.bin") == 0 && strcmp(opt.output, "b.bin") == 0);

    /* as every GNU tool parses them (getopt_long): a value joined to a short option, long
       options abbreviated while unambiguous, "--" at the end of the options */
    const char *joined[] = {"-n10", "--rep", "4", "--self", "--var=beta", "--ex", "--", NULL};
    CHECK(parse(&opt, err, &TEST_PROG, joined) == 0);
    CHECK(opt.n_given && opt.n == 10 && opt.reps == 4 && opt.self_test && opt.variant == 1 &&
          opt.exclusive);
    const char *spaced[] = {"-n", "2^4", "-h", NULL};
    CHECK(parse(&opt, err, &TEST_PROG, spaced) == 0 && opt.n == 16 && opt.help);
    const char *clustered[] = {"-hn", "7", NULL};
    CHECK(parse(&opt, err, &TEST_PROG, clustered) == 0 && opt.n == 7 && opt.help);
    const char *value_dash[] = {"--seed", "-0", NULL}; /* a value may start with '-' */
    CHECK(parse(&opt, err, &TEST_PROG, value_dash) == EXIT_USAGE && strstr(err, "--seed '-0'"));
    const char *again[] = {"-n5", NULL}; /* a second parse starts afresh (getopt's state reset) */
    CHECK(parse(&opt, err, &TEST_PROG, again) == 0 && opt.n == 5 && !opt.self_test);

    const char *help[] = {"--bogus-after-help-is-still-an-error", "--help", NULL};
    CHECK(parse(&opt, err, &TEST_PROG, help) == EXIT_USAGE);
    const char *help2[] = {"--help", NULL};
    CHECK(parse(&opt, err, &TEST_PROG, help2) == 0 && opt.help);
}

/** The `--help` of `prog` into `text` ("" if it could not be had). */
static void help_text(const scan_program *prog, char *text, size_t len)
{
    FILE *f = tmpfile();
    text[0] = '\0';
    CHECK(f != NULL);
    if (f) {
        cli_print_help(f, prog);
        rewind(f);
        text[fread(text, 1, len - 1, f)] = '\0';
        fclose(f);
    }
}

/** cli_parse() on every kind of bad command line: status 2 and a one-line message. */
static void test_cli_bad(void)
{
    const char *a1[] = {"--bogus", NULL};
    CHECK(parse_fails_with("unknown option '--bogus'", a1));
    const char *a2[] = {"-n", NULL};
    CHECK(parse_fails_with("needs a value", a2));
    const char *a3[] = {"-n", "abc", NULL};
    CHECK(parse_fails_with("not a size", a3));
    const char *a4[] = {"-n", "-5", NULL};
    CHECK(parse_fails_with("negative", a4));
    const char *a5[] = {"-n", "184467440737095516160", NULL};
    CHECK(parse_fails_with("too large", a5));
    const char *a6[] = {"-n", "2^41", NULL};
    CHECK(parse_fails_with("out of range", a6));
    const char *a7[] = {"--reps", NULL};
    CHECK(parse_fails_with("needs a value", a7));
    const char *a8[] = {"--reps", "0", NULL};
    CHECK(parse_fails_with("at least 1", a8));
    const char *a9[] = {"--reps", "-3", NULL};
    CHECK(parse_fails_with("negative", a9));
    const char *a10[] = {"--reps", "ten", NULL};
    CHECK(parse_fails_with("not a number", a10));
    const char *a11[] = {"--reps", "100001", NULL};
    CHECK(parse_fails_with("too large", a11));
    const char *a12[] = {"--seed", "18446744073709551616", NULL};
    CHECK(parse_fails_with("too large", a12));
    const char *a13[] = {"--seed", NULL};
    CHECK(parse_fails_with("needs a value", a13));
    const char *a14[] = {"--variant", "gamma", NULL};
    CHECK(parse_fails_with("unknown variant 'gamma'; this chapter has: alpha, beta, all", a14));
    const char *a15[] = {"--variant", NULL};
    CHECK(parse_fails_with("needs a name", a15));
    const char *a16[] = {"--output", "b.bin", NULL};
    CHECK(parse_fails_with("--output needs --input", a16));
    const char *a17[] = {"--input", "a.bin", "-n", "5", NULL};
    CHECK(parse_fails_with("give one of them", a17));
    const char *a18[] = {"--input", "a.bin", "--self-test", NULL};
    CHECK(parse_fails_with("--self-test makes its own inputs", a18));
    const char *a19[] = {"stray", NULL};
    CHECK(parse_fails_with("unexpected argument 'stray'", a19));
    const char *a20[] = {"--input", NULL};
    CHECK(parse_fails_with("needs a file name", a20));
    const char *a21[] = {"--input=", NULL};
    CHECK(parse_fails_with("needs a file name", a21));
    const char *a22[] = {"--reps5", NULL};
    CHECK(parse_fails_with("unknown option", a22));
    const char *a33[] = {"--s", NULL};
    CHECK(parse_fails_with("option '--s' is ambiguous: it could be --self-test, --seed, "
                           "--stress; write more of it", a33));
    const char *a34[] = {"--se=4", NULL};
    CHECK(parse_fails_with("option '--se' is ambiguous: it could be --self-test, --seed", a34));
    const char *a35[] = {"-n=10", NULL}; /* as head -n=10: the value is "=10" */
    CHECK(parse_fails_with("-n '=10' is not a size", a35));
    const char *a36[] = {"--csv=1", NULL};
    CHECK(parse_fails_with("option '--csv' takes no value; write --csv alone", a36));
    const char *a37[] = {"--cs=1", NULL};
    CHECK(parse_fails_with("option '--csv' takes no value", a37));
    const char *a38[] = {"--", "-n", "5", NULL};
    CHECK(parse_fails_with("unexpected argument '-n'", a38));
    const char *a39[] = {"-x", NULL};
    CHECK(parse_fails_with("unknown option '-x'", a39));
    const char *a40[] = {"--rep", "2", "--reps=3", NULL};
    CHECK(parse_fails_with("option '--reps' is given twice", a40));
    const char *a41[] = {"-n", "4", "-n5", NULL};
    CHECK(parse_fails_with("option '-n' is given twice", a41));
    const char *a42[] = {"--variant", NULL};
    CHECK(parse_fails_with("option '--variant' needs a name; this chapter has: alpha, beta", a42));
    const char *a43[] = {"-", NULL};
    CHECK(parse_fails_with("unexpected argument '-'", a43));

    scan_options opt;
    char err[512];

    /* --stress: refused where a chapter has no races between blocks, checked where it has */
    const char *a24[] = {"--stress", "10", NULL};
    CHECK(parse_fails_with("--stress is for single-pass scans", a24));
    scan_program single_pass = TEST_PROG;
    single_pass.stress = 1;
    CHECK(parse(&opt, err, &single_pass, a24) == 0 && opt.stress == 10);
    const char *a27[] = {"--stress", "0", NULL};
    CHECK(parse(&opt, err, &single_pass, a27) == EXIT_USAGE && strstr(err, "--stress"));

    /* a chapter's own modes: unknown elsewhere, parsed where the chapter registers them */
    const scan_mode modes[] = {
        {.option = "--demo", .help = "a flag mode"},
        {.option = "--rounds", .count = "R", .help = "a mode with a count", .test = "--rounds 3"},
    };
    scan_program with_modes = TEST_PROG;
    with_modes.modes = modes;
    with_modes.mode_count = 2;
    const char *a25[] = {"--demo", NULL};
    CHECK(parse_fails_with("unknown option '--demo'", a25));
    CHECK(parse(&opt, err, &with_modes, a25) == 0 && opt.mode == &modes[0] && opt.mode_count == 0);
    const char *a26[] = {"--rounds", "12", NULL};
    CHECK(parse(&opt, err, &with_modes, a26) == 0 && opt.mode == &modes[1] && opt.mode_count == 12);
    const char *a28[] = {"--rounds=0", NULL};
    CHECK(parse(&opt, err, &with_modes, a28) == EXIT_USAGE && strstr(err, "at least 1"));
    const char *a29[] = {"--rounds", NULL};
    CHECK(parse(&opt, err, &with_modes, a29) == EXIT_USAGE && strstr(err, "needs a value"));
    const char *a30[] = {"--demo=5", NULL};
    CHECK(parse(&opt, err, &with_modes, a30) == EXIT_USAGE && strstr(err, "takes no value"));
    const char *a31[] = {"--demo", "--self-test", NULL};
    CHECK(parse(&opt, err, &with_modes, a31) == EXIT_USAGE && strstr(err, "separate modes"));
    const char *a32[] = {"--demo", "--rounds", "2", NULL};
    CHECK(parse(&opt, err, &with_modes, a32) == EXIT_USAGE && strstr(err, "separate modes"));
    const char *a44[] = {"--ro=2", NULL}; /* a mode's option abbreviated, with its value */
    CHECK(parse(&opt, err, &with_modes, a44) == 0 && opt.mode == &modes[1] && opt.mode_count == 2);
    const char *a45[] = {"--de", "--demo", NULL};
    CHECK(parse(&opt, err, &with_modes, a45) == EXIT_USAGE &&
          strstr(err, "'--demo' is given twice"));
    const char *a46[] = {"--rounds", NULL};
    CHECK(parse(&opt, err, &with_modes, a46) == EXIT_USAGE &&
          strstr(err, "option '--rounds' needs a value, e.g. --rounds 10"));
    const scan_mode prefixed[] = {{.option = "--rec", .help = "a"},
                                  {.option = "--rec-f32", .help = "b"}};
    with_modes.modes = prefixed;
    const char *a47[] = {"--rec", NULL}; /* an exact name wins over the longer ones it begins */
    CHECK(parse(&opt, err, &with_modes, a47) == 0 && opt.mode == &prefixed[0]);
    const char *a48[] = {"--rec-", NULL};
    CHECK(parse(&opt, err, &with_modes, a48) == 0 && opt.mode == &prefixed[1]);
    const char *a49[] = {"--r", NULL};
    CHECK(parse(&opt, err, &with_modes, a49) == EXIT_USAGE &&
          strstr(err, "could be --reps, --rec, --rec-f32"));
    with_modes.modes = modes;

    /* --help lists the modes, and the checks make test runs (tests/run_tests.sh reads that line) */
    char text[4096] = "";
    help_text(&with_modes, text, sizeof text);
    CHECK(strstr(text, "  --rounds R          a mode with a count\n") != NULL);
    CHECK(strstr(text, "\nmake test runs: --self-test -n 2^30 | --rounds 3\n"
                       "make test-all runs: --self-test | --rounds 3\n") != NULL);
    /* the tiers: make test caps a stress test at 100 runs and keeps a self-test below 2^31,
       unless the chapter runs its n > 2^31 case there; make test-all runs what is listed */
    const scan_mode tiered[] = {{.option = "--op", .help = "an operator", .combines = 1,
                                 .test = "--op --self-test | --op --stress 500"}};
    scan_program big = TEST_PROG;
    big.stress = 1;
    big.modes = tiered;
    big.mode_count = 1;
    for (int b = 0; b < 2; ++b) {
        big.test_big_case = b;
        help_text(&big, text, sizeof text);
        CHECK(strstr(text, b ? "\nmake test runs: --self-test | --stress 100 | --op --self-test | "
                               "--op --stress 100\n"
                             : "\nmake test runs: --self-test -n 2^30 | --stress 100 | --op "
                               "--self-test -n 2^30 | --op --stress 100\n") != NULL);
        CHECK(strstr(text, "\nmake test-all runs: --self-test | --stress 1000 | --op --self-test "
                           "| --op --stress 500\n") != NULL);
    }
    CHECK(strstr(text, "3 CUDA trouble") != NULL);
    big.host_only = 1;
    help_text(&big, text, sizeof text);
    CHECK(strstr(text, "CUDA") == NULL && strstr(text, "4 a write failed") != NULL);
}

/* ---- references, patterns, verification ------------------------------------------------------ */

/** 1 if a[0..n) equals b[0..n). */
static int same(const int32_t *a, const int32_t *b, size_t n)
{
    return n == 0 || memcmp(a, b, n * sizeof *a) == 0;
}

/** scan_reference() on vectors checked by hand. */
static void test_reference(void)
{
    const int32_t in[] = {3, -1, 4, 1, -5};
    const int32_t incl[] = {3, 2, 6, 7, 2};
    const int32_t excl[] = {0, 3, 2, 6, 7};
    int32_t out[8];
    scan_reference(in, out, 5, 0, 0);
    CHECK(same(out, incl, 5));
    scan_reference(in, out, 5, 1, 0);
    CHECK(same(out, excl, 5));

    /* wrap-around: INT32_MAX + 1 = INT32_MIN, then + INT32_MIN = 0 */
    const int32_t wrap_in[] = {INT32_MAX, 1, INT32_MIN, -1};
    const int32_t wrap_incl[] = {INT32_MAX, INT32_MIN, 0, -1};
    const int32_t wrap_excl[] = {0, INT32_MAX, INT32_MIN, 0};
    scan_reference(wrap_in, out, 4, 0, 0);
    CHECK(same(out, wrap_incl, 4));
    scan_reference(wrap_in, out, 4, 1, 0);
    CHECK(same(out, wrap_excl, 4));

    /* segmented: every 2 elements start afresh, the last segment is ragged */
    const int32_t ones[] = {1, 1, 1, 1, 1};
    const int32_t seg_incl[] = {1, 2, 1, 2, 1};
    const int32_t seg_excl[] = {0, 1, 0, 1, 0};
    scan_reference(ones, out, 5, 0, 2);
    CHECK(same(out, seg_incl, 5));
    scan_reference(ones, out, 5, 1, 2);
    CHECK(same(out, seg_excl, 5));

    /* in place, and n = 0 touches nothing */
    int32_t inplace[] = {3, -1, 4, 1, -5};
    scan_reference(inplace, inplace, 5, 1, 0);
    CHECK(same(inplace, excl, 5));
    out[0] = 77;
    scan_reference(in, out, 0, 0, 0);
    CHECK(out[0] == 77);
}

/** generate_input(): determinism, slices, and what each pattern promises. */
static void test_patterns(void)
{
    enum { N = 4096 };
    static int32_t a[N], b[N];
    for (int p = 0; p < PATTERN_COUNT; ++p) {
        generate_input(a, N, (data_pattern)p, 7);
        generate_input(b, N / 2, (data_pattern)p, 7);
        CHECK(same(a, b, N / 2)); /* element i depends on i only, not on n */
        generate_input(b, N, (data_pattern)p, 7);
        CHECK(same(a, b, N));
    }
    generate_input(a, N, PATTERN_RANDOM, 7);
    generate_input(b, N, PATTERN_RANDOM, 8);
    CHECK(!same(a, b, N));
    int negative = 0, positive = 0, big = 0;
    for (int i = 0; i < N; ++i) {
        negative += a[i] < 0;
        positive += a[i] > 0;
        big += a[i] > (1 << 30) || a[i] < -(1 << 30);
    }
    CHECK(negative > N / 3 && positive > N / 3 && big > N / 3);

    generate_input(a, N, PATTERN_SMALL, 7);
    int in_range = 1, small_negative = 0;
    for (int i = 0; i < N; ++i) {
        in_range &= a[i] >= -100 && a[i] <= 100;
        small_negative += a[i] < 0;
    }
    CHECK(in_range && small_negative > N / 3);

    generate_input(a, N, PATTERN_ONES, 7);
    scan_reference(a, b, N, 0, 0);
    int index_plus_one = 1;
    for (int i = 0; i < N; ++i)
        index_plus_one &= b[i] == i + 1;
    CHECK(index_plus_one);

    generate_input(a, N, PATTERN_ALTERNATING, 7);
    int alternates = 1;
    for (int i = 0; i < N; ++i)
        alternates &= (i % 2 == 0) ? a[i] >= (1 << 30) : a[i] <= -(1 << 30);
    CHECK(alternates);
    CHECK(strcmp(pattern_name(PATTERN_ALTERNATING), "alternating") == 0);
}

/** verify_scan() and verify_report() with planted wrong elements. */
static void test_verify(void)
{
    enum { N = 100 };
    int32_t expected[N], got[N];
    for (int i = 0; i < N; ++i)
        expected[i] = got[i] = i * 3 - 50;
    verify_result r = verify_scan(expected, got, N);
    CHECK(r.checked == N && r.mismatches == 0);

    got[37] += 1; /* the planted bug */
    r = verify_scan(expected, got, N);
    CHECK(r.checked == N && r.mismatches == 1 && r.first_bad == 37);
    got[90] = 0;
    got[0] ^= INT32_MIN; /* the sign bit (1 << 31 would overflow an int) */
    r = verify_scan(expected, got, N);
    CHECK(r.mismatches == 3 && r.first_bad == 0);

    /* the report names the index, both values and shows neighbours */
    char path[300];
    snprintf(path, sizeof path, "%s/report.txt", tmpdir);
    FILE *f = fopen(path, "w+");
    got[0] = expected[0];
    got[90] = expected[90];
    r = verify_scan(expected, got, N);
    verify_report(f, &r, expected, got, N);
    rewind(f);
    char text[2048] = "";
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    CHECK(strstr(text, "1 of 100 elements wrong; first at index 37: expected 61, got 62") != NULL);
    CHECK(strstr(text, "35") && strstr(text, "39") && strstr(text, "<-- wrong"));

    /* poisoned memory is 0xA5A5A5A5 everywhere */
    poison(got, N);
    CHECK(got[0] == (int32_t)0xA5A5A5A5u && got[N - 1] == (int32_t)0xA5A5A5A5u);
    CHECK(verify_scan(expected, got, N).mismatches == N);
    CHECK(verify_scan(expected, got, 0).mismatches == 0);
}

/* ---- files ------------------------------------------------------------------------------------ */

/** 1 if `path` exists. */
static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/** Number of entries in tmpdir whose name contains `part`. */
static int count_files_like(const char *part)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c -- '%s'", tmpdir, part);
    FILE *p = popen(cmd, "r");
    int count = 0;
    if (p) {
        if (fscanf(p, "%d", &count) != 1)
            count = -1;
        pclose(p);
    }
    return count;
}

/** io_input_open() / io_input_read(): a file read piece by piece, and what is refused. */
static void test_input_stream(void)
{
    char path[300], err[512];
    const int32_t data[] = {1, -2, INT32_MAX, INT32_MIN, 0};
    int32_t buf[4];
    size_t got = 99;
    io_input in;
    snprintf(path, sizeof path, "%s/stream.bin", tmpdir);
    CHECK(io_write_int32(path, data, 5, err, sizeof err) == 0);
    CHECK(io_input_open(path, &in, err, sizeof err) == 0 && in.bytes == 20);
    CHECK(io_input_read(&in, buf, 2, &got, err, sizeof err) == 0 && got == 2 && same(buf, data, 2));
    CHECK(io_input_read(&in, buf, 4, &got, err, sizeof err) == 0 && got == 3 &&
          same(buf, data + 2, 3));
    CHECK(io_input_read(&in, buf, 4, &got, err, sizeof err) == 0 && got == 0 && in.elements == 5);
    io_input_close(&in);
    FILE *f = fopen(path, "ab"); /* 21 bytes: refused when opened, its size being known */
    CHECK(f && fputc(7, f) == 7);
    if (f)
        fclose(f);
    CHECK(io_input_open(path, &in, err, sizeof err) == EXIT_USAGE && strstr(err, "multiple of 4"));
    CHECK(io_input_open(tmpdir, &in, err, sizeof err) == EXIT_USAGE && strstr(err, "folder"));
    CHECK(io_input_open("/dev/zero", &in, err, sizeof err) == EXIT_USAGE && strstr(err, "device"));
    snprintf(path, sizeof path, "%s/nowhere/x.bin", tmpdir);
    CHECK(io_input_open(path, &in, err, sizeof err) == EXIT_USAGE && strstr(err, "cannot read"));
}

/** Raw int32 read/write, the all-or-nothing output, and every bad-file path. */
static void test_files(void)
{
    char path[300], out[300], err[512];
    const int32_t data[] = {1, -2, INT32_MAX, INT32_MIN, 0};
    int32_t *back = NULL;
    size_t n = 99;

    snprintf(path, sizeof path, "%s/in.bin", tmpdir);
    CHECK(io_write_int32(path, data, 5, err, sizeof err) == 0);
    CHECK(io_read_int32(path, &back, &n, err, sizeof err) == 0 && n == 5 && same(back, data, 5));
    free(back);

    /* little-endian bytes on disk */
    FILE *f = fopen(path, "rb");
    unsigned char bytes[8];
    CHECK(f && fread(bytes, 1, 8, f) == 8);
    if (f)
        fclose(f);
    CHECK(bytes[0] == 1 && bytes[1] == 0 && bytes[4] == 0xFE && bytes[7] == 0xFF);

    /* empty file: n = 0 */
    CHECK(io_write_int32(path, data, 0, err, sizeof err) == 0);
    CHECK(io_read_int32(path, &back, &n, err, sizeof err) == 0 && n == 0 && back == NULL);

    /* 5 bytes: not a multiple of 4 */
    f = fopen(path, "wb");
    fwrite("abcde", 1, 5, f);
    fclose(f);
    CHECK(io_read_int32(path, &back, &n, err, sizeof err) == EXIT_USAGE &&
          strstr(err, "5 bytes, not a multiple of 4"));

    /* a pipe has no size to ask for: it is read to its end (here through /dev/fd/N) */
    int fds[2];
    CHECK(pipe(fds) == 0);
    CHECK(write(fds[1], data, sizeof data) == (ssize_t)sizeof data);
    close(fds[1]);
    snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
    CHECK(io_read_int32(path, &back, &n, err, sizeof err) == 0 && n == 5 && same(back, data, 5));
    free(back);
    close(fds[0]);
    /* a partial last element in a pipe is refused as in a file */
    CHECK(pipe(fds) == 0);
    CHECK(write(fds[1], "abcdefg", 7) == 7);
    close(fds[1]);
    snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
    CHECK(io_read_int32(path, &back, &n, err, sizeof err) == EXIT_USAGE &&
          strstr(err, "7 bytes, not a multiple of 4") && back == NULL);
    close(fds[0]);
    CHECK(io_input_limit() > 0 && io_input_limit() % 4 == 0 &&
          io_input_limit() <= CLI_MAX_N * sizeof(int32_t));

    /* missing file, folder */
    snprintf(path, sizeof path, "%s/missing.bin", tmpdir);
    CHECK(io_read_int32(path, &back, &n, err, sizeof err) == EXIT_USAGE &&
          strstr(err, "No such file"));
    CHECK(io_read_int32(tmpdir, &back, &n, err, sizeof err) == EXIT_USAGE &&
          strstr(err, "is a folder"));

    /* output: committed output appears whole, with no temporary left behind */
    snprintf(out, sizeof out, "%s/out.bin", tmpdir);
    CHECK(io_output_begin(out, err, sizeof err) == 0);
    CHECK(!exists(out) && count_files_like(".tmp") == 1);
    CHECK(io_output_commit(data, 5, err, sizeof err) == 0);
    CHECK(io_read_int32(out, &back, &n, err, sizeof err) == 0 && n == 5 && same(back, data, 5));
    free(back);
    CHECK(count_files_like(".tmp") == 0);

    /* output in pieces: appended, then written (fsync, close) and published */
    CHECK(io_output_begin(out, err, sizeof err) == 0);
    CHECK(io_output_append(data + 3, 2, err, sizeof err) == 0);
    CHECK(io_output_append(data, 3, err, sizeof err) == 0);
    CHECK(io_read_int32(out, &back, &n, err, sizeof err) == 0 && n == 5 && same(back, data, 5));
    free(back); /* the old file, untouched until the rename */
    CHECK(io_output_write(NULL, 0, err, sizeof err) == 0 && io_output_publish(err, sizeof err) == 0);
    CHECK(io_read_int32(out, &back, &n, err, sizeof err) == 0 && n == 5 && same(back, data + 3, 2) &&
          same(back + 2, data, 3));
    free(back);
    CHECK(count_files_like(".tmp") == 0);

    /* output: abandoned output leaves nothing */
    snprintf(out, sizeof out, "%s/abandoned.bin", tmpdir);
    CHECK(io_output_begin(out, err, sizeof err) == 0);
    io_output_abandon();
    CHECK(!exists(out) && count_files_like(".tmp") == 0);

    /* output: unwritable places are refused before any work, and nothing is created */
    snprintf(out, sizeof out, "%s/no/such/folder/out.bin", tmpdir);
    CHECK(io_output_begin(out, err, sizeof err) == EXIT_USAGE && strstr(err, "cannot write"));
    CHECK(!exists(out) && count_files_like(".tmp") == 0);
    CHECK(io_output_begin(tmpdir, err, sizeof err) == EXIT_USAGE && strstr(err, "is a folder"));
    CHECK(io_output_begin("-", err, sizeof err) == EXIT_USAGE && strstr(err, "standard output"));

    /* output: a replaced file keeps its mode */
    snprintf(out, sizeof out, "%s/private.bin", tmpdir);
    CHECK(io_write_int32(out, data, 1, err, sizeof err) == 0 && chmod(out, 0600) == 0);
    CHECK(io_output_begin(out, err, sizeof err) == 0);
    CHECK(io_output_commit(data, 5, err, sizeof err) == 0);
    struct stat st;
    CHECK(stat(out, &st) == 0 && (st.st_mode & 07777) == 0600 && st.st_size == 20);
    /* output: a hard-linked file is refused, and keeps both names */
    snprintf(path, sizeof path, "%s/second_name.bin", tmpdir);
    CHECK(link(out, path) == 0);
    CHECK(io_output_begin(out, err, sizeof err) == EXIT_USAGE && strstr(err, "2 hard links"));
    CHECK(stat(out, &st) == 0 && st.st_nlink == 2 && count_files_like(".tmp") == 0);

    /* output: any name the file system takes, 255 bytes too (the temporary name is cut to fit) */
    char long_name[600];
    const int at = snprintf(long_name, sizeof long_name, "%s/", tmpdir);
    memset(long_name + at, 'x', 255);
    long_name[at + 255] = '\0';
    CHECK(io_output_begin(long_name, err, sizeof err) == 0 && count_files_like(".tmp") == 1);
    CHECK(io_output_commit(data, 5, err, sizeof err) == 0);
    CHECK(io_read_int32(long_name, &back, &n, err, sizeof err) == 0 && n == 5 &&
          same(back, data, 5));
    free(back);
    CHECK(count_files_like(".tmp") == 0 && unlink(long_name) == 0);

    /* output: a link to a file that does not exist is refused, and says where it points */
    snprintf(out, sizeof out, "%s/dangling", tmpdir);
    CHECK(symlink("new.bin", out) == 0);
    CHECK(io_output_begin(out, err, sizeof err) == EXIT_USAGE &&
          strstr(err, "is a symbolic link to '") && strstr(err, "/new.bin', which does not exist"));
    CHECK(unlink(out) == 0 && symlink("no/such/folder/x.bin", out) == 0);
    CHECK(io_output_begin(out, err, sizeof err) == EXIT_USAGE &&
          strstr(err, "in a folder that does not exist"));
    CHECK(unlink(out) == 0 && symlink("dangling", out) == 0); /* a link to itself */
    CHECK(io_output_begin(out, err, sizeof err) == EXIT_USAGE && strstr(err, "leads nowhere"));
    CHECK(unlink(out) == 0 && count_files_like(".tmp") == 0);
}

/** Run `fd_target` as standard output (a file, or /dev/full) around io_output_begin() of
    `path`, then, if `publish`, io_output_write() and io_output_publish() after printing a line;
    standard output is put back after. Returns the first non-zero status. */
static int output_with_stdout(const char *fd_target, const char *path, int publish, char *err)
{
    const int32_t data[] = {4, 5};
    fflush(stdout);
    const int saved = dup(STDOUT_FILENO);
    const int fd = open(fd_target, O_WRONLY | O_CREAT, 0644);
    dup2(fd, STDOUT_FILENO);
    close(fd);
    int status = io_output_begin(path, err, 512);
    if (status == 0 && publish) {
        printf("the report's last line\n");
        status = io_output_write(data, 2, err, 512);
        if (status == 0)
            status = io_output_publish(err, 512);
    }
    fflush(stdout);
    clearerr(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    return status;
}

/** The file the report goes to is never --output; a report that cannot be written leaves the
    old file as it was (exit 4 never follows a replacement). */
static void test_output_and_report(void)
{
    char path[300], err[512];
    const int32_t old[] = {9, 9, 9};
    int32_t *back = NULL;
    size_t n = 0;
    snprintf(path, sizeof path, "%s/report.txt", tmpdir);
    CHECK(output_with_stdout(path, path, 0, err) == EXIT_USAGE &&
          strstr(err, "is standard output (a regular file here), where the report goes"));
    snprintf(path, sizeof path, "%s/kept.bin", tmpdir);
    CHECK(io_write_int32(path, old, 3, err, sizeof err) == 0);
    if (access("/dev/full", W_OK) == 0) {
        CHECK(output_with_stdout("/dev/full", path, 1, err) == EXIT_WRITE &&
              strstr(err, "cannot write standard output") && strstr(err, "was not replaced"));
        CHECK(io_read_int32(path, &back, &n, err, sizeof err) == 0 && n == 3 && same(back, old, 3));
        free(back);
        CHECK(count_files_like(".tmp") == 0);
    } else {
        printf("SKIP a full standard output: /dev/full is missing\n");
    }
    /* and with a standard output that works, the file is replaced */
    char report[300];
    snprintf(report, sizeof report, "%s/report.txt", tmpdir);
    CHECK(output_with_stdout(report, path, 1, err) == 0);
    CHECK(io_read_int32(path, &back, &n, err, sizeof err) == 0 && n == 2 && back[1] == 5);
    free(back);
}

/* ---- reporting -------------------------------------------------------------------------------- */

/** format_size(), throughput arithmetic, median(), the spread of timed runs and the noise flag. */
static void test_report(void)
{
    char buf[32];
    CHECK(strcmp(format_size(0, buf, sizeof buf), "0") == 0);
    CHECK(strcmp(format_size(1023, buf, sizeof buf), "1023") == 0);
    CHECK(strcmp(format_size(1024, buf, sizeof buf), "2^10") == 0);
    CHECK(strcmp(format_size((size_t)1 << 28, buf, sizeof buf), "2^28") == 0);
    CHECK(strcmp(format_size(((size_t)1 << 24) + 1, buf, sizeof buf), "16777217") == 0);
    CHECK(scan_min_bytes(1000) == 8000.0);
    CHECK(gb_per_s(8e9, 1000.0) == 8.0);
    CHECK(gb_per_s(1.0, 0.0) == 0.0);
    double odd[] = {3.0, 1.0, 2.0};
    double even[] = {4.0, 1.0, 3.0, 2.0};
    double one[] = {5.0};
    CHECK(median(odd, 3) == 2.0 && median(even, 4) == 2.5 && median(one, 1) == 5.0);
    CHECK(median(one, 0) == 0.0);
    /* spread: (p75 - p25) / median, quartiles interpolated; noise flags */
    double runs[] = {10.0, 12.0, 11.0, 10.0, 30.0}; /* sorted: 10 10 11 12 30 */
    timing t = timing_of(runs, 5);
    CHECK(t.median == 11.0 && t.spread > 0.1818 && t.spread < 0.1819); /* (12 - 10) / 11 */
    double steady[] = {5.0, 5.0, 5.0, 5.0};
    timing quiet = timing_of(steady, 4);
    CHECK(quiet.median == 5.0 && quiet.spread == 0.0);
    CHECK(timing_of(one, 1).spread == 0.0 && timing_of(one, 0).median == 0.0);
    double wild[] = {1.0, 2.0, 3.0, 4.0};
    timing loud = timing_of(wild, 4); /* (3.25 - 1.75) / 2.5 = 0.6 */
    CHECK(loud.spread > 0.5999 && loud.spread < 0.6001);
    CHECK(strcmp(noise_flag(quiet, quiet, 80.0, 1), "-") == 0);
    CHECK(strcmp(noise_flag(t, quiet, 80.0, 1), "-") == 0);        /* 18 %: under the threshold */
    CHECK(strcmp(noise_flag(loud, quiet, 80.0, 1), "noisy") == 0);
    CHECK(strcmp(noise_flag(quiet, loud, 80.0, 1), "noisy") == 0); /* its memcpy's spread counts */
    CHECK(strcmp(noise_flag(quiet, quiet, 100.0, 1), "-") == 0);   /* the copy itself */
    CHECK(strcmp(noise_flag(quiet, quiet, 290.8, 1), "over-memcpy") == 0);
    CHECK(strcmp(noise_flag(loud, quiet, 290.8, 1), "noisy+over-memcpy") == 0);
    CHECK(strcmp(noise_flag(loud, loud, 290.8, 0), "-") == 0);     /* nothing timed */
    CHECK(strcmp(format_spread(loud, 1, buf, sizeof buf), "60.0") == 0);
    CHECK(strcmp(format_spread(loud, 0, buf, sizeof buf), "-") == 0);
    double t0 = host_seconds();
    CHECK(host_seconds() >= t0);
}

/* ---- the self-test driver against broken scans ------------------------------------------------ */

/** Ways to be wrong that the battery must catch. */
enum fake_bug { BUG_NONE, BUG_ONE_ELEMENT, BUG_SKIP_LAST, BUG_NO_WRAP, BUG_ERROR, BUG_EXCLUSIVE };

/** A scan with a planted bug chosen by `ctx`. */
static int fake_scan(void *ctx, int variant, const int32_t *in, int32_t *out, size_t n,
                     int exclusive)
{
    enum fake_bug bug = *(enum fake_bug *)ctx;
    int64_t wide = 0;
    (void)variant;
    if (bug == BUG_ERROR)
        return 3;
    scan_reference(in, out, n, exclusive && bug != BUG_EXCLUSIVE, 0);
    if (bug == BUG_ONE_ELEMENT && n > 1000)
        out[n / 2 + 1] += 1;
    if (bug == BUG_SKIP_LAST && n > 0)
        out[n - 1] = (int32_t)0xA5A5A5A5u; /* "never written": what a poisoned buffer holds */
    if (bug == BUG_NO_WRAP && !exclusive) /* saturating instead of wrapping sums */
        for (size_t i = 0; i < n; ++i) {
            wide += in[i];
            out[i] = wide > INT32_MAX ? INT32_MAX : wide < INT32_MIN ? INT32_MIN : (int32_t)wide;
        }
    return 0;
}

/** Run the battery on fake_scan with `bug`, stdout silenced; return its status. */
static int battery_with(enum fake_bug bug)
{
    scan_options opt;
    char err[512];
    const char *args[] = {"--self-test", "-n", "3000", NULL};
    self_test_config cfg = {256, 2, 0, "a unit test", NULL};
    parse(&opt, err, &TEST_PROG, args);
    fflush(stdout);
    int saved = dup(1), devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    int status = self_test_run(&TEST_PROG, &opt, &cfg, fake_scan, &bug);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    close(devnull);
    return status;
}

/** The battery passes a correct scan and catches every planted bug. */
static void test_battery(void)
{
    CHECK(battery_with(BUG_NONE) == EXIT_OK);
    CHECK(battery_with(BUG_ONE_ELEMENT) == EXIT_WRONG);
    CHECK(battery_with(BUG_SKIP_LAST) == EXIT_WRONG);
    CHECK(battery_with(BUG_NO_WRAP) == EXIT_WRONG);
    CHECK(battery_with(BUG_ERROR) == EXIT_WRONG);
    CHECK(battery_with(BUG_EXCLUSIVE) == EXIT_WRONG);
    CHECK(self_test_host_bytes(10) == 120);
}

/** Run scan_file_run() on 5000 elements with fake_scan and `bug`, output to `name` in tmpdir
    (stdout silenced); return its status. */
static int file_scan_with(enum fake_bug bug, const char *name)
{
    scan_options opt;
    char err[512], path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    const char *args[] = {"--input", "unused.bin", "--output", path, NULL};
    parse(&opt, err, &TEST_PROG, args);
    int32_t in[5000];
    generate_input(in, 5000, PATTERN_RANDOM, 7);
    if (io_output_begin(path, err, sizeof err))
        return -1;
    fflush(stdout);
    int saved = dup(1), devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    int status = scan_file_run(&TEST_PROG, &opt, in, 5000, fake_scan, &bug);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    close(devnull);
    return status;
}

/** 1 if another process could take the flock() of `path` now. */
static int lock_is_free(const char *path)
{
    int fd = open(path, O_RDWR);
    int free_now = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (fd >= 0)
        close(fd);
    return free_now;
}

/** The text of a small file, or "" (at most `len` - 1 bytes). */
static const char *file_text(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t got = f ? fread(buf, 1, len - 1, f) : 0;
    buf[got] = '\0';
    if (f)
        fclose(f);
    return buf;
}

/** In a child process: begin a case of `bytes`, then end it and exit 0. The child's pid. */
static pid_t big_case_child(size_t bytes)
{
    pid_t pid = fork();
    if (pid == 0) {
        self_test_big_case_begin(bytes);
        self_test_big_case_end();
        _exit(0);
    }
    return pid;
}

/** 1 if `pid` ends within `seconds`, reaped; 0 if it is still running then. */
static int ends_within(pid_t pid, double seconds)
{
    for (double waited = 0; waited < seconds; waited += 0.05) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            return 1;
        struct timespec pause = {0, 50 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    return 0;
}

/** The n > 2^31 cases of self-tests side by side: nothing without SCAN_BIG_CASE_LOCK; one at a
    time under its flock() (two descriptors' flock() locks exclude each other even in one
    process); with SCAN_BIG_CASE_BUDGET, a ledger: a case waits while its bytes do not fit beside
    the others', a case that fits does not wait, one larger than the budget runs alone, and the
    line of a process that died is dropped. */
static void test_big_case_lock(void)
{
    char path[300], text[256];
    snprintf(path, sizeof path, "%s/big_case.lock", tmpdir);
    unsetenv("SCAN_BIG_CASE_LOCK");
    unsetenv("SCAN_BIG_CASE_BUDGET");
    self_test_big_case_begin(100); /* no variable: nothing happens */
    self_test_big_case_end();
    CHECK(!exists(path));
    setenv("SCAN_BIG_CASE_LOCK", path, 1);
    self_test_big_case_begin(100);
    CHECK(exists(path) && !lock_is_free(path));
    self_test_big_case_end();
    CHECK(lock_is_free(path));

    remove(path);
    setenv("SCAN_BIG_CASE_BUDGET", "1000", 1);
    self_test_big_case_begin(600);
    char want[64];
    snprintf(want, sizeof want, "%ld 600\n", (long)getpid());
    CHECK(strcmp(file_text(path, text, sizeof text), want) == 0);
    CHECK(lock_is_free(path)); /* the ledger is locked only while it is read or written */
    pid_t fits = big_case_child(400), waits = big_case_child(401);
    CHECK(ends_within(fits, 5.0));   /* 600 + 400 fit in 1000 */
    CHECK(!ends_within(waits, 0.6)); /* 600 + 401 do not */
    self_test_big_case_end();
    CHECK(ends_within(waits, 5.0));  /* alone now */
    CHECK(strcmp(file_text(path, text, sizeof text), "") == 0);

    pid_t big = big_case_child(5000); /* larger than the budget: alone, it runs */
    CHECK(ends_within(big, 5.0));
    pid_t dead = fork(); /* a line left by a process that has ended is dropped */
    if (dead == 0)
        _exit(0);
    waitpid(dead, NULL, 0);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%ld 900\n", (long)dead);
        fclose(f);
    }
    pid_t after = big_case_child(500); /* 900 + 500 would not fit: it must not wait */
    int ended = ends_within(after, 5.0);
    CHECK(ended);
    if (!ended) {
        kill(after, SIGKILL);
        waitpid(after, NULL, 0);
    }
    CHECK(strcmp(file_text(path, text, sizeof text), "") == 0);
    unsetenv("SCAN_BIG_CASE_BUDGET");
    unsetenv("SCAN_BIG_CASE_LOCK");
}

/** The --input mode writes the file only when every variant was right. */
static void test_file_scan(void)
{
    CHECK(file_scan_with(BUG_NONE, "good.bin") == EXIT_OK);
    CHECK(count_files_like("good.bin") == 1);
    CHECK(file_scan_with(BUG_ONE_ELEMENT, "bad.bin") == EXIT_WRONG);
    CHECK(file_scan_with(BUG_ERROR, "failed.bin") == EXIT_WRONG);
    CHECK(count_files_like("bad.bin") == 0 && count_files_like("failed.bin") == 0);
}

/** Run every group; exit 1 if any check failed. */
int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/scan_test_common_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    test_sizes();
    test_bytes();
    test_cli_good();
    test_cli_bad();
    test_reference();
    test_patterns();
    test_verify();
    test_files();
    test_input_stream();
    test_output_and_report();
    test_report();
    test_battery();
    test_file_scan();
    test_big_case_lock();

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", tmpdir);
    printf("host unit tests: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
