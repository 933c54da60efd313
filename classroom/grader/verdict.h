/**
 * \file verdict.h
 * \brief How a harness receives its run's secret from the grader, and how it says its verdicts
 *        so that the student's code, which runs in the same process and writes to the same
 *        stdout, cannot forge them (classroom/runs.py, Sandbox.harness()).
 *
 * The grader makes a pipe for each harness run, writes one line into it, `TOKEN SEED` (a fresh
 * random token of 32 hex digits, and this run's seed: a hash of the instructor's GRADE_SEED
 * and the run's name, which tells nothing of GRADE_SEED or of other runs), closes its end, and
 * names the descriptor in GRADE_FD. A constructor of this file reads the line and closes the
 * pipe before main(), so before any of the student's code runs; a student's code that read it
 * first would leave the harness without a token, and the grader would find no verdict (a
 * failure). Each verdict is one line `[grader TOKEN] text`; the grader believes only the lines
 * with its token, wherever they start, and counts a missing verdict as a failure.
 * Run by hand (no GRADE_FD), the token is `none`, which the grader never accepts.
 */
#ifndef GRADER_VERDICT_H
#define GRADER_VERDICT_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_token[33] = "none";
static uint64_t g_run_seed;
static int g_run_seed_given;

/** Read `TOKEN SEED` from the descriptor GRADE_FD names, then close it (before main()). */
__attribute__((constructor(101))) static void grader_pipe_read(void)
{
    const char *fd_text = getenv("GRADE_FD");
    if (!fd_text || !*fd_text)
        return;
    const int fd = atoi(fd_text);
    char line[128];
    size_t got = 0;
    ssize_t k;
    while (got < sizeof line - 1 && (k = read(fd, line + got, sizeof line - 1 - got)) > 0)
        got += (size_t)k;
    close(fd);
    line[got] = '\0';
    char token[40];
    unsigned long long seed;
    if (sscanf(line, "%39s %llu", token, &seed) == 2 && strlen(token) == 32) {
        memcpy(g_token, token, 33);
        g_run_seed = seed;
        g_run_seed_given = 1;
    }
}

/** This run's seed from the grader, else `fallback` (a run by hand). */
static uint64_t run_seed(uint64_t fallback)
{
    return g_run_seed_given ? g_run_seed : fallback;
}

/** Print one verdict line with the token, in one write, after what stdout holds. */
static void verdict(const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    const int at = snprintf(text, sizeof text, "[grader %s] ", g_token);
    vsnprintf(text + at, sizeof text - (size_t)at - 1, fmt, ap);
    va_end(ap);
    strcat(text, "\n");
    fflush(stdout);
    const char *p = text;
    size_t left = strlen(text);
    while (left) {
        const ssize_t k = write(STDOUT_FILENO, p, left);
        if (k <= 0)
            break;
        p += k;
        left -= (size_t)k;
    }
}

#endif
