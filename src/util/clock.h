/*
 * clock.h - the one clock perfgate reads outside the timing loop: monotonic
 * nanoseconds, for timeouts, progress and how long things took.
 */
#ifndef PG_CLOCK_H
#define PG_CLOCK_H

#include <stdint.h>

/* Nanoseconds of CLOCK_MONOTONIC. */
int64_t pg_now_ns(void);

#endif
