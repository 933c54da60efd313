/**
 * \file cli.c
 * \brief The shared command line: parsing, checking and `--help` (docs/CONVENTIONS.md §4).
 *
 * Numbers are parsed digit by digit with an explicit overflow check instead of strtoull(), whose
 * silent acceptance of "-5" (it wraps) and leading blanks would let bad input through.
 */
#define _GNU_SOURCE /* getopt_long() */

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/** Result of parse_u64(). */
enum number_status { NUMBER_OK, NUMBER_NOT_A_NUMBER, NUMBER_NEGATIVE, NUMBER_TOO_LARGE };

/** Parse decimal digits only (no sign, blanks or suffix) into `*value`, refusing values above `max`. */
static enum number_status parse_u64(const char *text, uint64_t max, uint64_t *value)
{
    if (text[0] == '-' && text[1] >= '0' && text[1] <= '9')
        return NUMBER_NEGATIVE;
    if (text[0] == '\0')
        return NUMBER_NOT_A_NUMBER;
    uint64_t v = 0;
    for (const char *p = text; *p; ++p) {
        if (*p < '0' || *p > '9')
            return NUMBER_NOT_A_NUMBER;
        unsigned digit = (unsigned)(*p - '0');
        if (v > (max - digit) / 10)
            return NUMBER_TOO_LARGE;
        v = v * 10 + digit;
    }
    *value = v;
    return NUMBER_OK;
}

int cli_parse_size(const char *text, size_t *value, char *err, size_t errlen)
{
    uint64_t v = 0;
    if (strncmp(text, "2^", 2) == 0) {
        enum number_status status = parse_u64(text + 2, UINT64_MAX, &v);
        if (status == NUMBER_NOT_A_NUMBER) {
            snprintf(err, errlen, "-n '%s' is not a size; write a power of two as 2^K, e.g. 2^20",
                     text);
            return EXIT_USAGE;
        }
        if (status != NUMBER_OK || v > CLI_MAX_LOG2_N) {
            snprintf(err, errlen, "-n '%s' is out of range; K in 2^K must be 0 ... %d", text,
                     CLI_MAX_LOG2_N);
            return EXIT_USAGE;
        }
        *value = (size_t)1 << v;
        return 0;
    }
    switch (parse_u64(text, CLI_MAX_N, &v)) {
    case NUMBER_OK:
        *value = (size_t)v;
        return 0;
    case NUMBER_NEGATIVE:
        snprintf(err, errlen, "-n '%s' is negative; give a count of elements, 0 or more", text);
        return EXIT_USAGE;
    case NUMBER_TOO_LARGE:
        snprintf(err, errlen, "-n '%s' is too large; the most this program accepts is 2^%d (%llu)",
                 text, CLI_MAX_LOG2_N, (unsigned long long)CLI_MAX_N);
        return EXIT_USAGE;
    default:
        snprintf(err, errlen,
                 "-n '%s' is not a size; give a count like 1000000 or a power of two like 2^20",
                 text);
        return EXIT_USAGE;
    }
}

int cli_parse_bytes(const char *option, const char *text, size_t *value, char *err,
                    size_t errlen)
{
    static const char *const UNITS[] = {"KiB", "MiB", "GiB", "TiB"};
    char digits[32];
    uint64_t v = 0, scale = 1;
    size_t len = strlen(text);
    if (strncmp(text, "2^", 2) == 0) {
        if (parse_u64(text + 2, UINT64_MAX, &v) != NUMBER_OK || v > 50) {
            snprintf(err, errlen, "%s '%s' is out of range; K in 2^K must be 0 ... 50", option,
                     text);
            return EXIT_USAGE;
        }
        *value = (size_t)1 << v;
        return 0;
    }
    for (int u = 0; u < 4; ++u)
        if (len > 3 && strcmp(text + len - 3, UNITS[u]) == 0) {
            scale = (uint64_t)1 << (10 * (u + 1));
            len -= 3;
            break;
        }
    enum number_status status = NUMBER_TOO_LARGE; /* more digits than any size has */
    if (len < sizeof digits) {
        snprintf(digits, sizeof digits, "%.*s", (int)len, text);
        status = parse_u64(digits, CLI_MAX_BYTES / scale, &v);
    }
    if (status == NUMBER_TOO_LARGE) {
        snprintf(err, errlen, "%s '%s' is too large; the most is 2^50 bytes (1024TiB)", option,
                 text);
        return EXIT_USAGE;
    }
    if (status != NUMBER_OK || v == 0) {
        snprintf(err, errlen, "%s '%s' is not a size in bytes; give bytes, e.g. 1073741824, 1GiB, "
                 "512MiB or 2^30 (more than 0)", option, text);
        return EXIT_USAGE;
    }
    *value = (size_t)(v * scale);
    return 0;
}

/** Parse the value of `--reps` or `--seed` (named `option`) into `*value` within [min, max]. */
static int parse_count(const char *option, const char *text, uint64_t min, uint64_t max,
                       uint64_t *value, char *err, size_t errlen)
{
    switch (parse_u64(text, max, value)) {
    case NUMBER_OK:
        if (*value < min) {
            snprintf(err, errlen, "%s '%s' is too small; it must be at least %llu", option, text,
                     (unsigned long long)min);
            return EXIT_USAGE;
        }
        return 0;
    case NUMBER_NEGATIVE:
        snprintf(err, errlen, "%s '%s' is negative; give a whole number from %llu to %llu", option,
                 text, (unsigned long long)min, (unsigned long long)max);
        return EXIT_USAGE;
    case NUMBER_TOO_LARGE:
        snprintf(err, errlen, "%s '%s' is too large; the most is %llu", option, text,
                 (unsigned long long)max);
        return EXIT_USAGE;
    default:
        snprintf(err, errlen, "%s '%s' is not a number; give a whole number from %llu to %llu",
                 option, text, (unsigned long long)min, (unsigned long long)max);
        return EXIT_USAGE;
    }
}

/** Write the comma-separated variant names of `prog` into `buf`. */
static void list_variants(const scan_program *prog, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int v = 0; v < prog->variant_count && used < len; ++v)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", v ? ", " : "", prog->variants[v]);
}

/** The most modes a chapter may register (scan_program::modes). */
#define CLI_MAX_MODES 16

/** getopt_long()'s code of each shared long option; a chapter's mode m is OPT_MODE + m. Codes
    above 255, so that none is taken for a short option's letter. */
enum option_code {
    OPT_HELP = 256, OPT_SELF_TEST, OPT_EXCLUSIVE, OPT_CSV, OPT_REPS, OPT_SEED, OPT_STRESS,
    OPT_INPUT, OPT_OUTPUT, OPT_VARIANT, OPT_DEVICE_MEMORY, OPT_MODE
};

/** The shared long options (their order is --help's); a chapter's modes follow them. */
static const struct option SHARED_OPTIONS[] = {
    {"help", no_argument, NULL, OPT_HELP},
    {"self-test", no_argument, NULL, OPT_SELF_TEST},
    {"exclusive", no_argument, NULL, OPT_EXCLUSIVE},
    {"csv", no_argument, NULL, OPT_CSV},
    {"reps", required_argument, NULL, OPT_REPS},
    {"seed", required_argument, NULL, OPT_SEED},
    {"stress", required_argument, NULL, OPT_STRESS},
    {"input", required_argument, NULL, OPT_INPUT},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"variant", required_argument, NULL, OPT_VARIANT},
};
/** How many. */
#define SHARED_OPTION_COUNT ((int)(sizeof SHARED_OPTIONS / sizeof SHARED_OPTIONS[0]))

/** The options, one bit each, to find one given twice. */
enum option_bit {
    SEEN_HELP = 1 << 0, SEEN_SELF_TEST = 1 << 1, SEEN_EXCLUSIVE = 1 << 2, SEEN_CSV = 1 << 3,
    SEEN_N = 1 << 4, SEEN_REPS = 1 << 5, SEEN_SEED = 1 << 6, SEEN_STRESS = 1 << 7,
    SEEN_INPUT = 1 << 8, SEEN_OUTPUT = 1 << 9, SEEN_VARIANT = 1 << 10, SEEN_MODE = 1 << 11,
    SEEN_DEVICE_MEMORY = 1 << 12
};

/** Mark option `bit` (spelled `name`) as given; 1, with a message in `err`, if it was already. */
static int given_twice(unsigned *seen, unsigned bit, const char *name, char *err, size_t errlen)
{
    if (*seen & bit) {
        snprintf(err, errlen, "option '%s' is given twice; give it once", name);
        return 1;
    }
    *seen |= bit;
    return 0;
}

/** The option `code` stands for, as the user would write it in full ("-n", "--reps"). */
static const char *option_name(const struct option *table, int code, char *buf, size_t len)
{
    if (code == 'n' || code == 'h')
        snprintf(buf, len, "-%c", code);
    for (int i = 0; table[i].name; ++i)
        if (table[i].val == code)
            snprintf(buf, len, "--%s", table[i].name);
    return buf;
}

/** The message for `arg`, a long option getopt_long() did not take: unknown, or an abbreviation
    of several ("--s": --seed, --self-test, --stress). */
static void unknown_long_option(const struct option *table, const char *arg, char *err,
                                size_t errlen)
{
    const size_t len = strcspn(arg + 2, "=");
    char matches[256] = "";
    size_t used = 0;
    int count = 0;
    for (int i = 0; table[i].name; ++i)
        if (strncmp(table[i].name, arg + 2, len) == 0 && used < sizeof matches) {
            used += (size_t)snprintf(matches + used, sizeof matches - used, "%s--%s",
                                     count ? ", " : "", table[i].name);
            ++count;
        }
    if (count > 1)
        snprintf(err, errlen, "option '%.*s' is ambiguous: it could be %s; write more of it",
                 (int)len + 2, arg, matches);
    else
        snprintf(err, errlen, "unknown option '%s'; run './run --help' to see the options", arg);
}

int cli_parse(int argc, char **argv, const scan_program *prog, scan_options *opt, char *err,
              size_t errlen)
{
    struct option table[SHARED_OPTION_COUNT + CLI_MAX_MODES + 2];
    unsigned seen = 0;
    char name[64];
    memset(opt, 0, sizeof *opt);
    opt->reps = prog->default_reps;
    opt->seed = CLI_DEFAULT_SEED;
    opt->variant = -1;

    /* the shared options, then the chapter's modes ("--two-streams" is "two-streams" here) */
    int options = 0;
    for (int i = 0; i < SHARED_OPTION_COUNT; ++i)
        table[options++] = SHARED_OPTIONS[i];
    if (prog->device_budget) {
        const struct option budget = {"device-memory", required_argument, NULL, OPT_DEVICE_MEMORY};
        table[options++] = budget;
    }
    for (int m = 0; m < prog->mode_count && m < CLI_MAX_MODES; ++m) {
        const scan_mode *mode = &prog->modes[m];
        table[options].name = mode->option + 2;
        table[options].has_arg = mode->count ? required_argument : no_argument;
        table[options].flag = NULL;
        table[options++].val = OPT_MODE + m;
    }
    memset(&table[options], 0, sizeof table[options]);

    /* As every GNU tool: "-n 10", "-n10", "--reps 3", "--reps=3", a long option abbreviated
       while it stays unambiguous ("--self" is --self-test), and "--" ends the options. "+":
       stop at the first argument that is not an option (this program takes none: it is an
       error below); ":": report a missing value as ':' so that our own message says which.
       optind = 0 starts getopt afresh (glibc), so that cli_parse() may be called again. */
    opterr = 0;
    optind = 0;
    for (;;) {
        const int at = optind ? optind : 1; /* the argument getopt is about to read */
        const int code = getopt_long(argc, argv, "+:hn:", table, NULL);
        if (code == -1)
            break;
        const char *value = optarg;
        if (code == '?') {
            if (optopt >= OPT_HELP)
                snprintf(err, errlen, "option '%s' takes no value; write %s alone",
                         option_name(table, optopt, name, sizeof name), name);
            else if (optopt)
                snprintf(err, errlen, "unknown option '-%c'; run './run --help' to see the "
                         "options", optopt);
            else
                unknown_long_option(table, argv[at], err, errlen);
            return EXIT_USAGE;
        }
        if (code == ':') { /* an option that needs a value came last */
            const char *what = option_name(table, optopt, name, sizeof name);
            if (optopt == 'n')
                snprintf(err, errlen, "option '-n' needs a value, e.g. -n 1000000 or -n 2^20");
            else if (optopt == OPT_REPS)
                snprintf(err, errlen, "option '--reps' needs a value, e.g. --reps 20");
            else if (optopt == OPT_SEED)
                snprintf(err, errlen, "option '--seed' needs a value, e.g. --seed 42");
            else if (optopt == OPT_STRESS)
                snprintf(err, errlen, "option '--stress' needs a run count, e.g. --stress 1000");
            else if (optopt == OPT_DEVICE_MEMORY)
                snprintf(err, errlen, "option '--device-memory' needs a size, e.g. "
                         "--device-memory 1GiB");
            else if (optopt == OPT_INPUT)
                snprintf(err, errlen, "option '--input' needs a file name, e.g. --input data.bin");
            else if (optopt == OPT_OUTPUT)
                snprintf(err, errlen, "option '--output' needs a file name, e.g. --output "
                         "scan.bin");
            else if (optopt == OPT_VARIANT) {
                char names[256];
                list_variants(prog, names, sizeof names);
                snprintf(err, errlen, "option '--variant' needs a name; this chapter has: %s, all",
                         names);
            } else
                snprintf(err, errlen, "option '%s' needs a value, e.g. %s 10", what, what);
            return EXIT_USAGE;
        }
        switch (code) {
        case 'h':
        case OPT_HELP:
            if (given_twice(&seen, SEEN_HELP, "--help", err, errlen))
                return EXIT_USAGE;
            opt->help = 1;
            break;
        case OPT_SELF_TEST:
            if (given_twice(&seen, SEEN_SELF_TEST, "--self-test", err, errlen))
                return EXIT_USAGE;
            opt->self_test = 1;
            break;
        case OPT_EXCLUSIVE:
            if (given_twice(&seen, SEEN_EXCLUSIVE, "--exclusive", err, errlen))
                return EXIT_USAGE;
            opt->exclusive = 1;
            break;
        case OPT_CSV:
            if (given_twice(&seen, SEEN_CSV, "--csv", err, errlen))
                return EXIT_USAGE;
            opt->csv = 1;
            break;
        case 'n':
            if (given_twice(&seen, SEEN_N, "-n", err, errlen) ||
                cli_parse_size(value, &opt->n, err, errlen))
                return EXIT_USAGE;
            opt->n_given = 1;
            break;
        case OPT_REPS: {
            uint64_t reps = 0;
            if (given_twice(&seen, SEEN_REPS, "--reps", err, errlen) ||
                parse_count("--reps", value, 1, CLI_MAX_REPS, &reps, err, errlen))
                return EXIT_USAGE;
            opt->reps = (int)reps;
            break;
        }
        case OPT_SEED:
            if (given_twice(&seen, SEEN_SEED, "--seed", err, errlen) ||
                parse_count("--seed", value, 0, UINT64_MAX, &opt->seed, err, errlen))
                return EXIT_USAGE;
            break;
        case OPT_STRESS: {
            uint64_t runs = 0;
            if (given_twice(&seen, SEEN_STRESS, "--stress", err, errlen) ||
                parse_count("--stress", value, 1, CLI_MAX_STRESS, &runs, err, errlen))
                return EXIT_USAGE;
            opt->stress = (int)runs;
            break;
        }
        case OPT_DEVICE_MEMORY:
            if (given_twice(&seen, SEEN_DEVICE_MEMORY, "--device-memory", err, errlen) ||
                cli_parse_bytes("--device-memory", value, &opt->device_memory, err, errlen))
                return EXIT_USAGE;
            break;
        case OPT_INPUT:
        case OPT_OUTPUT: {
            const int input = code == OPT_INPUT;
            if (given_twice(&seen, input ? SEEN_INPUT : SEEN_OUTPUT,
                            input ? "--input" : "--output", err, errlen))
                return EXIT_USAGE;
            if (value[0] == '\0') { /* --input= */
                snprintf(err, errlen, "option '%s' needs a file name, e.g. %s", input ? "--input"
                         : "--output", input ? "--input data.bin" : "--output scan.bin");
                return EXIT_USAGE;
            }
            *(input ? &opt->input : &opt->output) = value;
            break;
        }
        case OPT_VARIANT: {
            char names[256];
            if (given_twice(&seen, SEEN_VARIANT, "--variant", err, errlen))
                return EXIT_USAGE;
            list_variants(prog, names, sizeof names);
            opt->variant = -2;
            if (strcmp(value, "all") == 0)
                opt->variant = -1;
            for (int v = 0; v < prog->variant_count; ++v)
                if (strcmp(value, prog->variants[v]) == 0)
                    opt->variant = v;
            if (opt->variant == -2) {
                snprintf(err, errlen, "unknown variant '%s'; this chapter has: %s, all", value,
                         names);
                return EXIT_USAGE;
            }
            break;
        }
        default: { /* a chapter's mode */
            const scan_mode *mode = &prog->modes[code - OPT_MODE];
            if (opt->mode && opt->mode != mode) {
                snprintf(err, errlen, "%s and %s are separate modes; give one of them",
                         opt->mode->option, mode->option);
                return EXIT_USAGE;
            }
            if (given_twice(&seen, SEEN_MODE, mode->option, err, errlen))
                return EXIT_USAGE;
            opt->mode = mode;
            if (mode->count) {
                uint64_t count = 0;
                if (parse_count(mode->option, value, 1, CLI_MAX_STRESS, &count, err, errlen))
                    return EXIT_USAGE;
                opt->mode_count = (int)count;
            }
            break;
        }
        }
    }
    if (optind < argc) {
        snprintf(err, errlen, "unexpected argument '%s'; options start with '-' (see './run "
                 "--help')", argv[optind]);
        return EXIT_USAGE;
    }

    if (opt->help)
        return 0;
    if (opt->mode && opt->mode->combines && opt->exclusive) {
        snprintf(err, errlen, "%s scans inclusively only; drop --exclusive", opt->mode->option);
        return EXIT_USAGE;
    }
    if (opt->stress && !prog->stress) {
        snprintf(err, errlen, "--stress is for single-pass scans, whose blocks race; %s has no "
                 "races between blocks to stress: use --self-test", prog->name);
        return EXIT_USAGE;
    }
    if (opt->output && !opt->input) {
        snprintf(err, errlen,
                 "--output needs --input: it names where to write the scan of the --input file");
        return EXIT_USAGE;
    }
    if (opt->input && opt->n_given) {
        snprintf(err, errlen, "-n and --input both set the size; give one of them");
        return EXIT_USAGE;
    }
    if (opt->input && opt->csv) {
        snprintf(err, errlen, "--csv is for the tables of a sweep or a test; --input prints no "
                 "table: drop --csv");
        return EXIT_USAGE;
    }
    if (opt->input && opt->self_test) {
        snprintf(err, errlen, "--self-test makes its own inputs; drop --input/--output");
        return EXIT_USAGE;
    }
    const int own_mode = opt->mode && !opt->mode->combines;
    if ((opt->stress != 0) + own_mode + opt->self_test + (opt->input != NULL) > 1) {
        snprintf(err, errlen, "--self-test, --stress, --input%s%s are separate modes; give one of "
                 "them", own_mode ? ", " : "", own_mode ? opt->mode->option : "");
        return EXIT_USAGE;
    }
    return 0;
}

/** Print one run of the checks line: `run` (e.g. "--float-sum --stress 100"), as make test runs
    it unless `all`: a self-test with -n 2^30 (its sizes below 2^31) where the chapter does not
    run its n > 2^31 case in make test, a stress test at most ::CLI_TEST_STRESS times. */
static void print_check(FILE *f, const scan_program *prog, const char *run, size_t len, int all)
{
    char word[64];
    int self_test = 0;
    for (size_t at = 0; at < len;) {
        size_t w = strcspn(run + at, " ");
        w = w < len - at ? w : len - at;
        snprintf(word, sizeof word, "%.*s", (int)w, run + at);
        self_test |= strcmp(word, "--self-test") == 0;
        fprintf(f, "%s%s", at ? " " : "", word);
        if (!all && strcmp(word, "--stress") == 0) { /* its count, at most CLI_TEST_STRESS */
            at += w + 1;
            w = strcspn(run + at, " ");
            w = w < len - at ? w : len - at;
            const long runs = strtol(run + at, NULL, 10);
            fprintf(f, " %ld", runs < CLI_TEST_STRESS ? runs : CLI_TEST_STRESS);
        }
        at += w + 1;
    }
    if (self_test && !all && !prog->test_big_case)
        fprintf(f, " -n 2^30");
}

/** Print the line "make test runs: …" (or, with `all`, "make test-all runs: …"): the checks
    tests/run_tests.sh runs for this chapter in that tier, separated by " | ". */
static void print_checks(FILE *f, const scan_program *prog, int all)
{
    fprintf(f, "make test%s runs: ", all ? "-all" : "");
    print_check(f, prog, "--self-test", strlen("--self-test"), all);
    if (prog->stress) {
        fprintf(f, " | ");
        print_check(f, prog, "--stress 1000", strlen("--stress 1000"), all);
    }
    for (int m = 0; m < prog->mode_count; ++m) {
        const char *test = prog->modes[m].test;
        while (test && *test) { /* several runs, separated by " | " */
            const char *bar = strstr(test, " | ");
            const size_t len = bar ? (size_t)(bar - test) : strlen(test);
            fprintf(f, " | ");
            print_check(f, prog, test, len, all);
            test = bar ? bar + 3 : test + len;
        }
    }
    fprintf(f, "\n");
}

void cli_print_help(FILE *f, const scan_program *prog)
{
    char names[256];
    list_variants(prog, names, sizeof names);
    fprintf(f, "%s: %s\n", prog->name, prog->title);
    if (prog->segment)
        fprintf(f, "Segmented scan: every %zu consecutive elements are scanned on their own.\n",
                prog->segment);
    fprintf(f,
            "\nUsage: ./run [options]\n"
            "  (no options)        sweep of default sizes: verify each, then time; print a table\n"
            "  -n N                one size: decimal, or 2^K (0 <= K <= %d)\n"
            "  --reps R            timed repetitions, median reported (default %d)\n"
            "  --seed S            input seed (default %u)\n"
            "  --self-test         correctness battery; with -n N, only sizes up to N\n"
            "  --input F           scan the int32 values in F (raw, little-endian)\n"
            "  --output G          with --input: write the result to G (G may be F): the int32\n"
            "                      scan, n values like F, unless a mode's line says otherwise\n",
            CLI_MAX_LOG2_N, prog->default_reps, CLI_DEFAULT_SEED);
    fprintf(f, "  --exclusive         exclusive scan (default: inclusive)\n");
    if (prog->device_budget)
        fprintf(f, "  --device-memory B   use at most B bytes of GPU memory (1GiB, 512MiB, 2^30, or\n"
                "                      bytes; default: what the GPU has free); larger arrays\n"
                "                      stream through it in chunks\n");
    if (prog->stress)
        fprintf(f, "  --stress R          R runs of each small grid and of 2^24, each checked\n");
    for (int m = 0; m < prog->mode_count; ++m) {
        const scan_mode *mode = &prog->modes[m];
        char left[64];
        snprintf(left, sizeof left, "%s%s%s", mode->option, mode->count ? " " : "",
                 mode->count ? mode->count : "");
        fprintf(f, "  %-19s %s\n", left, mode->help);
        if (mode->combines && m + 1 == prog->mode_count)
            fprintf(f, "  %-19s (each of these combines with --self-test, --stress R, --input F, "
                    "-n N)\n", "");
    }
    fprintf(f,
            "  --variant NAME      one of: %s, all (default: all, side by side)\n"
            "  --csv               machine-readable rows instead of the table\n"
            "  --help              this text\n"
            "Long options may be shortened while unambiguous (--self for --self-test); -n10 is\n"
            "-n 10; -- ends the options.\n"
            "\nExit status: 0 success, 1 a result was wrong, 2 bad usage or input, %s"
            "(disk full, I/O error: --output keeps the file it would replace).\n",
            names, prog->host_only ? "4 a write failed\n  "
                                   : "3 CUDA trouble,\n  4 a write failed ");
    print_checks(f, prog, 0);
    print_checks(f, prog, 1);
}

/** 1 once a failed write has been reported: the exit handler then says nothing more. */
static int write_failure_reported = 0;

void cli_fail(int status, const char *fmt, ...)
{
    va_list args;
    write_failure_reported = status == EXIT_WRITE;
    fflush(stdout);
    fputs("run: ", stderr);
    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);
    fputc('\n', stderr);
    exit(status);
}

/** At exit: a report that did not reach standard output is a failure (exit ::EXIT_WRITE). */
static void check_stdout(void)
{
    errno = 0;
    if ((fflush(stdout) != 0 || ferror(stdout)) && !write_failure_reported) {
        const int e = errno;
        fprintf(stderr, "run: cannot write standard output: %s; the report is incomplete\n",
                e ? strerror(e) : "a write failed");
        _exit(EXIT_WRITE); /* exit() may not be called again from an exit handler */
    }
}

void cli_parse_or_exit(int argc, char **argv, const scan_program *prog, scan_options *opt)
{
    char err[512];
    atexit(check_stdout);
    if (cli_parse(argc, argv, prog, opt, err, sizeof err))
        cli_fail(EXIT_USAGE, "%s", err);
    if (opt->help) {
        cli_print_help(stdout, prog);
        exit(EXIT_OK);
    }
}

int cli_variant_selected(const scan_options *opt, int v)
{
    return opt->variant < 0 || opt->variant == v;
}
