/**
 * \file cpu_threads.c
 * \brief Chapter 01's two-pass threaded scan, for chapter 13's `cpu-threads` row: compiled from
 *        chapter 01's own source, its `main` renamed, so that the row runs chapter 01's code
 *        itself, not a copy of it.
 */
/** Chapter 01's `main`, renamed: chapter 13 has its own. */
#define main chapter01_main
#include "../01_cpu_serial/cpu_serial.c"
#undef main

/** \brief Chapter 01's scan_threads() under a name chapter 13 can call (`in` may be `out`). */
void chapter01_scan_threads(const int32_t *in, int32_t *out, size_t n, int exclusive);

void chapter01_scan_threads(const int32_t *in, int32_t *out, size_t n, int exclusive)
{
    scan_threads(in, out, n, exclusive);
}
