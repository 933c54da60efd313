/**
 * \file report.h
 * \brief Tables and CSV, the numbers in them (GB/s, % of memcpy), medians and the host clock
 *        (docs/CONVENTIONS.md §6).
 *
 * Throughput always counts the minimum traffic of any scan, one read and one write of every
 * element, 2·n·4 bytes, whatever the algorithm really moves; a chapter that moves more shows it
 * as a lower GB/s. "% of memcpy" divides the copy's time for the same n, measured in the same run,
 * by the scan's time: 100 % means the scan runs as fast as copying its input.
 *
 * A median alone does not say whether the runs agreed. Every timed row also carries the spread of
 * its runs and of its memcpy's runs, (p75 − p25) / median (the relative interquartile range), and
 * a `noise` cell that marks a row whose spread is above ::NOISE_SPREAD, or that claims more than
 * 100 % of memcpy: such a row is noise (a busy machine, a copy slowed by something else), not a
 * result. The tables and CSV print these beside the numbers; `make bench` refuses to write
 * docs/results from a run with a noisy row unless told to.
 */
#ifndef SCAN_REPORT_H
#define SCAN_REPORT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One column of a report. */
typedef struct report_column {
    const char *title;  /**< header text; also the CSV field name */
    int width;          /**< table column width; negative for left-aligned */
} report_column;

/** \brief Print the header: column titles and a rule, or the CSV header line. */
void report_header(FILE *f, const report_column *cols, int ncols, int csv);

/** \brief Print one row of `ncols` already formatted cells. */
void report_row(FILE *f, const report_column *cols, int ncols, int csv, const char *const *cells);

/**
 * \brief The line that ends a table: "summary: N rows checked, W wrong, K noisy", counted from
 *        every report_row() so far whose table has a `check` column (a row whose check is "-",
 *        a memcpy, is not counted) and, where the table has one, a `noise` column (a cell other
 *        than "-" is noisy). As a note: behind "# " in CSV.
 */
void report_summary(FILE *f, int csv);

/**
 * \brief Print an informational line: as is in a table, behind "# " in CSV, so that a CSV reader
 *        can skip it.
 */
void report_note(FILE *f, int csv, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** \brief Format n as "2^K" when it is a power of two of at least 2^10, else in decimal. */
const char *format_size(size_t n, char *buf, size_t len);

/** \brief Bytes every scan must move: 2·n·4 (read each element once, write it once). */
double scan_min_bytes(size_t n);

/** \brief Throughput in GB/s (10^9 bytes per second) of `bytes` moved in `ms` milliseconds. */
double gb_per_s(double bytes, double ms);

/** \brief Median of `count` values (sorts `values` in place); 0 when count is 0. */
double median(double *values, int count);

/** A spread of the runs above this, (p75 − p25) / median, marks a timed row as noisy. */
#define NOISE_SPREAD 0.20

/** What a series of timed runs says: their median, and how much they disagree. */
typedef struct timing {
    double median;  /**< the median run */
    double spread;  /**< (p75 − p25) / median, quartiles interpolated between runs; 0 for one run
                         or a median of 0 */
} timing;

/** \brief The median and spread of `count` values (sorts `values` in place). */
timing timing_of(double *values, int count);

/** \brief The spread as a table cell: percent with one decimal ("-" when `timed` is 0). */
const char *format_spread(timing t, int timed, char *buf, size_t len);

/**
 * \brief The `noise` cell of a timed row: "-" when nothing is wrong; "noisy" when its spread or
 *        its memcpy's is above ::NOISE_SPREAD; "over-memcpy" when `pct_memcpy` is above 100 (a
 *        scan cannot move less than a copy of the same n: the copy's time was disturbed); both
 *        joined by "+". "-" too when `timed` is 0 (n = 0: nothing timed).
 */
const char *noise_flag(timing row, timing copy, double pct_memcpy, int timed);

/** \brief The line above a timed table that says what its spread and noise columns mean. */
void report_noise_note(FILE *f, int csv);

/** \brief Monotonic host clock in seconds. */
double host_seconds(void);

#ifdef __cplusplus
}
#endif

#endif /* SCAN_REPORT_H */
