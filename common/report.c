/**
 * \file report.c
 * \brief Table and CSV output, throughput arithmetic, median and the host clock.
 */
#define _POSIX_C_SOURCE 200809L

#include "report.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void report_header(FILE *f, const report_column *cols, int ncols, int csv)
{
    int total = 0;
    for (int c = 0; c < ncols; ++c) {
        if (csv)
            fprintf(f, "%s%s", c ? "," : "", cols[c].title);
        else
            fprintf(f, "%s%*s", c ? "  " : "", c + 1 < ncols ? cols[c].width : 0, cols[c].title);
        total += abs(cols[c].width) + (c ? 2 : 0);
    }
    fputc('\n', f);
    if (!csv) {
        for (int i = 0; i < total; ++i)
            fputc('-', f);
        fputc('\n', f);
    }
}

/** What the rows printed so far say, for report_summary(). */
static struct {
    long checked, wrong, noisy; /* rows with a check cell; of them, WRONG and marked noisy */
    int has_noise;              /* a table with a noise column was printed */
} tally;

void report_row(FILE *f, const report_column *cols, int ncols, int csv, const char *const *cells)
{
    const char *check = NULL, *noise = NULL;
    for (int c = 0; c < ncols; ++c) {
        if (strcmp(cols[c].title, "check") == 0)
            check = cells[c];
        else if (strcmp(cols[c].title, "noise") == 0)
            noise = cells[c];
    }
    if (check && strcmp(check, "-") != 0) { /* a memcpy row checks nothing */
        ++tally.checked;
        tally.wrong += strcmp(check, "ok") != 0;
        tally.noisy += noise && strcmp(noise, "-") != 0;
    }
    tally.has_noise |= noise != NULL;
    for (int c = 0; c < ncols; ++c) {
        if (csv)
            fprintf(f, "%s%s", c ? "," : "", cells[c]);
        else /* the last column is not padded: no trailing blanks */
            fprintf(f, "%s%*s", c ? "  " : "", c + 1 < ncols ? cols[c].width : 0, cells[c]);
    }
    fputc('\n', f);
    fflush(f);
}

void report_summary(FILE *f, int csv)
{
    if (tally.has_noise)
        report_note(f, csv, "summary: %ld rows checked, %ld wrong, %ld noisy", tally.checked,
                    tally.wrong, tally.noisy);
    else
        report_note(f, csv, "summary: %ld rows checked, %ld wrong (this table marks no noise)",
                    tally.checked, tally.wrong);
}

void report_note(FILE *f, int csv, const char *fmt, ...)
{
    va_list args;
    if (csv)
        fputs("# ", f);
    va_start(args, fmt);
    vfprintf(f, fmt, args);
    va_end(args);
    fputc('\n', f);
}

const char *format_size(size_t n, char *buf, size_t len)
{
    if (n >= 1024 && (n & (n - 1)) == 0) {
        int k = 0;
        while (((size_t)1 << k) != n)
            ++k;
        snprintf(buf, len, "2^%d", k);
    } else {
        snprintf(buf, len, "%zu", n);
    }
    return buf;
}

double scan_min_bytes(size_t n)
{
    return 2.0 * (double)n * 4.0;
}

double gb_per_s(double bytes, double ms)
{
    return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0;
}

/** qsort comparison for doubles. */
static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median(double *values, int count)
{
    if (count <= 0)
        return 0.0;
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    if (count % 2)
        return values[count / 2];
    return 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/** The p-quantile (0 ≤ p ≤ 1) of `count` sorted values, interpolated between neighbours. */
static double quantile(const double *sorted, int count, double p)
{
    const double h = (double)(count - 1) * p;
    const int below = (int)h;
    if (below + 1 >= count)
        return sorted[count - 1];
    return sorted[below] + (h - (double)below) * (sorted[below + 1] - sorted[below]);
}

timing timing_of(double *values, int count)
{
    timing t = {0.0, 0.0};
    if (count <= 0)
        return t;
    t.median = median(values, count); /* sorts */
    if (t.median > 0)
        t.spread = (quantile(values, count, 0.75) - quantile(values, count, 0.25)) / t.median;
    return t;
}

const char *format_spread(timing t, int timed, char *buf, size_t len)
{
    snprintf(buf, len, timed ? "%.1f" : "-", 100.0 * t.spread);
    return buf;
}

const char *noise_flag(timing row, timing copy, double pct_memcpy, int timed)
{
    const int noisy = row.spread > NOISE_SPREAD || copy.spread > NOISE_SPREAD;
    const int over = pct_memcpy > 100.05; /* 100.0 as printed is the copy itself */
    if (!timed || (!noisy && !over))
        return "-";
    return noisy && over ? "noisy+over-memcpy" : noisy ? "noisy" : "over-memcpy";
}

void report_noise_note(FILE *f, int csv)
{
    report_note(f, csv, "spread_pct, memcpy_spread_pct: (p75-p25)/median of the row's runs and of "
                "its memcpy's; noise: 'noisy' above %.0f %%, 'over-memcpy' above 100 %% of memcpy: "
                "such a row is not a result (rerun on an idle machine, or with more --reps)",
                100.0 * NOISE_SPREAD);
}

double host_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
