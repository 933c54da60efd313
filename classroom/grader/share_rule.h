/**
 * \file share_rule.h
 * \brief The work-sharing judge's rule (harness_cpu.c, timing_finding()): from the speed-ups over
 *        the judge's serial scan of the course's own scan (the yardstick, in its median round) and
 *        of the part's threaded variant (in its fastest round), on the same T threads, whether the
 *        part shares the work, does not, or cannot be told here.
 *
 * The numbers behind the thresholds are H200 runs of docs/experiments/share_timing.py (the course's
 * part and the second gaming review's T2, a serial scan whose other threads touch its pages), kept
 * in docs/experiments/runs_2026-12-04e/; classroom/tests/judge_cases.py replays them through
 * share_rule() on every run of the kit's test.
 */
#ifndef SHARE_RULE_H
#define SHARE_RULE_H

/** The yardstick must gain this much in its median round, or the machine (its cores, its load)
    cannot tell a shared scan from a serial one. The course's two-pass scan moves 3n elements to a
    serial scan's 2n, so it gains 2x only on several idle cores (on the H200's 16: at 7 threads,
    rarely at 4, never at 3). */
#define YARD_MIN 2.0
/** A part that gains less than this in its fastest round, where the yardstick gained YARD_MIN,
    did the scan on one thread. */
#define PART_MIN 1.15
/** A part says "shared" only where it gained at least this share of the yardstick's gain; between
    PART_MIN and this it is not decided here, with no deduction. On a crowded H200, T2 gained
    1.21x-1.36x, up to 0.59 of the yardstick's gain, the course's own part never less than 0.83. */
#define PART_OF_YARD 0.7

enum share_finding {
    SHARE_ONE_THREAD = 1, /* flagged: the part gained nothing where the machine could tell */
    SHARE_SHARED = 0,
    SHARE_NOT_TIMED = -1, /* the machine could not tell: the yardstick gained too little */
    SHARE_TOO_SLOW = -2   /* a gain, but too small beside the yardstick's to call it shared */
};

static inline enum share_finding share_rule(double yard_median, double part)
{
    if (yard_median < YARD_MIN)
        return SHARE_NOT_TIMED;
    if (part < PART_MIN)
        return SHARE_ONE_THREAD;
    if (part < PART_OF_YARD * yard_median)
        return SHARE_TOO_SLOW;
    return SHARE_SHARED;
}

#endif /* SHARE_RULE_H */
