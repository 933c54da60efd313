/**
 * \file share_rule.h
 * \brief The work-sharing judge's rule (harness_cpu.c, timing_finding()): from the speed-ups over
 *        the judge's serial scan of the course's own scan (the yardstick, in its median round) and
 *        of the part's threaded variant (in its fastest round), on the same T threads, whether the
 *        part shares the work, does not, or cannot be told here.
 *
 * The numbers below are H200 runs (docs/experiments/runs_2026-12-04e/: share_timing.py's timings
 * of the course's part and of the second gaming review's T2, a serial scan whose other threads
 * touch its pages, and the course's part in the grades of make test). classroom/tests/
 * judge_cases.py replays them through share_rule() on every run of the kit's test: a check that
 * the rule still says what it said of them, not an independent test (the last two thresholds
 * were chosen from them).
 */
#ifndef SHARE_RULE_H
#define SHARE_RULE_H

/** The yardstick must gain this much over the judge's serial scan in its median round, or the
    machine (its cores, its load) cannot tell a shared scan from a serial one. Chosen before the
    H200 runs and kept. The gain is over the judge's own serial scan, which a crowded machine
    slows too (its CPU time hides waiting for a CPU, not for memory): on the H200 the yardstick
    reached it at 7 threads in 5 idle runs of 6 and in 19 of 20 of a slower set, at 4 threads
    only in the slower set (4 runs of 20) and in 3 of make test's 7 grades, at 3 never. */
#define YARD_MIN 2.0
/** A part that gains less than this in its fastest round, where the yardstick gained YARD_MIN
    in its median round, is judged to have done the scan on one thread. Chosen before the H200
    runs and kept: where the yardstick reached YARD_MIN, the course's part gained 1.84x or more. */
#define PART_MIN 1.15
/** "Shared" is said only of a run of this many threads or more. A serial part's gain over the
    judge's serial scan rose with that scan's slowness; against the yardstick on the same
    threads T2 stayed at most 0.67 of the yardstick's gain at 7 threads, in every run, but at 4
    threads it reached 0.76 where the yardstick gained 1.86x, near YARD_MIN (share_timing_2.csv).
    The grader runs 3, 4 and 7 threads. */
#define SHARE_MIN_THREADS 7
/** And "shared" needs the part to gain this share of the yardstick's gain or more (its fastest
    round against the yardstick's median round: the judge's serial scan cancels out). Chosen
    after the H200 runs: at 7 threads T2 reached at most 0.50 of it where the yardstick gained
    YARD_MIN, the course's part at least 0.98. */
#define PART_OF_YARD 0.7

enum share_finding {
    SHARE_ONE_THREAD = 1, /* flagged: the part gained nothing where the machine could tell */
    SHARE_SHARED = 0,
    SHARE_NOT_TIMED = -1,   /* the machine could not tell: the yardstick gained too little */
    SHARE_TOO_SLOW = -2,    /* a gain, but too small beside the yardstick's to call it shared */
    SHARE_FEW_THREADS = -3  /* a gain, on too few threads to call it shared */
};

static inline enum share_finding share_rule(int threads, double yard_median, double part)
{
    if (yard_median < YARD_MIN)
        return SHARE_NOT_TIMED;
    if (part < PART_MIN)
        return SHARE_ONE_THREAD;
    if (threads < SHARE_MIN_THREADS)
        return SHARE_FEW_THREADS;
    if (part < PART_OF_YARD * yard_median)
        return SHARE_TOO_SLOW;
    return SHARE_SHARED;
}

#endif /* SHARE_RULE_H */
