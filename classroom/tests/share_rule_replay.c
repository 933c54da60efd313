/**
 * \file share_rule_replay.c
 * \brief The judge's rule (classroom/grader/share_rule.h) on timings given as lines
 *        `THREADS YARD_MEDIAN PART` on stdin: one finding per line on stdout (1 one
 *        thread, 0 shared, -1 not timed, -2 too slow to tell, -3 too few threads). judge_cases.py feeds it the H200's kept timings.
 */
#include "share_rule.h"

#include <stdio.h>

int main(void)
{
    int threads;
    double yard_median, part;
    while (scanf("%d %lf %lf", &threads, &yard_median, &part) == 3)
        printf("%d\n", (int)share_rule(threads, yard_median, part));
    return 0;
}
