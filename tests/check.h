/**
 * \file check.h
 * \brief The one assertion of the unit tests: count a check, report a failed one, keep going.
 *
 * Each test program is a single file that includes this once; main() prints the two counters
 * and exits non-zero when `failures` is not 0.
 */
#ifndef SCAN_TESTS_CHECK_H
#define SCAN_TESTS_CHECK_H

#include <stdio.h>

/** Checks run so far. */
static int checks = 0;
/** Checks that failed. */
static int failures = 0;

/** Count a check; report it, with its place and text, when `cond` is false. */
#define CHECK(cond)                                                                               \
    do {                                                                                          \
        ++checks;                                                                                 \
        if (!(cond)) {                                                                            \
            ++failures;                                                                           \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                                \
        }                                                                                         \
    } while (0)

#endif /* SCAN_TESTS_CHECK_H */
